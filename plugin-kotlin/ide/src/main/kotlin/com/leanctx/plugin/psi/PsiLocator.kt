/**
 * The one bridge from wire coordinates to PSI, shared by every adapter: a wire path to
 * a `PsiFile` and `Document` (jailed by the core's [ProjectPaths]), a 0-based line and
 * UTF-16 column to a `Document` offset (the core's [LineMap], so the IDE and the
 * contract double report the same errors), an offset to the symbol there, and a
 * `PsiElement` back to a wire [Location].
 *
 * Every touch of the IDE on an agent's path goes through [gate] (the core's [IdeGate],
 * plugin-kotlin/README.md, "Under a busy IDE"), which this class gives the platform's
 * primitives:
 * - reads are non-blocking read actions on committed documents
 *   (`withDocumentsCommitted`), so a Document's offsets and the PSI come from one
 *   snapshot; they give way to writes and are cancelled at the request's deadline
 *   through their progress indicator; in dumb mode the answer is `INDEXING`, never a
 *   partial result (docs/ide-wire.md, Dumb mode);
 * - writes are turns on the EDT queued in the non-modal state (a dialog left open holds
 *   them back until the deadline, then they are withdrawn), starting with a commit of
 *   every document;
 * - files come from disk first (the daemon writes behind the IDE's back), as the core's
 *   [DiskSync] decides, through the VFS's asynchronous refresh with a completion
 *   callback: a synchronous refresh off the EDT waits for the EDT without a bound.
 */
package com.leanctx.plugin.psi

import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.application.ReadAction
import com.intellij.openapi.editor.Document
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.progress.EmptyProgressIndicator
import com.intellij.openapi.project.DumbService
import com.intellij.openapi.project.IndexNotReadyException
import com.intellij.openapi.project.Project
import com.intellij.openapi.vfs.LocalFileSystem
import com.intellij.openapi.vfs.VfsUtil
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiDocumentManager
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiManager
import com.intellij.psi.PsiNameIdentifierOwner
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.search.GlobalSearchScope
import com.leanctx.core.policy.ApplyFiles
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.DiskSync
import com.leanctx.core.policy.FileState
import com.leanctx.core.policy.IdeGate
import com.leanctx.core.text.LineMap
import com.leanctx.core.text.ProjectPaths
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.Location
import com.leanctx.core.wire.Position
import com.leanctx.core.wire.Range
import com.leanctx.core.wire.SearchScope
import java.nio.file.Path
import java.util.concurrent.Callable

class PsiLocator(val project: Project, val paths: ProjectPaths) {
    val gate = IdeGate(object : IdeGate.Ide {
        override fun isDumb(): Boolean = DumbService.isDumb(project)

        override fun <T> readCommitted(cancellation: IdeGate.Cancellation, body: () -> T): T {
            // The read action runs under an indicator of its own that wraps this one: a
            // pending write cancels the inner one (the read restarts after the write), the
            // deadline this one, which also ends a wait for documents to be committed.
            val indicator = EmptyProgressIndicator()
            cancellation.onCancel(indicator::cancel)
            return try {
                ReadAction.nonBlocking(Callable { body() })
                    .withDocumentsCommitted(project)
                    .expireWith(project)
                    .wrapProgress(indicator)
                    .executeSynchronously()
            } catch (e: IndexNotReadyException) {
                throw ApplyOutcome.indexing()
            }
        }

        // Non-modal: a turn must not interleave with a dialog that does not expect the
        // model to change under it; it waits for the dialog to close, or is withdrawn.
        override fun onEdt(task: Runnable) = ApplicationManager.getApplication().invokeLater(task, ModalityState.nonModal())

        override fun commitAll() = PsiDocumentManager.getInstance(project).commitAllDocuments()
    })

    /**
     * [body] on the PSI of [wirePath] as it is on disk (or as the IDE holds it, unsaved),
     * with the changes the IDE's file watcher has seen applied first when [watched] (a
     * project-wide usage search follows).
     */
    fun <T> readFile(wirePath: String, watched: Boolean = false, body: (PsiFile) -> T): T {
        val file = existing(wirePath)
        val syncs = syncs(file, wirePath, DiskSync.Access.READ) + listOfNotNull(if (watched) watchedChanges() else null)
        return gate.read("reading $wirePath", syncs) { body(psiFile(file)) }
    }

