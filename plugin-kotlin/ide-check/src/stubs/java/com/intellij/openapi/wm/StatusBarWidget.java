// Stub of intellij-community platform/platform-api/src/com/intellij/openapi/wm/StatusBarWidget.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.wm;

import com.intellij.openapi.Disposable;
import com.intellij.openapi.util.NlsContexts;
import com.intellij.util.Consumer;
import java.awt.event.MouseEvent;
import org.jetbrains.annotations.NonNls;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public interface StatusBarWidget extends Disposable {
  @NotNull @NonNls String ID();

  default @Nullable WidgetPresentation getPresentation() { throw new UnsupportedOperationException("stub"); }

  default void install(@NotNull StatusBar statusBar) { }

  @Override
  default void dispose() { }

  interface WidgetPresentation {
    @Nullable @NlsContexts.Tooltip String getTooltipText();

    default @Nullable Consumer<MouseEvent> getClickConsumer() { throw new UnsupportedOperationException("stub"); }
  }

  interface TextPresentation extends WidgetPresentation {
    @NotNull @NlsContexts.Label String getText();

    float getAlignment();
  }
}
