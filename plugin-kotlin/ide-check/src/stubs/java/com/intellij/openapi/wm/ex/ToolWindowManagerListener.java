// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/ex/ToolWindowManagerListener.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm.ex;

import com.intellij.openapi.wm.ToolWindowManager;
import com.intellij.util.messages.Topic;
import java.util.EventListener;
import org.jetbrains.annotations.NotNull;

public interface ToolWindowManagerListener extends EventListener {
  @Topic.ProjectLevel
  Topic<ToolWindowManagerListener> TOPIC = new Topic<>(ToolWindowManagerListener.class);

  default void stateChanged(@NotNull ToolWindowManager toolWindowManager) { }
}
