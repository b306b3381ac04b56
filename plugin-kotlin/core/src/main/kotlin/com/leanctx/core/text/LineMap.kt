/**
 * Wire positions ↔ offsets in a text, in UTF-16 code units (the unit of a Kotlin `String`
 * and an IntelliJ `Document`, and of the wire: docs/ide-wire.md). Line breaks are `\n`,
 * `\r\n` and a lone `\r`, the three an IntelliJ `Document` normalises, so a plain file
 * and the IDE's view of it number their lines alike.
 */
package com.leanctx.core.text

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.Position
import com.leanctx.core.wire.Range

class LineMap(private val text: CharSequence) {
    /** Offset of the first character of each line. */
    private val starts: IntArray

    init {
        val s = ArrayList<Int>()
        s.add(0)
        var i = 0
        while (i < text.length) {
            val c = text[i]
            if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length && text[i + 1] == '\n') i++
                s.add(i + 1)
            }
            i++
        }
        starts = s.toIntArray()
    }

    val lineCount: Int get() = starts.size

    fun lineStart(line: Int): Int = starts[line]

    /** Offset just past the last character of [line], before its line break. */
    fun lineEnd(line: Int): Int {
        if (line + 1 >= starts.size) return text.length
        val next = starts[line + 1]
        return if (next >= 2 && text[next - 2] == '\r' && text[next - 1] == '\n') next - 2 else next - 1
    }

    /** Offset just past [line]'s line break (the start of the next line, or the end of the text). */
    fun lineEndWithBreak(line: Int): Int = if (line + 1 < starts.size) starts[line + 1] else text.length

    /**
     * The offset of [position]. A column may point at the end of its line but not past
     * it, nor between the two halves of a surrogate pair.
     *
     * @throws LeanCtxException `POSITION_OUT_OF_RANGE`
     */
    fun offset(position: Position): Int {
        if (position.line >= starts.size) {
            outOfRange("line ${position.line} is past the last line (${starts.size - 1}, 0-based)")
        }
        val start = starts[position.line]
        val length = lineEnd(position.line) - start
        if (position.character > length) {
            outOfRange("character ${position.character} is past the end of line ${position.line} ($length UTF-16 units)")
        }
        val offset = start + position.character
        if (offset in 1 until text.length && Character.isLowSurrogate(text[offset]) && Character.isHighSurrogate(text[offset - 1])) {
            outOfRange("character ${position.character} of line ${position.line} splits a surrogate pair (columns count UTF-16 units)")
        }
        return offset
    }

    /** The `(start, end)` offsets of [range], end exclusive. */
    fun offsets(range: Range): Pair<Int, Int> = offset(range.start) to offset(range.end)

    /** The position of [offset] (0..length). */
    fun position(offset: Int): Position {
        require(offset in 0..text.length) { "offset $offset outside 0..${text.length}" }
        var line = starts.binarySearch(offset)
        if (line < 0) line = -line - 2
        return Position(line, offset - starts[line])
    }

    private fun outOfRange(message: String): Nothing = throw LeanCtxException(ErrorCode.POSITION_OUT_OF_RANGE, message)
}
