// Stub of intellij-community platform/util/base/src/com/intellij/openapi/util/Segment.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import org.jetbrains.annotations.Contract;

public interface Segment {
  @Contract(pure = true)
  int getStartOffset();

  @Contract(pure = true)
  int getEndOffset();
}
