// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInsight/daemon/HighlightDisplayKey.java (read at 0653c7a8, a 2023 tree): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInsight.daemon;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class HighlightDisplayKey {
  public static @Nullable HighlightDisplayKey find(final @NonNls @NotNull String name) { throw new UnsupportedOperationException("stub"); }
}
