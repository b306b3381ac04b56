// Stub of intellij-community platform/core-api/src/com/intellij/psi/PsiDocumentManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi;

import com.intellij.openapi.editor.Document;
import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public abstract class PsiDocumentManager {
  public static PsiDocumentManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract void commitAllDocuments();
  public abstract void commitDocument(@NotNull Document document);
  public abstract void doPostponedOperationsAndUnblockDocument(@NotNull Document document);
}
