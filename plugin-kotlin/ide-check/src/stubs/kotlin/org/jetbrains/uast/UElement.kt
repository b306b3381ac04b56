// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/baseElements/UElement.kt: the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiElement

interface UElement {
    val sourcePsi: PsiElement?

    val javaPsi: PsiElement?
}
