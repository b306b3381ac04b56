// Stub of intellij-community platform/util/src/com/intellij/openapi/diagnostic/Logger.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.diagnostic;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.Nullable;

public abstract class Logger {
  public abstract void warn(@NonNls String message, @Nullable Throwable t);
}
