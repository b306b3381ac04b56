/**
 * A fixture for [AgentPathCheckTest], never part of the adapter: a navigation backend,
 * reached through the router like the real one, whose routes do what no agent path may:
 * a message dialog (behind a private helper), a `DialogWrapper`, a wait for the EDT
 * with no bound, a processor run that would ask, a processor showing its conflicts
 * dialog, a safe delete processor executed with usages (its error dialog), inspections no write action can cancel, and a
 * synchronous refresh. Its one asynchronous refresh is allowed, and must go unreported.
 */
package com.leanctx.idecheck

import com.intellij.codeInspection.GlobalInspectionContext
import com.intellij.codeInspection.InspectionEngine
import com.intellij.codeInspection.ex.InspectionToolWrapper
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.project.Project
import com.intellij.openapi.ui.DialogWrapper
import com.intellij.openapi.ui.Messages
import com.intellij.openapi.vfs.LocalFileSystem
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.refactoring.safeDelete.SafeDeleteProcessor
import com.intellij.util.containers.MultiMap
import com.leanctx.core.api.Navigation
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.PositionRequest
import javax.swing.JComponent

class BlockingBackend(
    private val project: Project,
    private val file: PsiFile,
    private val tool: InspectionToolWrapper<*, *>,
    private val context: GlobalInspectionContext,
) : Navigation {
    override fun references(request: PositionRequest): LocationsResponse {
        warn("no references")
        return none()
    }

    private fun warn(text: String) = Messages.showErrorDialog(project, text, "lean-ctx")

    override fun definition(request: PositionRequest): LocationsResponse {
        ApplicationManager.getApplication().invokeAndWait({ }, ModalityState.nonModal())
        object : DialogWrapper(project) {
            override fun createCenterPanel(): JComponent? = null
        }.showAndGet()
        return none()
    }

    override fun implementations(request: PositionRequest): LocationsResponse {
        SafeDeleteProcessor.createInstance(project, null, arrayOf<PsiElement>(file), false, false).run()
        Asking(project, file).ask()
        SafeDeleteProcessor.createInstance(project, null, arrayOf<PsiElement>(file), false, false).executeEx(emptyArray())
        InspectionEngine.runInspectionOnFile(file, tool, context)
        return none()
    }

    override fun declaration(request: PositionRequest): LocationsResponse {
        val files = listOf(file.virtualFile)
        LocalFileSystem.getInstance().refreshFiles(files, false, false, null)
        refreshedLater(files)
        return none()
    }

    private fun refreshedLater(files: List<VirtualFile>) = LocalFileSystem.getInstance().refreshFiles(files, true, false, null)

    private fun none() = LocationsResponse.of(emptyList())

    /** A processor that shows its conflicts dialog itself. */
    private class Asking(project: Project, file: PsiFile) :
        MoveFilesOrDirectoriesProcessor(project, arrayOf<PsiElement>(file), file.containingDirectory, false, false, null, null) {
        fun ask() = showConflicts(MultiMap(), null)
    }
}
