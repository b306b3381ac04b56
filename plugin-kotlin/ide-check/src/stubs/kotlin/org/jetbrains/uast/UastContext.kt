// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/UastContext.kt (toUElement read: an extension on PsiElement?): the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiElement

fun PsiElement?.toUElement(): UElement? = error("stub")
