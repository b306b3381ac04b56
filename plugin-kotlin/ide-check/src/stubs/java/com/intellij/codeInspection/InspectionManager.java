// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/InspectionManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.NotNull;

public abstract class InspectionManager {
  public static InspectionManager getInstance(Project project) { throw new UnsupportedOperationException("stub"); }
  @Contract(pure = true)
  public abstract @NotNull GlobalInspectionContext createNewGlobalContext();
}
