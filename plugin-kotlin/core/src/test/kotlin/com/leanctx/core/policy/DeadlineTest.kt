/**
 * A request's deadline: the daemon's timeout for its route (docs/ide-wire.md, Timeouts and
 * retries) less the margin, counted on a clock, and held for the handler thread only
 * while the router serves the request.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.Routes
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.time.Duration

class DeadlineTest {
    @Test
    fun `edits, applies and reformat get the apply timeout, every other route the read timeout, each less the margin`() {
        // docs/ide-wire.md, Timeouts and retries: apply_timeout is for symbol-body edits, *Apply and /reformat.
        val applies = setOf(
            "/replaceSymbolBody", "/insertBeforeSymbol", "/insertAfterSymbol", "/renameApply", "/reformat",
            "/moveApply", "/safeDeleteApply", "/inlineApply",
        )
        for (route in Routes.POST) {
            val expected = if (route in applies) Duration.ofSeconds(118) else Duration.ofSeconds(28)
            assertEquals(expected, Deadline.budget(route), route)
        }
        assertTrue(Routes.POST.containsAll(applies))
    }

    @Test
    fun `a timeout the daemon announces replaces the route's default, less the margin or a quarter of a short one`() {
        assertEquals(Duration.ofMillis(43_000), Deadline.budget("/references", "45000"))
        assertEquals(Duration.ofMillis(8_000), Deadline.budget("/renameApply", " 10000 "))
        // Short timeouts keep three quarters: the answer still has to travel, but not for 2 s of 3.
        assertEquals(Duration.ofMillis(2_250), Deadline.budget("/references", "3000"))
        assertEquals(Duration.ofMillis(750), Deadline.budget("/references", "1000"))
        // Missing, malformed, zero, negative or implausibly long: the published daemon's defaults.
        for (value in listOf(null, "", "soon", "0", "-5", "1.5", (Deadline.MAX_ANNOUNCED.toMillis() + 1).toString())) {
            assertEquals(Duration.ofSeconds(28), Deadline.budget("/references", value), value.toString())
            assertEquals(Duration.ofSeconds(118), Deadline.budget("/moveApply", value), value.toString())
        }
    }

    @Test
    fun `the remaining time counts down on the clock and never goes negative`() {
        var now = 1_000L
        val deadline = Deadline(Duration.ofNanos(500)) { now }
        assertEquals(500, deadline.remainingNanos())
        now = 1_300
        assertEquals(200, deadline.remainingNanos())
        assertFalse(deadline.passed())
        now = 2_000
        assertEquals(0, deadline.remainingNanos())
        assertTrue(deadline.passed())
    }

    @Test
    fun `the current deadline is the innermost request's, and none outside one`() {
        val outer = Deadline(Duration.ofSeconds(28))
        val inner = Deadline(Duration.ofSeconds(118))
        Deadline.within(outer) {
            assertSame(outer, Deadline.current())
            Deadline.within(inner) { assertSame(inner, Deadline.current()) }
            assertSame(outer, Deadline.current())
        }
        assertThrows<IllegalStateException> { Deadline.current() }
    }
}
