// Stub of intellij-community uast/uast-common/src/org/jetbrains/uast/declarations/UDeclaration.kt: the declarations lean-ctx's adapter uses, signatures only.
// UDeclaration does not narrow UElement.javaPsi there (UDeclarationEx does, and the adapter does not use it);
// it extends PsiJvmModifiersOwner and UAnnotated there (left out: PsiModifierListOwner is what the adapter needs).
package org.jetbrains.uast

import com.intellij.psi.PsiModifierListOwner

interface UDeclaration : UElement, PsiModifierListOwner
