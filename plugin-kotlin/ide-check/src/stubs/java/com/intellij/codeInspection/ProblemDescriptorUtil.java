// Stub of intellij-community platform/analysis-impl/src/com/intellij/codeInspection/ProblemDescriptorUtil.java (read at 0104fae8, a 2024 tree): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.psi.PsiElement;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class ProblemDescriptorUtil {
  public static @NotNull String renderDescriptionMessage(@NotNull CommonProblemDescriptor descriptor, @Nullable PsiElement element) { throw new UnsupportedOperationException("stub"); }
}
