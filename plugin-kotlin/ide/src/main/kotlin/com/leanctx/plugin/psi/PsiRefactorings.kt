/**
 * [Refactorings] through the platform's refactoring processors: a preview finds usages
 * and conflicts in a smart read action; an apply re-checks the conflicts, refuses with
 * `CONFLICT` unless `force` (the core's [ConflictGate]), then runs the processor on the
 * EDT as one command (one undo entry) and saves every document, so the daemon's mtime
 * checks see the result.
 *
 * No HTTP call may wait for a human: every place a processor would open a modal dialog
 * (conflicts, automatic renames, the usage preview, read-only files, an inline handler's
 * options) is overridden or checked beforehand and answered by the core's [NoModalUi].
 * Usages are searched with the platform's public searches, never by calling a
 * processor's `@ApiStatus.OverrideOnly` `findUsages()`.
 *
 * What the platform offers language-neutrally, and so what this does:
 * - rename: `RenameProcessor`;
 * - move to a directory (`target.kind = path`): `MoveFilesOrDirectoriesProcessor` moves
 *   the symbol's whole file; `parent` (into another class) has no language-neutral
 *   processor and is `UNSUPPORTED`;
 * - safe delete: usages are conflicts; without them `SafeDeleteProcessor` deletes;
 *   with them and `force`, the declaration is deleted and the usages stay behind;
 *   `propagate` needs a language's own safe delete and is `UNSUPPORTED`;
 * - inline: the preview lists the usages; the apply is `UNSUPPORTED`, because every
 *   language's `InlineActionHandler` asks its options in a modal dialog that no
 *   subclass can answer.
 *
 * `applied` and `changed_paths` come from the documents that really changed; an apply
 * that meets dumb mode answers `INDEXING` ([ApplyOutcome]).
 */
package com.leanctx.plugin.psi

import com.intellij.lang.refactoring.InlineActionHandler
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.extensions.ExtensionPointName
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.project.DumbService
import com.intellij.openapi.util.Ref
import com.intellij.openapi.util.text.StringUtil
import com.intellij.openapi.vfs.LocalFileSystem
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiManager
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.SmartPointerManager
import com.intellij.psi.SmartPsiElementPointer
import com.intellij.psi.search.GlobalSearchScope
import com.intellij.psi.search.searches.ReferencesSearch
import com.intellij.psi.util.PsiTreeUtil
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFileHandler
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.refactoring.rename.RenamePsiElementProcessor
import com.intellij.refactoring.rename.RenameProcessor
import com.intellij.refactoring.rename.RenameUtil
import com.intellij.refactoring.safeDelete.SafeDeleteProcessor
import com.intellij.usageView.UsageInfo
import com.intellij.util.IncorrectOperationException
import com.intellij.util.containers.MultiMap
import com.leanctx.core.api.Refactorings
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.ConflictGate
import com.leanctx.core.policy.DiskSync
import com.leanctx.core.policy.HumanQuestion
import com.leanctx.core.policy.NoModalUi
import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.Conflict
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.InlineRequest
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.MoveTargetKind
import com.leanctx.core.wire.PreviewResponse
import com.leanctx.core.wire.Range
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.Usage

class PsiRefactorings(private val locator: PsiLocator) : Refactorings {
    private val project get() = locator.project

    /** A preview's findings, with what an apply needs to act on them later. */
    private class Plan(
        val target: SmartPsiElementPointer<PsiElement>,
        val usages: List<Usage>,
        val conflicts: List<Conflict>,
        /** Every file the apply may change. */
        val files: Set<VirtualFile>,
    ) {
        fun preview() = PreviewResponse(usages, conflicts)
    }

    // ---- rename ------------------------------------------------------------------

    override fun renamePreview(request: RenamePreviewRequest): PreviewResponse =
        renamePlan(request.path, request.range, request.newName, request.searchComments, request.searchTextOccurrences).preview()

