// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiNameIdentifierOwner.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import org.jetbrains.annotations.Nullable;

public interface PsiNameIdentifierOwner extends PsiNamedElement {
  @Nullable PsiElement getNameIdentifier();
}
