/**
 * One project's lean-ctx presence (docs/ide-wire.md, Port file): builds the PSI backend,
 * starts the core's [ProjectSession] (HTTP server on 127.0.0.1:0, port file, re-write on
 * delete) and the editor-focus reporter, and tears all of it down when the project
 * closes: the service is a `Disposable` the platform disposes with its project, which
 * deletes the port file at once and stops the server on a thread of its own: disposal
 * runs on the EDT, and a request in flight may be waiting for a turn on the EDT (the
 * core's `IdeGate.write`, until its deadline), so stopping the server there could block
 * the IDE for seconds.
 *
 * Everything with logic lives in the core; this only wires IntelliJ objects to it.
 */
package com.leanctx.plugin

import com.intellij.openapi.Disposable
import com.intellij.openapi.application.ApplicationInfo
import com.intellij.openapi.components.Service
import com.intellij.openapi.diagnostic.logger
import com.intellij.openapi.project.Project
import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.api.ServerIdentity
import com.leanctx.core.port.ProjectSession
import com.leanctx.core.port.SessionConfig
import com.leanctx.core.text.ProjectPaths
import com.leanctx.core.text.TextSymbolEdits
import com.leanctx.plugin.psi.IdeDocumentStore
import com.leanctx.plugin.psi.PsiInspections
import com.leanctx.plugin.psi.PsiLocator
import com.leanctx.plugin.psi.PsiNavigation
import com.leanctx.plugin.psi.PsiRefactorings
import com.leanctx.plugin.psi.PsiReformatter
import com.leanctx.plugin.psi.PsiStructure
import com.leanctx.plugin.ui.EditorFocusWiring
import java.io.IOException
import java.nio.file.Path

@Service(Service.Level.PROJECT)
class LeanCtxProjectService(private val project: Project) : Disposable {
    @Volatile
    private var session: ProjectSession? = null

    /** Starts serving the project; a project without a base path (the default project) has nothing to serve. */
    @Synchronized
    fun start() {
        if (session != null || project.isDisposed) return
        val base = project.basePath ?: return
        val root = Path.of(base)
        val locator = PsiLocator(project, ProjectPaths(root))
        val backend = ProjectBackend(
            identity = ServerIdentity(ApplicationInfo.getInstance().build.asString(), project.name),
            navigation = PsiNavigation(locator),
            structure = PsiStructure(locator),
            inspections = PsiInspections(locator),
            edits = TextSymbolEdits(IdeDocumentStore(locator)),
            refactorings = PsiRefactorings(locator),
            reformatter = PsiReformatter(locator),
        )
        session = try {
            ProjectSession.start(SessionConfig(projectRoot = root), backend)
        } catch (e: IOException) {
            LOG.warn("lean-ctx: cannot start the backend for ${project.name}; the daemon falls back to its other backings", e)
            null
        }
        EditorFocusWiring.install(project, this)
    }

    override fun dispose() {
        // A fresh daemon thread, not an IDE pool: at IDE exit the pools may already refuse work.
        session?.closeDetached { stop -> Thread(stop, "leanctx-session-close").apply { isDaemon = true }.start() }
        session = null
    }

    private companion object {
        val LOG = logger<LeanCtxProjectService>()
    }
}
