// Stub of intellij-community platform/editor-ui-api/src/com/intellij/openapi/actionSystem/ActionUpdateThreadAware.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.actionSystem;

import org.jetbrains.annotations.NotNull;

public interface ActionUpdateThreadAware {
  default @NotNull ActionUpdateThread getActionUpdateThread() { throw new UnsupportedOperationException("stub"); }
}
