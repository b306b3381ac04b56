// Stub of intellij-community platform/analysis-api/src/com/intellij/codeInspection/InspectionEP.java (package com.intellij.codeInspection there, not .ex): the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.codeInspection;


public class InspectionEP {
}
