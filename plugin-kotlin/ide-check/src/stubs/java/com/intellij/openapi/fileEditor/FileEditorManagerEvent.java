// Stub of intellij-community platform/analysis-api/src/com/intellij/openapi/fileEditor/FileEditorManagerEvent.kt (a final Kotlin class there, val newFile: VirtualFile?; its JVM getter kept): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.Nullable;

public final class FileEditorManagerEvent {
  public @Nullable VirtualFile getNewFile() { throw new UnsupportedOperationException("stub"); }
}
