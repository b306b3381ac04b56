// Stub of intellij-community platform/core-api/src/com/intellij/openapi/vfs/VirtualFileSystem.java: LocalFileSystem's supertype (through NewVirtualFileSystem, left out); none of its members is used.
package com.intellij.openapi.vfs;


public abstract class VirtualFileSystem {
}
