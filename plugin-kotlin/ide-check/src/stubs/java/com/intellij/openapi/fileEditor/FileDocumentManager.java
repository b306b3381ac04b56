// Stub of intellij-community platform/core-api/src/com/intellij/openapi/fileEditor/FileDocumentManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.editor.Document;
import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class FileDocumentManager {
  public static @NotNull FileDocumentManager getInstance() { throw new UnsupportedOperationException("stub"); }
  public abstract @Nullable Document getDocument(@NotNull VirtualFile file);
  public abstract @Nullable VirtualFile getFile(@NotNull Document document);
  public abstract Document @NotNull [] getUnsavedDocuments();
  public abstract void saveDocument(@NotNull Document document);
  public abstract boolean isFileModified(@NotNull VirtualFile file);
  // Abstract in the older forms, a public method delegating to reloadFromDisk(Document, Project) in the newest: invokevirtual links in both.
  public void reloadFromDisk(@NotNull Document document) { throw new UnsupportedOperationException("stub"); }
}
