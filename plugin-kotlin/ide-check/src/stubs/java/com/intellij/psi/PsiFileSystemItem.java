// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiFileSystemItem.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.NlsSafe;
import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NotNull;

public interface PsiFileSystemItem extends PsiNamedElement {
  @Override
  @NotNull @NlsSafe String getName();
  VirtualFile getVirtualFile();
}
