// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiInvalidElementAccessException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import org.jetbrains.annotations.Nullable;

public final class PsiInvalidElementAccessException extends RuntimeException {
  public PsiInvalidElementAccessException(@Nullable PsiElement element) { throw new UnsupportedOperationException("stub"); }
}
