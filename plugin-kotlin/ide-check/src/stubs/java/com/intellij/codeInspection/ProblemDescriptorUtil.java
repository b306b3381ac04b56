// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/ProblemDescriptorUtil.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.psi.PsiElement;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class ProblemDescriptorUtil {
  public static @NotNull String renderDescriptionMessage(@NotNull CommonProblemDescriptor descriptor, @Nullable PsiElement element) { throw new UnsupportedOperationException("stub"); }
}
