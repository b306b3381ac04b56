// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/InspectionProfileEntry.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;


public abstract class InspectionProfileEntry {
}
