// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInsight/daemon/HighlightDisplayKey.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInsight.daemon;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public final class HighlightDisplayKey {
  public static @Nullable HighlightDisplayKey find(@NonNls @NotNull String shortName) { throw new UnsupportedOperationException("stub"); }
}
