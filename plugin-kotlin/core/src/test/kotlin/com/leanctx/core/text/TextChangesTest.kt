/** Batches of changes apply back to front and refuse overlaps (scripted multi-edit applies rely on it). */
package com.leanctx.core.text

import com.leanctx.core.api.TextChange
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class TextChangesTest {
    @Test
    fun `offsets all refer to the original text`() {
        val out = TextChanges.apply("run(); run();", listOf(TextChange(0, 3, "execute"), TextChange(7, 10, "execute")))
        assertEquals("execute(); execute();", out)
    }

    @Test
    fun `overlapping or out-of-text changes are refused`() {
        assertEquals(ErrorCode.CONFLICT, assertThrows<LeanCtxException> { TextChanges.apply("abcdef", listOf(TextChange(0, 3, "x"), TextChange(2, 4, "y"))) }.code)
        assertEquals(ErrorCode.CONFLICT, assertThrows<LeanCtxException> { TextChanges.apply("abcdef", listOf(TextChange(1, 1, "x"), TextChange(1, 1, "y"))) }.code)
        assertEquals(ErrorCode.POSITION_OUT_OF_RANGE, assertThrows<LeanCtxException> { TextChanges.apply("abc", listOf(TextChange(2, 9, "x"))) }.code)
    }
}
