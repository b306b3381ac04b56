// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/StatusBarWidgetFactory.java (isAvailable, canBeEnabledOn and disposeWidget are defaults in current trees, abstract in the 2020 form read at 0ccacbde; the adapter overrides all three, so either compiles and links): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.NlsContexts;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;

public interface StatusBarWidgetFactory {
  @NonNls @NotNull String getId();

  @NlsContexts.ConfigurableName @NotNull String getDisplayName();

  default boolean isAvailable(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }

  default boolean canBeEnabledOn(@NotNull StatusBar statusBar) { throw new UnsupportedOperationException("stub"); }

  @NotNull StatusBarWidget createWidget(@NotNull Project project);

  default void disposeWidget(@NotNull StatusBarWidget widget) { }
}
