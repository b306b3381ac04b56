// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UVariable.kt: the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiField
import com.intellij.psi.PsiVariable

interface UVariable : UDeclaration, PsiVariable {
    override val javaPsi: PsiVariable
}

interface UField : UVariable, PsiField {
    override val javaPsi: PsiField
}
