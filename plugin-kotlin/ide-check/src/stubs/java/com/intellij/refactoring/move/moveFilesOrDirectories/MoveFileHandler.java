// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/move/moveFilesOrDirectories/MoveFileHandler.java (read at fe77e198, a 2024 tree): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.move.moveFilesOrDirectories;

import com.intellij.openapi.util.NlsContexts;
import com.intellij.psi.PsiDirectory;
import com.intellij.psi.PsiElement;
import com.intellij.psi.PsiFile;
import com.intellij.usageView.UsageInfo;
import com.intellij.util.containers.MultiMap;
import java.util.List;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class MoveFileHandler {
  public static @NotNull MoveFileHandler forElement(PsiFile element) { throw new UnsupportedOperationException("stub"); }
  public abstract @Nullable List<UsageInfo> findUsages(PsiFile psiFile, PsiDirectory newParent, boolean searchInComments, boolean searchInNonJavaFiles);
  public void detectConflicts(MultiMap<PsiElement, @NlsContexts.DialogMessage String> conflicts, PsiElement[] elementsToMove, UsageInfo[] usages, PsiDirectory targetDirectory) { throw new UnsupportedOperationException("stub"); }
}
