/**
 * [Refactorings] through the platform's refactoring processors: a preview finds usages
 * and conflicts in a read action on committed documents; an apply re-checks the
 * conflicts, refuses with `CONFLICT` unless `force` (the core's [ConflictGate]), then
 * runs the processor in one turn on the EDT through the core's gate (bounded by the
 * request's deadline) as one command (one undo entry), and saves exactly the documents
 * it changed ([Saves]), so the daemon's mtime checks see the result and nothing else of
 * the user's is written.
 *
 * No HTTP call may wait for a human (plugin-kotlin/README.md, "Under a busy IDE"): a
 * processor's `run()` goes through `doRun`, which asks in dialogs (conflicts, automatic
 * renames, "make writable?", the usage preview, error dialogs for an unsupported
 * reference or an interrupted search), so rename and safe delete never call it: their
 * usages and conflicts are computed here, answered by the core's [NoModalUi] and
 * [ApplyFiles], and the processor is handed them through its public `executeEx`. Only the
 * move runs `run()`, because `MoveFilesOrDirectoriesProcessor` updates only the usages
 * its own search found; its subclass overrides every hook where `doRun` asks. Usages are
 * searched with the platform's public searches, never by calling a processor's
 * `@ApiStatus.OverrideOnly` `findUsages()`.
 *
 * What the platform offers language-neutrally, and so what this does:
 * - rename: `RenameProcessor`, with what `RenamePsiElementProcessor.prepareRenaming`
 *   renames along; a preview builds no processor (its constructor asserts on a compiled
 *   element and reports a usage event);
 * - move to a directory (`target.kind = path`): `MoveFilesOrDirectoriesProcessor` moves
 *   the symbol's whole file; `parent` (into another class) has no language-neutral
 *   processor and is `UNSUPPORTED`;
 * - safe delete: usages, and the declarations overriding or implementing the symbol, are
 *   conflicts; without them, or with `force`, `SafeDeleteProcessor` deletes the
 *   declaration alone and the usages stay behind; `propagate` needs a language's own
 *   safe delete and is `UNSUPPORTED`;
 * - inline: the preview lists the usages; the apply is `UNSUPPORTED`, because every
 *   language's `InlineActionHandler` asks its options in a modal dialog that no
 *   subclass can answer.
 *
 * `applied` and `changed_paths` come from the documents that really changed; an apply
 * that meets dumb mode answers `INDEXING` ([ApplyOutcome]).
 *
 * An apply the IDE refuses partway is undone before it answers ([Rollback],
 * [ApplyFailure]; plugin-kotlin/README.md, "Under a busy IDE", point 4): an
 * `IncorrectOperationException` that reaches the adapter (safe delete calls the deletion
 * itself for that reason: `SafeDeleteProcessor.performRefactoring` would catch it and show
 * an error dialog), or a processor that returned without doing what the plan says (the
 * platform's `RenameProcessor` catches it itself, and the move's processor is held to the
 * same check),
 * has every document it changed reloaded from disk, where the text from before the apply
 * still is, since nothing is saved until an apply has succeeded.
 *
 * A rename renames what each language's `RenamePsiElementProcessor.prepareRenaming` adds
 * and nothing a dialog would offer: a Java field's getters and setters are not renamed
 * (the platform's accessor renamer is an option of the rename dialog, and the wire has no
 * field for it; docs/ide-wire.md, Requests). `prepareRenaming` runs in the plan's read
 * action, off the event thread, so a language that would ask there meets the platform's
 * refusal to open a dialog off the event thread, answered `UNSUPPORTED` ([HumanQuestion.LanguagePrompt]).
 * Usages in modules that are not loaded are a conflict of every plan
 * ([HumanQuestion.UnloadedModules]), never the usage view the platform would open: the
 * move, whose processor would open it on its own, is refused then
 * ([HumanQuestion.UnloadedModulesUsageView]).
 */
package com.leanctx.plugin.psi

