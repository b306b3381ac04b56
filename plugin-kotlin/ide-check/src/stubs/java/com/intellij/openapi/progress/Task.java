// Stub of intellij-community platform/core-api/src/com/intellij/openapi/progress/Task.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.NlsContexts;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

// run(ProgressIndicator) is Progressive's there, not redeclared by Task; TaskInfo is left out (no member of it is used).
public abstract class Task implements Progressive {
  public final void queue() { throw new UnsupportedOperationException("stub"); }

  public abstract static class Backgroundable extends Task {
    public Backgroundable(@Nullable Project project, @NlsContexts.ProgressTitle @NotNull String title, boolean canBeCancelled) { throw new UnsupportedOperationException("stub"); }
  }
}
