// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UFile.kt: the declarations lean-ctx's adapter uses, signatures only.
package org.jetbrains.uast

import com.intellij.psi.PsiFile

interface UFile : UElement {
    override val sourcePsi: PsiFile

    val classes: List<UClass>
}
