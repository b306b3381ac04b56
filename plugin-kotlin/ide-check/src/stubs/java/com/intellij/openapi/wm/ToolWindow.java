// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/ToolWindow.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import com.intellij.ui.content.ContentManager;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface ToolWindow {
  void activate(@Nullable Runnable runnable);
  boolean isVisible();
  @NotNull ContentManager getContentManager();
}
