// Stub of intellij-community platform/platform-api/src/com/intellij/ui/components/JBLabel.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.components;

import com.intellij.openapi.util.NlsContexts;
import javax.swing.JLabel;
import org.jetbrains.annotations.NotNull;

public class JBLabel extends JLabel {
  public JBLabel(@NotNull @NlsContexts.Label String text) { throw new UnsupportedOperationException("stub"); }
}
