// Stub of intellij-community platform/lang-impl/src/com/intellij/ide/hierarchy/HierarchyTreeStructure.java (read at 0d756ce2, 2026; the 2019 form has the same members): the declarations lean-ctx's adapter uses, signatures only. Its supertype AbstractTreeStructure is left out: the adapter reaches getChildElements through this class only.
package com.intellij.ide.hierarchy;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public abstract class HierarchyTreeStructure {
  protected HierarchyTreeStructure(@NotNull Project project, HierarchyNodeDescriptor baseDescriptor) { throw new UnsupportedOperationException("stub"); }

  public final HierarchyNodeDescriptor getBaseDescriptor() { throw new UnsupportedOperationException("stub"); }

  public final Object @NotNull [] getChildElements(@NotNull Object element) { throw new UnsupportedOperationException("stub"); }
}
