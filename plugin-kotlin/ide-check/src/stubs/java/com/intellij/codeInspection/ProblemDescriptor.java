// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/ProblemDescriptor.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.psi.PsiElement;

public interface ProblemDescriptor extends CommonProblemDescriptor {
  PsiElement getPsiElement();
  int getLineNumber();
}
