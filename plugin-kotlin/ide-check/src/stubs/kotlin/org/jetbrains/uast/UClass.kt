// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UClass.kt (getFields/getMethods/getInnerClasses read as default-bodied overrides): the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiClass

interface UClass : UDeclaration, PsiClass {
    override val javaPsi: PsiClass

    override fun getQualifiedName(): String?

    override fun isInterface(): Boolean

    override fun isAnnotationType(): Boolean

    override fun getFields(): Array<UField> = error("stub")

    override fun getMethods(): Array<UMethod> = error("stub")

    override fun getInnerClasses(): Array<UClass> = error("stub")
}
