// Stub of intellij-community platform/analysis-impl/src/com/intellij/profile/codeInspection/InspectionProjectProfileManager.java: the declarations lean-ctx's adapter uses, signatures only. getCurrentProfile() is InspectionProfileManager's, inherited as there.
package com.intellij.profile.codeInspection;

import com.intellij.openapi.project.Project;
import org.jetbrains.annotations.NotNull;

public abstract class InspectionProjectProfileManager implements InspectionProfileManager {
  public static InspectionProjectProfileManager getInstance(@NotNull Project project) { throw new UnsupportedOperationException("stub"); }
}
