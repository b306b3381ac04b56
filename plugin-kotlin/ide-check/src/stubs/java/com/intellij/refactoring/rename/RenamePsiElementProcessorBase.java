// Stub of intellij-community platform/lang-api/src/com/intellij/refactoring/rename/RenamePsiElementProcessorBase.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.psi.PsiElement;
import com.intellij.util.containers.MultiMap;
import java.util.Map;
import org.jetbrains.annotations.NotNull;

public abstract class RenamePsiElementProcessorBase {
  public void findExistingNameConflicts(@NotNull PsiElement element, @NotNull String newName, @NotNull MultiMap<PsiElement, String> conflicts, @NotNull Map<PsiElement, String> allRenames) { throw new UnsupportedOperationException("stub"); }
  public void findExistingNameConflicts(@NotNull PsiElement element, @NotNull String newName, @NotNull MultiMap<PsiElement, String> conflicts) { throw new UnsupportedOperationException("stub"); }
}
