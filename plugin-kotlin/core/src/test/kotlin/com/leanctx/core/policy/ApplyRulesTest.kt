/**
 * The IDE adapter's apply rules without an IDE: the conflict gate, the answers to the
 * questions (and error dialogs) a refactoring would put in a modal dialog, the check of
 * the files an apply writes, exact saves, the reformat range, dumb-mode outcomes and the
 * VFS-refresh decision.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.Conflict
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.ReformatScopeKind
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

    @Test
    fun `files outside the project are never written, forced or not`() {
        val q = HumanQuestion.NonProjectFiles(listOf("/opt/lib/src/Util.kt"))
        val e = assertThrows<LeanCtxException> { NoModalUi.answer(q, force = true) }
        assertEquals(ErrorCode.CONFLICT, e.code)
        assertTrue(e.message!!.startsWith("outside the project: /opt/lib/src/Util.kt"), e.message)
        assertTrue(NoModalUi.answer(HumanQuestion.NonProjectFiles(emptyList()), force = false))
    }

    @Test
    fun `a usage search's error dialogs become catalog errors`() {
        // Unknown reference types: another backing or a hand edit may; a damaged index: retry.
        assertEquals(ErrorCode.UNSUPPORTED, code { NoModalUi.answer(HumanQuestion.UnsupportedUsages, force = true) })
        assertEquals(ErrorCode.INDEXING, code { NoModalUi.answer(HumanQuestion.InterruptedSearch, force = true) })
    }

    private fun state(path: String, inside: Boolean = true, writable: Boolean = true, unsaved: Boolean = false, atPlan: Long? = 7, now: Long? = 7) =
        FileState(path, inside, writable, unsaved, atPlan, now)

    @Test
    fun `an apply writes only saved, writable project files unchanged since its plan`() {
        ApplyFiles.check(listOf(state("src/A.kt"), state("src/B.kt", atPlan = null, now = 3)))
        fun refusal(vararg files: FileState): String {
            val e = assertThrows<LeanCtxException> { ApplyFiles.check(files.toList()) }
            assertEquals(ErrorCode.CONFLICT, e.code)
            return e.message!!
        }
        assertTrue(refusal(state("src/A.kt"), state("/opt/B.kt", inside = false)).startsWith("outside the project: /opt/B.kt"))
        assertTrue(refusal(state("src/A.kt", writable = false)).startsWith("read-only in the IDE: src/A.kt"))
        assertTrue(refusal(state("src/A.kt", unsaved = true)).startsWith("src/A.kt has unsaved changes"))
        // A usage file the plan did not list is held to the same rules.
        assertTrue(refusal(state("src/C.kt", atPlan = null, writable = false)).startsWith("read-only in the IDE: src/C.kt"))
        val changed = refusal(state("src/A.kt", now = 8), state("src/B.kt"))
        assertTrue(changed.startsWith("changed in the IDE since this apply's plan was computed: src/A.kt;"), changed)
    }

    @Test
    fun `an apply saves exactly the documents it changed`() {
        // "u" was left unsaved by the user before the apply; "a" and "b" the apply changed.
        assertEquals(listOf("a", "b"), Saves.exactly(unsavedBefore = listOf("u"), unsavedAfter = listOf("u", "a", "b", "a")))
        assertEquals(emptyList<String>(), Saves.exactly(unsavedBefore = listOf("u"), unsavedAfter = listOf("u")))
        assertEquals(listOf("a"), Saves.exactly(unsavedBefore = emptyList(), unsavedAfter = listOf("a")))
    }

    @Test
    fun `a reformat touches the requested file only, the whole of it, the region, or the innermost declaration there`() {
        assertEquals(0 to 120, ReformatRange.of(ReformatScopeKind.FILE, 120, null, emptyList()))
        assertEquals(10 to 20, ReformatRange.of(ReformatScopeKind.REGION, 120, 10 to 20, emptyList()))
        // A parameter (12-15) does not cover the name 16-19; its method (8-60) does, and wins over the class (0-120).
        val around = listOf(12 to 15, 8 to 60, 0 to 120)
        assertEquals(8 to 60, ReformatRange.of(ReformatScopeKind.SYMBOL, 120, 16 to 19, around))
        val e = assertThrows<LeanCtxException> { ReformatRange.of(ReformatScopeKind.SYMBOL, 120, 16 to 19, listOf(12 to 15)) }
        assertEquals(ErrorCode.NO_SYMBOL, e.code)
    }

    @Test
    fun `a file rename onto an existing file is refused, forced or not`() {
        val q = HumanQuestion.OverwriteFiles(listOf("src/B.kt"))
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(q, force = true) })
        val e = assertThrows<LeanCtxException> { NoModalUi.answer(q, force = false) }
        assertTrue(e.message!!.startsWith("already exist: src/B.kt;"), e.message)
        assertTrue(NoModalUi.answer(HumanQuestion.OverwriteFiles(emptyList()), force = false))
    }

    @Test
    fun `modules that are not loaded are a conflict the preview lists and force passes, not a usage view`() {
        val conflict = NoModalUi.unloadedModules(2)!!
        assertEquals("", conflict.path)
        assertTrue(conflict.message.contains("2 module(s) not loaded"), conflict.message)
        assertEquals(null, NoModalUi.unloadedModules(0))
        val q = HumanQuestion.UnloadedModules(1)
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(q, force = false) })
        assertTrue(NoModalUi.answer(q, force = true))
        assertTrue(NoModalUi.answer(HumanQuestion.UnloadedModules(0), force = false))
        // A processor that decides on its own to show the usage view: refused, forced or not.
        assertEquals(ErrorCode.CONFLICT, code { NoModalUi.answer(HumanQuestion.UnloadedModulesUsageView(2), force = true) })
        assertTrue(NoModalUi.answer(HumanQuestion.UnloadedModulesUsageView(0), force = false))
    }

    @Test
    fun `a language's rename that would ask a question passes the call on`() {
        val e = assertThrows<LeanCtxException> { NoModalUi.answer(HumanQuestion.LanguagePrompt("IllegalStateException: EDT only"), force = true) }
        assertEquals(ErrorCode.UNSUPPORTED, e.code)
        assertTrue(e.message!!.contains("nothing was changed"), e.message)
    }

    @Test
    fun `a refused apply reloads exactly the documents it changed and names what it could not undo`() {
        // The same documents a successful apply would save: not the user's unsaved "u".
        assertEquals(listOf("a", "b"), Rollback.documents(unsavedBefore = listOf("u"), unsavedAfter = listOf("u", "a", "b")))
        // A planned file renamed, or deleted, by the processor before it failed.
        val before = linkedMapOf("f1" to "src/A.kt", "f2" to "src/B.kt", "f3" to "src/C.kt")
        val now = mapOf("f1" to "src/A.kt", "f2" to "src/B2.kt")
        assertEquals(listOf("src/B.kt", "src/C.kt"), Rollback.unrestored(before) { now[it] })
        assertEquals(emptyList<String>(), Rollback.unrestored(before) { before[it] })
    }

    @Test
    fun `a refused apply answers INVALID_TARGET when undone, BACKEND_REQUIRED naming what stayed changed otherwise`() {
        val undone = ApplyFailure.answer("the rename", "Cannot rename: locked", emptyList())
        assertEquals(ErrorCode.INVALID_TARGET, undone.code)
        assertTrue(undone.message!!.contains("Cannot rename: locked; nothing was changed"), undone.message)
        val partly = ApplyFailure.answer("the move", "disk full", listOf("src/A.kt"))
        assertEquals(ErrorCode.BACKEND_REQUIRED, partly.code)
        assertTrue(partly.message!!.endsWith("stay so: src/A.kt; check them"), partly.message)
        // Indexing began during it (the processors stop quietly then): a retry, once undone.
        assertEquals(ErrorCode.INDEXING, ApplyFailure.answer("the rename", "run kept its name", emptyList(), dumbDuring = true).code)
        assertEquals(ErrorCode.BACKEND_REQUIRED, ApplyFailure.answer("the rename", "x", listOf("src/A.kt"), dumbDuring = true).code)
    }

    @Test
    fun `a rename that left an element with its old name did not finish`() {
        val done = RenameCheck.Renamed("run", "execute", "execute")
        val stuck = RenameCheck.Renamed("getRun", "getExecute", "getRun")
        val gone = RenameCheck.Renamed("Run.kt", "Execute.kt", null)
        val same = RenameCheck.Renamed("x", "x", "x")
        val unnamed = RenameCheck.Renamed(null, "y", null)
        assertEquals(listOf(stuck), RenameCheck.unfinished(listOf(done, stuck, gone, same, unnamed)))
    }
}
