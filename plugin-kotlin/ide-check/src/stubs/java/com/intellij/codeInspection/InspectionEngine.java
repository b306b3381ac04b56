// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/InspectionEngine.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.codeInspection.ex.InspectionToolWrapper;
import com.intellij.psi.PsiFile;
import java.util.List;
import org.jetbrains.annotations.NotNull;

public final class InspectionEngine {
  public static @NotNull List<ProblemDescriptor> runInspectionOnFile(@NotNull PsiFile file, @NotNull InspectionToolWrapper<?, ?> toolWrapper, @NotNull GlobalInspectionContext inspectionContext) { throw new UnsupportedOperationException("stub"); }
}
