// Stub of intellij-community platform/core-api/src/com/intellij/psi/search/SearchScope.java (contains read at 03da2051, 2018): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search;

import com.intellij.openapi.vfs.VirtualFile;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;


public abstract class SearchScope {
  @Contract(pure = true)
  public abstract boolean contains(@NotNull VirtualFile file);
}
