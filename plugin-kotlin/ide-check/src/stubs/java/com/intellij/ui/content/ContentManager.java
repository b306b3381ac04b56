// Stub of intellij-community platform/platform-api/src/com/intellij/ui/content/ContentManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.content;

import com.intellij.openapi.Disposable;
import org.jetbrains.annotations.NotNull;

public interface ContentManager extends Disposable {
  void addContent(@NotNull Content content);
}
