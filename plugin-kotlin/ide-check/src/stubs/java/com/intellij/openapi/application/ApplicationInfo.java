// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/ApplicationInfo.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import com.intellij.openapi.util.BuildNumber;

public abstract class ApplicationInfo {
  public static ApplicationInfo getInstance() { throw new UnsupportedOperationException("stub"); }
  public abstract BuildNumber getBuild();
}
