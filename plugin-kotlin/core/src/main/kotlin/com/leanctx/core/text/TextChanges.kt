/**
 * Applying a batch of [TextChange]s to a string: the one place that orders them and
 * refuses overlaps, shared by the file store and by anyone who applies changes to an
 * IDE `Document` (back to front, so earlier offsets stay valid).
 */
package com.leanctx.core.text

import com.leanctx.core.api.TextChange
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException

object TextChanges {
    /**
     * [changes] ordered last-first, checked to lie inside a text of [length] and not to
     * overlap (two inserts at one offset would have no defined order).
     *
     * @throws LeanCtxException `POSITION_OUT_OF_RANGE` for a change outside the text,
     *   `CONFLICT` for overlapping ones
     */
    fun backToFront(changes: List<TextChange>, length: Int): List<TextChange> {
        for (c in changes) {
            if (c.start < 0 || c.end < c.start || c.end > length) {
                throw LeanCtxException(ErrorCode.POSITION_OUT_OF_RANGE, "change [${c.start}, ${c.end}) is outside the text (length $length)")
            }
        }
        val sorted = changes.sortedWith(compareByDescending<TextChange> { it.start }.thenByDescending { it.end })
        for (i in 1 until sorted.size) {
            val later = sorted[i - 1]
            val earlier = sorted[i]
            if (earlier.end > later.start || earlier.start == later.start) {
                throw LeanCtxException(ErrorCode.CONFLICT, "changes [${earlier.start}, ${earlier.end}) and [${later.start}, ${later.end}) overlap")
            }
        }
        return sorted
    }

    /** [text] with [changes] applied. */
    fun apply(text: String, changes: List<TextChange>): String {
        val sb = StringBuilder(text)
        for (c in backToFront(changes, text.length)) sb.replace(c.start, c.end, c.replacement)
        return sb.toString()
    }
}
