// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/ui/DialogWrapper.java (a 2010s form): used by ide-check's AgentPathCheckTest fixture only, since no agent path may show a dialog; signatures only.
package com.intellij.openapi.ui;

import com.intellij.openapi.project.Project;
import javax.swing.JComponent;
import org.jetbrains.annotations.Nullable;

public abstract class DialogWrapper {
  protected DialogWrapper(@Nullable Project project) { throw new UnsupportedOperationException("stub"); }

  public boolean showAndGet() { throw new UnsupportedOperationException("stub"); }

  protected abstract @Nullable JComponent createCenterPanel();
}
