// Stub of intellij-community platform/analysis-api/src/com/intellij/openapi/vfs/LocalFileSystem.java (read in its 2020 form, where findFileByNioFile is final, and its 2024+ form, where it is not): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;

import java.nio.file.Path;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class LocalFileSystem extends VirtualFileSystem {
  public static LocalFileSystem getInstance() { throw new UnsupportedOperationException("stub"); }
  public @Nullable VirtualFile findFileByNioFile(@NotNull Path file) { throw new UnsupportedOperationException("stub"); }
  public abstract void refreshFiles(@NotNull Iterable<? extends VirtualFile> files, boolean async, boolean recursive, @Nullable Runnable onFinish);
}
