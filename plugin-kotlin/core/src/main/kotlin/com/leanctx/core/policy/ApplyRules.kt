/**
 * The rules every IDE apply follows, kept out of the adapter so they are tested here:
 *
 * - the conflict gate: conflicts (ours, the platform's, found at preview or only at
 *   apply) refuse with `CONFLICT` unless `force`;
 * - no HTTP path ever waits for a human: every question an IntelliJ refactoring would
 *   put in a modal dialog, error dialogs included, is answered from the request
 *   ([HumanQuestion]), or the call is refused; the adapter's processor overrides only
 *   ask [NoModalUi];
 * - the files an apply writes are checked on the event thread right before it writes
 *   ([ApplyFiles]), and it saves exactly the documents it changed ([Saves]);
 * - dumb mode: an apply that meets indexing answers `INDEXING` (the platform would
 *   swallow it into a notification and change nothing, which would read as
 *   `applied: false`).
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.Conflict
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException

object ConflictGate {
    /** How many conflicts the refusal's message names; the preview lists them all. */
    const val NAMED = 5

    /** Refuses with `CONFLICT` when [conflicts] is not empty and [force] is false. */
    fun check(conflicts: List<Conflict>, force: Boolean) {
        if (conflicts.isEmpty() || force) return
        val first = conflicts.take(NAMED).joinToString("; ") { c -> if (c.path.isEmpty()) c.message else "${c.path}: ${c.message}" }
        throw LeanCtxException(ErrorCode.CONFLICT, "${conflicts.size} conflict(s): $first; pass force to apply anyway")
    }
}

/** A question an IntelliJ refactoring would ask a human in a modal dialog. */
sealed interface HumanQuestion {
    /** "Conflicts were found, continue?" (`ConflictsDialog`): [conflicts] as the platform worded them. */
    data class Conflicts(val conflicts: List<Conflict>) : HumanQuestion

    /** "Make these files writable?" (`ReadonlyStatusHandler`): [paths] are read-only. */
    data class ReadOnlyFiles(val paths: List<String>) : HumanQuestion

    /** "Rename these related variables/tests/overloads too?" (`AutomaticRenamingDialog`). */
    object AutomaticRenames : HumanQuestion

    /** "Show the usages in a preview first?" (the usage view). */
    object PreviewUsages : HumanQuestion

    /** The language's inline dialog ("inline all and remove / this one only"), which no processor lets us answer. */
    object InlineOptions : HumanQuestion

    /** "Edit a file outside the project?" (the platform's non-project file protection): [paths] lie outside the root. */
    data class NonProjectFiles(val paths: List<String>) : HumanQuestion

    /** The error dialog of a usage search that met references the refactoring cannot update (`UnknownReferenceTypeException`). */
    object UnsupportedUsages : HumanQuestion

    /** The "index corruption detected" error dialog of a usage search interrupted without being cancelled. */
    object InterruptedSearch : HumanQuestion
}

/**
 * The no-modal-UI rule: the answer an HTTP call gives where the IDE would ask a human.
 * A `true` answer proceeds, `false` declines the optional part; a question no request
 * field answers throws, so the call fails fast instead of waiting on a dialog.
 */
object NoModalUi {
    fun answer(question: HumanQuestion, force: Boolean): Boolean = when (question) {
        is HumanQuestion.Conflicts -> {
            ConflictGate.check(question.conflicts, force)
            true
        }
        // Never made writable on an agent's behalf: a VCS checkout or a chmod is the user's call.
        is HumanQuestion.ReadOnlyFiles -> if (question.paths.isEmpty()) true else throw LeanCtxException(
            ErrorCode.CONFLICT,
            "read-only in the IDE: ${question.paths.take(ConflictGate.NAMED).joinToString(", ")}; make them writable first (force does not override this)",
        )
        // Only what was asked is changed.
        HumanQuestion.AutomaticRenames -> false
        HumanQuestion.PreviewUsages -> false
        HumanQuestion.InlineOptions -> throw inlineRefusal()
        // Never written on an agent's behalf: the daemon jails every write to the root.
        is HumanQuestion.NonProjectFiles -> if (question.paths.isEmpty()) true else throw LeanCtxException(
            ErrorCode.CONFLICT,
            "outside the project: ${question.paths.take(ConflictGate.NAMED).joinToString(", ")}; lean-ctx writes only inside the project root",
        )
        HumanQuestion.UnsupportedUsages -> throw LeanCtxException(
            ErrorCode.UNSUPPORTED,
            "the IDE's usage search met references this refactoring cannot update; nothing was changed; edit them by hand",
        )
        // The platform rebuilds the index it suspects; the search works again once that is done.
        HumanQuestion.InterruptedSearch -> throw LeanCtxException(
            ErrorCode.INDEXING,
            "the IDE's usage search was interrupted (it rebuilds the indexes it suspects); nothing was changed; retry",
        )
    }

