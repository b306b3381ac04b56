// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/rename/RenamePsiElementProcessor.java (read at 78d14922): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.psi.PsiElement;
import java.util.List;
import org.jetbrains.annotations.NotNull;

public abstract class RenamePsiElementProcessor extends RenamePsiElementProcessorBase {
  public static @NotNull RenamePsiElementProcessor forElement(@NotNull PsiElement element) { throw new UnsupportedOperationException("stub"); }
  public static @NotNull List<RenamePsiElementProcessor> allForElement(@NotNull PsiElement element) { throw new UnsupportedOperationException("stub"); }
}
