// Stub of intellij-community platform/code-style-api/src/com/intellij/lang/ImportOptimizer.java (read in its 2026 form; platform/lang-api in older trees): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang;

import com.intellij.psi.PsiFile;
import org.jetbrains.annotations.NotNull;

public interface ImportOptimizer {
  @NotNull Runnable processFile(@NotNull PsiFile file);
}
