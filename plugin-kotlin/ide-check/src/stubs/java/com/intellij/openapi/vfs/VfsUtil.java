// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/vfs/VfsUtil.java (markDirty read in its 2024+ form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;

import java.util.List;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Unmodifiable;

public final class VfsUtil extends VfsUtilCore {
  public static @NotNull @Unmodifiable List<VirtualFile> markDirty(boolean recursive, boolean reloadChildren, VirtualFile @NotNull ... files) { throw new UnsupportedOperationException("stub"); }
}
