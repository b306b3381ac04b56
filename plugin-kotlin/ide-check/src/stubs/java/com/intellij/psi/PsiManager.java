// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class PsiManager {
  public static @NotNull PsiManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract @Nullable PsiFile findFile(@NotNull VirtualFile file);
  public abstract @Nullable PsiDirectory findDirectory(@NotNull VirtualFile file);
}
