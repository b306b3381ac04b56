// Stub of intellij-community platform/lang-api/src/com/intellij/refactoring/move/moveFilesOrDirectories/MoveFileHandler.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.move.moveFilesOrDirectories;

import com.intellij.psi.PsiDirectory;
import com.intellij.psi.PsiElement;
import com.intellij.psi.PsiFile;
import com.intellij.usageView.UsageInfo;
import com.intellij.util.containers.MultiMap;
import java.util.List;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class MoveFileHandler {
  public static @NotNull MoveFileHandler forElement(@NotNull PsiFile element) { throw new UnsupportedOperationException("stub"); }
  public abstract @Nullable List<UsageInfo> findUsages(@NotNull PsiFile psiFile, @NotNull PsiDirectory newParent, boolean searchInComments, boolean searchInNonJavaFiles);
  public void detectConflicts(MultiMap<PsiElement, String> conflicts, PsiElement[] elementsToMove, UsageInfo[] usages, PsiDirectory targetDirectory) { throw new UnsupportedOperationException("stub"); }
}
