// Stub of intellij-community platform/platform-api/src/com/intellij/ui/components/JBScrollPane.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.components;

import java.awt.Component;
import javax.swing.JScrollPane;

public class JBScrollPane extends JScrollPane {
  public JBScrollPane(Component view) { throw new UnsupportedOperationException("stub"); }
}
