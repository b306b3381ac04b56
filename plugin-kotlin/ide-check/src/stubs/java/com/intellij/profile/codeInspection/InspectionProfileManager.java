// Stub of intellij-community platform/analysis-impl/src/com/intellij/profile/codeInspection/InspectionProfileManager.java (getCurrentProfile read in its InspectionProfileImpl-returning 2020s form): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.profile.codeInspection;

import com.intellij.codeInspection.ex.InspectionProfileImpl;
import org.jetbrains.annotations.NotNull;

public interface InspectionProfileManager {
  @NotNull InspectionProfileImpl getCurrentProfile();
}
