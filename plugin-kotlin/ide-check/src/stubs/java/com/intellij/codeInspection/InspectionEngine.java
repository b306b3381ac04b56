// Stub of intellij-community platform/analysis-impl/src/com/intellij/codeInspection/InspectionEngine.java (read at 05fc5930, a 2024 tree): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.codeInspection.ex.InspectionToolWrapper;
import com.intellij.psi.PsiFile;
import java.util.List;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Unmodifiable;

public final class InspectionEngine {
  public static @NotNull @Unmodifiable List<ProblemDescriptor> runInspectionOnFile(@NotNull PsiFile psiFile, @NotNull InspectionToolWrapper<?, ?> toolWrapper, @NotNull GlobalInspectionContext inspectionContext) { throw new UnsupportedOperationException("stub"); }
}
