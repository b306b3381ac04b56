// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/NonBlockingReadAction.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import com.intellij.openapi.Disposable;
import com.intellij.openapi.progress.ProcessCanceledException;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public interface NonBlockingReadAction<T> {
  @Contract(pure = true)
  @NotNull NonBlockingReadAction<T> expireWith(@NotNull Disposable parentDisposable);

  T executeSynchronously() throws ProcessCanceledException;
}
