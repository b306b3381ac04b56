/** The status bar's stats (docs/ide-wire.md): `stats.json` → tokens saved, `⚡ 12.4K saved`. */
package com.leanctx.core.ui

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path
import java.util.Locale

class StatsTest {
    @TempDir
    lateinit var dataDir: Path

    /** The shape `shared/src/stats.rs` writes (pretty JSON, nested tables). */
    private val statsJson = """
        {
          "total_input_tokens": 15352,
          "total_output_tokens": 2952,
          "total_commands": 42,
          "total_errors": 1,
          "commands": { "outline": { "commands": 40, "errors": 1, "input_tokens": 15000, "output_tokens": 2900 } },
          "daily": {},
          "files": {}
        }
    """.trimIndent()

    @Test
    fun `reads the three totals and saves input minus output`() {
        Files.writeString(dataDir.resolve("stats.json"), statsJson)
        val stats = StatsReader(dataDir).read()!!
        assertEquals(LeanCtxStats(15352, 2952, 42), stats)
        assertEquals(12400, stats.tokensSaved)
        assertEquals("⚡ 12.4K saved", StatusBarText.text(stats))
        assertEquals("lean-ctx: 12.4K tokens saved · 42 commands", StatusBarText.tooltip(stats))
    }

    @Test
    fun `missing or unreadable stats are null, never an exception`() {
        assertNull(StatsReader(dataDir).read())
        assertEquals("⚡ lean-ctx", StatusBarText.text(null))
        assertEquals("lean-ctx: No stats yet", StatusBarText.tooltip(null))
        for (bad in listOf("", "{", """{"total_input_tokens": "x"}""", """{"total_input_tokens": 5, "total_output_tokens": 1}""")) {
            Files.writeString(dataDir.resolve("stats.json"), bad)
            assertNull(StatsReader(dataDir).read(), bad)
        }
    }

    @Test
    fun `savings never go negative and zero shows the idle label`() {
        val stats = LeanCtxStats(10, 50, 3)
        assertEquals(0, stats.tokensSaved)
        assertEquals("⚡ lean-ctx", StatusBarText.text(stats))
        assertEquals("lean-ctx: 0 tokens saved · 3 commands", StatusBarText.tooltip(stats))
    }

    @Test
    fun `token counts format as raw, K and M with a dot whatever the locale`() {
        val before = Locale.getDefault()
        Locale.setDefault(Locale.GERMANY)
        try {
            val cases = mapOf(
                0L to "0", 999L to "999", 1_000L to "1.0K", 12_400L to "12.4K", 12_449L to "12.4K",
                999_949L to "999.9K", 999_950L to "1.0M", 1_500_000L to "1.5M", 12_345_678L to "12.3M",
            )
            for ((n, text) in cases) assertEquals(text, LeanCtxStats.formatTokens(n), "$n")
        } finally {
            Locale.setDefault(before)
        }
    }
}
