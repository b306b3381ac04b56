/**
 * The editor-focus reporter's IDE side (docs/ide-wire.md, editor focus):
 * `FileEditorManagerListener` focus changes and the file open at startup go to the core's
 * [EditorFocusReporter], whose debounce runs on the application's scheduled executor; the
 * reporter is disposed with the project service, which cancels a pending emission. The
 * emitter starts `lean-ctx editor-signal --file <abs path>` and does not wait for it
 * (fire and forget: the executor is shared, and a lost signal is harmless, the next focus
 * change resends).
 *
 * Not `com.intellij.util.Alarm`: intellij-community has it both as a Java class
 * (`int cancelRequest(Runnable)`, platform-api/ide-core) and, rewritten in Kotlin
 * (ide-core/Alarm.kt, 2024), with `cancelRequest` returning `Boolean`. A plugin built
 * against one and loaded by an IDE with the other fails with `NoSuchMethodError`, and
 * `sinceBuild` 242 with no upper bound spans both. The JDK's `ScheduledExecutorService`
 * behind `AppExecutorUtil` has one signature everywhere.
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
import com.intellij.util.concurrency.AppExecutorUtil
import com.leanctx.core.ui.Cancellable
import com.leanctx.core.ui.DelayScheduler
import com.leanctx.core.ui.EditorFocusReporter
import com.leanctx.core.ui.FocusFilter
import com.leanctx.core.ui.FocusedFile
import java.util.concurrent.TimeUnit

object EditorFocusWiring {
    const val REGISTRY_KEY = "leanctx.editor.signal.enabled"

    fun install(project: Project, parent: Disposable) {
        val executor = AppExecutorUtil.getAppScheduledExecutorService()
        val scheduler = DelayScheduler { delayMs, task ->
            val future = executor.schedule(Runnable { task() }, delayMs, TimeUnit.MILLISECONDS)
            Cancellable { future.cancel(false) }
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
