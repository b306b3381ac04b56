/**
 * The IDE adapter's apply rules without an IDE: the conflict gate, the answers to the
 * questions a refactoring would put in a modal dialog, dumb-mode outcomes and the
 * VFS-refresh decision.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.Conflict
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class ApplyRulesTest {
    private val conflicts = (1..7).map { Conflict("src/F$it.kt", null, "clash $it") }

    private fun code(block: () -> Unit): ErrorCode = assertThrows<LeanCtxException> { block() }.code

    @Test
    fun `the gate refuses conflicts unless forced and names the first five`() {
        val e = assertThrows<LeanCtxException> { ConflictGate.check(conflicts, force = false) }
        assertEquals(ErrorCode.CONFLICT, e.code)
        assertTrue(e.message!!.startsWith("7 conflict(s): src/F1.kt: clash 1; "), e.message)
        assertTrue(e.message!!.contains("src/F5.kt: clash 5"), e.message)
        assertFalse(e.message!!.contains("src/F6.kt"), e.message)
        ConflictGate.check(conflicts, force = true)
        ConflictGate.check(emptyList(), force = false)
    }

    @Test
    fun `a conflict without a place is named by its message alone`() {
        val e = assertThrows<LeanCtxException> { ConflictGate.check(listOf(Conflict("", null, "Method clashes")), force = false) }
        assertEquals("1 conflict(s): Method clashes; pass force to apply anyway", e.message)
    }

    @Test
    fun `the platform's conflicts dialog is answered by force`() {
        // A move's MoveFileHandler.detectConflicts may find conflicts only at apply time.
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(HumanQuestion.Conflicts(conflicts), force = false) })
        assertTrue(NoModalUi.answer(HumanQuestion.Conflicts(conflicts), force = true))
        assertTrue(NoModalUi.answer(HumanQuestion.Conflicts(emptyList()), force = false))
    }

    @Test
    fun `read-only files are refused even when forced`() {
        val q = HumanQuestion.ReadOnlyFiles(listOf("src/Locked.kt"))
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(q, force = true) })
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(q, force = false) })
        assertTrue(NoModalUi.answer(HumanQuestion.ReadOnlyFiles(emptyList()), force = false))
    }

    @Test
    fun `optional dialogs are declined and the inline dialog refuses the call`() {
        assertFalse(NoModalUi.answer(HumanQuestion.AutomaticRenames, force = true))
        assertFalse(NoModalUi.answer(HumanQuestion.PreviewUsages, force = true))
        assertEquals(ErrorCode.UNSUPPORTED, code { NoModalUi.answer(HumanQuestion.InlineOptions, force = true) })
    }

    @Test
    fun `dumb mode answers INDEXING, not applied false`() {
        assertEquals(ErrorCode.INDEXING, code { ApplyOutcome.of(dumbBefore = true, dumbDuring = false, changedPaths = emptyList()) })
        assertEquals(ErrorCode.INDEXING, code { ApplyOutcome.of(dumbBefore = false, dumbDuring = true, changedPaths = emptyList()) })
        // A change that landed before indexing began is reported as it is.
        val landed = ApplyOutcome.of(dumbBefore = false, dumbDuring = true, changedPaths = listOf("src/A.kt"))
        assertTrue(landed.applied)
        assertEquals(listOf("src/A.kt"), landed.changedPaths)
        assertFalse(ApplyOutcome.of(dumbBefore = false, dumbDuring = false, changedPaths = emptyList()).applied)
    }

    @Test
    fun `the IDE refreshes saved files, reads unsaved ones as they are, and refuses to write them`() {
        assertEquals(DiskSync.Action.REFRESH, DiskSync.decide("a.kt", DiskSync.Access.READ, unsavedInIde = false))
        assertEquals(DiskSync.Action.REFRESH, DiskSync.decide("a.kt", DiskSync.Access.WRITE, unsavedInIde = false))
        assertEquals(DiskSync.Action.USE_IDE_TEXT, DiskSync.decide("a.kt", DiskSync.Access.READ, unsavedInIde = true))
        val e = assertThrows<LeanCtxException> { DiskSync.decide("src/a.kt", DiskSync.Access.WRITE, unsavedInIde = true) }
        assertEquals(ErrorCode.CONFLICT, e.code)
        assertTrue(e.message!!.startsWith("src/a.kt has unsaved changes"), e.message)
    }
}
