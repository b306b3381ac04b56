/**
 * [Reformatter] with the IDE's code style: `CodeStyleManager` on the whole file, a
 * region, or the symbol covering a range, optionally optimising imports, in one
 * `WriteCommandAction`, then saved. Never triggered by the symbol edits.
 */
package com.leanctx.plugin.psi

import com.intellij.lang.LanguageImportStatements
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.application.ModalityState
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.project.DumbService
import com.intellij.psi.PsiDocumentManager
import com.intellij.psi.codeStyle.CodeStyleManager
import com.leanctx.core.api.Reformatter
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.DiskSync
import com.leanctx.core.policy.HumanQuestion
import com.leanctx.core.policy.NoModalUi
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.ReformatScopeKind

class PsiReformatter(private val locator: PsiLocator) : Reformatter {
    override fun reformat(request: ReformatRequest): ReformatResponse {
        val file = locator.virtualFile(request.path, DiskSync.Access.WRITE)
        val project = locator.project
        var outcome: Result<Boolean>? = null
        ApplicationManager.getApplication().invokeAndWait({
            outcome = runCatching {
                // Formatting rules may consult indexes (imports, types): no half-informed reformat.
                if (DumbService.isDumb(project)) throw ApplyOutcome.indexing()
                NoModalUi.answer(HumanQuestion.ReadOnlyFiles(if (file.isWritable) emptyList() else listOf(request.path)), force = false)
                WriteCommandAction.writeCommandAction(project).withName("lean-ctx reformat").compute<Boolean, RuntimeException> {
                    val psi = locator.psiFile(file)
                    val document = locator.document(psi)
                    PsiDocumentManager.getInstance(project).commitDocument(document)
                    val before = document.modificationStamp
                    val style = CodeStyleManager.getInstance(project)
                    when (request.scope.kind) {
                        ReformatScopeKind.FILE -> style.reformat(psi)
                        ReformatScopeKind.REGION -> {
                            val (start, end) = locator.offsets(psi, request.scope.range!!)
                            style.reformatText(psi, start, end)
                        }
                        ReformatScopeKind.SYMBOL -> {
                            val symbol = locator.symbolIn(psi, request.scope.range!!)
                            style.reformat(symbol)
                        }
                    }
                    if (request.optimizeImports) {
                        PsiDocumentManager.getInstance(project).doPostponedOperationsAndUnblockDocument(document)
                        PsiDocumentManager.getInstance(project).commitDocument(document)
                        for (optimizer in LanguageImportStatements.INSTANCE.forFile(psi)) optimizer.processFile(psi).run()
                    }
                    PsiDocumentManager.getInstance(project).doPostponedOperationsAndUnblockDocument(document)
                    FileDocumentManager.getInstance().saveDocument(document)
                    document.modificationStamp != before
                }
            }
        }, ModalityState.defaultModalityState())
        return ReformatResponse.of(locator.wirePath(file), changed = outcome!!.getOrThrow())
    }
}
