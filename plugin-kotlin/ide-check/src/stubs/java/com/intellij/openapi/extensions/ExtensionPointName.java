// Stub of intellij-community platform/extensions/src/com/intellij/openapi/extensions/ExtensionPointName.kt (Kotlin there, `class ExtensionPointName<T : Any>(name: @NonNls String) : BaseExtensionPointName<T>`; a Java stub of its JVM signatures, without the base class): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.extensions;

import java.util.List;
import org.jetbrains.annotations.NotNull;

public final class ExtensionPointName<T> {
  public ExtensionPointName(@NotNull String name) { throw new UnsupportedOperationException("stub"); }
  public static <T> @NotNull ExtensionPointName<T> create(@NotNull String name) { throw new UnsupportedOperationException("stub"); }
  public @NotNull List<T> getExtensionList() { throw new UnsupportedOperationException("stub"); }
}
