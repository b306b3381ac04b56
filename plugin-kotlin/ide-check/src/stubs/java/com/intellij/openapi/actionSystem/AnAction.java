// Stub of intellij-community platform/editor-ui-api/src/com/intellij/openapi/actionSystem/AnAction.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.actionSystem;

import com.intellij.openapi.project.PossiblyDumbAware;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;

public abstract class AnAction implements PossiblyDumbAware, ActionUpdateThreadAware {
  public AnAction() { throw new UnsupportedOperationException("stub"); }
  @ApiStatus.OverrideOnly
  public void update(@NotNull AnActionEvent e) { throw new UnsupportedOperationException("stub"); }
  public abstract void actionPerformed(@NotNull AnActionEvent e);
  @Override
  public @NotNull ActionUpdateThread getActionUpdateThread() { throw new UnsupportedOperationException("stub"); }
}
