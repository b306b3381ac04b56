// Stub of intellij-community platform/util-rt/src/com/intellij/openapi/util/Ref.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import org.jetbrains.annotations.Nullable;

public class Ref<T> {
  public final T get() { throw new UnsupportedOperationException("stub"); }
  public final void set(@Nullable T value) { throw new UnsupportedOperationException("stub"); }
}
