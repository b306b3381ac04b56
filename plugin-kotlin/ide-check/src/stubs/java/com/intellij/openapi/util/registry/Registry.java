// Stub of intellij-community platform/util/src/com/intellij/openapi/util/registry/Registry.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util.registry;

import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;

public final class Registry {
  public static boolean is(@NonNls @NotNull String key, boolean defaultValue) { throw new UnsupportedOperationException("stub"); }
}
