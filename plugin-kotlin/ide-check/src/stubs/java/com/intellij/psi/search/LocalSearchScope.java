// Stub of intellij-community platform/core-api/src/com/intellij/psi/search/LocalSearchScope.java (read at 02691534, 2025): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search;

import com.intellij.openapi.vfs.VirtualFile;
import com.intellij.psi.PsiElement;
import org.jetbrains.annotations.NotNull;

public class LocalSearchScope extends SearchScope {
  public LocalSearchScope(@NotNull PsiElement scope) { throw new UnsupportedOperationException("stub"); }

  @Override
  public boolean contains(@NotNull VirtualFile file) { throw new UnsupportedOperationException("stub"); }
}
