/**
 * The symbol-body edits (docs/ide-wire.md, Symbol-body edits) on any [DocumentStore]: the
 * IDE adapter passes its `Document` store, the contract double its plain-file store, so
 * both place text byte-identically.
 *
 * The daemon has already resolved the symbol to [EditRequest.range] and checked its
 * `expected_hash` against the disk bytes (docs/ide-wire.md, Guards); the plugin never
 * hashes. Placement follows the daemon's headless writer (`daemon/src/edit.rs`): a
 * replacement goes exactly over the range; an insertion takes whole lines, before the
 * range's first line or after its last one, its trailing line breaks trimmed and one line
 * break of the file's own kind added; inserted text takes the file's line endings. Unlike
 * the headless writer the plugin does not re-indent: the daemon sends the text as it
 * means it to land. Nothing is reformatted.
 */
package com.leanctx.core.text

import com.leanctx.core.api.DocumentStore
import com.leanctx.core.api.SymbolEdits
import com.leanctx.core.api.TextChange
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.EditResponse
import com.leanctx.core.wire.Position
import com.leanctx.core.wire.Range

class TextSymbolEdits(private val store: DocumentStore) : SymbolEdits {
    override fun replaceSymbolBody(request: EditRequest): EditResponse = store.edit(request.path) { text ->
        val lines = LineMap(text)
        val (start, end) = lines.offsets(request.range)
        val written = withLineBreaks(request.text, lineBreakOf(text))
        planned(TextChange(start, end, written), request.range.start, written)
    }

    override fun insertBeforeSymbol(request: EditRequest): EditResponse = store.edit(request.path) { text ->
        val lines = LineMap(text)
        lines.offsets(request.range) // validates the range even though only its first line matters
        val eol = lineBreakOf(text)
        val written = withLineBreaks(request.text.trimEnd('\n', '\r'), eol)
        val at = lines.lineStart(request.range.start.line)
        planned(TextChange(at, at, written + eol), Position(request.range.start.line, 0), written)
    }

    override fun insertAfterSymbol(request: EditRequest): EditResponse = store.edit(request.path) { text ->
        val lines = LineMap(text)
        lines.offsets(request.range)
        val eol = lineBreakOf(text)
        val written = withLineBreaks(request.text.trimEnd('\n', '\r'), eol)
        val last = lastLine(request.range)
        val at = lines.lineEndWithBreak(last)
        if (at == text.length && !endsWithLineBreak(text)) {
            // The symbol ends the file without a line break: start a new line for the text.
            planned(TextChange(at, at, eol + written), Position(last + 1, 0), written)
        } else {
            planned(TextChange(at, at, written + eol), lines.position(at), written)
        }
    }

    private fun planned(change: TextChange, start: Position, written: String): DocumentStore.Planned<EditResponse> =
        DocumentStore.Planned(listOf(change), EditResponse(true, Range(start, advance(start, written)), written))

    companion object {
        /**
         * The line a range really ends on: a range that ends at column 0 of a later line
         * (it took its last line's break along) ends on the line before.
         */
        fun lastLine(range: Range): Int =
            if (range.end.character == 0 && range.end.line > range.start.line) range.end.line - 1 else range.end.line

        /** The file's line break: the kind its first line break is, `\n` if it has none. */
        fun lineBreakOf(text: String): String {
            val i = text.indexOfAny(charArrayOf('\n', '\r'))
            return when {
                i < 0 || text[i] == '\n' -> "\n"
                i + 1 < text.length && text[i + 1] == '\n' -> "\r\n"
                else -> "\r"
            }
        }

        /** [text] with every line break turned into [eol]. */
        fun withLineBreaks(text: String, eol: String): String =
            text.replace("\r\n", "\n").replace('\r', '\n').let { if (eol == "\n") it else it.replace("\n", eol) }

        private fun endsWithLineBreak(text: String): Boolean = text.endsWith('\n') || text.endsWith('\r')

        /** Where [text] ends when written from [start]. */
        fun advance(start: Position, text: String): Position {
            val map = LineMap(text)
            val last = map.lineCount - 1
            val tail = text.length - map.lineStart(last)
            return if (last == 0) Position(start.line, start.character + tail) else Position(start.line + last, tail)
        }
    }
}
