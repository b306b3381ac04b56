// Stub of intellij-community java/java-impl/src/com/intellij/ide/hierarchy/call/CallerMethodsTreeStructure.java (read in its 2019 and 2025 forms; the constructor is the same in both): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ide.hierarchy.call;

import com.intellij.ide.hierarchy.HierarchyTreeStructure;
import com.intellij.openapi.project.Project;
import com.intellij.psi.PsiMember;
import org.jetbrains.annotations.NotNull;

public final class CallerMethodsTreeStructure extends HierarchyTreeStructure {
  /**
   * Should be called in read action
   */
  public CallerMethodsTreeStructure(@NotNull Project project, @NotNull PsiMember member, final String scopeType) { super(project, null); throw new UnsupportedOperationException("stub"); }
}
