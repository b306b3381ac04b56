// Stub of intellij-community platform/util-rt/src/com/intellij/openapi/util/Condition.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;


@FunctionalInterface
public interface Condition<T> {
  boolean value(T t);
}
