// Stub of intellij-community platform/editor-ui-api/src/com/intellij/openapi/actionSystem/AnActionEvent.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.actionSystem;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class AnActionEvent {
  public @Nullable Project getProject() { throw new UnsupportedOperationException("stub"); }
  public @NotNull Presentation getPresentation() { throw new UnsupportedOperationException("stub"); }
}
