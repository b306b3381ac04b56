// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiDirectory.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface PsiDirectory extends PsiFileSystemItem {
  @Override
  @NotNull VirtualFile getVirtualFile();
  @Nullable PsiFile findFile(@NotNull @NonNls String name);
}
