// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/ToolWindowFactory.kt (Kotlin in the 2025 form read, Java in older ones; this is its JVM form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import com.intellij.openapi.project.PossiblyDumbAware;
import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public interface ToolWindowFactory extends PossiblyDumbAware {
  void createToolWindowContent(@NotNull Project project, @NotNull ToolWindow toolWindow);
}
