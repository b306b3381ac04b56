// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/ReadAction.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import java.util.concurrent.Callable;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public abstract class ReadAction<T> {
  @Contract(pure = true)
  public static @NotNull <T> NonBlockingReadAction<T> nonBlocking(@NotNull Callable<? extends T> task) { throw new UnsupportedOperationException("stub"); }
}
