// Stub of intellij-community platform/util/src/com/intellij/util/IncorrectOperationException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;


public class IncorrectOperationException extends RuntimeException {
  public IncorrectOperationException(String message) { throw new UnsupportedOperationException("stub"); }
}
