/** ANSI stripping: CLI colour never reaches a Swing dialog. */
package com.leanctx.core.ui

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

class AnsiTextTest {
    private val esc = "\u001B"

    @Test
    fun `colour, bold, cursor and erase sequences are removed`() {
        assertEquals("ok: daemon running", AnsiText.strip("$esc[1;32mok:$esc[0m daemon running"))
        assertEquals("progress 50%", AnsiText.strip("$esc[2K${esc}[1Gprogress 50%"))
        assertEquals("a b", AnsiText.strip("a$esc[?25l b$esc[?25h"))
        assertEquals("x", AnsiText.strip("$esc[38;5;208mx$esc[m"))
    }

    @Test
    fun `hyperlinks and titles (OSC) are removed with their payload, keeping the link text`() {
        assertEquals("docs", AnsiText.strip("$esc]8;;https://example.org$esc\\docs$esc]8;;$esc\\"))
        assertEquals("done", AnsiText.strip("$esc]0;lean-ctx\u0007done"))
    }

    @Test
    fun `plain text, including brackets and non-ASCII, is unchanged`() {
        val plain = "[ok] ⚡ 12.4K saved — é 😀 [1m"
        assertEquals(plain, AnsiText.strip(plain))
    }
}
