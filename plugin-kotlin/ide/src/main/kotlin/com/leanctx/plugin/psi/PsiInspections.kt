/**
 * [Inspections] from the project's inspection profile: `list` names the enabled
 * inspections that apply to the file's language; `run` runs the enabled local inspections
 * on the file. Global inspections need a whole-project analysis and are left to the IDE's
 * own "Inspect Code".
 */
package com.leanctx.plugin.psi

import com.intellij.codeInsight.daemon.HighlightDisplayKey
import com.intellij.codeInspection.InspectionEngine
import com.intellij.codeInspection.InspectionManager
import com.intellij.codeInspection.ProblemDescriptorUtil
import com.intellij.codeInspection.ex.InspectionToolWrapper
import com.intellij.codeInspection.ex.LocalInspectionToolWrapper
import com.intellij.profile.codeInspection.InspectionProjectProfileManager
import com.intellij.psi.PsiFile
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
        val context = InspectionManager.getInstance(locator.project).createNewGlobalContext()
        val document = locator.document(file)
        val path = locator.wirePath(file.virtualFile)
        val found = enabled(file).filterIsInstance<LocalInspectionToolWrapper>().flatMap { tool ->
            val severity = severity(file, tool)
            InspectionEngine.runInspectionOnFile(file, tool, context).map { problem ->
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
