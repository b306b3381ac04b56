// Stub of intellij-community platform/analysis-api/src/com/intellij/profile/codeInspection/InspectionProjectProfileManager.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.profile.codeInspection;

import com.intellij.codeInspection.ex.InspectionProfileImpl;
import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public abstract class InspectionProjectProfileManager {
  public static InspectionProjectProfileManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
  public abstract @NotNull InspectionProfileImpl getCurrentProfile();
}
