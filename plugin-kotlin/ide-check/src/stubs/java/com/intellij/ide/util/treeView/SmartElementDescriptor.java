// Stub of intellij-community platform/lang-impl/src/com/intellij/ide/util/treeView/SmartElementDescriptor.java (read in its 2024 form): the declarations lean-ctx's adapter uses, signatures only. Its supertype NodeDescriptor is left out.
package com.intellij.ide.util.treeView;

import com.intellij.psi.PsiElement;
import org.jetbrains.annotations.Nullable;

public class SmartElementDescriptor {
  public final @Nullable PsiElement getPsiElement() { throw new UnsupportedOperationException("stub"); }
}
