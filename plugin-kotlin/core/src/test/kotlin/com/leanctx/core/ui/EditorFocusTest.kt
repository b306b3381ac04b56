/**
 * The editor-focus reporter (docs/ide-wire.md, editor focus) on a virtual clock: the
 * filter with its segment-boundary check, the 2 s debounce, back-to-back dedup, the
 * registry opt-out and cancellation on dispose. No sleeps: time moves only when the test
 * advances it.
 */
package com.leanctx.core.ui

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** A scheduler whose clock moves only in [advance]. */
class VirtualScheduler : DelayScheduler {
    var now = 0L
        private set

    private class Task(val due: Long, val run: () -> Unit) {
        var cancelled = false
    }

    private val tasks = ArrayList<Task>()

    override fun schedule(delayMs: Long, task: () -> Unit): Cancellable {
        val t = Task(now + delayMs, task)
        tasks.add(t)
        return Cancellable { t.cancelled = true }
    }

    fun advance(ms: Long) {
        val until = now + ms
        while (true) {
            val next = tasks.filter { !it.cancelled && it.due <= until }.minByOrNull { it.due } ?: break
            tasks.remove(next)
            now = next.due
            next.run()
        }
        now = until
        tasks.removeIf { it.cancelled }
    }

    val pending: Int get() = tasks.count { !it.cancelled }
}

class EditorFocusTest {
    private val base = "/home/dev/proj"
    private fun local(path: String) = FocusedFile(path, isLocal = true, isDirectory = false)

    @Test
    fun `only local files strictly under the base path, on a segment boundary, pass`() {
        val filter = FocusFilter(base)
        assertTrue(filter.accepts(local("/home/dev/proj/src/Main.kt")))
        assertTrue(FocusFilter("$base/").accepts(local("/home/dev/proj/a.rs")), "a trailing slash on the base is fine")
        assertFalse(filter.accepts(local("/home/dev/proj2/src/Main.kt")), "sibling with the base as a prefix")
        assertFalse(filter.accepts(local("/home/dev/proj")), "the base itself")
        assertFalse(filter.accepts(local("/home/dev/proj/")))
        assertFalse(filter.accepts(local("/home/dev/other/Main.kt")))
        assertFalse(filter.accepts(FocusedFile("/home/dev/proj/src", isLocal = true, isDirectory = true)))
        assertFalse(filter.accepts(FocusedFile("/home/dev/proj/Foo.class", isLocal = false, isDirectory = false)), "jar/decompiled/scratch")
        assertFalse(FocusFilter(null).accepts(local("/home/dev/proj/a.kt")), "a project without a base path")
        assertFalse(FocusFilter("").accepts(local("/a.kt")))
    }

    private class Rig(enabled: Boolean = true) {
        val clock = VirtualScheduler()
        val sent = ArrayList<Pair<Long, String>>()
        var enabled = enabled
        val reporter = EditorFocusReporter(FocusFilter("/home/dev/proj"), clock, { this.enabled }, { sent.add(clock.now to it) })
        fun focus(name: String) = reporter.onFileFocused(FocusedFile("/home/dev/proj/$name", true, false))
    }

    @Test
    fun `rapid tab hops collapse into one emission 2 s after the last`() {
        val rig = Rig()
        rig.focus("a.kt")
        rig.clock.advance(500)
        rig.focus("b.kt")
        rig.clock.advance(1_999)
        assertEquals(emptyList<Pair<Long, String>>(), rig.sent, "nothing before the window closes")
        rig.focus("c.kt")
        rig.clock.advance(2_000)
        assertEquals(listOf(4_499L to "/home/dev/proj/c.kt"), rig.sent)
        assertEquals(0, rig.clock.pending)
    }

    @Test
    fun `the same path back to back is sent once`() {
        val rig = Rig()
        rig.focus("a.kt")
        rig.clock.advance(2_000)
        rig.focus("a.kt")
        rig.clock.advance(5_000)
        rig.focus("b.kt")
        rig.clock.advance(100)
        rig.focus("a.kt") // back to A before B was sent: nothing new to say
        rig.clock.advance(2_000)
        rig.focus("b.kt")
        rig.clock.advance(2_000)
        assertEquals(listOf(2_000L to "/home/dev/proj/a.kt", 11_100L to "/home/dev/proj/b.kt"), rig.sent)
    }

    @Test
    fun `the opt-out is read on every focus event`() {
        val rig = Rig(enabled = false)
        rig.focus("a.kt")
        rig.clock.advance(10_000)
        assertEquals(0, rig.sent.size)
        rig.enabled = true
        rig.focus("a.kt")
        rig.clock.advance(2_000)
        assertEquals(1, rig.sent.size)
    }

    @Test
    fun `filtered files do not restart the debounce`() {
        val rig = Rig()
        rig.focus("a.kt")
        rig.clock.advance(1_500)
        rig.reporter.onFileFocused(FocusedFile("/elsewhere/x.kt", true, false))
        rig.clock.advance(500)
        assertEquals(listOf(2_000L to "/home/dev/proj/a.kt"), rig.sent)
    }

    @Test
    fun `dispose cancels a pending emission for good`() {
        val rig = Rig()
        rig.focus("a.kt")
        rig.reporter.dispose()
        rig.clock.advance(5_000)
        rig.focus("b.kt")
        rig.clock.advance(5_000)
        assertEquals(0, rig.sent.size)
        assertEquals(0, rig.clock.pending)
    }
}
