// Stub of intellij-community platform/util/src/com/intellij/openapi/util/text/StringUtil.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util.text;

import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public class StringUtil {
  @Contract(pure = true)
  public static @NotNull String removeHtmlTags(@NotNull String htmlString) { throw new UnsupportedOperationException("stub"); }
}
