// Stub of intellij-community platform/core-api/src/com/intellij/openapi/vfs/VfsUtilCore.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.vfs;


public class VfsUtilCore {
}
