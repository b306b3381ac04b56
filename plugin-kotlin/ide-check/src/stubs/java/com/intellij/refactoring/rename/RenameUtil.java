// Stub of intellij-community platform/refactoring/src/com/intellij/refactoring/rename/RenameUtil.java (read at 06e5dcf7, a 2024 tree; platform/lang-impl before the refactoring module split): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.openapi.util.NlsContexts;
import com.intellij.psi.PsiElement;
import com.intellij.usageView.UsageInfo;
import com.intellij.util.IncorrectOperationException;
import com.intellij.util.containers.MultiMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class RenameUtil {
  public static UsageInfo @NotNull [] findUsages(@NotNull PsiElement element, String newName, boolean searchInStringsAndComments, boolean searchForTextOccurrences, Map<? extends PsiElement, String> allRenames) { throw new UnsupportedOperationException("stub"); }
  public static void addConflictDescriptions(UsageInfo[] usages, MultiMap<PsiElement, @NlsContexts.DialogMessage String> conflicts) { throw new UnsupportedOperationException("stub"); }
  public static @Nullable List<UnresolvableCollisionUsageInfo> removeConflictUsages(Set<UsageInfo> usages) { throw new UnsupportedOperationException("stub"); }
  public static void checkRename(PsiElement element, String newName) throws IncorrectOperationException { throw new UnsupportedOperationException("stub"); }
}
