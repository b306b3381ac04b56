// Stub of intellij-community platform/core-api/src/com/intellij/psi/util/PsiTreeUtil.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.util;

import com.intellij.psi.PsiElement;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class PsiTreeUtil {
  @Contract(value = "null, _, _ -> false", pure = true)
  public static boolean isAncestor(@Nullable PsiElement ancestor, @NotNull PsiElement element, boolean strict) { throw new UnsupportedOperationException("stub"); }
}
