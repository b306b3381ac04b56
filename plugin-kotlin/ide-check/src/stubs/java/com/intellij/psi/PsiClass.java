// Stub of intellij-community java/java-psi-api/src/com/intellij/psi/PsiClass.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface PsiClass extends PsiNameIdentifierOwner, PsiMember {
  @Nullable @NlsSafe String getQualifiedName();
  boolean isInterface();
  boolean isAnnotationType();
  boolean isEnum();
  default boolean isRecord() { throw new UnsupportedOperationException("stub"); }
  PsiClass @NotNull [] getSupers();
  PsiField @NotNull [] getFields();
  PsiMethod @NotNull [] getMethods();
  PsiClass @NotNull [] getInnerClasses();
}
