// Stub of intellij-community platform/lang-api/src/com/intellij/lang/LanguageImportStatements.java (read at 07e9a2c7; it extends LanguageExtension<ImportOptimizer>, left out here): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang;

import com.intellij.psi.PsiFile;
import java.util.Set;
import org.jetbrains.annotations.NotNull;

public final class LanguageImportStatements {
  public static final LanguageImportStatements INSTANCE = null;
  public @NotNull Set<ImportOptimizer> forFile(@NotNull PsiFile file) { throw new UnsupportedOperationException("stub"); }
}