    override fun renameApply(request: RenameApplyRequest): ApplyResponse {
        val plan = renamePlan(request.path, request.range, request.newName, request.searchComments, request.searchTextOccurrences)
        ConflictGate.check(plan.conflicts, request.force)
        return applyOnEdt(plan) { element ->
            val processor = object : RenameProcessor(project, element, request.newName, request.searchComments, request.searchTextOccurrences) {
                // The platform's preprocessUsages opens ConflictsDialog itself (it never
                // calls showConflicts), then AutomaticRenamingDialog, a "file exists"
                // prompt, an error dialog for an invalid name and the read-only check.
                // This keeps only its non-interactive part: the conflicts (answered by
                // force), the unrenameable usages set aside, no automatic renames.
                override fun preprocessUsages(refUsages: Ref<Array<UsageInfo>>): Boolean {
                    val found = refUsages.get()
                    NoModalUi.answer(HumanQuestion.Conflicts(renameConflicts(element, request.newName, found, myAllRenames)), request.force)
                    val kept = LinkedHashSet(found.asList())
                    RenameUtil.removeConflictUsages(kept)
                    refUsages.set(kept.toTypedArray())
                    prepareSuccessful()
                    return true
                }

                override fun isPreviewUsages(usages: Array<UsageInfo>): Boolean = NoModalUi.answer(HumanQuestion.PreviewUsages, request.force)
            }
            processor.setPreviewUsages(false)
            processor.run()
        }
    }

    private fun renamePlan(path: String, range: Range, newName: String, comments: Boolean, text: Boolean): Plan {
        locator.refreshWatched()
        return locator.readFile(path) { file ->
            val element = locator.symbolIn(file, range)
            // What RenameProcessor renames along (overriding methods, accessors, ...),
            // found the way its doRun does, through its public prepareRenaming.
            val allRenames = LinkedHashMap<PsiElement, String>()
            allRenames[element] = newName
            RenameProcessor(project, element, newName, comments, text).prepareRenaming(element, newName, allRenames)
            val usages = allRenames.flatMap { (e, name) -> RenameUtil.findUsages(e, name, comments, text, allRenames).asList() }
            plan(element, usages, renameConflicts(element, newName, usages.toTypedArray(), allRenames))
        }
    }

    /**
     * What RenameProcessor.preprocessUsages counts as conflicts, without its dialogs.
     * The four-argument `findExistingNameConflicts`: some processors override only it.
     */
    private fun renameConflicts(element: PsiElement, newName: String, usages: Array<UsageInfo>, allRenames: Map<PsiElement, String>): List<Conflict> {
        val found = MultiMap<PsiElement, String>()
        RenameUtil.addConflictDescriptions(usages, found)
        RenamePsiElementProcessor.forElement(element).findExistingNameConflicts(element, newName, found, allRenames)
        for ((e, name) in allRenames) {
            try {
                RenameUtil.checkRename(e, name)
            } catch (invalid: IncorrectOperationException) {
                found.putValue(e, invalid.message ?: "cannot be renamed to $name")
            }
        }
        return conflicts(found)
    }

    // ---- move --------------------------------------------------------------------

    override fun movePreview(request: MoveRequest): PreviewResponse = movePlan(request).first.preview()

    override fun moveApply(request: MoveRequest): ApplyResponse {
        val (plan, directory) = movePlan(request)
        ConflictGate.check(plan.conflicts, request.force)
        // The moved file keeps its VirtualFile: name both its old and its new path.
        val oldPath = locator.read { plan.target.element?.containingFile?.virtualFile?.let(locator::wirePath) }
        val extra = { element: PsiElement -> listOfNotNull(oldPath, element.containingFile?.virtualFile?.let(locator::wirePath)) }
        return applyOnEdt(plan, extraChanged = extra) { element ->
            val file = element as? PsiFile ?: element.containingFile
            val dir = PsiManager.getInstance(project).findDirectory(directory)
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: no longer a directory")
            val processor = object : MoveFilesOrDirectoriesProcessor(project, arrayOf<PsiElement>(file), dir, false, false, null, null) {
                override fun isPreviewUsages(usages: Array<UsageInfo>): Boolean = NoModalUi.answer(HumanQuestion.PreviewUsages, request.force)

                // preprocessUsages hands MoveFileHandler.detectConflicts' findings here;
                // they pass only with force, like the preview's.
                override fun showConflicts(conflicts: MultiMap<PsiElement, String>, usages: Array<UsageInfo>?): Boolean {
                    NoModalUi.answer(HumanQuestion.Conflicts(conflicts(conflicts)), request.force)
                    prepareSuccessful()
                    return true
                }
            }
            processor.setPreviewUsages(false)
            processor.run()
        }
    }

