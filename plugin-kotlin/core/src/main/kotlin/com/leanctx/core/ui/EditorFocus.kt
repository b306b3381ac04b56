/**
 * The editor-focus reporter's logic (docs/ide-wire.md, editor focus), free of IntelliJ
 * types: which focused files may be reported, and the 2 s debounce with back-to-back
 * dedup. The IDE adapter feeds it `FileEditorManagerListener.selectionChanged`, gives it
 * a scheduler (a pooled-thread `Alarm`) and an emitter
 * (`lean-ctx editor-signal --file <abs path>`); tests give it a virtual clock.
 *
 * Privacy: only the absolute path leaves, never content; only real local files inside
 * the project qualify.
 */
package com.leanctx.core.ui

/** What the IDE knows about a focused file (a `VirtualFile`, reduced). */
data class FocusedFile(val path: String, val isLocal: Boolean, val isDirectory: Boolean)

/**
 * Accepts a file only if it is on the local file system, not a directory, and strictly
 * under [basePath], judged segment by segment: `/foo/bar2/x` is not under `/foo/bar`.
 * Paths are IntelliJ's, `/`-separated on every OS.
 */
class FocusFilter(private val basePath: String?) {
    fun accepts(file: FocusedFile): Boolean {
        val base = basePath?.trimEnd('/')?.takeIf { it.isNotEmpty() } ?: return false
        return file.isLocal && !file.isDirectory && file.path.startsWith("$base/") && file.path.length > base.length + 1
    }
}

/** Runs a task once after a delay, unless cancelled first. */
fun interface DelayScheduler {
    fun schedule(delayMs: Long, task: () -> Unit): Cancellable
}

fun interface Cancellable {
    fun cancel()
}

/**
 * Collapses rapid focus changes into one emission [debounceMs] after the last one, and
 * skips a path equal to the last one emitted (A → B → A within the window emits
 * nothing new). [enabled] is asked on every focus event, so the registry opt-out
 * (`leanctx.editor.signal.enabled`) takes effect without a restart.
 */
class EditorFocusReporter(
    private val filter: FocusFilter,
    private val scheduler: DelayScheduler,
    private val enabled: () -> Boolean,
    private val emit: (String) -> Unit,
    private val debounceMs: Long = DEBOUNCE_MS,
) {
    private var pending: String? = null
    private var lastSent: String? = null
    private var scheduled: Cancellable? = null
    private var disposed = false

    @Synchronized
    fun onFileFocused(file: FocusedFile) {
        if (disposed || !enabled() || !filter.accepts(file)) return
        pending = file.path
        scheduled?.cancel()
        scheduled = scheduler.schedule(debounceMs) { fire() }
    }

    /** Cancels a pending emission for good (project closing). */
    @Synchronized
    fun dispose() {
        disposed = true
        scheduled?.cancel()
        scheduled = null
        pending = null
    }

    private fun fire() {
        val path = synchronized(this) {
            val p = pending
            pending = null
            scheduled = null
            if (disposed || p == null || p == lastSent) return
            lastSent = p
            p
        }
        // Outside the lock: the emitter spawns a process and must not block focus events.
        emit(path)
    }

    companion object {
        /** Identical to the VS Code producer's. */
        const val DEBOUNCE_MS = 2_000L
    }
}
