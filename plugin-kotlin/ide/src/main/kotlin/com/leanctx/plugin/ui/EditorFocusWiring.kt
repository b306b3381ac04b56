/**
 * The editor-focus reporter's IDE side (spec §5): `FileEditorManagerListener` focus
 * changes and the file open at startup go to the core's [EditorFocusReporter], whose
 * debounce runs on a pooled-thread `Alarm` bound to the project service, so it is
 * cancelled when the project closes. The emitter runs
 * `lean-ctx editor-signal --file <abs path>` and ignores every failure: a lost signal
 * is harmless and the next focus change resends. Registry key
 * `leanctx.editor.signal.enabled` (default true) switches it off without a restart.
 */
package com.leanctx.plugin.ui

import com.intellij.openapi.Disposable
import com.intellij.openapi.fileEditor.FileEditorManager
import com.intellij.openapi.fileEditor.FileEditorManagerEvent
import com.intellij.openapi.fileEditor.FileEditorManagerListener
import com.intellij.openapi.project.Project
import com.intellij.openapi.util.Disposer
import com.intellij.openapi.util.registry.Registry
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.util.Alarm
import com.leanctx.core.ui.Cancellable
import com.leanctx.core.ui.DelayScheduler
import com.leanctx.core.ui.EditorFocusReporter
import com.leanctx.core.ui.FocusFilter
import com.leanctx.core.ui.FocusedFile
import java.time.Duration

object EditorFocusWiring {
    const val REGISTRY_KEY = "leanctx.editor.signal.enabled"

    fun install(project: Project, parent: Disposable) {
        val alarm = Alarm(Alarm.ThreadToUse.POOLED_THREAD, parent)
        val scheduler = DelayScheduler { delayMs, task ->
            val request = Runnable { task() }
            alarm.addRequest(request, delayMs)
            Cancellable { alarm.cancelRequest(request) }
        }
        val reporter = EditorFocusReporter(
            filter = FocusFilter(project.basePath),
            scheduler = scheduler,
            enabled = { Registry.`is`(REGISTRY_KEY, true) },
            emit = { path -> Cli.runner.run(listOf("editor-signal", "--file", path), Duration.ofSeconds(5)) },
        )
        Disposer.register(parent) { reporter.dispose() }
        project.messageBus.connect(parent).subscribe(
            FileEditorManagerListener.FILE_EDITOR_MANAGER,
            object : FileEditorManagerListener {
                override fun selectionChanged(event: FileEditorManagerEvent) {
                    event.newFile?.let { reporter.onFileFocused(it.focused()) }
                }
            },
        )
        FileEditorManager.getInstance(project).selectedFiles.firstOrNull()?.let { reporter.onFileFocused(it.focused()) }
    }

    private fun VirtualFile.focused() = FocusedFile(path, isInLocalFileSystem, isDirectory)
}
