// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/ToolWindowManager.kt (Kotlin there; a Java stub of its JVM signatures): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class ToolWindowManager {
  public static @NotNull ToolWindowManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract @Nullable ToolWindow getToolWindow(@NonNls @Nullable String id);
}
