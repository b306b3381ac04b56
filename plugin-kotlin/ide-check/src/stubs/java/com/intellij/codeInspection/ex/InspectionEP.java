// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/ex/InspectionEP.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection.ex;


public class InspectionEP {
}
