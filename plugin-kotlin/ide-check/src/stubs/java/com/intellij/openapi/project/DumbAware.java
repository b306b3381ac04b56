// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/DumbAware.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;


public interface DumbAware {
}
