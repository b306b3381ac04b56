// Stub of intellij-community platform/core-api/src/com/intellij/openapi/startup/StartupActivity.kt: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.startup

import com.intellij.openapi.project.Project
import org.jetbrains.annotations.ApiStatus

@ApiStatus.OverrideOnly
interface ProjectActivity {
    suspend fun execute(project: Project)
}
