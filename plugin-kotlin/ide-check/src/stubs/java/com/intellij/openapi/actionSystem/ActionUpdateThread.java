// Stub of intellij-community platform/editor-ui-api/src/com/intellij/openapi/actionSystem/ActionUpdateThread.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.actionSystem;


public enum ActionUpdateThread {
  BGT, EDT
}
