// Stub of intellij-community platform/analysis-api/src/com/intellij/openapi/fileEditor/FileEditorManagerListener.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.vfs.VirtualFile;
import com.intellij.util.messages.Topic;
import java.util.EventListener;
import org.jetbrains.annotations.NotNull;

public interface FileEditorManagerListener extends EventListener {
  @Topic.ProjectLevel
  Topic<FileEditorManagerListener> FILE_EDITOR_MANAGER = new Topic<>(FileEditorManagerListener.class);

  default void fileOpened(@NotNull FileEditorManager source, @NotNull VirtualFile file) { }

  default void selectionChanged(@NotNull FileEditorManagerEvent event) { }
}
