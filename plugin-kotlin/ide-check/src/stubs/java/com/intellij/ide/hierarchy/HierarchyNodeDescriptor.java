// Stub of intellij-community platform/lang-impl/src/com/intellij/ide/hierarchy/HierarchyNodeDescriptor.java (read at 0d756ce2, 2024): the declarations lean-ctx's adapter uses, signatures only. The adapter only reads getPsiElement, which SmartElementDescriptor declares.
package com.intellij.ide.hierarchy;

import com.intellij.ide.util.treeView.SmartElementDescriptor;

public abstract class HierarchyNodeDescriptor extends SmartElementDescriptor {
}
