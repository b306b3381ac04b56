// Stub of intellij-community platform/analysis-api/src/com/intellij/codeHighlighting/HighlightDisplayLevel.java (HighlightDisplayLevel.kt with `val name` in newer trees): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeHighlighting;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;

public class HighlightDisplayLevel {
  public @NotNull @NonNls String getName() { throw new UnsupportedOperationException("stub"); }
}
