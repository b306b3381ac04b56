/**
 * [Refactorings] through the platform's refactoring processors (spec §3): a preview
 * finds usages and conflicts in a smart read action; an apply re-checks the conflicts,
 * refuses with `CONFLICT` unless `force`, then runs the processor on the EDT as one
 * command (one undo entry) and saves every document, so the daemon's mtime checks see
 * the result (spec §7.4). The processors' own dialogs are suppressed where the platform
 * lets a subclass do so (conflicts, preview, automatic renames): the conflict gate is
 * ours, and the daemon's plan_hash guards against drift between preview and apply.
 *
 * What the platform offers language-neutrally, and so what this does:
 * - rename: `RenameProcessor`;
 * - move to a directory (`target.kind = path`): `MoveFilesOrDirectoriesProcessor` moves
 *   the symbol's whole file; `parent` (into another class) has no language-neutral
 *   processor and is `UNSUPPORTED`;
 * - safe delete: usages are conflicts; without them `SafeDeleteProcessor` deletes;
 *   with them and `force`, the declaration is deleted and the usages stay behind;
 *   `propagate` needs a language's own safe delete and is `UNSUPPORTED`;
 * - inline: the language's `InlineActionHandler`, which may ask the user to confirm;
 *   `keep_definition` is `UNSUPPORTED` (the handler decides that itself).
 *
 * `applied` and `changed_paths` come from the documents that really changed.
 */
package com.leanctx.plugin.psi

