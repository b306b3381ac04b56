/**
 * A fixture for [ApiStatusCheckTest], never part of the adapter: the call issue 19
 * found in the move preview (a processor subclass reaching its `@ApiStatus.OverrideOnly`
 * `findUsages()`), and a direct call to `preprocessUsages`, `@ApiStatus.OverrideOnly` in
 * BaseRefactoringProcessor too (the stubs lacked that until they were checked against
 * the platform's source): the check must report both.
 */
package com.leanctx.idecheck

import com.intellij.openapi.project.Project
import com.intellij.openapi.util.Ref
import com.intellij.psi.PsiDirectory
import com.intellij.psi.PsiElement
import com.intellij.refactoring.move.moveFilesOrDirectories.MoveFilesOrDirectoriesProcessor
import com.intellij.usageView.UsageInfo

class OverrideOnlyCaller(project: Project, file: PsiElement, dir: PsiDirectory) :
    MoveFilesOrDirectoriesProcessor(project, arrayOf(file), dir, false, false, null, null) {
    fun usages(): Array<UsageInfo> = findUsages()

    fun accepted(usages: Ref<Array<UsageInfo>>): Boolean = preprocessUsages(usages)
}
