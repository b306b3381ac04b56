// Stub of intellij-community platform/core-api/src/com/intellij/openapi/editor/Document.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.editor;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public interface Document {
  @Contract(pure = true)
  default @NotNull String getText() { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  @NotNull CharSequence getCharsSequence();
  @Contract(pure = true)
  int getTextLength();
  @Contract(pure = true)
  int getLineNumber(int offset);
  @Contract(pure = true)
  int getLineStartOffset(int line);
  @Contract(pure = true)
  int getLineEndOffset(int line);
  void replaceString(int startOffset, int endOffset, @NlsSafe @NotNull CharSequence s);
  boolean isWritable();
  long getModificationStamp();
}
