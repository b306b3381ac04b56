/**
 * Boots lean-ctx for every opened project (one server, one port file per project window:
 * docs/ide-wire.md, Project hash), off the EDT, once the project is open.
 */
package com.leanctx.plugin

import com.intellij.openapi.components.service
import com.intellij.openapi.project.Project
import com.intellij.openapi.startup.ProjectActivity

class LeanCtxStartupActivity : ProjectActivity {
    override suspend fun execute(project: Project) {
        project.service<LeanCtxProjectService>().start()
    }
}
