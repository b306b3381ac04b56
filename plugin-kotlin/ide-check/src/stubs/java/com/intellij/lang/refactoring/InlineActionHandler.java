// Stub of intellij-community platform/lang-api/src/com/intellij/lang/refactoring/InlineActionHandler.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang.refactoring;

import com.intellij.openapi.extensions.ExtensionPointName;
import com.intellij.psi.PsiElement;

public abstract class InlineActionHandler {
  public static final ExtensionPointName<InlineActionHandler> EP_NAME = new ExtensionPointName<>("com.intellij.inlineActionHandler");

  public abstract boolean canInlineElement(PsiElement element);
}
