// Stub of intellij-community platform/core-api/src/com/intellij/psi/FileViewProvider.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.editor.Document;
import org.jetbrains.annotations.Nullable;

public interface FileViewProvider {
  @Nullable Document getDocument();
}
