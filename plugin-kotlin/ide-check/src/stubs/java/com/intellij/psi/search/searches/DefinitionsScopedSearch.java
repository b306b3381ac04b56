// Stub of intellij-community platform/indexing-api/src/com/intellij/psi/search/searches/DefinitionsScopedSearch.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search.searches;

import com.intellij.psi.PsiElement;
import com.intellij.psi.search.SearchScope;
import com.intellij.util.Query;
import org.jetbrains.annotations.NotNull;

public final class DefinitionsScopedSearch {
  public static @NotNull Query<PsiElement> search(@NotNull PsiElement definitionsOf, @NotNull SearchScope searchScope) { throw new UnsupportedOperationException("stub"); }
}
