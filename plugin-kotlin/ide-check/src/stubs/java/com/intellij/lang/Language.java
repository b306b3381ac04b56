// Stub of intellij-community platform/core-api/src/com/intellij/lang/Language.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.lang;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.NotNull;

public abstract class Language {
  public @NotNull @NlsSafe String getDisplayName() { throw new UnsupportedOperationException("stub"); }

  public final boolean isKindOf(@NotNull String anotherLanguageId) { throw new UnsupportedOperationException("stub"); }
}
