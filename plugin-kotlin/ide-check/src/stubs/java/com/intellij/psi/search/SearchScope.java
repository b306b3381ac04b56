// Stub of intellij-community platform/core-api/src/com/intellij/psi/search/SearchScope.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search;


public abstract class SearchScope {
}
