// Stub of intellij-community platform/extensions/src/com/intellij/util/messages/MessageBus.kt (Kotlin there; a Java stub of its JVM signatures): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.messages;

import com.intellij.openapi.Disposable;
import org.jetbrains.annotations.NotNull;

public interface MessageBus extends Disposable {
  @NotNull MessageBusConnection connect(@NotNull Disposable parentDisposable);
}