    /**
     * [work] on [wirePath] in one turn on the EDT, after the file is brought up to date
     * from disk; there it must still be writable and saved ([ApplyFiles]), since the
     * user may have typed into it meanwhile.
     */
    fun <T> writeFile(what: String, wirePath: String, work: (VirtualFile) -> T): T {
        val file = existing(wirePath)
        return gate.write(what, syncs(file, wirePath, DiskSync.Access.WRITE)) {
            ApplyFiles.check(listOf(state(file, stampAtPlan = null)))
            work(file)
        }
    }

    /**
     * The IDE's file at [nio], null if there is none; one the VFS has not seen yet (the
     * daemon created it) after a refresh of the nearest directory it knows, which lists
     * the new entries.
     */
    fun find(nio: Path, wirePath: String): VirtualFile? {
        val vfs = LocalFileSystem.getInstance()
        vfs.findFileByNioFile(nio)?.let { return it }
        val known = generateSequence(nio.parent) { it.parent }.firstNotNullOfOrNull(vfs::findFileByNioFile)
        if (known != null) gate.await("finding $wirePath", listOf(refresh(known)))
        return vfs.findFileByNioFile(nio)
    }

    private fun existing(wirePath: String): VirtualFile = find(paths.resolveExisting(wirePath), wirePath)
        ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: not in the IDE's file system")

    /** What [DiskSync] asks before [file] is read or written: a refresh from disk, or nothing. */
    fun syncs(file: VirtualFile, wirePath: String, access: DiskSync.Access): List<IdeGate.Sync> {
        val unsaved = FileDocumentManager.getInstance().isFileModified(file)
        return if (DiskSync.decide(wirePath, access, unsaved) == DiskSync.Action.REFRESH) listOf(refresh(file)) else emptyList()
    }

    /**
     * [file] re-read from disk whatever the file watcher reported: marked dirty, then an
     * asynchronous refresh that reports when the IDE has applied it (the Document of a
     * saved file reloads on the VFS content event).
     */
    private fun refresh(file: VirtualFile) = IdeGate.Sync { done ->
        val dirty = VfsUtil.markDirty(false, false, file)
        if (dirty.isEmpty()) done.run() else LocalFileSystem.getInstance().refreshFiles(dirty, true, false, done)
    }

