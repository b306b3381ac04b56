// Stub of intellij-community platform/core-api/src/com/intellij/psi/search/GlobalSearchScope.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search;

import com.intellij.openapi.module.UnloadedModuleDescription;
import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

import java.util.Collection;

public abstract class GlobalSearchScope extends SearchScope {
  @Contract(pure = true)
  public static @NotNull GlobalSearchScope allScope(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  public static @NotNull GlobalSearchScope projectScope(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }

  // @NotNull in the 2020s forms (an @Unmodifiable is added in the newest jar form; the 2017 form has neither).
  public @NotNull Collection<UnloadedModuleDescription> getUnloadedModulesBelongingToScope() { throw new UnsupportedOperationException("stub"); }
}
