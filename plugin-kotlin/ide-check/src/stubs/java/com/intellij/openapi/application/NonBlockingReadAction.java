// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/NonBlockingReadAction.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import com.intellij.openapi.Disposable;
import com.intellij.openapi.progress.ProcessCanceledException;
import com.intellij.openapi.progress.ProgressIndicator;
import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public interface NonBlockingReadAction<T> {
  @Contract(pure = true)
  @NotNull NonBlockingReadAction<T> withDocumentsCommitted(@NotNull Project project);

  @Contract(pure = true)
  @NotNull NonBlockingReadAction<T> expireWith(@NotNull Disposable parentDisposable);

  @Contract(pure = true)
  @NotNull NonBlockingReadAction<T> wrapProgress(@NotNull ProgressIndicator progressIndicator);

  T executeSynchronously() throws ProcessCanceledException;
}
