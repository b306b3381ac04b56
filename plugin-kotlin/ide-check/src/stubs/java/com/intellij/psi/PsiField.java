// Stub of intellij-community java/java-psi-api/src/com/intellij/psi/PsiField.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.NotNull;

public interface PsiField extends PsiMember, PsiVariable {
  @Override
  @NotNull @NlsSafe String getName();
}
