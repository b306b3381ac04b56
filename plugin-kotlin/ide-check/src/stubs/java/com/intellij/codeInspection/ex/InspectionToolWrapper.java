// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/ex/InspectionToolWrapper.java (read at 024dc641, a 2023 tree): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection.ex;

import com.intellij.codeHighlighting.HighlightDisplayLevel;
import com.intellij.codeInspection.InspectionEP;
import com.intellij.codeInspection.InspectionProfileEntry;
import com.intellij.lang.Language;
import org.jetbrains.annotations.Nls;
import org.jetbrains.annotations.NotNull;

public abstract class InspectionToolWrapper<T extends InspectionProfileEntry, E extends InspectionEP> {
  public @NotNull String getShortName() { throw new UnsupportedOperationException("stub"); }
  public @NotNull @Nls(capitalization = Nls.Capitalization.Sentence) String getDisplayName() { throw new UnsupportedOperationException("stub"); }
  public boolean isApplicable(@NotNull Language language) { throw new UnsupportedOperationException("stub"); }
  public @NotNull HighlightDisplayLevel getDefaultLevel() { throw new UnsupportedOperationException("stub"); }
}
