/**
 * The Tools → lean-ctx menu (docs/ide-wire.md, The Tools menu). Setup and Doctor run the
 * CLI in the background and show its output, ANSI-stripped, in a dialog; Gain Report
 * opens the Gain tool window; Dashboard starts `lean-ctx dashboard` and does not wait.
 *
 * All are `DumbAware`: none needs an index, and the platform disables actions that are
 * not while the IDE indexes.
 */
package com.leanctx.plugin.ui

import com.intellij.openapi.actionSystem.ActionUpdateThread
import com.intellij.openapi.actionSystem.AnAction
import com.intellij.openapi.actionSystem.AnActionEvent
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.progress.ProgressIndicator
import com.intellij.openapi.progress.Task
import com.intellij.openapi.project.DumbAware
import com.intellij.openapi.ui.Messages
import com.intellij.openapi.wm.ToolWindowManager
import com.leanctx.core.ui.AnsiText
import java.time.Duration

abstract class LeanCtxCommandAction(private vararg val args: String) : AnAction(), DumbAware {
    override fun getActionUpdateThread(): ActionUpdateThread = ActionUpdateThread.BGT

    override fun actionPerformed(e: AnActionEvent) {
        val project = e.project
        object : Task.Backgroundable(project, "lean-ctx ${args.joinToString(" ")}", true) {
            override fun run(indicator: ProgressIndicator) {
                val result = Cli.runner.run(args.toList(), Duration.ofSeconds(60))
                val text = AnsiText.strip(result.stdout.ifBlank { result.stderr }).trim().ifEmpty { "(no output, exit code ${result.exitCode})" }
                ApplicationManager.getApplication().invokeLater {
                    Messages.showInfoMessage(project, text, "lean-ctx")
                }
            }
        }.queue()
    }
}

class SetupAction : LeanCtxCommandAction("setup")

class DoctorAction : LeanCtxCommandAction("doctor")

class GainAction : AnAction(), DumbAware {
    override fun getActionUpdateThread(): ActionUpdateThread = ActionUpdateThread.BGT

    override fun update(e: AnActionEvent) {
        e.presentation.isEnabled = e.project != null
    }

    override fun actionPerformed(e: AnActionEvent) {
        val project = e.project ?: return
        ToolWindowManager.getInstance(project).getToolWindow(Cli.GAIN_TOOL_WINDOW_ID)?.activate(null)
    }
}

class DashboardAction : AnAction(), DumbAware {
    override fun getActionUpdateThread(): ActionUpdateThread = ActionUpdateThread.BGT

    override fun actionPerformed(e: AnActionEvent) {
        ApplicationManager.getApplication().executeOnPooledThread { Cli.runner.launch(listOf("dashboard")) }
    }
}