import com.intellij.lang.refactoring.InlineActionHandler
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.editor.Document
import com.intellij.openapi.extensions.ExtensionPointName
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.module.UnloadedModuleDescription
import com.intellij.openapi.progress.ProcessCanceledException
import com.intellij.openapi.progress.ProgressIndicatorProvider
import com.intellij.openapi.project.DumbService
import com.intellij.openapi.project.IndexNotReadyException
import com.intellij.openapi.util.Ref
import com.intellij.openapi.util.text.StringUtil
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiCompiledElement
import com.intellij.psi.PsiDocumentManager
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiManager
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.SmartPointerManager
import com.intellij.psi.SmartPsiElementPointer
import com.intellij.psi.search.GlobalSearchScope
import com.intellij.psi.search.searches.DefinitionsScopedSearch
import com.intellij.psi.search.searches.ReferencesSearch
import com.intellij.psi.util.PsiTreeUtil
import com.intellij.refactoring.BaseRefactoringProcessor
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFileHandler
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.refactoring.rename.RenamePsiElementProcessor
import com.intellij.refactoring.rename.RenameProcessor
import com.intellij.refactoring.rename.RenameUtil
import com.intellij.refactoring.safeDelete.SafeDeleteProcessorDelegate
import com.intellij.usageView.UsageInfo
import com.intellij.util.IncorrectOperationException
import com.intellij.util.containers.MultiMap
import com.leanctx.core.api.Refactorings
import com.leanctx.core.policy.ApplyFailure
import com.leanctx.core.policy.ApplyFiles
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.ConflictGate
import com.leanctx.core.policy.DiskSync
import com.leanctx.core.policy.HumanQuestion
import com.leanctx.core.policy.NoModalUi
import com.leanctx.core.policy.RenameCheck
import com.leanctx.core.policy.Rollback
import com.leanctx.core.policy.Saves
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
    private data class Plan(
        val target: SmartPsiElementPointer<PsiElement>,
        val usages: List<Usage>,
        /** The platform's usages behind [usages] (smart pointers inside), as a processor takes them. */
        val infos: List<UsageInfo>,
        val conflicts: List<Conflict>,
        /** Every file the apply may change, with its document's stamp when the plan was made. */
        val files: Map<VirtualFile, Long?>,
        /** What a rename renames along with the target (overriding methods, parameters, ...). */
        val alongside: List<Pair<SmartPsiElementPointer<PsiElement>, String>>,
        /** Every element a rename renames (the target first), with its name at plan time and its new name. */
        val renamed: List<Triple<SmartPsiElementPointer<PsiElement>, String?, String>> = emptyList(),
        /** Files a rename would overwrite (a file renamed onto an existing name). */
        val overwrites: List<String> = emptyList(),
    ) {
        fun preview() = PreviewResponse(usages, conflicts)
    }

    // ---- rename ------------------------------------------------------------------

    override fun renamePreview(request: RenamePreviewRequest): PreviewResponse =
        renamePlan(request.path, request.range, request.newName, request.searchComments, request.searchTextOccurrences).preview()

    override fun renameApply(request: RenameApplyRequest): ApplyResponse {
        val plan = renamePlan(request.path, request.range, request.newName, request.searchComments, request.searchTextOccurrences)
        // Where RenameProcessor.preprocessUsages would ask whether to overwrite: never, forced or not.
        NoModalUi.answer(HumanQuestion.OverwriteFiles(plan.overwrites), request.force)
        ConflictGate.check(plan.conflicts, request.force)
        return applyOnEdt("the rename", plan) { element ->
            val alongside = plan.alongside.map { (pointer, name) -> (pointer.element ?: throw changedSincePlan()) to name }
            // What RenameProcessor.preprocessUsages keeps: the unrenameable usages set aside.
            val usages = LinkedHashSet(plan.infos)
            RenameUtil.removeConflictUsages(usages)
            object : RenameProcessor(project, element, request.newName, request.searchComments, request.searchTextOccurrences) {
                init {
                    myAllRenames.putAll(alongside)
                }
            }.executeEx(usages.toTypedArray())
            // RenameProcessor.performRefactoring catches an IncorrectOperationException
            // itself (its message goes to the person) and returns with part renamed.
            val unfinished = RenameCheck.unfinished(
                plan.renamed.map { (pointer, old, new) -> RenameCheck.Renamed(old, new, (pointer.element as? PsiNamedElement)?.name) },
            )
            unfinished.firstOrNull()?.let { "${it.oldName} kept its name (${unfinished.size} of ${plan.renamed.size} not renamed)" }
        }
    }

    private fun renamePlan(path: String, range: Range, newName: String, comments: Boolean, text: Boolean): Plan =
        locator.readFile(path, watched = true) { file ->
            val element = locator.symbolIn(file, range)
            if (element is PsiCompiledElement) {
                throw LeanCtxException(ErrorCode.INVALID_TARGET, "${(element as? PsiNamedElement)?.name ?: "the symbol"} is compiled library code, which cannot be renamed")
            }
            val allRenames = renames(element, newName)
            val usages = allRenames.flatMap { (e, name) -> RenameUtil.findUsages(e, name, comments, text, allRenames).asList() }
            val overwrites = allRenames.mapNotNull { (e, name) ->
                val existing = (e as? PsiFile)?.containingDirectory?.findFile(name)?.takeIf { it != e }
                existing?.virtualFile?.let(locator::wirePath)
            }
            val conflicts = renameConflicts(element, newName, usages.toTypedArray(), allRenames) +
                overwrites.map { Conflict(it, null, "already exists; renaming onto it is refused (lean-ctx never overwrites a file)") }
            val pointers = SmartPointerManager.getInstance(project)
            val renamed = allRenames.map { (e, name) -> Triple(pointers.createSmartPsiElementPointer(e), (e as? PsiNamedElement)?.name, name) }
            plan(element, usages, conflicts, allRenames).copy(renamed = renamed, overwrites = overwrites)
        }

    /**
     * What a rename of [element] renames along (overriding methods, accessors, ...), as
     * RenameProcessor.prepareRenaming gathers it from every processor for the element,
     * without building a RenameProcessor.
     */
    private fun renames(element: PsiElement, newName: String): LinkedHashMap<PsiElement, String> {
        val all = linkedMapOf(element to newName)
        for (processor in RenamePsiElementProcessor.allForElement(element)) {
            try {
                processor.prepareRenaming(element, newName, all)
            } catch (e: RuntimeException) {
                // Cancellation, dumb mode (answered INDEXING by the read) and our own answers
                // pass; anything else here is a language that asked (the platform's dialogs
                // refuse to open off the event thread, where this runs) or failed, and
                // nothing has been changed yet.
                if (e is ProcessCanceledException || e is IndexNotReadyException || e is LeanCtxException) throw e
                NoModalUi.answer(HumanQuestion.LanguagePrompt("${e.javaClass.simpleName}: ${e.message}"), force = false)
            }
        }
        return all
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
        return conflicts(found) + unloadedModules(allRenames.keys)
    }

    // ---- move --------------------------------------------------------------------

    /**
     * A move's plan, the directory it moves into, the moved file's path before the move, and
     * how many modules that are not loaded its use scope reaches.
     */
    private class Moving(val plan: Plan, val directory: VirtualFile, val from: String, val unloaded: Int)

    override fun movePreview(request: MoveRequest): PreviewResponse = movePlan(request).plan.preview()

    override fun moveApply(request: MoveRequest): ApplyResponse {
        val moving = movePlan(request)
        val plan = moving.plan
        // The processor's doRun would show its usage view instead of moving: refused before it runs.
        NoModalUi.answer(HumanQuestion.UnloadedModulesUsageView(moving.unloaded), request.force)
        ConflictGate.check(plan.conflicts, request.force)
        // The moved file keeps its VirtualFile: name both its old and its new path.
        val extra = { element: PsiElement -> listOfNotNull(moving.from, element.containingFile?.virtualFile?.let(locator::wirePath)) }
        return applyOnEdt("the move", plan, extraChanged = extra) { element ->
            val file = element as? PsiFile ?: element.containingFile
            val moved = SmartPointerManager.getInstance(project).createSmartPsiElementPointer<PsiElement>(file)
            val dir = PsiManager.getInstance(project).findDirectory(moving.directory)
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: no longer a directory")
            // Every hook where doRun asks a person is answered here; the usages this
            // processor updates can only come from its own search, so it runs.
            val processor = object : MoveFilesOrDirectoriesProcessor(project, arrayOf<PsiElement>(file), dir, false, false, null, null) {
                /** What doRun would report in an error dialog about the search, answered in preprocessUsages instead. */
                private var searchFailure: HumanQuestion? = null

                override fun findUsages(): Array<UsageInfo> = try {
                    super.findUsages()
                } catch (e: BaseRefactoringProcessor.UnknownReferenceTypeException) {
                    searchFailure = HumanQuestion.UnsupportedUsages
                    emptyArray()
                } catch (e: ProcessCanceledException) {
                    // Cancelled by the person at the progress dialog: doRun stops quietly.
                    // Interrupted otherwise: doRun would report a damaged index in a dialog.
                    if (ProgressIndicatorProvider.getGlobalProgressIndicator()?.isCanceled != false) throw e
                    searchFailure = HumanQuestion.InterruptedSearch
                    emptyArray()
                }

                // Before doRun's own read-only check, which may ask to make files writable:
                // every file the processor's usages touch, including ones the plan did not list.
                override fun preprocessUsages(refUsages: Ref<Array<UsageInfo>>): Boolean {
                    searchFailure?.let { NoModalUi.answer(it, request.force) }
                    val touched = (refUsages.get().mapNotNull { it.virtualFile } + listOfNotNull(file.virtualFile, moving.directory)).distinct()
                    ApplyFiles.check(touched.map { locator.state(it, plan.files[it]) })
                    return super.preprocessUsages(refUsages)
                }

                // preprocessUsages hands MoveFileHandler.detectConflicts' findings here;
                // they pass only with force, like the preview's.
                override fun showConflicts(conflicts: MultiMap<PsiElement, String>, usages: Array<UsageInfo>?): Boolean {
                    NoModalUi.answer(HumanQuestion.Conflicts(conflicts(conflicts)), request.force)
                    prepareSuccessful()
                    return true
                }

                override fun isPreviewUsages(usages: Array<UsageInfo>): Boolean = NoModalUi.answer(HumanQuestion.PreviewUsages, request.force)
            }
            processor.setPreviewUsages(false)
            processor.run()
            // Whether MoveFilesOrDirectoriesProcessor.performRefactoring lets an
            // IncorrectOperationException out or reports it itself, a file left where it
            // was is a move that did not happen.
            val now = (moved.element as? PsiFile)?.containingDirectory?.virtualFile
            if (now == moving.directory) null else "${moving.from} was not moved"
        }
    }

    private fun movePlan(request: MoveRequest): Moving {
        if (request.target.kind == MoveTargetKind.PARENT) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "moving into another declaration needs a language's own move refactoring; move to a directory (target.kind = path) instead")
        }
        val directory = locator.find(locator.paths.resolveLexically(request.target.path), request.target.path)?.takeIf { it.isDirectory }
            ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "${request.target.path}: the move destination is not a directory")
        return locator.readFile(request.path, watched = true) { file ->
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
            val unloaded = unloadedModuleCount(listOf(file))
            val planned = plan(element, usages, conflicts + conflicts(platformConflicts) + listOfNotNull(NoModalUi.unloadedModules(unloaded)))
            Moving(planned, directory, locator.wirePath(file.virtualFile), unloaded)
        }
    }

    // ---- safe delete ---------------------------------------------------------------

    override fun safeDeletePreview(request: SafeDeleteRequest): PreviewResponse = safeDeletePlan(request).preview()

    override fun safeDeleteApply(request: SafeDeleteRequest): ApplyResponse {
        if (request.propagate) {
            throw LeanCtxException(ErrorCode.UNSUPPORTED, "propagate needs a language's own safe delete; delete the now-unused parts separately")
        }
        val plan = safeDeletePlan(request)
        ConflictGate.check(plan.conflicts, request.force)
        return applyOnEdt("the safe delete", plan) { element ->
            // What SafeDeleteProcessor.performRefactoring does when it has no usages to
            // update (the declaration alone: its language's delegate prepares it, then it is
            // deleted), in one command, without the processor: its search and
            // preprocessUsages ask in dialogs (unsafe usages, overriding methods), which the
            // plan's conflicts answer instead, and its performRefactoring turns an
            // IncorrectOperationException into an error dialog, which here reaches
            // applyOnEdt to be rolled back and answered.
            WriteCommandAction.writeCommandAction(project).withName("lean-ctx safe delete").run<RuntimeException> {
                SafeDeleteProcessorDelegate.EP_NAME.extensionList.firstOrNull { it.handlesElement(element) }?.prepareForDeletion(element)
                element.delete()
            }
            if (plan.target.element?.isValid == true) "the IDE left the declaration in place" else null
        }
    }

    private fun safeDeletePlan(request: SafeDeleteRequest): Plan = locator.readFile(request.path, watched = true) { file ->
        val element = locator.symbolIn(file, request.range)
        val outside = ReferencesSearch.search(element, element.useScope).findAll()
            .map { it.element }
            .filter { !PsiTreeUtil.isAncestor(element, it, false) }
        // No reference names the symbol in a declaration overriding or implementing it, so
        // the reference search misses those; deleting the symbol changes what they mean.
        val overriding = DefinitionsScopedSearch.search(element, element.useScope).findAll()
            .filter { it != element && !PsiTreeUtil.isAncestor(element, it, false) }
        val conflicts = outside.mapNotNull { ref ->
            locator.location(ref, ref.textRange.startOffset, ref.textRange.endOffset)?.let { Conflict(it.path, it.range, "still used here") }
        } + overriding.mapNotNull { declaration ->
            locator.location(declaration)?.let { Conflict(it.path, it.range, "overrides or implements it; force deletes the symbol alone and leaves this") }
        }
        plan(element, outside.map { UsageInfo(it) }, conflicts + unloadedModules(listOf(element)))
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

    private fun inlinePlan(request: InlineRequest): Plan = locator.readFile(request.path, watched = true) { file ->
        val element = locator.symbolIn(file, request.range)
        InlineActionHandler.EP_NAME.extensionList.firstOrNull { it.canInlineElement(element) }
            ?: throw LeanCtxException(ErrorCode.UNSUPPORTED, "no inline refactoring for this ${file.language.displayName} symbol")
        val usages = ReferencesSearch.search(element, GlobalSearchScope.projectScope(project)).findAll().map { UsageInfo(it) }
        plan(element, usages, emptyList())
    }

    // ---- shared ----------------------------------------------------------------------

    /**
     * Inside a read action: the plan for [element] with [usages] and [conflicts]; its
     * files are the element's, the usages' and those of what is renamed [alongside].
     */
    private fun plan(element: PsiElement, usages: List<UsageInfo>, conflicts: List<Conflict>, alongside: Map<PsiElement, String> = emptyMap()): Plan {
        val files = LinkedHashSet<VirtualFile>()
        element.containingFile?.virtualFile?.let(files::add)
        alongside.keys.mapNotNullTo(files) { it.containingFile?.virtualFile }
        val wireUsages = usages.mapNotNull { usage ->
            val e = usage.element ?: return@mapNotNull null
            usage.virtualFile?.let(files::add)
            val segment = usage.segment ?: e.textRange
            val location = locator.location(e, segment.startOffset, segment.endOffset) ?: return@mapNotNull null
            Usage(location.path, location.range, context(e, segment.startOffset))
        }
        val pointers = SmartPointerManager.getInstance(project)
        return Plan(
            target = pointers.createSmartPsiElementPointer(element),
            usages = wireUsages.distinct(),
            infos = usages,
            conflicts = conflicts,
            files = files.associateWith(locator::stamp),
            alongside = alongside.filterKeys { it != element }.map { (e, name) -> pointers.createSmartPsiElementPointer(e) to name },
        )
    }

    private fun conflicts(found: MultiMap<PsiElement, String>): List<Conflict> = found.entrySet().flatMap { (element, messages) ->
        val at = element?.let { locator.location(it) }
        messages.map { Conflict(at?.path ?: "", at?.range, StringUtil.removeHtmlTags(it)) }
    }

    /**
     * Inside a read action: the conflict for modules that are not loaded but lie in the use
     * scope of any of [elements] (their usages are neither found nor updated), as
     * `BaseRefactoringProcessor.computeUnloadedModulesFromUseScope` counts them; none when
     * every module is loaded.
     */
    private fun unloadedModules(elements: Collection<PsiElement>): List<Conflict> = listOfNotNull(NoModalUi.unloadedModules(unloadedModuleCount(elements)))

    /** Inside a read action: how many modules that are not loaded lie in the use scope of any of [elements]. */
    private fun unloadedModuleCount(elements: Collection<PsiElement>): Int = elements.flatMapTo(HashSet<UnloadedModuleDescription>()) { e ->
        (e.useScope as? GlobalSearchScope)?.unloadedModulesBelongingToScope.orEmpty()
    }.size

    /** The trimmed line around [offset], at most 120 chars: enough for an agent to see the usage. */
    private fun context(element: PsiElement, offset: Int): String? {
        val document = element.containingFile?.viewProvider?.document ?: return null
        val line = document.getLineNumber(offset)
        val text = document.charsSequence.subSequence(document.getLineStartOffset(line), document.getLineEndOffset(line)).toString().trim()
        return if (text.length > 120) text.take(119) + "…" else text
    }

    private fun changedSincePlan() = LeanCtxException(ErrorCode.NO_SYMBOL, "the symbol changed since the preview; preview again")

    /**
     * Runs [refactor] in one turn on the EDT with the plan's target, saves exactly the
     * documents it changed, and reports which files really changed, plus the wire paths
     * [extraChanged] names after the refactoring. [refactor] answers why it did not finish
     * (null when it did); that, or an exception out of it, rolls back every document it
     * changed ([Rollback]) before the answer ([ApplyFailure], or the exception itself).
     *
     * Before the turn every file of the plan is brought up to date from disk; in it, each
     * must be inside the project, writable, saved and unchanged since the plan
     * ([ApplyFiles]), so neither the IDE's memory/disk conflict dialog nor its "make
     * writable?" or non-project-file prompts can come up, and the usages found are the
     * ones written.
     */
    private fun applyOnEdt(
        what: String,
        plan: Plan,
        extraChanged: (PsiElement) -> List<String> = { emptyList() },
        refactor: (PsiElement) -> String?,
    ): ApplyResponse {
        val syncs = plan.files.keys.flatMap { locator.syncs(it, locator.wirePath(it), DiskSync.Access.WRITE) }
        val dumb = DumbService.getInstance(project)
        return locator.gate.write(what, syncs) {
            // Dumb mode begins and ends on the EDT, so this check holds until the
            // processor itself yields (its modal progress pumps events).
            val stamp = dumb.modificationTracker.modificationCount
            if (dumb.isDumb) return@write ApplyOutcome.of(dumbBefore = true, dumbDuring = false, changedPaths = emptyList())
            val element = plan.target.element ?: throw changedSincePlan()
            ApplyFiles.check(plan.files.map { (file, atPlan) -> locator.state(file, atPlan) })
            val documents = FileDocumentManager.getInstance()
            val unsavedBefore = documents.unsavedDocuments.asList()
            val pathsBefore = plan.files.keys.associateWith(locator::wirePath)
            // A processor that meets IndexNotReadyException shows a notification and
            // returns having changed nothing; the tracker tells that case apart.
            val unfinished = try {
                refactor(element)
            } catch (e: Throwable) {
                val unrestored = rollBack(unsavedBefore, pathsBefore)
                if (e is IncorrectOperationException) throw ApplyFailure.answer(what, e.message ?: e.javaClass.simpleName, unrestored)
                throw e
            }
            if (unfinished != null) {
                val dumbDuring = dumb.isDumb || dumb.modificationTracker.modificationCount != stamp
                throw ApplyFailure.answer(what, unfinished, rollBack(unsavedBefore, pathsBefore), dumbDuring)
            }
            val saved = Saves.exactly(unsavedBefore, documents.unsavedDocuments.asList())
            saved.forEach(documents::saveDocument)
            val changed = plan.files.filter { (file, atPlan) -> file.isValid && locator.stamp(file) != atPlan }.keys +
                saved.mapNotNull(documents::getFile)
            val paths = (changed.map(locator::wirePath) + plan.target.element?.let(extraChanged).orEmpty()).distinct()
            ApplyOutcome.of(dumbBefore = false, dumbDuring = dumb.isDumb || dumb.modificationTracker.modificationCount != stamp, changedPaths = paths)
        }
    }

    /**
     * On the EDT, after a refused apply: reloads from disk every document it changed
     * ([Rollback.documents]: saved before the apply, so the disk holds their old text) and
     * answers the wire paths of planned files it could not put back (renamed, moved or
     * deleted on the file system).
     */
    private fun rollBack(unsavedBefore: List<Document>, pathsBefore: Map<VirtualFile, String>): List<String> {
        val documents = FileDocumentManager.getInstance()
        for (document in Rollback.documents(unsavedBefore, documents.unsavedDocuments.asList())) {
            // A document whose file the failed apply deleted has nothing on disk to come back to.
            if (documents.getFile(document)?.isValid == true) documents.reloadFromDisk(document)
        }
        PsiDocumentManager.getInstance(project).commitAllDocuments()
        return Rollback.unrestored(pathsBefore) { file -> if (file.isValid) locator.wirePath(file) else null }
    }

    private companion object {
        /** The platform's `com.intellij.moveFileHandler` extension point (MoveFileHandler.EP_NAME is private). */
        val MOVE_FILE_HANDLERS = ExtensionPointName<MoveFileHandler>("com.intellij.moveFileHandler")
    }
}
