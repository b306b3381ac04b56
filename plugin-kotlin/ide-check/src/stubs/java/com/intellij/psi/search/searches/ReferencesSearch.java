// Stub of intellij-community platform/indexing-api/src/com/intellij/psi/search/searches/ReferencesSearch.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search.searches;

import com.intellij.psi.PsiElement;
import com.intellij.psi.PsiReference;
import com.intellij.psi.search.SearchScope;
import com.intellij.util.Query;
import org.jetbrains.annotations.NotNull;

public final class ReferencesSearch {
  public static @NotNull Query<PsiReference> search(@NotNull PsiElement element) { throw new UnsupportedOperationException("stub"); }
  public static @NotNull Query<PsiReference> search(@NotNull PsiElement element, @NotNull SearchScope searchScope) { throw new UnsupportedOperationException("stub"); }
  public static @NotNull Query<PsiReference> search(@NotNull PsiElement element, @NotNull SearchScope searchScope, boolean ignoreAccessScope) { throw new UnsupportedOperationException("stub"); }
}
