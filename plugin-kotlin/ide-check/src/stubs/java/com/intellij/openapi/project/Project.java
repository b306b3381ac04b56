// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/Project.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;

import com.intellij.openapi.components.ComponentManager;
import com.intellij.openapi.util.NlsSafe;
import com.intellij.util.messages.MessageBus;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

// AreaInstance, the other supertype there, is left out (no member of it is used).
@ApiStatus.NonExtendable
public interface Project extends ComponentManager {
  @NotNull @NlsSafe String getName();
  @Nullable @NonNls String getBasePath(); // also @SystemIndependent there (IntelliJ's own annotation, not in org.jetbrains:annotations)
  @Override
  @NotNull MessageBus getMessageBus();
}
