// Stub of intellij-community platform/core-api/src/com/intellij/util/Query.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;

import java.util.Collection;
import org.jetbrains.annotations.NotNull;

public interface Query<Result> extends Iterable<Result> {
  @NotNull Collection<Result> findAll();
}
