// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiFile.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NotNull;

public interface PsiFile extends PsiFileSystemItem {
  @Override
  VirtualFile getVirtualFile();
  PsiDirectory getContainingDirectory();
  @NotNull FileViewProvider getViewProvider();
}
