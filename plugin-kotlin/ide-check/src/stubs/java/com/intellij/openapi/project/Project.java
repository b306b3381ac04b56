// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/Project.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;

import com.intellij.openapi.components.ComponentManager;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface Project extends ComponentManager {
  @NotNull String getName();
  @Nullable String getBasePath();
}