    private fun movePlan(request: MoveRequest): Pair<Plan, VirtualFile> {
        if (request.target.kind == MoveTargetKind.PARENT) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "moving into another declaration needs a language's own move refactoring; move to a directory (target.kind = path) instead")
        }
        val dirPath = locator.paths.resolveLexically(request.target.path)
        val directory = LocalFileSystem.getInstance().refreshAndFindFileByNioFile(dirPath)?.takeIf { it.isDirectory }
            ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: the move destination is not a directory")
        locator.refreshWatched()
        val plan = locator.readFile(request.path) { file ->
            val element = locator.symbolIn(file, request.range)
            val dir = PsiManager.getInstance(project).findDirectory(directory)
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: not a directory the IDE knows")
            val conflicts = ArrayList<Conflict>()
            if (dir.findFile(file.name) != null) {
                conflicts.add(Conflict(request.target.path, null, "${request.target.path} already has a file named ${file.name}"))
            }
            if (element !is PsiFile && (element as? PsiNamedElement)?.name != file.virtualFile.nameWithoutExtension) {
                conflicts.add(Conflict(locator.wirePath(file.virtualFile), null, "the whole file ${file.name} moves, not only ${(element as? PsiNamedElement)?.name ?: "the symbol"}"))
            }
            // The usages MoveFilesOrDirectoriesProcessor finds (references to the file,
            // plus its language's MoveFileHandler's), and the conflicts its
            // preprocessUsages would raise, so the preview shows them and the gate sees them.
            val handler = MoveFileHandler.forElement(file)
            val usages = ReferencesSearch.search(file, GlobalSearchScope.projectScope(project), false).findAll().map { UsageInfo(it) } +
                handler.findUsages(file, dir, false, false).orEmpty()
            // The processor's preprocessUsages asks every registered MoveFileHandler for
            // conflicts, not only the file's own (forElement): each one skips elements it
            // does not handle. Its static MoveFileHandler.detectConflicts, which does that
            // loop, is not confirmed for 2024.2, so the extension point is walked here.
            val platformConflicts = MultiMap<PsiElement, String>()
            for (each in MOVE_FILE_HANDLERS.extensionList) {
                each.detectConflicts(platformConflicts, arrayOf<PsiElement>(file), usages.toTypedArray(), dir)
            }
            plan(element, usages, conflicts + conflicts(platformConflicts))
        }
        return plan to directory
    }

    // ---- safe delete ---------------------------------------------------------------

    override fun safeDeletePreview(request: SafeDeleteRequest): PreviewResponse = safeDeletePlan(request).preview()

    override fun safeDeleteApply(request: SafeDeleteRequest): ApplyResponse {
        if (request.propagate) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "propagate needs a language's own safe delete; delete the now-unused parts separately")
        }
        val plan = safeDeletePlan(request)
        ConflictGate.check(plan.conflicts, request.force)
        return applyOnEdt(plan) { element ->
            if (plan.usages.isEmpty()) {
                SafeDeleteProcessor.createInstance(project, null, arrayOf(element), false, false).apply { setPreviewUsages(false) }.run()
            } else {
                // Forced past its usages: delete the declaration, leave the usages to the caller.
                WriteCommandAction.writeCommandAction(project).withName("lean-ctx safe delete (forced)").run<RuntimeException> { element.delete() }
            }
        }
    }

    private fun safeDeletePlan(request: SafeDeleteRequest): Plan {
        locator.refreshWatched()
        return locator.readFile(request.path) { file ->
            val element = locator.symbolIn(file, request.range)
            val outside = ReferencesSearch.search(element, element.useScope).findAll()
                .map { it.element }
                .filter { !PsiTreeUtil.isAncestor(element, it, false) }
            val usages = outside.map { UsageInfo(it) }
            val conflicts = outside.mapNotNull { ref ->
                locator.location(ref, ref.textRange.startOffset, ref.textRange.endOffset)?.let { Conflict(it.path, it.range, "still used here") }
            }
            plan(element, usages, conflicts)
        }
    }

    // ---- inline ----------------------------------------------------------------------

    override fun inlinePreview(request: InlineRequest): PreviewResponse = inlinePlan(request).preview()

    override fun inlineApply(request: InlineRequest): ApplyResponse {
        if (request.keepDefinition) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "keep_definition: the IDE's inline refactoring decides that in its own dialog")
        }
        // The same answers as the preview (NO_SYMBOL, INDEXING, no handler) come first.
        inlinePlan(request)
        throw NoModalUi.inlineRefusal()
    }

    private fun inlinePlan(request: InlineRequest): Plan {
        locator.refreshWatched()
        return locator.readFile(request.path) { file ->
            val element = locator.symbolIn(file, request.range)
            InlineActionHandler.EP_NAME.extensionList.firstOrNull { it.canInlineElement(element) }
                ?: throw LeanCtxException(ErrorCode.UNSUPPORTED, "no inline refactoring for this ${file.language.displayName} symbol")
            val usages = ReferencesSearch.search(element, GlobalSearchScope.projectScope(project)).findAll().map { UsageInfo(it) }
            plan(element, usages, emptyList())
        }
    }

    // ---- shared ----------------------------------------------------------------------

    /** Inside a read action: the plan for [element] with [usages] and [conflicts]. */
    private fun plan(element: PsiElement, usages: List<UsageInfo>, conflicts: List<Conflict>): Plan {
        val files = LinkedHashSet<VirtualFile>()
        element.containingFile?.virtualFile?.let(files::add)
        val wireUsages = usages.mapNotNull { usage ->
            val e = usage.element ?: return@mapNotNull null
            usage.virtualFile?.let(files::add)
            val segment = usage.segment ?: e.textRange
            val location = locator.location(e, segment.startOffset, segment.endOffset) ?: return@mapNotNull null
            Usage(location.path, location.range, context(e, segment.startOffset))
        }
        val pointer = SmartPointerManager.getInstance(project).createSmartPsiElementPointer(element)
        return Plan(pointer, wireUsages.distinct(), conflicts, files)
    }

    private fun conflicts(found: MultiMap<PsiElement, String>): List<Conflict> = found.entrySet().flatMap { (element, messages) ->
        val at = element?.let { locator.location(it) }
        messages.map { Conflict(at?.path ?: "", at?.range, StringUtil.removeHtmlTags(it)) }
    }

    /** The trimmed line around [offset], at most 120 chars: enough for an agent to see the usage. */
    private fun context(element: PsiElement, offset: Int): String? {
        val document = element.containingFile?.viewProvider?.document ?: return null
        val line = document.getLineNumber(offset)
        val text = document.charsSequence.subSequence(document.getLineStartOffset(line), document.getLineEndOffset(line)).toString().trim()
        return if (text.length > 120) text.take(119) + "…" else text
    }

    /**
     * Runs [refactor] on the EDT with the plan's target, saves all documents, and reports
     * which of the plan's files really changed, plus the wire paths [extraChanged] names
     * after the refactoring.
     *
     * Before it: every file of the plan is brought up to date from disk and must be saved
     * and writable in the IDE ([DiskSync], [HumanQuestion.ReadOnlyFiles]), so neither the
     * IDE's memory/disk conflict dialog nor its "make writable?" prompt can come up.
     */
    private fun applyOnEdt(
        plan: Plan,
        extraChanged: (PsiElement) -> List<String> = { emptyList() },
        refactor: (PsiElement) -> Unit,
    ): ApplyResponse {
        for (file in plan.files) locator.sync(file, locator.wirePath(file), DiskSync.Access.WRITE)
        NoModalUi.answer(HumanQuestion.ReadOnlyFiles(plan.files.filter { !it.isWritable }.map(locator::wirePath)), force = false)
        val dumb = DumbService.getInstance(project)
        var outcome: Result<ApplyResponse>? = null
        ApplicationManager.getApplication().invokeAndWait({
            outcome = runCatching {
                // Dumb mode begins and ends on the EDT, so this check holds until the
                // processor itself yields (its usage search runs under a progress).
                val dumbBefore = dumb.isDumb
                val stamp = dumb.modificationTracker.modificationCount
                if (dumbBefore) return@runCatching ApplyOutcome.of(dumbBefore = true, dumbDuring = false, changedPaths = emptyList())
                val element = plan.target.element
                    ?: throw LeanCtxException(ErrorCode.NO_SYMBOL, "the symbol changed since the preview; preview again")
                val documents = FileDocumentManager.getInstance()
                val before = plan.files.associateWith { documents.getDocument(it)?.modificationStamp }
                // A processor that meets IndexNotReadyException shows a notification and
                // returns having changed nothing; the tracker tells that case apart.
                refactor(element)
                documents.saveAllDocuments()
                val changed = plan.files.filter { f -> f.isValid && documents.getDocument(f)?.modificationStamp != before[f] }
                val paths = (changed.map { locator.wirePath(it) } + plan.target.element?.let(extraChanged).orEmpty()).distinct()
                ApplyOutcome.of(dumbBefore = false, dumbDuring = dumb.isDumb || dumb.modificationTracker.modificationCount != stamp, changedPaths = paths)
            }
        }, ModalityState.defaultModalityState())
        return outcome!!.getOrThrow()
    }

    private companion object {
        /** The platform's `com.intellij.moveFileHandler` extension point (MoveFileHandler.EP_NAME is private). */
        val MOVE_FILE_HANDLERS = ExtensionPointName<MoveFileHandler>("com.intellij.moveFileHandler")
    }
}
