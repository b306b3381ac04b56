/**
 * The one door through which the IDE adapter touches the IDE on an agent's path, so that
 * a busy IDE (a modal dialog left open, a user typing, a long write) costs the agent a
 * bounded wait and a catalog error, never a hang (plugin-kotlin/README.md, "Under a busy
 * IDE"). The adapter supplies the platform's primitives ([Ide]); the gate decides their
 * order and bounds, all within the request's [Deadline]:
 *
 * - [read]: the syncs first (the IDE's asynchronous refreshes from disk, each waited for,
 *   never a synchronous refresh, which would wait on the event thread without a bound),
 *   then dumb mode answers `INDEXING`, then the body runs in a read action on committed
 *   documents ([Ide.readCommitted]), so a Document's offsets and the PSI come from one
 *   snapshot. At the deadline the read is cancelled and answers [busy].
 * - [write]: the syncs, then one turn on the event thread ([Ide.onEdt], queued so that a
 *   modal dialog holds it back rather than the reverse) that commits every document
 *   before the work reads PSI. A turn not started by the deadline is withdrawn (it will
 *   never run) and answers [busy]; one started and still running answers [stillRunning].
 *
 * Why `INDEXING` for a busy IDE: it is the catalog's only code for "not now; retrying
 * later will work" (docs/errors.md): the daemon passes it on to the next backing, or,
 * where only the IDE can act (move, safe delete, inline), answers it as a retry (the CLI's
 * exit 75). `UNSUPPORTED` would tell the agent the IDE cannot do it, which closing the
 * dialog disproves; a code of its own would need the daemon's catalog
 * (`shared/src/wire/error.rs`) to learn it first. A write the IDE has started is never
 * passed on (docs/ide-wire.md, Timeouts and retries), so that case is `BACKEND_REQUIRED`,
 * the daemon's own answer for an apply that hangs.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import java.util.concurrent.CountDownLatch
import java.util.concurrent.ScheduledThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

class IdeGate(private val ide: Ide) {
    /** The platform's primitives, as the adapter implements them. */
    interface Ide {
        fun isDumb(): Boolean

        /**
         * Runs [body] in a read action once every document is committed, restarting it
         * when a write interrupts it; once [cancellation] fires it stops (by throwing) at
         * the body's next cancellation check.
         */
        fun <T> readCommitted(cancellation: Cancellation, body: () -> T): T

        /** Queues [task] on the event thread, to run once no modal dialog is open. Must not block. */
        fun onEdt(task: Runnable)

        /** On the event thread: commits every document, so PSI read afterwards matches its Document. */
        fun commitAll()
    }

    /** An asynchronous step of the IDE (a refresh from disk) that calls `done` once applied. Must not block. */
    fun interface Sync {
        fun start(done: Runnable)
    }

    /** What fires when a read's deadline passes: the adapter hangs its progress indicator's cancel on it. */
    class Cancellation {
        private val actions = ArrayList<Runnable>()
        private var fired = false

        @Synchronized
        fun onCancel(action: Runnable) {
            if (fired) action.run() else actions.add(action)
        }

        @Synchronized
        internal fun fire() {
            fired = true
            actions.forEach(Runnable::run)
        }
    }

    /** [body] on committed PSI, after [syncs], by the deadline; [what] names it in a refusal. */
    fun <T> read(what: String, syncs: List<Sync> = emptyList(), deadline: Deadline = Deadline.current(), body: () -> T): T {
        await(what, syncs, deadline)
        if (ide.isDumb()) throw ApplyOutcome.indexing()
        val cancellation = Cancellation()
        val expired = AtomicBoolean()
        val timer = TIMER.schedule({
            expired.set(true)
            cancellation.fire()
        }, deadline.remainingNanos(), TimeUnit.NANOSECONDS)
        try {
            return ide.readCommitted(cancellation) {
                if (ide.isDumb()) throw ApplyOutcome.indexing()
                body()
            }
        } catch (e: RuntimeException) {
            // The platform's cancellation is an unchecked exception of its own; a catalog
            // error is the body's answer and stands.
            if (expired.get() && e !is LeanCtxException) throw busy(what, deadline)
            throw e
        } finally {
            timer.cancel(false)
        }
    }

    /** [work] in one turn on the event thread, after [syncs] and a commit of every document, by the deadline. */
    fun <T> write(what: String, syncs: List<Sync> = emptyList(), deadline: Deadline = Deadline.current(), work: () -> T): T {
        await(what, syncs, deadline)
        val turn = Turn {
            ide.commitAll()
            work()
        }
        ide.onEdt(turn)
        return turn.await(what, deadline)
    }

    /** Waits for every one of [syncs] to be applied, by the deadline. */
    fun await(what: String, syncs: List<Sync>, deadline: Deadline = Deadline.current()) {
        if (syncs.isEmpty()) return
        val left = CountDownLatch(syncs.size)
        for (sync in syncs) {
            val once = AtomicBoolean()
            sync.start { if (once.compareAndSet(false, true)) left.countDown() }
        }
        if (!left.await(deadline.remainingNanos(), TimeUnit.NANOSECONDS)) throw busy("$what (the refresh from disk before it)", deadline)
    }

    /** A turn on the event thread that can be withdrawn until it starts, and never after. */
    private class Turn<T>(private val work: () -> T) : Runnable {
        private val state = AtomicInteger(PENDING)
        private val finished = CountDownLatch(1)

        @Volatile
        private var outcome: Result<T>? = null

        override fun run() {
            if (!state.compareAndSet(PENDING, STARTED)) return
            try {
                outcome = runCatching(work)
            } finally {
                finished.countDown()
            }
        }

        fun await(what: String, deadline: Deadline): T {
            if (!finished.await(deadline.remainingNanos(), TimeUnit.NANOSECONDS)) {
                if (state.compareAndSet(PENDING, WITHDRAWN)) throw busy(what, deadline)
                // It started just now, or long ago: what it does from here on is out of our hands.
                if (!finished.await(0, TimeUnit.NANOSECONDS)) throw stillRunning(what, deadline)
            }
            return outcome!!.getOrThrow()
        }
    }

    companion object {
        private const val PENDING = 0
        private const val STARTED = 1
        private const val WITHDRAWN = 2

        /** Fires deadlines; one daemon thread, whose tasks are removed when cancelled. */
        private val TIMER = ScheduledThreadPoolExecutor(1) { r -> Thread(r, "leanctx-deadline").apply { isDaemon = true } }
            .apply { removeOnCancelPolicy = true }

        /** The budget as a person reads it: whole seconds, or milliseconds under one. */
        private fun said(deadline: Deadline): String =
            if (deadline.budget.seconds >= 1) "${deadline.budget.seconds} s" else "${deadline.budget.toMillis()} ms"

        /** The IDE did not get to [what] by the deadline; nothing of it ran. */
        fun busy(what: String, deadline: Deadline) = LeanCtxException(
            ErrorCode.INDEXING,
            "the IDE is busy: $what did not get its turn within ${said(deadline)} " +
                "(a modal dialog is open, or writes keep interrupting it); nothing was changed; retry once the IDE is free",
        )

        /** The IDE started [what] and had not finished by the deadline. */
        fun stillRunning(what: String, deadline: Deadline) = LeanCtxException(
            ErrorCode.BACKEND_REQUIRED,
            "the IDE started $what and had not finished within ${said(deadline)}; " +
                "it may still change files: check them before retrying",
        )
    }
}
