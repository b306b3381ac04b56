// Stub of intellij-community platform/core-api/src/com/intellij/openapi/vfs/VirtualFile.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;

import org.jetbrains.annotations.NotNull;

public abstract class VirtualFile {
  public abstract @NotNull String getName();
  public @NotNull String getNameWithoutExtension() { throw new UnsupportedOperationException("stub"); }
  public abstract @NotNull String getPath();
  public abstract boolean isWritable();
  public abstract boolean isDirectory();
  public abstract boolean isValid();
  public boolean isInLocalFileSystem() { throw new UnsupportedOperationException("stub"); }
}
