// Stub of intellij-community platform/core-api/src/com/intellij/openapi/vfs/VirtualFileSystem.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;


public abstract class VirtualFileSystem {
  public abstract void refresh(boolean asynchronous);
}
