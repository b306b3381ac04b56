// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/PossiblyDumbAware.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.project;


public interface PossiblyDumbAware {
}
