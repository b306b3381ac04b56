// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/IndexNotReadyException.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

// Final with a private constructor there: only create() makes one (it also implements ExceptionWithAttachments, left out).
public final class IndexNotReadyException extends RuntimeException {
  private IndexNotReadyException(@Nullable Throwable startTrace) { throw new UnsupportedOperationException("stub"); }

  public static @NotNull IndexNotReadyException create() { throw new UnsupportedOperationException("stub"); }
}
