// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiReference.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.TextRange;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface PsiReference {
  @NotNull PsiElement getElement();
  @NotNull TextRange getRangeInElement();
  @Nullable PsiElement resolve();
}
