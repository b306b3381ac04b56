// Stub of intellij-community platform/util-rt/src/com/intellij/util/ThrowableRunnable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;


public interface ThrowableRunnable<T extends Throwable> {
  void run() throws T;
}
