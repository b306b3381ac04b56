// Stub of intellij-community platform/core-api/src/com/intellij/openapi/progress/ProgressIndicator.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;


public interface ProgressIndicator {
  void cancel();
  boolean isCanceled();
}
