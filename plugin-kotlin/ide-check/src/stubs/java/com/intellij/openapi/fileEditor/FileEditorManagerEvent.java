// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/fileEditor/FileEditorManagerEvent.java (a Kotlin data class in newer trees; its JVM getter kept): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.Nullable;

public final class FileEditorManagerEvent {
  public @Nullable VirtualFile getNewFile() { throw new UnsupportedOperationException("stub"); }
}
