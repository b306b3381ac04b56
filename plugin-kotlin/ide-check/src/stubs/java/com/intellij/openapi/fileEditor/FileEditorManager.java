// Stub of intellij-community platform/analysis-api/src/com/intellij/openapi/fileEditor/FileEditorManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.NotNull;

public abstract class FileEditorManager {
  public static FileEditorManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract VirtualFile @NotNull [] getSelectedFiles();
}
