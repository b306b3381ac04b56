// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/rename/RenameProcessor.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.Ref;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.usageView.UsageInfo;
import java.util.LinkedHashMap;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;

public class RenameProcessor extends BaseRefactoringProcessor {
  protected final LinkedHashMap<PsiElement, String> myAllRenames = new LinkedHashMap<>();

  public RenameProcessor(@NotNull Project project, @NotNull PsiElement element, @NotNull @NonNls String newName, boolean isSearchInComments, boolean isSearchTextOccurrences) { super(project); throw new UnsupportedOperationException("stub"); }

  public void prepareRenaming(@NotNull PsiElement element, @NotNull String newName, @NotNull LinkedHashMap<PsiElement, String> allRenames) { throw new UnsupportedOperationException("stub"); }

  @Override
  public boolean preprocessUsages(@NotNull Ref<UsageInfo[]> refUsages) { throw new UnsupportedOperationException("stub"); }

  @Override
  @ApiStatus.OverrideOnly
  public UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }

  @Override
  protected boolean isPreviewUsages(UsageInfo @NotNull [] usages) { throw new UnsupportedOperationException("stub"); }
}
