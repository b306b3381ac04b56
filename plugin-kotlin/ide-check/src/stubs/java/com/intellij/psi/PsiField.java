// Stub of intellij-community java/java-psi-api/src/com/intellij/psi/PsiField.java: the declarations lean-ctx's adapter uses, signatures only.
// getName is not declared here: PsiNamedElement's (@Nullable) and JvmField's (@NotNull) meet in PsiField, as there.
// Extends PsiDocCommentOwner there (left out).
package com.intellij.psi;

import com.intellij.lang.jvm.JvmField;

public interface PsiField extends PsiMember, PsiVariable, JvmField {
}
