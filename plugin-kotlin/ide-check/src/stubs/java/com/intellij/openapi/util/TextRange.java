// Stub of intellij-community platform/util/base/src/com/intellij/openapi/util/TextRange.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.util;


public class TextRange implements Segment {
  public TextRange(int startOffset, int endOffset) { throw new UnsupportedOperationException("stub"); }
  @Override public final int getStartOffset() { throw new UnsupportedOperationException("stub"); }
  @Override public final int getEndOffset() { throw new UnsupportedOperationException("stub"); }
  public final int getLength() { throw new UnsupportedOperationException("stub"); }
  public boolean containsOffset(int offset) { throw new UnsupportedOperationException("stub"); }
}
