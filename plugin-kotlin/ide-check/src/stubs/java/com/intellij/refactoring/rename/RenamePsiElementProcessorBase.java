// Stub of intellij-community platform/refactoring/src/com/intellij/refactoring/rename/RenamePsiElementProcessorBase.java (read in its 2026 form; it implements RenamePsiElementProcessorCore, left out here): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.openapi.util.NlsContexts;
import com.intellij.psi.PsiElement;
import com.intellij.util.containers.MultiMap;
import java.util.Map;
import org.jetbrains.annotations.NotNull;

public abstract class RenamePsiElementProcessorBase {
  public void prepareRenaming(@NotNull PsiElement element, @NotNull String newName, @NotNull Map<PsiElement, String> allRenames) { throw new UnsupportedOperationException("stub"); }
  public void findExistingNameConflicts(@NotNull PsiElement element, @NotNull String newName, @NotNull MultiMap<PsiElement, @NlsContexts.DialogMessage String> conflicts, @NotNull Map<PsiElement, String> allRenames) { throw new UnsupportedOperationException("stub"); }
  public void findExistingNameConflicts(@NotNull PsiElement element, @NotNull String newName, @NotNull MultiMap<PsiElement, @NlsContexts.DialogMessage String> conflicts) { throw new UnsupportedOperationException("stub"); }
}
