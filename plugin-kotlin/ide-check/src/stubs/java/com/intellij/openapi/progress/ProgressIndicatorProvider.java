// Stub of intellij-community platform/core-api/src/com/intellij/openapi/progress/ProgressIndicatorProvider.java (read in its 2011, 2020s and @Obsolete forms): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;

import org.jetbrains.annotations.ApiStatus;

public abstract class ProgressIndicatorProvider {
  // @Nullable in the older forms, unannotated (and @Contract(pure = true) in the newest) later: a platform type.
  @ApiStatus.Obsolete
  public static ProgressIndicator getGlobalProgressIndicator() { throw new UnsupportedOperationException("stub"); }
}
