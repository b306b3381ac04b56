// Stub of intellij-community platform/lang-impl/src/com/intellij/ide/hierarchy/HierarchyBrowserBaseEx.java (read at 009d3155, 2020; HierarchyTreeStructure at 0d756ce2, 2026, still compares against it): the declarations lean-ctx's adapter uses, signatures only. Its supertypes (HierarchyBrowserBase, a Swing panel, and OccurenceNavigator) are left out: the adapter reads one constant.
package com.intellij.ide.hierarchy;

public abstract class HierarchyBrowserBaseEx {
  public static final String SCOPE_ALL = "All";
}
