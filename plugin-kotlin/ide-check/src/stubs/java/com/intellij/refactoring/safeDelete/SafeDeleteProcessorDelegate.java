// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/safeDelete/SafeDeleteProcessorDelegate.java (06ef1c67, a 2022 form): the declarations lean-ctx's adapter uses, signatures only.
// "the first delegate which agrees to handle element will be used, rest are ignored" (its Javadoc); the adapter's safe delete does what
// SafeDeleteProcessor.performRefactoring does for no usages: the first handling delegate's prepareForDeletion, then PsiElement.delete.
package com.intellij.refactoring.safeDelete;

import com.intellij.openapi.extensions.ExtensionPointName;
import com.intellij.psi.PsiElement;
import com.intellij.util.IncorrectOperationException;
import org.jetbrains.annotations.NotNull;

public interface SafeDeleteProcessorDelegate {
  ExtensionPointName<SafeDeleteProcessorDelegate> EP_NAME = ExtensionPointName.create("com.intellij.refactoring.safeDeleteProcessor");

  boolean handlesElement(PsiElement element);

  void prepareForDeletion(@NotNull PsiElement element) throws IncorrectOperationException;
}
