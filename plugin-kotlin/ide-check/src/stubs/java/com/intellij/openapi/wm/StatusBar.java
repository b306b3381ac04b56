// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/StatusBar.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;

public interface StatusBar {
  void updateWidget(@NonNls @NotNull String id);
}
