/**
 * The gate between an agent's request and a busy IDE, with a scripted IDE: reads wait
 * for their refreshes and run only as committed reads, writes commit before they work,
 * and every wait ends by the request's deadline with the catalog's answer: `INDEXING`
 * for what never ran (the daemon then falls back), `BACKEND_REQUIRED` for a write that
 * started and may still land.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.time.Duration
import java.util.Collections
import java.util.concurrent.CancellationException
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

class IdeGateTest {
    /** What the scripted IDE did, in order. */
    private val events: MutableList<String> = Collections.synchronizedList(ArrayList())

    /** The scripted event thread. */
    private val edt = Executors.newSingleThreadExecutor { r -> Thread(r, "scripted-edt").apply { isDaemon = true } }

    /** Turns queued on the event thread, run only when a test lets them ([runOnEdt] false). */
    private val held = Collections.synchronizedList(ArrayList<Runnable>())

    private var dumb = false
    private var runOnEdt = true

    /** A committed read that keeps running until its cancellation fires, as a read action interrupted forever would. */
    private var readNeverEnds = false

    private val gate = IdeGate(object : IdeGate.Ide {
        override fun isDumb() = dumb

        override fun <T> readCommitted(cancellation: IdeGate.Cancellation, body: () -> T): T {
            events.add("committed read")
            if (readNeverEnds) {
                val cancelled = CountDownLatch(1)
                cancellation.onCancel { cancelled.countDown() }
                cancelled.await(10, TimeUnit.SECONDS)
                // The platform's cancellation is an unchecked exception of its own.
                throw CancellationException("cancelled")
            }
            return body()
        }

        override fun onEdt(task: Runnable) {
            if (runOnEdt) edt.execute(task) else held.add(task)
        }

        override fun commitAll() {
            events.add("commit on ${Thread.currentThread().name}")
        }
    })

    private fun deadline(millis: Long) = Deadline(Duration.ofMillis(millis))

    /** A refresh the IDE applies a little later, on a thread of its own. */
    private fun refresh(name: String) = IdeGate.Sync { done ->
        events.add("$name started")
        Thread {
            Thread.sleep(50)
            events.add("$name applied")
            done.run()
        }.start()
    }

    private fun code(block: () -> Unit): LeanCtxException = assertThrows<LeanCtxException> { block() }

    @AfterEach
    fun stop() {
        edt.shutdownNow()
    }

    @Test
    fun `a read waits for every refresh from disk, then runs as a committed read`() {
        val answer = gate.read("reading a.kt", listOf(refresh("refresh a.kt"), refresh("watched changes")), deadline(10_000)) {
            events.add("body")
            42
        }
        assertEquals(42, answer)
        assertEquals(setOf("refresh a.kt started", "watched changes started", "refresh a.kt applied", "watched changes applied"), events.take(4).toSet())
        assertEquals(listOf("committed read", "body"), events.drop(4))
    }

    @Test
    fun `a refresh the IDE never applies answers INDEXING by the deadline, and nothing is read`() {
        val never = IdeGate.Sync { events.add("refresh started") }
        val e = code { gate.read("reading a.kt", listOf(never), deadline(100)) { events.add("body") } }
        assertEquals(ErrorCode.INDEXING, e.code)
        assertTrue(e.message!!.startsWith("the IDE is busy: reading a.kt (the refresh from disk before it) did not get its turn"), e.message)
        assertEquals(listOf("refresh started"), events)
    }

    @Test
    fun `a refresh that reports twice counts once`() {
        val twice = IdeGate.Sync { done -> done.run(); done.run() }
        val never = IdeGate.Sync { }
        assertEquals(ErrorCode.INDEXING, code { gate.read("reading a.kt", listOf(twice, never), deadline(100)) { events.add("body") } }.code)
        assertFalse("body" in events)
    }

    @Test
    fun `dumb mode answers INDEXING before any read`() {
        dumb = true
        assertEquals(ErrorCode.INDEXING, code { gate.read("reading a.kt", deadline = deadline(10_000)) { events.add("body") } }.code)
        assertEquals(emptyList<String>(), events)
    }

    @Test
    fun `a read that outlives its deadline is cancelled and answers INDEXING`() {
        readNeverEnds = true
        val started = System.nanoTime()
        val e = code { gate.read("references of run", deadline = deadline(200)) { events.add("body") } }
        assertEquals(ErrorCode.INDEXING, e.code)
        assertTrue(e.message!!.startsWith("the IDE is busy: references of run did not get its turn"), e.message)
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "the cancellation did not come at the deadline")
    }

    @Test
    fun `the body's own catalog error is the answer`() {
        val e = code { gate.read("reading a.kt", deadline = deadline(10_000)) { throw LeanCtxException(ErrorCode.NO_SYMBOL, "nothing here") } }
        assertEquals(ErrorCode.NO_SYMBOL, e.code)
        assertEquals("nothing here", e.message)
    }

    @Test
    fun `an exception of a read that met no deadline is not taken for one`() {
        val e = assertThrows<IllegalStateException> { gate.read("reading a.kt", deadline = deadline(10_000)) { error("broken") } }
        assertEquals("broken", e.message)
    }

    @Test
    fun `a write commits every document on the event thread before its work, and answers what the work returns`() {
        val answer = gate.write("the edit of a.kt", listOf(refresh("refresh a.kt")), deadline(10_000)) {
            events.add("work on ${Thread.currentThread().name}")
            "done"
        }
        assertEquals("done", answer)
        assertEquals(listOf("refresh a.kt started", "refresh a.kt applied", "commit on scripted-edt", "work on scripted-edt"), events)
    }

    @Test
    fun `a write the event thread does not start by the deadline is withdrawn with INDEXING and never runs`() {
        runOnEdt = false
        val e = code { gate.write("the rename", deadline = deadline(100)) { events.add("work") } }
        assertEquals(ErrorCode.INDEXING, e.code)
        assertTrue(e.message!!.contains("nothing was changed"), e.message)
        // The dialog closes; the event thread gets to the queued turn after all.
        assertEquals(1, held.size)
        held.single().run()
        assertEquals(emptyList<String>(), events)
    }

    @Test
    fun `a write still running at the deadline answers BACKEND_REQUIRED, as it may still change files`() {
        val release = CountDownLatch(1)
        val finished = AtomicBoolean()
        val e = code {
            gate.write("the move", deadline = deadline(200)) {
                release.await(10, TimeUnit.SECONDS)
                finished.set(true)
            }
        }
        assertEquals(ErrorCode.BACKEND_REQUIRED, e.code)
        assertTrue(e.message!!.startsWith("the IDE started the move and had not finished"), e.message)
        release.countDown()
        edt.shutdown()
        assertTrue(edt.awaitTermination(10, TimeUnit.SECONDS))
        assertTrue(finished.get(), "a started write is never cut off")
    }

    @Test
    fun `a write's failure on the event thread is the answer`() {
        val e = code { gate.write("the edit of a.kt", deadline = deadline(10_000)) { throw LeanCtxException(ErrorCode.CONFLICT, "read-only") } }
        assertEquals(ErrorCode.CONFLICT, e.code)
    }

    @Test
    fun `a deadline already passed answers INDEXING without a turn on the event thread`() {
        val passed = deadline(0)
        assertTrue(passed.passed())
        assertEquals(ErrorCode.INDEXING, code { gate.write("the edit of a.kt", listOf(IdeGate.Sync { events.add("refresh started") }), passed) { events.add("work") } }.code)
        assertEquals(listOf("refresh started"), events)
    }
}
