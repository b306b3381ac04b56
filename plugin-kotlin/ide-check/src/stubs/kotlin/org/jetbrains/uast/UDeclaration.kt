// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UDeclaration.kt: the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiModifierListOwner

interface UDeclaration : UElement, PsiModifierListOwner {
    override val javaPsi: PsiModifierListOwner
}
