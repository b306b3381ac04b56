// Stub of intellij-community platform/core-api/src/com/intellij/openapi/application/ModalityState.java (nonModal read in its 2025 form; NON_MODAL, deprecated there, is the field it returns): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.application;

import org.jetbrains.annotations.NotNull;

public abstract class ModalityState {
  public static @NotNull ModalityState nonModal() { throw new UnsupportedOperationException("stub"); }
}
