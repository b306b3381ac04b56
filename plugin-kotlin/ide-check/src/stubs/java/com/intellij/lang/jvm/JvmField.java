// Stub of intellij-community java/java-psi-api/src/com/intellij/lang/jvm/JvmField.java: the declarations lean-ctx's adapter uses, signatures only.
// PsiField's non-null getName comes from here (PsiField itself does not declare getName). Extends JvmMember there (left out).
package com.intellij.lang.jvm;

import org.jetbrains.annotations.NotNull;

public interface JvmField {
  @NotNull
  String getName();
}
