// Stub of intellij-community platform/analysis-impl/src/com/intellij/codeInspection/InspectionEngine.java (read at 05fc5930, a 2024 tree, and in a 2020s form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.codeInspection.ex.InspectionToolWrapper;
import com.intellij.codeInspection.ex.LocalInspectionToolWrapper;
import com.intellij.openapi.progress.ProgressIndicator;
import com.intellij.openapi.util.TextRange;
import com.intellij.psi.PsiFile;
import com.intellij.util.PairProcessor;
import java.util.List;
import java.util.Map;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Unmodifiable;

public final class InspectionEngine {
  // Used by ide-check's AgentPathCheckTest fixture only: it runs under an indicator of its own, which no write action cancels.
  public static @NotNull @Unmodifiable List<ProblemDescriptor> runInspectionOnFile(@NotNull PsiFile psiFile, @NotNull InspectionToolWrapper<?, ?> toolWrapper, @NotNull GlobalInspectionContext inspectionContext) { throw new UnsupportedOperationException("stub"); }

  // The public nine-argument form; a ten-argument one with UserDataHolderBase is @ApiStatus.Internal (not stubbed).
  public static @NotNull Map<LocalInspectionToolWrapper, List<ProblemDescriptor>> inspectEx(@NotNull List<? extends LocalInspectionToolWrapper> toolWrappers, @NotNull PsiFile psiFile, @NotNull TextRange restrictRange, @NotNull TextRange priorityRange, boolean isOnTheFly, boolean inspectInjectedPsi, boolean ignoreSuppressedElements, @NotNull ProgressIndicator indicator, @NotNull PairProcessor<? super LocalInspectionToolWrapper, ? super ProblemDescriptor> foundDescriptorCallback) { throw new UnsupportedOperationException("stub"); }
}
