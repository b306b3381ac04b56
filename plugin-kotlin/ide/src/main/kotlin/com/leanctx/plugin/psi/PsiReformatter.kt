/**
 * [Reformatter] with the IDE's code style: `CodeStyleManager.reformatText` over exactly
 * one range of the requested file (the core's [ReformatRange]: the whole file, the
 * region, or the declaration of that file covering the symbol's range, never a
 * reference's target in another file), optionally optimising that file's imports, in one
 * `WriteCommandAction` in one turn on the EDT through the core's gate
 * ([PsiLocator.writeFile]), then saving exactly the documents it changed ([Saves]).
 * Never triggered by the symbol edits.
 */
package com.leanctx.plugin.psi

import com.intellij.lang.LanguageImportStatements
import com.intellij.openapi.command.WriteCommandAction
import com.intellij.openapi.fileEditor.FileDocumentManager
import com.intellij.openapi.project.DumbService
import com.intellij.psi.PsiDocumentManager
import com.intellij.psi.codeStyle.CodeStyleManager
import com.leanctx.core.api.Reformatter
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.policy.ReformatRange
import com.leanctx.core.policy.Saves
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.ReformatScopeKind

class PsiReformatter(private val locator: PsiLocator) : Reformatter {
    override fun reformat(request: ReformatRequest): ReformatResponse {
        val project = locator.project
        val (path, changed) = locator.writeFile("the reformat of ${request.path}", request.path) { file ->
            // Formatting rules may consult indexes (imports, types): no half-informed reformat.
            if (DumbService.isDumb(project)) throw ApplyOutcome.indexing()
            val documents = FileDocumentManager.getInstance()
            val unsavedBefore = documents.unsavedDocuments.asList()
            WriteCommandAction.writeCommandAction(project).withName("lean-ctx reformat").run<RuntimeException> {
                val psi = locator.psiFile(file)
                val document = locator.document(psi)
                val requested = request.scope.range?.takeIf { request.scope.kind != ReformatScopeKind.FILE }?.let { locator.offsets(psi, it) }
                val around = requested?.let { (start, _) -> locator.declarationsAround(psi, start).map { it.textRange.startOffset to it.textRange.endOffset }.toList() }
                val (start, end) = ReformatRange.of(request.scope.kind, document.textLength, requested, around.orEmpty())
                CodeStyleManager.getInstance(project).reformatText(psi, start, end)
                if (request.optimizeImports) {
                    PsiDocumentManager.getInstance(project).doPostponedOperationsAndUnblockDocument(document)
                    PsiDocumentManager.getInstance(project).commitDocument(document)
                    for (optimizer in LanguageImportStatements.INSTANCE.forFile(psi)) optimizer.processFile(psi).run()
                }
                PsiDocumentManager.getInstance(project).doPostponedOperationsAndUnblockDocument(document)
            }
            val toSave = Saves.exactly(unsavedBefore, documents.unsavedDocuments.asList())
            toSave.forEach(documents::saveDocument)
            locator.wirePath(file) to toSave.isNotEmpty()
        }
        return ReformatResponse.of(path, changed)
    }
}
