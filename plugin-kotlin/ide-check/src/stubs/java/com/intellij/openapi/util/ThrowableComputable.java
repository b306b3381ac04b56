// Stub of intellij-community platform/util-rt/src/com/intellij/openapi/util/ThrowableComputable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;


public interface ThrowableComputable<T, E extends Throwable> {
  T compute() throws E;
}
