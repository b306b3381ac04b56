// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/UastUtils.kt (getUastParentOfType read: an extension on PsiElement?, @JvmOverloads): the declarations lean-ctx's adapter uses, signatures only.
@file:Suppress("UNUSED_PARAMETER") // signatures only: a stub never reads its parameters
package org.jetbrains.uast

import com.intellij.psi.PsiElement

/** An extension on a nullable receiver, not a function of two arguments. */
@JvmOverloads
fun <T : UElement> PsiElement?.getUastParentOfType(cls: Class<out T>, strict: Boolean = false): T? = error("stub")
