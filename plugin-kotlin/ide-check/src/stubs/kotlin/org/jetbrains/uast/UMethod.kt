// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UMethod.kt: the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiMethod

interface UMethod : UDeclaration, PsiMethod {
    override val javaPsi: PsiMethod

    override fun getName(): String
}
