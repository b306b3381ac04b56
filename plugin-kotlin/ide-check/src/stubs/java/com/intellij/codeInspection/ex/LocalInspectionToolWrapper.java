// Stub of intellij-community platform/analysis-impl/src/com/intellij/codeInspection/ex/LocalInspectionToolWrapper.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection.ex;

import com.intellij.codeInspection.LocalInspectionEP;
import com.intellij.codeInspection.LocalInspectionTool;

public class LocalInspectionToolWrapper extends InspectionToolWrapper<LocalInspectionTool, LocalInspectionEP> {
}
