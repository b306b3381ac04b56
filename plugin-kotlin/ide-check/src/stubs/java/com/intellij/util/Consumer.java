// Stub of intellij-community platform/util-rt/src/com/intellij/util/Consumer.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;


public interface Consumer<T> {
  void consume(T t);
}
