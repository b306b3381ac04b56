// Stub of intellij-community platform/analysis-api/src/com/intellij/lang/LanguageImportStatements.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang;

import com.intellij.psi.PsiFile;
import java.util.Set;
import org.jetbrains.annotations.NotNull;

public final class LanguageImportStatements {
  public static final LanguageImportStatements INSTANCE = null;
  public @NotNull Set<ImportOptimizer> forFile(@NotNull PsiFile file) { throw new UnsupportedOperationException("stub"); }
}
