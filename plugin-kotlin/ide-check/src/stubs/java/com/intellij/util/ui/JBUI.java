// Stub of intellij-community platform/util/ui/src/com/intellij/util/ui/JBUI.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.ui;

import org.jetbrains.annotations.NotNull;

public final class JBUI {
  public static final class Borders {
    public static @NotNull JBEmptyBorder empty(int offsets) { throw new UnsupportedOperationException("stub"); }
  }
}
