// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/LocalInspectionEP.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;


public class LocalInspectionEP extends InspectionEP {
}
