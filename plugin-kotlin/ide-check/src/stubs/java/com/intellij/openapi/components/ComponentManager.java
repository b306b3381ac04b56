// Stub of intellij-community platform/core-api/src/com/intellij/openapi/components/ComponentManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.components;

import com.intellij.openapi.Disposable;
import com.intellij.util.messages.MessageBus;
import org.jetbrains.annotations.NotNull;

public interface ComponentManager extends Disposable {
  @NotNull MessageBus getMessageBus();
  boolean isDisposed();
}
