// Stub of intellij-community platform/core-api/src/com/intellij/psi/codeStyle/CodeStyleManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.codeStyle;

import com.intellij.openapi.project.Project;
import com.intellij.psi.PsiFile;
import com.intellij.util.IncorrectOperationException;
import org.jetbrains.annotations.NotNull;

public abstract class CodeStyleManager {
  public static @NotNull CodeStyleManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract void reformatText(@NotNull PsiFile file, int startOffset, int endOffset) throws IncorrectOperationException;
}
