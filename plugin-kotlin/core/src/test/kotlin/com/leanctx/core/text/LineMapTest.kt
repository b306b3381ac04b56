/**
 * Wire positions are 0-based lines and UTF-16 columns (docs/ide-wire.md): checked on
 * lines with accented letters (1 unit), CJK (1 unit) and emoji (2 units, a surrogate
 * pair), and on the three line-break kinds an IntelliJ Document normalises.
 */
package com.leanctx.core.text

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.Position
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class LineMapTest {
    private val text = "fn a() {}\nlet s = \"😀é漢\"; let target = 1;\r\nlast\rline"

    @Test
    fun `columns count UTF-16 units on non-ASCII lines`() {
        val map = LineMap(text)
        val line1 = "let s = \"😀é漢\"; let target = 1;"
        val col = line1.indexOf("target")
        assertEquals(20, col, "😀 is two UTF-16 units, é and 漢 one each")
        val offset = map.offset(Position(1, col))
        assertEquals("target", text.substring(offset, offset + 6))
        assertEquals(Position(1, col), map.position(offset))
        assertEquals(4, map.lineCount)
    }

    @Test
    fun `line breaks are LF, CRLF and lone CR, and a column may point at the end of its line`() {
        val map = LineMap(text)
        assertEquals(text.indexOf("last"), map.offset(Position(2, 0)))
        assertEquals(text.indexOf("line"), map.offset(Position(3, 0)))
        assertEquals(text.indexOf("\r\n"), map.offset(Position(1, 31)), "end of a CRLF line is before the CR")
        assertEquals(text.length, map.offset(Position(3, 4)))
        assertEquals(Position(3, 4), map.position(text.length))
    }

    @Test
    fun `positions past a line or the file, or inside a surrogate pair, are POSITION_OUT_OF_RANGE`() {
        val map = LineMap(text)
        for (p in listOf(Position(4, 0), Position(0, 10), Position(1, 33), Position(1, 10))) {
            val e = assertThrows<LeanCtxException> { map.offset(p) }
            assertEquals(ErrorCode.POSITION_OUT_OF_RANGE, e.code, "$p")
        }
        assertTrue(assertThrows<LeanCtxException> { map.offset(Position(1, 10)) }.message!!.contains("surrogate"))
    }

    @Test
    fun `an empty text has one empty line`() {
        val map = LineMap("")
        assertEquals(1, map.lineCount)
        assertEquals(0, map.offset(Position(0, 0)))
        assertEquals(Position(0, 0), map.position(0))
    }
}
