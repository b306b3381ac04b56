/**
 * The status bar's cheap stats source (docs/ide-wire.md, `stats.json`): `stats.json` in
 * the data dir, which the daemon writes atomically (`shared/src/stats.rs`). Only the
 * three `total_*` longs are extracted, by regex rather than a full parse, so the status
 * bar neither depends on nor breaks with the rest of the file's shape. Missing file or
 * unreadable value: null, never an exception.
 */
package com.leanctx.core.ui

import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.util.Locale

data class LeanCtxStats(val totalInputTokens: Long, val totalOutputTokens: Long, val totalCommands: Long) {
    /** The Rust source of truth's `input.saturating_sub(output)`. */
    val tokensSaved: Long get() = (totalInputTokens - totalOutputTokens).coerceAtLeast(0)

    fun formattedSavings(): String = formatTokens(tokensSaved)

    companion object {
        /** `12400` → `12.4K`, `1500000` → `1.5M`, below 1000 as is; a `.` decimal point whatever the locale. */
        fun formatTokens(n: Long): String {
            val m = String.format(Locale.US, "%.1f", n / 1_000_000.0)
            if (n >= 1_000_000) return "${m}M"
            val k = String.format(Locale.US, "%.1f", n / 1_000.0)
            return when {
                n < 1_000 -> n.toString()
                k == "1000.0" -> "${m}M" // 999,950 and up round to 1000.0K: say 1.0M
                else -> "${k}K"
            }
        }
    }
}

class StatsReader(private val dataDir: Path) {
    fun read(): LeanCtxStats? {
        val text = try {
            Files.readString(dataDir.resolve(FILE_NAME))
        } catch (e: IOException) {
            return null
        }
        return LeanCtxStats(
            long(text, "total_input_tokens") ?: return null,
            long(text, "total_output_tokens") ?: return null,
            long(text, "total_commands") ?: return null,
        )
    }

    private fun long(text: String, key: String): Long? =
        Regex("\"$key\"\\s*:\\s*(\\d+)").find(text)?.groupValues?.get(1)?.toLongOrNull()

    companion object {
        const val FILE_NAME = "stats.json"
    }
}

/** The status-bar widget's label and tooltip for what [StatsReader] found. */
object StatusBarText {
    fun text(stats: LeanCtxStats?): String =
        if (stats != null && stats.tokensSaved > 0) "⚡ ${stats.formattedSavings()} saved" else "⚡ lean-ctx"

    fun tooltip(stats: LeanCtxStats?): String =
        if (stats == null) {
            "lean-ctx: No stats yet"
        } else {
            "lean-ctx: ${stats.formattedSavings()} tokens saved · ${stats.totalCommands} commands"
        }
}
