// Stub of intellij-community platform/lang-api/src/com/intellij/refactoring/rename/UnresolvableCollisionUsageInfo.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.psi.PsiElement;
import com.intellij.usageView.UsageInfo;
import org.jetbrains.annotations.NotNull;

public abstract class UnresolvableCollisionUsageInfo extends UsageInfo {
  public UnresolvableCollisionUsageInfo(@NotNull PsiElement element, PsiElement referencedElement) { super(element); throw new UnsupportedOperationException("stub"); }
}
