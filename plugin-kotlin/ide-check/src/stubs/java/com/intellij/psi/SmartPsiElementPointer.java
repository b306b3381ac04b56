// Stub of intellij-community platform/core-api/src/com/intellij/psi/SmartPsiElementPointer.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import org.jetbrains.annotations.Nullable;

public interface SmartPsiElementPointer<E extends PsiElement> {
  @Nullable E getElement();
}
