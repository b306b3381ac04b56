// Stub of intellij-community platform/util/src/com/intellij/util/IncorrectOperationException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;

import org.jetbrains.annotations.NonNls;

public class IncorrectOperationException extends RuntimeException {
  public IncorrectOperationException(@NonNls String message) { throw new UnsupportedOperationException("stub"); }
}
