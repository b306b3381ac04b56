/**
 * The status-bar widget (docs/ide-wire.md, `stats.json`): `⚡ 12.4K saved` from
 * `stats.json`, re-read every 30 s off the EDT; a click opens the Gain tool window. Text
 * and tooltip come from the core's [StatusBarText], so they are tested without an IDE.
 */
package com.leanctx.plugin.ui

import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.project.Project
import com.intellij.openapi.util.Disposer
import com.intellij.openapi.wm.StatusBar
import com.intellij.openapi.wm.StatusBarWidget
import com.intellij.openapi.wm.StatusBarWidgetFactory
import com.intellij.openapi.wm.ToolWindowManager
import com.intellij.util.concurrency.AppExecutorUtil
import com.intellij.util.Consumer
import com.leanctx.core.ui.LeanCtxStats
import com.leanctx.core.ui.StatusBarText
import java.awt.Component
import java.awt.event.MouseEvent
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

class LeanCtxStatusBarFactory : StatusBarWidgetFactory {
    override fun getId(): String = LeanCtxStatusBarWidget.ID

    override fun getDisplayName(): String = "lean-ctx"

    override fun isAvailable(project: Project): Boolean = true

    override fun canBeEnabledOn(statusBar: StatusBar): Boolean = true

    override fun createWidget(project: Project): StatusBarWidget = LeanCtxStatusBarWidget(project)

    override fun disposeWidget(widget: StatusBarWidget) = Disposer.dispose(widget)
}

class LeanCtxStatusBarWidget(private val project: Project) : StatusBarWidget, StatusBarWidget.TextPresentation {
    @Volatile
    private var stats: LeanCtxStats? = null
    private var statusBar: StatusBar? = null
    private var timer: ScheduledFuture<*>? = null

    override fun ID(): String = ID

    override fun install(statusBar: StatusBar) {
        this.statusBar = statusBar
        timer = AppExecutorUtil.getAppScheduledExecutorService().scheduleWithFixedDelay({ refresh() }, 0, 30, TimeUnit.SECONDS)
    }

    /** Off the EDT: reads the file, then repaints on the EDT. */
    private fun refresh() {
        stats = Cli.stats.read()
        ApplicationManager.getApplication().invokeLater({ statusBar?.updateWidget(ID) }, { project.isDisposed })
    }

    override fun getPresentation(): StatusBarWidget.WidgetPresentation = this

    override fun getText(): String = StatusBarText.text(stats)

    override fun getTooltipText(): String = StatusBarText.tooltip(stats)

    override fun getAlignment(): Float = Component.CENTER_ALIGNMENT

    override fun getClickConsumer(): Consumer<MouseEvent> = Consumer {
        ToolWindowManager.getInstance(project).getToolWindow(Cli.GAIN_TOOL_WINDOW_ID)?.activate(null)
    }

    override fun dispose() {
        timer?.cancel(false)
        timer = null
        statusBar = null
    }

    companion object {
        const val ID = "com.leanctx.statusBar"
    }
}
