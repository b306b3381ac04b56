// Stub of intellij-community platform/util/src/com/intellij/openapi/Disposable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi;


public interface Disposable {
  void dispose();
}
