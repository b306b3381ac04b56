// Stub of intellij-community platform/util/src/com/intellij/openapi/util/Disposer.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import com.intellij.openapi.Disposable;
import com.intellij.util.IncorrectOperationException;
import org.jetbrains.annotations.NotNull;

public final class Disposer {
  private Disposer() { throw new UnsupportedOperationException("stub"); }
  public static void register(@NotNull Disposable parent, @NotNull Disposable child) throws IncorrectOperationException { throw new UnsupportedOperationException("stub"); }
  public static void dispose(@NotNull Disposable disposable) { throw new UnsupportedOperationException("stub"); }
}
