// Stub of intellij-community platform/refactoring/src/com/intellij/refactoring/BaseRefactoringProcessor.java (read at 04ef79fd, a 2025 tree; platform/lang-impl before the refactoring module split): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring;

import com.intellij.lang.Language;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.NlsContexts;
import com.intellij.openapi.util.Ref;
import com.intellij.psi.PsiElement;
import com.intellij.usageView.UsageInfo;
import com.intellij.util.containers.MultiMap;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class BaseRefactoringProcessor implements Runnable {
  protected BaseRefactoringProcessor(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }

  @ApiStatus.OverrideOnly
  protected abstract UsageInfo @NotNull [] findUsages();

  @ApiStatus.OverrideOnly
  protected boolean preprocessUsages(@NotNull Ref<UsageInfo[]> refUsages) { throw new UnsupportedOperationException("stub"); }

  @ApiStatus.OverrideOnly
  protected boolean isPreviewUsages(UsageInfo @NotNull [] usages) { throw new UnsupportedOperationException("stub"); }

  public void setPreviewUsages(boolean isPreviewUsages) { throw new UnsupportedOperationException("stub"); }

  protected void prepareSuccessful() { throw new UnsupportedOperationException("stub"); }

  protected boolean showConflicts(@NotNull MultiMap<PsiElement, @NlsContexts.DialogMessage String> conflicts, UsageInfo @Nullable [] usages) { throw new UnsupportedOperationException("stub"); }

  // Public, and the way to execute a processor with usages found elsewhere: execute() behind it is @ApiStatus.OverrideOnly.
  public void executeEx(final UsageInfo @NotNull [] usages) { throw new UnsupportedOperationException("stub"); }

  // Its getElementLanguage() is package-private in the 2025 form (not stubbed).
  public static class UnknownReferenceTypeException extends RuntimeException {
    public UnknownReferenceTypeException(@NotNull Language elementLanguage) { throw new UnsupportedOperationException("stub"); }
  }

  @Override
  public final void run() { throw new UnsupportedOperationException("stub"); }
}
