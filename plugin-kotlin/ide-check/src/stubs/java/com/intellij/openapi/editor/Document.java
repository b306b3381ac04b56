// Stub of intellij-community platform/core-api/src/com/intellij/openapi/editor/Document.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.editor;

import com.intellij.openapi.util.NlsSafe;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public interface Document {
  @Contract(pure = true)
  default @NotNull @NlsSafe String getText() { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  default @NotNull @NlsSafe CharSequence getCharsSequence() { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  default int getTextLength() { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  int getLineNumber(int offset);
  @Contract(pure = true)
  int getLineStartOffset(int line);
  @Contract(pure = true)
  int getLineEndOffset(int line);
  void replaceString(int startOffset, int endOffset, @NlsSafe @NotNull CharSequence s);
  @Contract(pure = true)
  boolean isWritable();
  @Contract(pure = true)
  long getModificationStamp();
}
