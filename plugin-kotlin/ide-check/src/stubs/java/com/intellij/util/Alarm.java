// Stub of intellij-community platform/core-api/src/com/intellij/util/Alarm.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util;

import com.intellij.openapi.Disposable;
import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

public class Alarm implements Disposable {
  public enum ThreadToUse { SWING_THREAD, POOLED_THREAD }
  public Alarm(@NotNull ThreadToUse threadToUse, @Nullable Disposable parentDisposable) { throw new UnsupportedOperationException("stub"); }
  @Override public void dispose() { throw new UnsupportedOperationException("stub"); }
  public void addRequest(@NotNull Runnable request, long delayMillis) { throw new UnsupportedOperationException("stub"); }
  public void addRequest(@NotNull Runnable request, int delayMillis) { throw new UnsupportedOperationException("stub"); }
  public int cancelRequest(@NotNull Runnable request) { throw new UnsupportedOperationException("stub"); }
}
