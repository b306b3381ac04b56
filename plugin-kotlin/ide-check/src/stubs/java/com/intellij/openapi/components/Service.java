// Stub of intellij-community platform/core-api/src/com/intellij/openapi/components/Service.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.components;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Service {
  Level[] value() default {};

  enum Level { APP, PROJECT }
}
