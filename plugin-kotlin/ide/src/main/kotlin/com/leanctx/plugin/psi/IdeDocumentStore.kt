/**
 * The IDE's [DocumentStore]: an edit is one `WriteCommandAction` on the file's `Document`
 * (one undo entry), committed to PSI and saved, so the daemon's next read of the disk
 * sees it. It runs in one turn on the EDT through the core's gate ([PsiLocator.writeFile]:
 * bounded by the request's deadline, never behind a dialog for longer), and the plan runs
 * inside the command, on the Document's current text, so nothing can change it between
 * reading and writing. Only this document is saved.
 */
package com.leanctx.plugin.psi

import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.psi.PsiDocumentManager
import com.leanctx.core.api.DocumentStore
import com.leanctx.core.text.TextChanges
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException

class IdeDocumentStore(private val locator: PsiLocator) : DocumentStore {
    override fun <T> edit(path: String, plan: (text: String) -> DocumentStore.Planned<T>): T = locator.writeFile("the edit of $path", path) { file ->
        WriteCommandAction.writeCommandAction(locator.project).withName("lean-ctx edit").compute<T, RuntimeException> {
            val document = FileDocumentManager.getInstance().getDocument(file)
                ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$path: not a text document")
            val planned = plan(document.text)
            for (change in TextChanges.backToFront(planned.changes, document.textLength)) {
                document.replaceString(change.start, change.end, change.replacement)
            }
            PsiDocumentManager.getInstance(locator.project).commitDocument(document)
            FileDocumentManager.getInstance().saveDocument(document)
            planned.result
        }
    }
}
