// Stub of intellij-community platform/extensions/src/com/intellij/util/messages/SimpleMessageBusConnection.kt (Kotlin there; a Java stub of its JVM signatures, <L : Any> as <L> with @NotNull): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.messages;

import org.jetbrains.annotations.NotNull;

public interface SimpleMessageBusConnection {
  <L> void subscribe(@NotNull Topic<L> topic, @NotNull L handler);
}
