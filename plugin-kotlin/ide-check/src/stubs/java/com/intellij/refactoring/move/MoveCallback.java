// Stub of intellij-community platform/lang-impl/src/com/intellij/refactoring/move/MoveCallback.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.refactoring.move;


public interface MoveCallback {
  void refactoringCompleted();
}
