// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiCompiledElement.java: the declarations lean-ctx's adapter uses (the type only), signatures only.
package com.intellij.psi;


public interface PsiCompiledElement extends PsiElement {
}
