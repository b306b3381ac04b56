// Stub of intellij-community platform/indexing-api/src/com/intellij/psi/search/searches/DefinitionsScopedSearch.java (read in its 2024+ form: search carries no nullability annotations there, so Kotlin sees platform types): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search.searches;

import com.intellij.psi.PsiElement;
import com.intellij.psi.search.SearchScope;
import com.intellij.util.Query;

public final class DefinitionsScopedSearch {
  public static Query<PsiElement> search(PsiElement definitionsOf, SearchScope searchScope) { throw new UnsupportedOperationException("stub"); }
}
