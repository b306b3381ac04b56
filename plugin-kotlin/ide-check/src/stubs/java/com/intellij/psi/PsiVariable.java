// Stub of intellij-community java/java-psi-api/src/com/intellij/psi/PsiVariable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

public interface PsiVariable extends PsiModifierListOwner, PsiNameIdentifierOwner {
}
