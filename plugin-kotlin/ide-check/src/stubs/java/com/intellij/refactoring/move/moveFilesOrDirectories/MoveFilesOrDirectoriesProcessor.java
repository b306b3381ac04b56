// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/move/moveFilesOrDirectories/MoveFilesOrDirectoriesProcessor.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.move.moveFilesOrDirectories;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.Ref;
import com.intellij.psi.PsiDirectory;
import com.intellij.psi.PsiElement;
import com.intellij.refactoring.BaseRefactoringProcessor;
import com.intellij.refactoring.move.MoveCallback;
import com.intellij.usageView.UsageInfo;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class MoveFilesOrDirectoriesProcessor extends BaseRefactoringProcessor {
  public MoveFilesOrDirectoriesProcessor(@NotNull Project project, PsiElement @NotNull [] elements, @NotNull PsiDirectory newParent, boolean searchInComments, boolean searchInNonJavaFiles, @Nullable MoveCallback moveCallback, @Nullable Runnable prepareSuccessfulCallback) { super(project); throw new UnsupportedOperationException("stub"); }

  @Override
  @ApiStatus.OverrideOnly
  protected UsageInfo @NotNull [] findUsages() { throw new UnsupportedOperationException("stub"); }

  @Override
  protected boolean preprocessUsages(@NotNull Ref<UsageInfo[]> refUsages) { throw new UnsupportedOperationException("stub"); }
}
