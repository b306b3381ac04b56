// Stub of intellij-community platform/projectModel-api/src/com/intellij/openapi/module/ModuleDescription.kt (a 2017 form, Kotlin, declaring both interfaces; the JVM form of UnloadedModuleDescription here): the declarations lean-ctx's adapter uses, signatures only.
// @ApiStatus.Experimental there, as ModuleDescription, which declares getName(): the adapter only passes the type along and counts, never calls a member.
package com.intellij.openapi.module;

import org.jetbrains.annotations.ApiStatus;

@ApiStatus.Experimental
public interface UnloadedModuleDescription {
}
