// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/move/moveFilesOrDirectories/MoveFilesOrDirectoriesProcessor.java (read in its 2024+ form, whose preprocessUsages runs every MoveFileHandler's detectConflicts and then showConflicts): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.move.moveFilesOrDirectories;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.Ref;
import com.intellij.psi.PsiDirectory;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.refactoring.move.MoveCallback;
import com.intellij.usageView.UsageInfo;
import org.jetbrains.annotations.NotNull;

public class MoveFilesOrDirectoriesProcessor extends BaseRefactoringProcessor {
  public MoveFilesOrDirectoriesProcessor(@NotNull Project project, PsiElement @NotNull [] elements, @NotNull PsiDirectory newParent, boolean searchInComments, boolean searchInNonJavaFiles, MoveCallback moveCallback, Runnable prepareSuccessfulCallback) { super(project); throw new UnsupportedOperationException("stub"); }

  // @ApiStatus.OverrideOnly is BaseRefactoringProcessor's; this override does not repeat it.
  @Override
  protected UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }

  @Override
  protected boolean preprocessUsages(@NotNull Ref<UsageInfo[]> refUsages) { throw new UnsupportedOperationException("stub"); }
}
