// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/Application.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import com.intellij.openapi.components.ComponentManager;
import com.intellij.openapi.progress.ProcessCanceledException;
import com.intellij.openapi.util.Condition;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import org.jetbrains.annotations.NotNull;

public interface Application extends ComponentManager {
  void invokeLater(@NotNull Runnable runnable);
  void invokeLater(@NotNull Runnable runnable, @NotNull Condition<?> expired);
  void invokeLater(@NotNull Runnable runnable, @NotNull ModalityState state);
  // Used by ide-check's AgentPathCheckTest fixture only: the adapter never waits for the EDT without a bound.
  void invokeAndWait(@NotNull Runnable runnable, @NotNull ModalityState modalityState) throws ProcessCanceledException;
  @NotNull Future<?> executeOnPooledThread(@NotNull Runnable action);
  @NotNull <T> Future<T> executeOnPooledThread(@NotNull Callable<T> action);
}
