// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/ApplicationManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;


public class ApplicationManager {
  public static Application getApplication() { throw new UnsupportedOperationException("stub"); }
}
