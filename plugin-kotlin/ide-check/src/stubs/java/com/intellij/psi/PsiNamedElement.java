// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiNamedElement.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.Nullable;

public interface PsiNamedElement extends PsiElement {
  @Nullable @NlsSafe String getName();
}