    /** The changes the IDE's file watcher has seen in the project (the daemon's writes anywhere in it). */
    private fun watchedChanges(): IdeGate.Sync {
        val root = find(paths.root, ".") ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "${paths.root}: the project root is not in the IDE's file system")
        // Recursive but not marked dirty: only what the watcher marked is re-read.
        return IdeGate.Sync { done -> LocalFileSystem.getInstance().refreshFiles(listOf(root), true, true, done) }
    }

    /** [file] as an apply is about to write it, against its document's stamp when the plan was computed. */
    fun state(file: VirtualFile, stampAtPlan: Long?): FileState = FileState(
        path = wirePath(file),
        insideRoot = paths.isInside(Path.of(file.path)),
        writable = file.isWritable && FileDocumentManager.getInstance().getDocument(file)?.isWritable != false,
        unsaved = FileDocumentManager.getInstance().isFileModified(file),
        stampAtPlan = stampAtPlan,
        stampNow = stamp(file),
    )

    /** The modification stamp of [file]'s document, null for a file without one (binary, a directory). */
    fun stamp(file: VirtualFile): Long? = if (file.isDirectory) null else FileDocumentManager.getInstance().getDocument(file)?.modificationStamp

    /** Inside a read action. */
    fun psiFile(file: VirtualFile): PsiFile = PsiManager.getInstance(project).findFile(file)
        ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "${file.path}: the IDE has no PSI for it")

    fun document(file: PsiFile): Document = file.viewProvider.document
        ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "${file.name}: not a text file")

    fun offset(file: PsiFile, position: Position): Int = LineMap(document(file).charsSequence).offset(position)

    fun offsets(file: PsiFile, range: Range): Pair<Int, Int> = LineMap(document(file).charsSequence).offsets(range)

    fun scope(scope: SearchScope): GlobalSearchScope = when (scope) {
        SearchScope.PROJECT -> GlobalSearchScope.projectScope(project)
        SearchScope.ALL -> GlobalSearchScope.allScope(project)
    }

    /**
     * The symbol at [offset]: what a reference there resolves to, else the declaration
     * whose name is there.
     */
    fun symbolAt(file: PsiFile, offset: Int): PsiElement {
        val resolved = file.findReferenceAt(offset)?.resolve()
        if (resolved != null) return resolved
        var e: PsiElement? = file.findElementAt(offset)
        while (e != null && e !is PsiFile) {
            if (e is PsiNameIdentifierOwner && e.nameIdentifier?.textRange?.containsOffset(offset) == true) return e
            e = e.parent
        }
        throw LeanCtxException(ErrorCode.NO_SYMBOL_AT_POSITION, "no symbol or reference at offset $offset of ${file.name}")
    }

    /**
     * The symbol a refactoring addresses by [range]: a reference at its start resolves
     * to its target; otherwise the innermost named declaration covering the range.
     */
    fun symbolIn(file: PsiFile, range: Range): PsiElement {
        val (start, end) = offsets(file, range)
        val resolved = file.findReferenceAt(start)?.resolve()
        if (resolved != null) return resolved
        return declarationsAround(file, start).firstOrNull { it.textRange.startOffset <= start && it.textRange.endOffset >= end }
            ?: throw LeanCtxException(ErrorCode.NO_SYMBOL, "no symbol covers ${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character} of ${file.name}")
    }

    /** The named declarations of [file] enclosing [offset], innermost first: no reference is followed out of the file. */
    fun declarationsAround(file: PsiFile, offset: Int): Sequence<PsiNamedElement> =
        generateSequence(file.findElementAt(offset)) { it.parent }.takeWhile { it !is PsiFile }.filterIsInstance<PsiNamedElement>()

    /** The wire path of [file]: relative inside the project, absolute outside it. */
    fun wirePath(file: VirtualFile): String = paths.toWire(Path.of(file.path))

    /**
     * Where [element] is: its name if it has one, else all of it; null for elements
     * without a file (light, synthetic). With [navigate], a library symbol is located in
     * its source rather than in the stub or header the IDE resolved it to.
     */
    fun location(element: PsiElement, navigate: Boolean = true): Location? {
        val target = if (navigate) element.navigationElement else element
        val file = target.containingFile?.virtualFile ?: return null
        val document = FileDocumentManager.getInstance().getDocument(file) ?: return null
        val range = ((target as? PsiNameIdentifierOwner)?.nameIdentifier ?: target).textRange ?: return null
        return Location(wirePath(file), Range(position(document, range.startOffset), position(document, range.endOffset)))
    }

    /** Where `[start, end)` of [element]'s file is. */
    fun location(element: PsiElement, start: Int, end: Int): Location? {
        val file = element.containingFile?.virtualFile ?: return null
        val document = FileDocumentManager.getInstance().getDocument(file) ?: return null
        return Location(wirePath(file), Range(position(document, start), position(document, end)))
    }

    /** The 1-based line of [element]'s name, as structure answers carry it. */
    fun line1(element: PsiElement): Int {
        val target = element.navigationElement
        val document = target.containingFile?.virtualFile?.let { FileDocumentManager.getInstance().getDocument(it) } ?: return 0
        val offset = ((target as? PsiNameIdentifierOwner)?.nameIdentifier ?: target).textOffset
        return document.getLineNumber(offset) + 1
    }

    companion object {
        /** A `Document` offset as a wire position: the Document's columns are already UTF-16. */
        fun position(document: Document, offset: Int): Position {
            val line = document.getLineNumber(offset)
            return Position(line, offset - document.getLineStartOffset(line))
        }
    }
}
