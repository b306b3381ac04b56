// Stub of intellij-community platform/util/src/com/intellij/util/containers/MultiMap.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.containers;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class MultiMap<K, V> {
  public MultiMap() { throw new UnsupportedOperationException("stub"); }
  public void putValue(@Nullable K key, V value) { throw new UnsupportedOperationException("stub"); }
  public @NotNull Set<Map.Entry<K, Collection<V>>> entrySet() { throw new UnsupportedOperationException("stub"); }
}
