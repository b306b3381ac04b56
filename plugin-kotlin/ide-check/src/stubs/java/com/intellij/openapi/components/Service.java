// Stub of intellij-community platform/core-api/src/com/intellij/openapi/components/Service.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.components;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

@Retention(RetentionPolicy.RUNTIME)
public @interface Service {
  Level[] value() default Level.APP;

  enum Level { APP, PROJECT }
}
