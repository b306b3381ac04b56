/**
 * How long the IDE may take over one agent request: every wait the adapter makes on the
 * IDE (a refresh from disk, a read action, a turn on the event thread) ends by the
 * request's [Deadline], and then answers a catalog error instead of hanging ([IdeGate]).
 *
 * The budget is the daemon's timeout for the request less a margin, so the typed answer
 * is on the wire before the daemon stops waiting and holds the window off. Our daemon
 * says its timeout in the `X-LeanCtx-Timeout-Ms` header (docs/ide-wire.md, Timeouts and
 * retries), so a user's `config.toml` values hold here too ([budget] with the header);
 * the published daemon sends no such header, so then its defaults for the route are
 * assumed (`timeout` for navigation, structure, inspections and previews,
 * `apply_timeout` for symbol edits, applies and reformat), less [MARGIN].
 *
 * The router opens one per request on the handler thread ([within]) and the adapter
 * reads it on that thread ([current]), so no backend interface has to carry it.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.Routes
import java.time.Duration

class Deadline(val budget: Duration, private val nanoTime: () -> Long = System::nanoTime) {
    private val end = nanoTime() + budget.toNanos()

    /** What is left of the budget, never negative. */
    fun remainingNanos(): Long = (end - nanoTime()).coerceAtLeast(0)

    fun passed(): Boolean = remainingNanos() == 0L

    companion object {
        /** The daemon's default `[ide] timeout`. */
        val READ: Duration = Duration.ofSeconds(30)

        /** The daemon's default `[ide] apply_timeout`. */
        val APPLY: Duration = Duration.ofSeconds(120)

        /** How much sooner than the daemon the plugin gives up: the answer still has to travel. */
        val MARGIN: Duration = Duration.ofSeconds(2)

        private val CURRENT = ThreadLocal<Deadline>()

        /** The longest timeout a header may announce: anything longer is not believed. */
        val MAX_ANNOUNCED: Duration = Duration.ofHours(1)

        /** The plugin's budget for [route] when the daemon did not say its timeout. */
        fun budget(route: String): Duration = (if (route in Routes.APPLY_TIMEOUT) APPLY else READ).minus(MARGIN)

        /**
         * The plugin's budget for [route] given the `X-LeanCtx-Timeout-Ms` header's value
         * [announcedMillis]: that timeout less [MARGIN], or less a quarter of it when it is
         * short (a 3 s timeout leaves 2.25 s, not 1 s); a missing, malformed, zero or
         * implausibly long value falls back to the route's default ([budget]).
         */
        fun budget(route: String, announcedMillis: String?): Duration {
            val millis = announcedMillis?.trim()?.toLongOrNull()?.takeIf { it > 0 && it <= MAX_ANNOUNCED.toMillis() }
                ?: return budget(route)
            val announced = Duration.ofMillis(millis)
            return announced.minus(minOf(MARGIN, announced.dividedBy(4)))
        }

        /** Runs [body] with [deadline] as this thread's [current] one. */
        fun <T> within(deadline: Deadline, body: () -> T): T {
            val outer = CURRENT.get()
            CURRENT.set(deadline)
            try {
                return body()
            } finally {
                if (outer == null) CURRENT.remove() else CURRENT.set(outer)
            }
        }

        /** The deadline of the request this thread is serving. */
        fun current(): Deadline = CURRENT.get() ?: error("no request deadline on this thread: IDE work runs only inside RequestRouter.handle")
    }
}
