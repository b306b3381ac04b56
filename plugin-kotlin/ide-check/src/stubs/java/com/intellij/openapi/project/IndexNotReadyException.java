// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/IndexNotReadyException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;


public class IndexNotReadyException extends RuntimeException {
  public IndexNotReadyException() { throw new UnsupportedOperationException("stub"); }
}
