// Stub of intellij-community platform/core-api/src/com/intellij/openapi/command/WriteCommandAction.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.command;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.NlsContexts;
import com.intellij.openapi.util.ThrowableComputable;
import com.intellij.util.ThrowableRunnable;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class WriteCommandAction<T> {
  public interface Builder {
    @Contract(pure = true)
    @NotNull Builder withName(@Nullable @NlsContexts.Command String name);

    <E extends Throwable> void run(@NotNull ThrowableRunnable<E> action) throws E;

    <R, E extends Throwable> R compute(@NotNull ThrowableComputable<R, E> action) throws E;
  }

  @Contract(pure = true)
  public static @NotNull Builder writeCommandAction(Project project) { throw new UnsupportedOperationException("stub"); }
}
