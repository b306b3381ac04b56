// Stub of intellij-community platform/core-api/src/com/intellij/openapi/util/BuildNumber.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import org.jetbrains.annotations.NotNull;

public final class BuildNumber {
  public @NotNull @NlsSafe String asString() { throw new UnsupportedOperationException("stub"); }
}
