// Stub of intellij-community platform/core-api/src/com/intellij/openapi/components/ComponentManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.components;

import com.intellij.openapi.Disposable;
import com.intellij.util.messages.MessageBus;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;

// UserDataHolder and AreaInstance, the other supertypes there, are left out (no member of them is used).
@ApiStatus.NonExtendable
public interface ComponentManager extends Disposable {
  // @Deprecated in the 2025 form only (callers are sent to Project's or Application's own
  // getMessageBus); the 2024 forms, nearer the 242 build, do not carry it.
  @NotNull MessageBus getMessageBus();
  boolean isDisposed();
}
