/**
 * The one bridge from wire coordinates to PSI, shared by every adapter: a wire path to
 * a `PsiFile` and `Document` (jailed by the core's [ProjectPaths]), a 0-based line and
 * UTF-16 column to a `Document` offset (the core's [LineMap], so the IDE and the
 * contract double report the same errors), an offset to the symbol there, and a
 * `PsiElement` back to a wire [Location].
 *
 * Reads run as non-blocking read actions that give way to writes, and only in smart mode:
 * in dumb mode the answer is `INDEXING`, never a partial result (docs/ide-wire.md, Dumb
 * mode).
 *
 * Files come from disk first (the daemon writes behind the IDE's back), as the core's
 * [DiskSync] decides: saved files are refreshed, files with unsaved IDE changes are
 * read as the IDE holds them and refused for writing.
 */
package com.leanctx.plugin.psi

import com.intellij.openapi.application.ReadAction
import com.intellij.openapi.editor.Document
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.project.DumbService
import com.intellij.openapi.project.IndexNotReadyException
import com.intellij.openapi.project.Project
import com.intellij.openapi.vfs.LocalFileSystem
import com.intellij.openapi.vfs.VfsUtil
import com.intellij.openapi.vfs.VirtualFile
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiManager
import com.intellij.psi.PsiNameIdentifierOwner
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.search.GlobalSearchScope
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.DiskSync
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
    /** Runs [body] in a smart-mode read action, or answers `INDEXING`. */
    fun <T> read(body: () -> T): T {
        if (DumbService.isDumb(project)) throw ApplyOutcome.indexing()
        return try {
            ReadAction.nonBlocking(Callable {
                if (DumbService.isDumb(project)) throw ApplyOutcome.indexing()
                body()
            }).expireWith(project).executeSynchronously()
        } catch (e: IndexNotReadyException) {
            throw ApplyOutcome.indexing()
        }
    }

    /**
     * The IDE's file for [wirePath], with what the daemon wrote to it. Call outside a
     * read action: a synchronous refresh inside one is forbidden.
     */
    fun virtualFile(wirePath: String, access: DiskSync.Access = DiskSync.Access.READ): VirtualFile {
        val nio = paths.resolveExisting(wirePath)
        // Only finds: a file the VFS already knows keeps its cached content and length
        // until something refreshes it, however the disk changed.
        val file = LocalFileSystem.getInstance().refreshAndFindFileByNioFile(nio)
            ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: not in the IDE's file system")
        sync(file, wirePath, access)
        return file
    }

    /** [DiskSync] for one file the IDE knows; [wirePath] names it in a refusal. */
    fun sync(file: VirtualFile, wirePath: String, access: DiskSync.Access) {
        val unsaved = FileDocumentManager.getInstance().isFileModified(file)
        if (DiskSync.decide(wirePath, access, unsaved) == DiskSync.Action.REFRESH) {
            // Synchronous and this file only: once it returns, the VFS has the new content
            // and the Document of a saved file has reloaded it (FileDocumentManager reloads
            // unmodified documents on the VFS content event).
            VfsUtil.markDirtyAndRefresh(false, false, false, file)
        }
    }

    /**
     * Applies the changes the IDE's file watcher has seen so far (the daemon's writes
     * anywhere in the project), synchronously, before a project-wide usage search.
     */
    fun refreshWatched() {
        LocalFileSystem.getInstance().refresh(false)
    }

    /** Inside a read action. */
    fun psiFile(file: VirtualFile): PsiFile = PsiManager.getInstance(project).findFile(file)
        ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "${file.path}: the IDE has no PSI for it")

    /** [virtualFile] then, in a smart read action, [body] on its PSI. */
    fun <T> readFile(wirePath: String, body: (PsiFile) -> T): T {
        val file = virtualFile(wirePath)
        return read { body(psiFile(file)) }
    }

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
        var e: PsiElement? = file.findElementAt(start)
        while (e != null && e !is PsiFile) {
            if (e is PsiNamedElement && e.textRange.startOffset <= start && e.textRange.endOffset >= end) return e
            e = e.parent
        }
        throw LeanCtxException(ErrorCode.NO_SYMBOL, "no symbol covers ${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character} of ${file.name}")
    }

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
