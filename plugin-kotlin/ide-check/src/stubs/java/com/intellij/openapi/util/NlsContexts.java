// Stub of intellij-community platform/util/src/com/intellij/openapi/util/NlsContexts.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

public interface NlsContexts {
  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface Command { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface ProgressTitle { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface DialogMessage { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface DialogTitle { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface Tooltip { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface Label { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface ConfigurableName { }

  @Retention(RetentionPolicy.CLASS)
  @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.METHOD})
  @interface TabTitle { }
}
