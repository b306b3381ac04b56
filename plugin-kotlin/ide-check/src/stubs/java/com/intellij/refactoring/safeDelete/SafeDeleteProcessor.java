// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/safeDelete/SafeDeleteProcessor.java (createInstance read in its 2024+ form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.safeDelete;

import com.intellij.openapi.project.Project;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.usageView.UsageInfo;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class SafeDeleteProcessor extends BaseRefactoringProcessor {
  private SafeDeleteProcessor(@NotNull Project project) { super(project); }

  @Contract("_, _, _, _, _ -> new")
  public static @NotNull SafeDeleteProcessor createInstance(@NotNull Project project, @Nullable Runnable prepareSuccessfulCallback, PsiElement @NotNull [] elementsToDelete, boolean isSearchInComments, boolean isSearchNonJava) { throw new UnsupportedOperationException("stub"); }

  // @ApiStatus.OverrideOnly is BaseRefactoringProcessor's; this override does not repeat it.
  @Override
  protected UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }
}
