// Stub of intellij-community platform/analysis-impl/src/com/intellij/codeInspection/ex/InspectionProfileImpl.java (getInspectionTools and isToolEnabled read in their List-returning 2020s form; getErrorLevel at 28425019): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection.ex;

import com.intellij.codeHighlighting.HighlightDisplayLevel;
import com.intellij.codeInsight.daemon.HighlightDisplayKey;
import com.intellij.psi.PsiElement;
import java.util.List;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class InspectionProfileImpl {
  public @NotNull List<InspectionToolWrapper<?, ?>> getInspectionTools(@Nullable PsiElement element) { throw new UnsupportedOperationException("stub"); }
  public boolean isToolEnabled(@Nullable HighlightDisplayKey key, @Nullable PsiElement element) { throw new UnsupportedOperationException("stub"); }
  public @NotNull HighlightDisplayLevel getErrorLevel(@NotNull HighlightDisplayKey key, PsiElement element) { throw new UnsupportedOperationException("stub"); }
}
