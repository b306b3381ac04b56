// Stub of intellij-community java/java-indexing-api/src/com/intellij/psi/search/searches/ClassInheritorsSearch.java (read in its 2024+ form; it extends ExtensibleQueryFactory, left out here): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.psi.search.searches;

import com.intellij.psi.PsiClass;
import com.intellij.psi.search.SearchScope;
import com.intellij.util.Query;
import org.jetbrains.annotations.NotNull;

public class ClassInheritorsSearch {
  public static @NotNull Query<PsiClass> search(@NotNull PsiClass aClass, @NotNull SearchScope scope, boolean checkDeep) { throw new UnsupportedOperationException("stub"); }
}
