// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/rename/UnresolvableCollisionUsageInfo.java (read in its 2024+ form). There it extends CollisionUsageInfo (a MoveRenameUsageInfo, a UsageInfo); the adapter never constructs or calls one, so the stub extends UsageInfo directly: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.rename;

import com.intellij.psi.PsiElement;
import com.intellij.usageView.UsageInfo;

public abstract class UnresolvableCollisionUsageInfo extends UsageInfo {
  public UnresolvableCollisionUsageInfo(PsiElement element, PsiElement referencedElement) { super(element); throw new UnsupportedOperationException("stub"); }
}
