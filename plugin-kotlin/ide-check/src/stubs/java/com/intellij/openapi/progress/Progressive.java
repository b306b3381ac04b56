// Stub of intellij-community platform/core-api/src/com/intellij/openapi/progress/Progressive.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.progress;

import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;

@ApiStatus.Obsolete
@FunctionalInterface
public interface Progressive {
  void run(@NotNull ProgressIndicator indicator);
}
