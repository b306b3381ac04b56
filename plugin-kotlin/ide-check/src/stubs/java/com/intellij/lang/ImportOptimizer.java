// Stub of intellij-community platform/analysis-api/src/com/intellij/lang/ImportOptimizer.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang;

import com.intellij.psi.PsiFile;
import org.jetbrains.annotations.NotNull;

public interface ImportOptimizer {
  @NotNull Runnable processFile(@NotNull PsiFile file);
}
