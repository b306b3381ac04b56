// Stub of intellij-community platform/core-api/src/com/intellij/psi/SmartPointerManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public abstract class SmartPointerManager {
  public static SmartPointerManager getInstance(Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract @NotNull <E extends PsiElement> SmartPsiElementPointer<E> createSmartPsiElementPointer(@NotNull E element);
}
