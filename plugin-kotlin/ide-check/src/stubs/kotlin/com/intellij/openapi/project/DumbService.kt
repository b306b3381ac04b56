// Stub of intellij-community platform/core-api/src/com/intellij/openapi/project/DumbService.kt (abstract class; modificationTracker, isDumb and the @JvmStatic companion isDumb read): the declarations lean-ctx's adapter uses, signatures only.
@file:Suppress("UNUSED_PARAMETER") // signatures only: a stub never reads its parameters
package com.intellij.openapi.project

import com.intellij.openapi.util.ModificationTracker

abstract class DumbService {
    /** The tracker is advanced each time the IDE enters or exits dumb mode. */
    abstract val modificationTracker: ModificationTracker

    abstract val isDumb: Boolean

    companion object {
        @JvmStatic
        fun getInstance(project: Project): DumbService = error("stub")

        @JvmStatic
        fun isDumb(project: Project): Boolean = error("stub")
    }
}
