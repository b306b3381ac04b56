// Stub of intellij-community platform/util/src/com/intellij/openapi/util/NlsSafe.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER, ElementType.LOCAL_VARIABLE, ElementType.TYPE_USE, ElementType.TYPE_PARAMETER})
public @interface NlsSafe {
}
