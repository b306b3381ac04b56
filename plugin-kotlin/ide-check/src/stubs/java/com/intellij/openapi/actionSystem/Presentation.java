// Stub of intellij-community platform/editor-ui-api/src/com/intellij/openapi/actionSystem/Presentation.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.actionSystem;


public final class Presentation {
  public boolean isEnabled() { throw new UnsupportedOperationException("stub"); }
  public void setEnabled(boolean enabled) { throw new UnsupportedOperationException("stub"); }
}
