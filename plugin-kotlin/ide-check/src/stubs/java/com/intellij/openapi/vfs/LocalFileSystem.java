// Stub of intellij-community platform/analysis-api/src/com/intellij/openapi/vfs/LocalFileSystem.java (refreshAndFindFileByNioFile read in its 2024+ non-final form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;

import java.nio.file.Path;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public abstract class LocalFileSystem extends VirtualFileSystem {
  public static LocalFileSystem getInstance() { throw new UnsupportedOperationException("stub"); }
  public @Nullable VirtualFile refreshAndFindFileByNioFile(@NotNull Path path) { throw new UnsupportedOperationException("stub"); }
}
