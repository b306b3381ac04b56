// Stub of intellij-community platform/util/src/com/intellij/openapi/util/NlsContexts.java: the declarations lean-ctx's adapter uses, signatures only.
// A final class of nested annotation types there (Kotlin in the 2025 form); each also carries @NlsContext and @Nls
// (left out: meta-annotations for IntelliJ's own localization inspections) and the default CLASS retention.
package com.intellij.openapi.util;

import java.lang.annotation.ElementType;
import java.lang.annotation.Target;

public final class NlsContexts {
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface Command { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface ProgressTitle { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface DialogMessage { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface DialogTitle { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface Tooltip { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface Label { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface ConfigurableName { }

  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  public @interface TabTitle { }
}
