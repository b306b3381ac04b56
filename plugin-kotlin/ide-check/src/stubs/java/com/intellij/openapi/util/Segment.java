// Stub of intellij-community platform/util/base/src/com/intellij/openapi/util/Segment.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;


public interface Segment {
  int getStartOffset();
  int getEndOffset();
}
