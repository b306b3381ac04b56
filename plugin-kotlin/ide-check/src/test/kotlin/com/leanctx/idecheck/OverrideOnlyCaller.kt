/**
 * A fixture for [ApiStatusCheckTest], never part of the adapter: the call issue 19
 * found in the move preview (a processor subclass reaching its `@ApiStatus.OverrideOnly`
 * `findUsages()`), which the check must report.
 */
package com.leanctx.idecheck

import com.intellij.openapi.project.Project
import com.intellij.psi.PsiDirectory
import com.intellij.psi.PsiElement
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.usageView.UsageInfo

class OverrideOnlyCaller(project: Project, file: PsiElement, dir: PsiDirectory) :
    MoveFilesOrDirectoriesProcessor(project, arrayOf(file), dir, false, false, null, null) {
    fun usages(): Array<UsageInfo> = findUsages()
}
