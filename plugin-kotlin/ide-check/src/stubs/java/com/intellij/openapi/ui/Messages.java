// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/ui/Messages.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.ui;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.NlsContexts;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class Messages {
  // Used by ide-check's AgentPathCheckTest fixture only: no agent path may open a dialog.
  public static void showErrorDialog(@Nullable Project project, @NlsContexts.DialogMessage String message, @NotNull @NlsContexts.DialogTitle String title) { throw new UnsupportedOperationException("stub"); }
  public static void showInfoMessage(@Nullable Project project, @NlsContexts.DialogMessage String message, @NotNull @NlsContexts.DialogTitle String title) { throw new UnsupportedOperationException("stub"); }
}
