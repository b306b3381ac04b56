/**
 * The editor-focus reporter's IDE side (spec §5): `FileEditorManagerListener` focus
 * changes and the file open at startup go to the core's [EditorFocusReporter], whose
 * debounce runs on a pooled-thread `Alarm` bound to the project service, so it is
 * cancelled when the project closes. The emitter starts
 * `lean-ctx editor-signal --file <abs path>` and does not wait for it (fire and forget:
 * the Alarm's pooled thread is shared, and a lost signal is harmless, the next focus
 * change resends).
 *
 * The file open at start-up: `getSelectedFiles()` is empty until the editor manager has
 * restored the last session's editors, which may be after this runs; the restored
 * editors then arrive as `fileOpened` events, of which the one that is selected counts
 * as focused. The reporter's back-to-back dedup makes a second report of it a no-op. Registry key
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
            emit = { path -> Cli.runner.launch(listOf("editor-signal", "--file", path)) },
        )
        Disposer.register(parent) { reporter.dispose() }
        project.messageBus.connect(parent).subscribe(
            FileEditorManagerListener.FILE_EDITOR_MANAGER,
            object : FileEditorManagerListener {
                override fun selectionChanged(event: FileEditorManagerEvent) {
                    event.newFile?.let { reporter.onFileFocused(it.focused()) }
                }

                override fun fileOpened(source: FileEditorManager, file: VirtualFile) {
                    if (file in source.selectedFiles) reporter.onFileFocused(file.focused())
                }
            },
        )
        FileEditorManager.getInstance(project).selectedFiles.firstOrNull()?.let { reporter.onFileFocused(it.focused()) }
    }

    private fun VirtualFile.focused() = FocusedFile(path, isInLocalFileSystem, isDirectory)
}
