// Stub of intellij-community platform/util/src/com/intellij/openapi/progress/ProcessCanceledException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;


public class ProcessCanceledException extends RuntimeException {
  public ProcessCanceledException() { throw new UnsupportedOperationException("stub"); }
}
