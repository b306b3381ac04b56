// Stub of intellij-community platform/platform-api/src/com/intellij/ui/content/ContentFactory.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.content;

import com.intellij.openapi.util.NlsContexts;
import javax.swing.JComponent;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface ContentFactory {
  static ContentFactory getInstance() { throw new UnsupportedOperationException("stub"); }

  @NotNull Content createContent(@Nullable JComponent component, @Nullable @NlsContexts.TabTitle String displayName, boolean isLockable);
}
