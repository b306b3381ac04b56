// Stub of intellij-community platform/util/ui/src/com/intellij/util/ui/JBUI.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.ui;

import javax.swing.border.Border;
import org.jetbrains.annotations.NotNull;

public final class JBUI {
  public static final class Borders {
    public static @NotNull Border empty(int offsets) { throw new UnsupportedOperationException("stub"); }
  }
}