    /** The answer to [HumanQuestion.InlineOptions], which no request field can give. */
    fun inlineRefusal(): LeanCtxException = LeanCtxException(
        ErrorCode.UNSUPPORTED,
        "the IDE's inline refactoring asks its options in a modal dialog, which an HTTP call cannot answer; use the preview's usages and edit them instead",
    )
}

/**
 * What an apply answers, given whether the IDE was (or became) dumb around it and which
 * files changed: dumb mode wins over "nothing changed", because the platform's processors
 * swallow `IndexNotReadyException` into a notification and change nothing.
 */
object ApplyOutcome {
    fun of(dumbBefore: Boolean, dumbDuring: Boolean, changedPaths: List<String>): ApplyResponse {
        if (dumbBefore || (dumbDuring && changedPaths.isEmpty())) throw indexing()
        return ApplyResponse(changedPaths.isNotEmpty(), changedPaths)
    }

    /** Smart-mode work met dumb mode. */
    fun indexing() = LeanCtxException(ErrorCode.INDEXING, "the IDE is indexing; retry when it is done")
}

/**
 * One file an apply is about to write, as the IDE holds it on the event thread right
 * before the write: where it is, whether it may be written, and its document's
 * modification stamp when the plan was computed (null for a file the plan did not list,
 * such as one a processor's own usage search found) and now.
 */
data class FileState(
    val path: String,
    val insideRoot: Boolean,
    val writable: Boolean,
    val unsaved: Boolean,
    val stampAtPlan: Long?,
    val stampNow: Long?,
)

/**
 * The check an apply passes before it writes anything: every file it may change is inside
 * the project, writable, saved in the IDE, and unchanged since the plan, so the
 * platform's own prompts (non-project files, "make writable?", the memory/disk conflict)
 * cannot come up, and the usages the plan found are the ones written. Otherwise
 * `CONFLICT`, `force` or not: nothing was written.
 */
object ApplyFiles {
    fun check(files: List<FileState>) {
        NoModalUi.answer(HumanQuestion.NonProjectFiles(files.filter { !it.insideRoot }.map { it.path }), force = false)
        NoModalUi.answer(HumanQuestion.ReadOnlyFiles(files.filter { !it.writable }.map { it.path }), force = false)
        files.firstOrNull { it.unsaved }?.let { DiskSync.decide(it.path, DiskSync.Access.WRITE, unsavedInIde = true) }
        val changed = files.filter { it.stampAtPlan != null && it.stampAtPlan != it.stampNow }
        if (changed.isNotEmpty()) {
            throw LeanCtxException(
                ErrorCode.CONFLICT,
                "changed in the IDE since this apply's plan was computed: ${changed.take(ConflictGate.NAMED).joinToString(", ") { it.path }}; nothing was written; retry",
            )
        }
    }
}

/**
 * What an IDE write saves: exactly the documents it left unsaved that were saved before
 * it, so the daemon's disk checks see every change, and a document the user had left
 * unsaved elsewhere in the IDE stays unsaved (the platform's "save all" would write it).
 */
object Saves {
    fun <D> exactly(unsavedBefore: Collection<D>, unsavedAfter: Collection<D>): List<D> {
        val before = unsavedBefore.toSet()
        return unsavedAfter.filter { it !in before }.distinct()
    }
}
