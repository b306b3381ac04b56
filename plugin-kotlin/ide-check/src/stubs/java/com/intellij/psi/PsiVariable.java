// Stub of intellij-community java/java-psi-api/src/com/intellij/psi/PsiVariable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.Nullable;

public interface PsiVariable extends PsiModifierListOwner, PsiNameIdentifierOwner {
  @Override
  @Nullable @NlsSafe String getName();
}
