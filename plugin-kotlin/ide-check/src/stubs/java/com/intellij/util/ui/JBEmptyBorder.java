// Stub of intellij-community platform/util/ui/src/com/intellij/util/ui/JBEmptyBorder.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.ui;

import javax.swing.border.EmptyBorder;

public class JBEmptyBorder extends EmptyBorder {
  public JBEmptyBorder(int offset) { super(offset, offset, offset, offset); throw new UnsupportedOperationException("stub"); }
}
