// Stub of intellij-community platform/util/src/com/intellij/util/concurrency/AppExecutorUtil.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.concurrency;

import java.util.concurrent.ScheduledExecutorService;
import org.jetbrains.annotations.NotNull;

public final class AppExecutorUtil {
  public static @NotNull ScheduledExecutorService getAppScheduledExecutorService() { throw new UnsupportedOperationException("stub"); }
}
