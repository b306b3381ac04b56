// Stub of intellij-community platform/core-api/src/com/intellij/usageView/UsageInfo.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.usageView;

import com.intellij.openapi.util.Segment;
import com.intellij.openapi.vfs.VirtualFile;
import com.intellij.psi.PsiElement;
import com.intellij.psi.PsiReference;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class UsageInfo {
  public UsageInfo(@NotNull PsiElement element) { throw new UnsupportedOperationException("stub"); }
  public UsageInfo(@NotNull PsiReference reference) { throw new UnsupportedOperationException("stub"); }
  public @Nullable PsiElement getElement() { throw new UnsupportedOperationException("stub"); }
  public @Nullable Segment getSegment() { throw new UnsupportedOperationException("stub"); }
  public @Nullable VirtualFile getVirtualFile() { throw new UnsupportedOperationException("stub"); }
}
