// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/safeDelete/SafeDeleteProcessor.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.safeDelete;

import com.intellij.openapi.project.Project;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.usageView.UsageInfo;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class SafeDeleteProcessor extends BaseRefactoringProcessor {
  private SafeDeleteProcessor(@NotNull Project project) { super(project); }

  public static @NotNull SafeDeleteProcessor createInstance(@NotNull Project project, @Nullable Runnable prepareSuccessfulCallback, PsiElement @NotNull [] elementsToDelete, boolean isSearchInComments, boolean isSearchNonJava) { throw new UnsupportedOperationException("stub"); }

  @Override
  @ApiStatus.OverrideOnly
  protected UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }
}
