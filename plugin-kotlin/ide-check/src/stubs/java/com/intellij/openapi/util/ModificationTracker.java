// Stub of intellij-community platform/core-api/src/com/intellij/openapi/util/ModificationTracker.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;


public interface ModificationTracker {
  long getModificationCount();
}
