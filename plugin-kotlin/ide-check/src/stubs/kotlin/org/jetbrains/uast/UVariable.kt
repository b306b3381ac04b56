// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UVariable.kt: the declarations lean-ctx's adapter uses, signatures only.
// Neither UVariable nor UField narrows UElement.javaPsi there (UVariableEx/UFieldEx do): a UField's javaPsi is a PsiElement?.
package org.jetbrains.uast

import com.intellij.psi.PsiField
import com.intellij.psi.PsiVariable

interface UVariable : UDeclaration, PsiVariable {
    override fun getName(): String?
}

interface UField : UVariable, PsiField
