/**
 * Loading the Gain report (docs/ide-wire.md, `lean-ctx gain --json`): run
 * `lean-ctx gain --json` with a 10 s timeout (shorter than the status bar's 30 s, so a
 * hung binary surfaces quickly) and classify the outcome into the four states the panel
 * shows. The subprocess keeps the GainScore logic in Rust; this side only sorts outcomes.
 */
package com.leanctx.core.ui

import java.time.Duration

sealed class GainLoadResult {
    data class Ok(val data: GainData) : GainLoadResult()

    /** The binary ran but nothing has been counted yet. */
    object Empty : GainLoadResult()

    /** No lean-ctx binary: the panel says to run `lean-ctx setup` or fix PATH. */
    object BinaryNotFound : GainLoadResult()

    /** Non-zero exit, timeout or unreadable output; [stderrExcerpt] is ANSI-free. */
    data class Failed(val reason: String, val stderrExcerpt: String) : GainLoadResult()
}

class GainLoader(private val runner: CommandRunner) {
    fun load(): GainLoadResult = classify(runner.run(listOf("gain", "--json"), TIMEOUT))

    companion object {
        val TIMEOUT: Duration = Duration.ofSeconds(10)

        /** Longest stderr excerpt shown, in lines and characters. */
        private const val EXCERPT_LINES = 12
        private const val EXCERPT_CHARS = 1_000

        fun classify(result: CommandResult): GainLoadResult {
            if (result.stderr.contains(CommandRunner.BINARY_NOT_FOUND)) return GainLoadResult.BinaryNotFound
            val excerpt = excerpt(result.stderr)
            if (result.timedOut) return GainLoadResult.Failed("lean-ctx gain timed out after ${TIMEOUT.seconds} s", excerpt)
            if (result.exitCode != 0) return GainLoadResult.Failed("lean-ctx gain exited with code ${result.exitCode}", excerpt)
            val data = try {
                GainCodec.parse(result.stdout)
            } catch (e: GainParseException) {
                return GainLoadResult.Failed(e.message ?: "unreadable gain output", excerpt)
            }
            return if (data.summary.tokensSaved == 0L && data.totalCommands == 0L) GainLoadResult.Empty else GainLoadResult.Ok(data)
        }

        fun excerpt(stderr: String): String {
            val lines = AnsiText.strip(stderr).trim().lines()
            val kept = lines.take(EXCERPT_LINES).joinToString("\n")
            val cut = if (kept.length > EXCERPT_CHARS) kept.take(EXCERPT_CHARS) else kept
            return if (cut.length < kept.length || lines.size > EXCERPT_LINES) "$cut\n…" else cut
        }
    }
}
