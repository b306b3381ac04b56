// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiElement.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.lang.Language;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.TextRange;
import com.intellij.psi.search.SearchScope;
import com.intellij.util.IncorrectOperationException;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface PsiElement {
  @Contract(pure = true)
  @NotNull Project getProject() throws PsiInvalidElementAccessException;
  @Contract(pure = true)
  @NotNull Language getLanguage();
  @Contract(pure = true)
  PsiElement getParent();
  @Contract(pure = true)
  PsiFile getContainingFile() throws PsiInvalidElementAccessException;
  @Contract(pure = true)
  TextRange getTextRange();
  @Contract(pure = true)
  int getTextOffset();
  @Contract(pure = true)
  @NotNull PsiElement getNavigationElement();
  @Contract(pure = true)
  @Nullable PsiElement findElementAt(int offset);
  @Contract(pure = true)
  @Nullable PsiReference findReferenceAt(int offset);
  void delete() throws IncorrectOperationException;
  @Contract(pure = true)
  boolean isValid();
  @Contract(pure = true)
  @NotNull SearchScope getUseScope();
}
