// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/rename/RenameProcessor.java (read in its 2025 form via the index, and at 03980ad0): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.openapi.project.Project;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.usageView.UsageInfo;
import java.util.LinkedHashMap;
import org.jetbrains.annotations.NotNull;

public class RenameProcessor extends BaseRefactoringProcessor {
  protected final LinkedHashMap<PsiElement, String> myAllRenames = new LinkedHashMap<>();

  public RenameProcessor(@NotNull Project project, @NotNull PsiElement element, @NotNull String newName, boolean isSearchInComments, boolean isSearchTextOccurrences) { super(project); throw new UnsupportedOperationException("stub"); }

  // Implements the abstract one, so the adapter's subclass is concrete; @ApiStatus.OverrideOnly is BaseRefactoringProcessor's, this override does not repeat it.
  @Override
  public UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }
}
