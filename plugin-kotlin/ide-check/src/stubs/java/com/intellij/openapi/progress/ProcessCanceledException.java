// Stub of intellij-community platform/util/src/com/intellij/openapi/progress/ProcessCanceledException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;

import java.util.concurrent.CancellationException;

// A CancellationException in the 2023+ forms (RuntimeException in older ones); implements ControlFlowException there (left out).
public class ProcessCanceledException extends CancellationException {
  public ProcessCanceledException() { throw new UnsupportedOperationException("stub"); }
}
