// Stub of intellij-community platform/core-api/src/com/intellij/openapi/progress/EmptyProgressIndicator.java (read in its 2024 forms; it extends EmptyProgressIndicatorBase and implements StandardProgressIndicator there, left out): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;

import org.jetbrains.annotations.ApiStatus;

public class EmptyProgressIndicator implements ProgressIndicator {
  @ApiStatus.Obsolete
  public EmptyProgressIndicator() { throw new UnsupportedOperationException("stub"); }

  @Override
  public final void cancel() { throw new UnsupportedOperationException("stub"); }

  @Override
  public final boolean isCanceled() { throw new UnsupportedOperationException("stub"); }
}
