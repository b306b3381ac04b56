/**
 * The IDE's [DocumentStore]: an edit is one `WriteCommandAction` on the file's `Document`
 * (one undo entry), committed to PSI and saved, so the daemon's next read of the disk
 * sees it. The plan runs inside the command, on the Document's current text, so nothing
 * can change it between reading and writing.
 */
package com.leanctx.plugin.psi

import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.psi.PsiDocumentManager
import com.leanctx.core.api.DocumentStore
import com.leanctx.core.policy.DiskSync
import com.leanctx.core.policy.HumanQuestion
import com.leanctx.core.policy.NoModalUi
import com.leanctx.core.text.TextChanges
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException

class IdeDocumentStore(private val locator: PsiLocator) : DocumentStore {
    override fun <T> edit(path: String, plan: (text: String) -> DocumentStore.Planned<T>): T {
        val file = locator.virtualFile(path, DiskSync.Access.WRITE)
        var result: Result<T>? = null
        // Write actions belong on the EDT; the HTTP thread waits for the outcome.
        ApplicationManager.getApplication().invokeAndWait({
            result = runCatching {
                WriteCommandAction.writeCommandAction(locator.project).withName("lean-ctx edit").compute<T, RuntimeException> {
                    val document = FileDocumentManager.getInstance().getDocument(file)
                        ?: throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$path: not a text document")
                    NoModalUi.answer(HumanQuestion.ReadOnlyFiles(if (document.isWritable) emptyList() else listOf(path)), force = false)
                    val planned = plan(document.text)
                    for (change in TextChanges.backToFront(planned.changes, document.textLength)) {
                        document.replaceString(change.start, change.end, change.replacement)
                    }
                    PsiDocumentManager.getInstance(locator.project).commitDocument(document)
                    FileDocumentManager.getInstance().saveDocument(document)
                    planned.result
                }
            }
        }, ModalityState.defaultModalityState())
        return result!!.getOrThrow()
    }
}
