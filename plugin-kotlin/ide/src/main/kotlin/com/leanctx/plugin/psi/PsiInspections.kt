/**
 * [Inspections] from the project's inspection profile: `list` names the enabled
 * inspections that apply to the file's language; `run` runs the enabled local inspections
 * on the file. Global inspections need a whole-project analysis and are left to the IDE's
 * own "Inspect Code".
 *
 * `run` hands the inspection engine the read action's own progress indicator
 * (`InspectionEngine.inspectEx`), so a pending write (the user's keystroke) cancels the
 * inspections at once and the read restarts after it; `runInspectionOnFile` would make an
 * indicator of its own, which no write can cancel, and typing would freeze until every
 * inspection finished (plugin-kotlin/README.md, "Under a busy IDE", point 5).
 */
package com.leanctx.plugin.psi

import com.intellij.codeInsight.daemon.HighlightDisplayKey
import com.intellij.codeInspection.InspectionEngine
import com.intellij.codeInspection.ProblemDescriptorUtil
import com.intellij.codeInspection.ex.InspectionToolWrapper
import com.intellij.codeInspection.ex.LocalInspectionToolWrapper
import com.intellij.openapi.progress.ProgressIndicatorProvider
import com.intellij.profile.codeInspection.InspectionProjectProfileManager
import com.intellij.psi.PsiFile
import com.intellij.util.PairProcessor
import com.leanctx.core.api.Inspections
import com.leanctx.core.wire.Diagnostic
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.InspectionInfo
import com.leanctx.core.wire.InspectionsResponse
import com.leanctx.core.wire.ListInspectionsResponse

class PsiInspections(private val locator: PsiLocator) : Inspections {
    override fun list(request: FileRequest): ListInspectionsResponse = locator.readFile(request.path) { file ->
        ListInspectionsResponse.of(enabled(file).map { InspectionInfo(it.shortName, it.displayName, severity(file, it)) })
    }

    override fun run(request: FileRequest): InspectionsResponse = locator.readFile(request.path) { file ->
        val document = locator.document(file)
        val path = locator.wirePath(file.virtualFile)
        val tools = enabled(file).filterIsInstance<LocalInspectionToolWrapper>()
        // The read action runs its body under its own indicator, the one a write cancels.
        val indicator = checkNotNull(ProgressIndicatorProvider.getGlobalProgressIndicator()) { "inspections run inside the locator's read action" }
        val found = InspectionEngine.inspectEx(tools, file, file.textRange, file.textRange, false, false, true, indicator, PairProcessor.alwaysTrue())
            .flatMap { (tool, problems) ->
                val severity = severity(file, tool)
                problems.map { problem ->
                    val element = problem.psiElement
                    val line = if (element != null) document.getLineNumber(element.textRange.startOffset) + 1 else problem.lineNumber + 1
                    Diagnostic(path, line, severity, ProblemDescriptorUtil.renderDescriptionMessage(problem, element))
                }
            }
        InspectionsResponse.of(found.sortedWith(compareBy<Diagnostic> { it.line }.thenBy { it.message }))
    }

    private fun enabled(file: PsiFile): List<InspectionToolWrapper<*, *>> {
        val profile = InspectionProjectProfileManager.getInstance(locator.project).currentProfile
        return profile.getInspectionTools(file).filter { tool ->
            val key = HighlightDisplayKey.find(tool.shortName)
            key != null && profile.isToolEnabled(key, file) && tool.isApplicable(file.language)
        }
    }

    /** The level the profile gives the inspection for this file: `ERROR`, `WARNING`, `WEAK WARNING`, ... */
    private fun severity(file: PsiFile, tool: InspectionToolWrapper<*, *>): String {
        val profile = InspectionProjectProfileManager.getInstance(locator.project).currentProfile
        val key = HighlightDisplayKey.find(tool.shortName) ?: return tool.defaultLevel.name
        return profile.getErrorLevel(key, file).name
    }
}
