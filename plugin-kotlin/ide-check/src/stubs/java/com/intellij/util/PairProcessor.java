// Stub of intellij-community platform/util/src/com/intellij/util/PairProcessor.java (2021 and 2023 forms): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;

import org.jetbrains.annotations.NotNull;

@FunctionalInterface
public interface PairProcessor<S, T> {
  boolean process(S s, T t);

  static @NotNull <S, T> PairProcessor<S, T> alwaysTrue() { throw new UnsupportedOperationException("stub"); }
}
