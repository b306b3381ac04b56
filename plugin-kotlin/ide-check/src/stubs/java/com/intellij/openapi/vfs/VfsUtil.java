// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/vfs/VfsUtil.java (markDirtyAndRefresh read in its 2024+ form; a synchronous refresh must not run inside a read action): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;

import org.jetbrains.annotations.NotNull;

public final class VfsUtil extends VfsUtilCore {
  public static void markDirtyAndRefresh(boolean async, boolean recursive, boolean reloadChildren, VirtualFile @NotNull ... files) { throw new UnsupportedOperationException("stub"); }
}
