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
 *   `applied: false`);
 * - an apply the IDE refuses partway (an `IncorrectOperationException`, or a processor
 *   that stopped without doing what the plan says) is rolled back before it answers
 *   ([Rollback], [ApplyFailure]), so an agent never gets a half-applied refactoring
 *   reported as anything but that.
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

    /** "A file named so already exists: overwrite?" (a file rename onto an existing name): [paths] would be overwritten. */
    data class OverwriteFiles(val paths: List<String>) : HumanQuestion

    /**
     * The usage view a processor opens instead of refactoring when the symbol's use scope
     * reaches [count] modules that are not loaded (their usages can be neither found nor
     * updated), or, for a processor run without a usage search, usages silently missed.
     * A count, not names: the platform's module descriptions are `@ApiStatus.Experimental`.
     */
    data class UnloadedModules(val count: Int) : HumanQuestion

    /**
     * The same usage view, opened by a processor that runs its own `doRun` (the move):
     * `BaseRefactoringProcessor.computeUnloadedModulesFromUseScope`, where it decides, is
     * private in the 2019 form read and protected in the 2024+ ones, so the adapter cannot
     * count on answering it in every build it admits ([count] modules).
     */
    data class UnloadedModulesUsageView(val count: Int) : HumanQuestion

    /**
     * A question a language's own rename asks while it gathers what it renames along
     * (`RenamePsiElementProcessor.prepareRenaming`): off the event thread, where the
     * adapter calls it, the platform's dialog refuses to open and throws; [detail] is what
     * it threw.
     */
    data class LanguagePrompt(val detail: String) : HumanQuestion
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
        // Never overwritten on an agent's behalf: what is there may be the user's.
        is HumanQuestion.OverwriteFiles -> if (question.paths.isEmpty()) true else throw LeanCtxException(
            ErrorCode.CONFLICT,
            "already exist: ${question.paths.take(ConflictGate.NAMED).joinToString(", ")}; the rename would overwrite them (force does not override this); pick another name",
        )
        // A conflict like any other: what the preview listed passes with force, and the
        // usages in those modules then stay as they are.
        is HumanQuestion.UnloadedModules -> {
            ConflictGate.check(listOfNotNull(unloadedModules(question.count)), force)
            true
        }
        // No force can answer a usage view that opens instead of the refactoring.
        is HumanQuestion.UnloadedModulesUsageView -> if (question.count <= 0) true else throw LeanCtxException(
            ErrorCode.CONFLICT,
            "the symbol's usages may reach ${question.count} module(s) not loaded in the IDE, where the IDE's move shows its usage view " +
                "instead of moving (force does not override this); load them (File | Project Structure, Load/Unload Modules), or move it in the IDE",
        )
        // UNSUPPORTED passes a rename on to the language server (docs/errors.md).
        is HumanQuestion.LanguagePrompt -> throw LeanCtxException(
            ErrorCode.UNSUPPORTED,
            "the IDE's rename of this symbol asks a question in a dialog (${question.detail}); nothing was changed; rename it in the IDE",
        )
    }

    /**
     * The conflict a plan lists when the symbol's use scope reaches [count] modules that
     * are not loaded; null when there are none.
     */
    fun unloadedModules(count: Int): Conflict? = if (count <= 0) null else Conflict(
        "",
        null,
        "the symbol's usages may reach $count module(s) not loaded in the IDE: usages there are neither listed nor updated; " +
            "load them (File | Project Structure, Load/Unload Modules), or force to leave them as they are",
    )

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

/**
 * How an apply the IDE refused partway is undone, before it answers: every document the
 * apply left changed ([Saves.exactly] of the unsaved documents before and after it, the
 * same ones a successful apply would save) is reloaded from disk. That is its text from
 * before the apply, because every file an apply may write was saved before it
 * ([ApplyFiles]) and nothing is saved until the apply has succeeded. What lives outside
 * documents (a file the processor already renamed, moved or deleted) cannot be reloaded:
 * [unrestored] names it, and the answer says so ([ApplyFailure]).
 */
object Rollback {
    /** The documents to reload: the ones the failed apply changed. */
    fun <D> documents(unsavedBefore: Collection<D>, unsavedAfter: Collection<D>): List<D> = Saves.exactly(unsavedBefore, unsavedAfter)

    /**
     * The files whose place changed under the failed apply, as wire paths: [before] maps
     * each planned file to its path before the apply, [now] gives its path now (null if
     * it no longer exists).
     */
    fun <F> unrestored(before: Map<F, String>, now: (F) -> String?): List<String> =
        before.filter { (file, path) -> now(file) != path }.values.toList()
}

/**
 * The answer to an apply the IDE refused partway, once [Rollback] has undone what it
 * could: `INVALID_TARGET` when nothing remains changed (the IDE refused this target, as a
 * language server refusing a rename is answered; docs/errors.md), or `INDEXING` when the
 * IDE began indexing during it ([dumbDuring]: the platform's processors stop quietly on
 * `IndexNotReadyException`, so that is the likelier cause, and retrying will work), else
 * `BACKEND_REQUIRED` naming what stayed changed ("it may have written some files", as an
 * apply that hangs). [reason] is the platform's own message, where it gave one.
 */
object ApplyFailure {
    fun answer(what: String, reason: String, unrestored: List<String>, dumbDuring: Boolean = false): LeanCtxException = if (unrestored.isEmpty() && dumbDuring) {
        LeanCtxException(ErrorCode.INDEXING, "the IDE began indexing during $what ($reason); nothing was changed (every document it had changed was reloaded from disk); retry when it is done")
    } else if (unrestored.isEmpty()) {
        LeanCtxException(
            ErrorCode.INVALID_TARGET,
            "the IDE refused $what: $reason; nothing was changed (every document it had changed was reloaded from disk)",
        )
    } else {
        LeanCtxException(
            ErrorCode.BACKEND_REQUIRED,
            "the IDE refused $what partway: $reason; its document changes were reloaded from disk, but these files were already " +
                "renamed, moved or deleted and stay so: ${unrestored.take(ConflictGate.NAMED).joinToString(", ")}; check them",
        )
    }
}

/**
 * Whether a rename did what its plan says, judged after the processor returned (the
 * platform's `RenameProcessor` catches an `IncorrectOperationException` itself, reports it
 * in a message of its own and returns having renamed only part): a [Renamed] that still
 * carries its old name and not its new one was not renamed.
 */
object RenameCheck {
    /** One element the plan renames: its name at plan time, the name it should get, its name now (null if gone). */
    data class Renamed(val oldName: String?, val newName: String, val nameNow: String?)

    fun unfinished(renames: List<Renamed>): List<Renamed> =
        renames.filter { it.oldName != null && it.oldName != it.newName && it.nameNow == it.oldName }
}