import com.intellij.lang.refactoring.InlineActionHandler
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.fileEditor.FileEditorManager
import com.intellij.openapi.fileEditor.OpenFileDescriptor
import com.intellij.openapi.util.text.StringUtil
import com.intellij.openapi.vfs.LocalFileSystem
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiDirectory
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiManager
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.SmartPointerManager
import com.intellij.psi.SmartPsiElementPointer
import com.intellij.psi.search.GlobalSearchScope
import com.intellij.psi.search.searches.ReferencesSearch
import com.intellij.psi.util.PsiTreeUtil
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.refactoring.rename.RenamePsiElementProcessor
import com.intellij.refactoring.rename.RenameProcessor
import com.intellij.refactoring.rename.RenameUtil
import com.intellij.refactoring.rename.naming.AutomaticRenamer
import com.intellij.refactoring.safeDelete.SafeDeleteProcessor
import com.intellij.usageView.UsageInfo
import com.intellij.util.containers.MultiMap
import com.leanctx.core.api.Refactorings
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
        val plan = renamePlan(request.path, request.range, request.newName, comments = false, text = false)
        gate(plan, request.force)
        return applyOnEdt(plan) { element ->
            val processor = object : RenameProcessor(project, element, request.newName, false, false) {
                override fun isPreviewUsages(usages: Array<UsageInfo>): Boolean = false

                override fun showConflicts(conflicts: MultiMap<PsiElement, String>, usages: Array<UsageInfo>?): Boolean {
                    prepareSuccessful()
                    return true
                }

                // Only what was asked is renamed: no automatic renames of related variables.
                override fun showAutomaticRenamingDialog(automaticVariableRenamer: AutomaticRenamer): Boolean = false
            }
            processor.setPreviewUsages(false)
            processor.run()
        }
    }

    private fun renamePlan(path: String, range: Range, newName: String, comments: Boolean, text: Boolean): Plan =
        locator.readFile(path) { file ->
            val element = locator.symbolIn(file, range)
            val usages = RenameProcessor(project, element, newName, comments, text).findUsages()
            val conflicts = MultiMap<PsiElement, String>()
            RenameUtil.addConflictDescriptions(usages, conflicts)
            RenamePsiElementProcessor.forElement(element).findExistingNameConflicts(element, newName, conflicts)
            plan(element, usages.toList(), conflicts(conflicts))
        }

    // ---- move --------------------------------------------------------------------

    override fun movePreview(request: MoveRequest): PreviewResponse = movePlan(request).first.preview()

    override fun moveApply(request: MoveRequest): ApplyResponse {
        val (plan, directory) = movePlan(request)
        gate(plan, request.force)
        // The moved file keeps its VirtualFile: name both its old and its new path.
        val oldPath = locator.read { plan.target.element?.containingFile?.virtualFile?.let(locator::wirePath) }
        val extra = { element: PsiElement -> listOfNotNull(oldPath, element.containingFile?.virtualFile?.let(locator::wirePath)) }
        return applyOnEdt(plan, extraChanged = extra) { element ->
            val file = element as? PsiFile ?: element.containingFile
            val dir = PsiManager.getInstance(project).findDirectory(directory)
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: no longer a directory")
            val processor = object : MoveFilesOrDirectoriesProcessor(project, arrayOf<PsiElement>(file), dir, false, false, null, null) {
                override fun isPreviewUsages(usages: Array<UsageInfo>): Boolean = false

                override fun showConflicts(conflicts: MultiMap<PsiElement, String>, usages: Array<UsageInfo>?): Boolean {
                    prepareSuccessful()
                    return true
                }
            }
            processor.setPreviewUsages(false)
            processor.run()
        }
    }

    /** A processor subclass only to reach its usage search, which the platform keeps protected. */
    private class MoveUsages(project: com.intellij.openapi.project.Project, file: PsiFile, dir: PsiDirectory) :
        MoveFilesOrDirectoriesProcessor(project, arrayOf<PsiElement>(file), dir, false, false, null, null) {
        fun usages(): Array<UsageInfo> = findUsages()
    }

    private fun movePlan(request: MoveRequest): Pair<Plan, VirtualFile> {
        if (request.target.kind == MoveTargetKind.PARENT) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "moving into another declaration needs a language's own move refactoring; move to a directory (target.kind = path) instead")
        }
        val dirPath = locator.paths.resolveLexically(request.target.path)
        val directory = LocalFileSystem.getInstance().refreshAndFindFileByNioFile(dirPath)?.takeIf { it.isDirectory }
            ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: the move destination is not a directory")
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
            plan(element, MoveUsages(project, file, dir).usages().toList(), conflicts)
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
        gate(plan, request.force)
        return applyOnEdt(plan) { element ->
            if (plan.usages.isEmpty()) {
                SafeDeleteProcessor.createInstance(project, null, arrayOf(element), false, false).apply { setPreviewUsages(false) }.run()
            } else {
                // Forced past its usages: delete the declaration, leave the usages to the caller.
                WriteCommandAction.writeCommandAction(project).withName("lean-ctx safe delete (forced)").run<RuntimeException> { element.delete() }
            }
        }
    }

    private fun safeDeletePlan(request: SafeDeleteRequest): Plan = locator.readFile(request.path) { file ->
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

    // ---- inline ----------------------------------------------------------------------

    override fun inlinePreview(request: InlineRequest): PreviewResponse = inlinePlan(request).first.preview()

    override fun inlineApply(request: InlineRequest): ApplyResponse {
        if (request.keepDefinition) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "keep_definition: the IDE's inline refactoring decides that in its own dialog")
        }
        val (plan, handler) = inlinePlan(request)
        val applied = applyOnEdt(plan) { element ->
            val file = element.containingFile.virtualFile
            val editor = FileEditorManager.getInstance(project).openTextEditor(OpenFileDescriptor(project, file, element.textOffset), false)
                ?: throw LeanCtxException(ErrorCode.INTERNAL, "cannot open an editor on ${file.name} for the inline refactoring")
            handler.inlineElement(project, editor, element)
        }
        if (!applied.applied) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "the IDE's inline refactoring changed nothing (it refused the symbol, or its dialog was cancelled)")
        }
        return applied
    }

    private fun inlinePlan(request: InlineRequest): Pair<Plan, InlineActionHandler> = locator.readFile(request.path) { file ->
        val element = locator.symbolIn(file, request.range)
        val handler = InlineActionHandler.EP_NAME.extensionList.firstOrNull { it.canInlineElement(element) }
            ?: throw LeanCtxException(ErrorCode.UNSUPPORTED, "no inline refactoring for this ${file.language.displayName} symbol")
        val usages = ReferencesSearch.search(element, GlobalSearchScope.projectScope(project)).findAll().map { UsageInfo(it) }
        plan(element, usages, emptyList()) to handler
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

    private fun gate(plan: Plan, force: Boolean) {
        if (plan.conflicts.isNotEmpty() && !force) {
            val first = plan.conflicts.take(5).joinToString("; ") { "${it.path}: ${it.message}" }
            throw LeanCtxException(ErrorCode.CONFLICT, "${plan.conflicts.size} conflict(s): $first; pass force to apply anyway")
        }
    }

    /**
     * Runs [refactor] on the EDT with the plan's target, saves all documents, and reports
     * which of the plan's files really changed, plus the wire paths [extraChanged] names
     * after the refactoring.
     */
    private fun applyOnEdt(
        plan: Plan,
        extraChanged: (PsiElement) -> List<String> = { emptyList() },
        refactor: (PsiElement) -> Unit,
    ): ApplyResponse {
        var outcome: Result<List<String>>? = null
        ApplicationManager.getApplication().invokeAndWait({
            outcome = runCatching {
                val element = plan.target.element
                    ?: throw LeanCtxException(ErrorCode.NO_SYMBOL, "the symbol changed since the preview; preview again")
                val documents = FileDocumentManager.getInstance()
                val before = plan.files.associateWith { documents.getDocument(it)?.modificationStamp }
                refactor(element)
                documents.saveAllDocuments()
                val changed = plan.files.filter { f -> f.isValid && documents.getDocument(f)?.modificationStamp != before[f] }
                (changed.map { locator.wirePath(it) } + plan.target.element?.let(extraChanged).orEmpty()).distinct()
            }
        }, ModalityState.defaultModalityState())
        val changed = outcome!!.getOrThrow()
        return ApplyResponse(changed.isNotEmpty(), changed)
    }
}
