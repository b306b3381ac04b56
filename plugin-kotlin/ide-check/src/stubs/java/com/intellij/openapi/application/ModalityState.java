// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/ModalityState.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import org.jetbrains.annotations.NotNull;

public abstract class ModalityState {
  public static @NotNull ModalityState defaultModalityState() { throw new UnsupportedOperationException("stub"); }
}
