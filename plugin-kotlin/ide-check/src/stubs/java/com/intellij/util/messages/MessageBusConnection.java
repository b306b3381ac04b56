// Stub of intellij-community platform/extensions/src/com/intellij/util/messages/MessageBusConnection.kt (Kotlin there; a Java stub of its JVM signatures): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.messages;

import com.intellij.openapi.Disposable;

// subscribe(topic, handler) is SimpleMessageBusConnection's there, inherited.
public interface MessageBusConnection extends SimpleMessageBusConnection, Disposable {
}
