// Stub of intellij-community platform/extensions/src/com/intellij/util/messages/MessageBusConnection.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.messages;

import com.intellij.openapi.Disposable;
import org.jetbrains.annotations.NotNull;

public interface MessageBusConnection extends Disposable {
  <L> void subscribe(@NotNull Topic<L> topic, @NotNull L handler);
}
