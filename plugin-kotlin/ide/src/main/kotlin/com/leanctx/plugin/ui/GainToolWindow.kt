/**
 * The Gain tool window (docs/ide-wire.md, `lean-ctx gain --json`): renders
 * `lean-ctx gain --json` as loaded and classified by the core's [GainLoader]: a hero Gain
 * Score, the sub-scores, a task table, a top-files table and a footer with the model and
 * the refresh time; or the empty, binary-missing and failed states, the last with a
 * stderr excerpt and a retry button.
 *
 * Polling is visibility-gated: a load as soon as the window is shown, then every 30 s
 * while it stays shown; hidden means no timer and no subprocess. The timer is bound to
 * the content's `Disposable`.
 */
package com.leanctx.plugin.ui

import com.intellij.openapi.Disposable
import com.intellij.openapi.application.ApplicationManager
import com.intellij.openapi.project.DumbAware
import com.intellij.openapi.project.Project
import com.intellij.openapi.util.Disposer
import com.intellij.openapi.wm.ToolWindow
import com.intellij.openapi.wm.ToolWindowFactory
import com.intellij.openapi.wm.ToolWindowManager
import com.intellij.openapi.wm.ex.ToolWindowManagerListener
import com.intellij.ui.components.JBLabel
import com.intellij.ui.components.JBScrollPane
import com.intellij.ui.content.ContentFactory
import com.intellij.ui.table.JBTable
import com.intellij.util.concurrency.AppExecutorUtil
import com.intellij.util.ui.JBUI
import com.leanctx.core.ui.GainData
import com.leanctx.core.ui.GainLoadResult
import com.leanctx.core.ui.GainLoader
import com.leanctx.core.ui.LeanCtxStats
import java.awt.BorderLayout
import java.awt.FlowLayout
import java.awt.GridLayout
import java.time.LocalTime
import java.time.format.DateTimeFormatter
import java.util.Locale
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit
import javax.swing.BoxLayout
import javax.swing.JButton
import javax.swing.JPanel
import javax.swing.table.DefaultTableModel

class GainToolWindowFactory : ToolWindowFactory, DumbAware {
    override fun createToolWindowContent(project: Project, toolWindow: ToolWindow) {
        val panel = GainPanel()
        val content = ContentFactory.getInstance().createContent(panel, "", false)
        toolWindow.contentManager.addContent(content)
        val controller = GainPollController(project, toolWindow, panel)
        Disposer.register(content, controller)
        panel.onRefresh = controller::loadNow
    }
}

/** Loads while the window is visible, every [PERIOD_S] seconds, and on demand. */
class GainPollController(project: Project, private val toolWindow: ToolWindow, private val panel: GainPanel) : Disposable {
    private val loader = GainLoader(Cli.runner)
    private var timer: ScheduledFuture<*>? = null

    init {
        project.messageBus.connect(this).subscribe(
            ToolWindowManagerListener.TOPIC,
            object : ToolWindowManagerListener {
                override fun stateChanged(toolWindowManager: ToolWindowManager) = syncWithVisibility()
            },
        )
        syncWithVisibility()
    }

    @Synchronized
    private fun syncWithVisibility() {
        if (toolWindow.isVisible && timer == null) {
            timer = AppExecutorUtil.getAppScheduledExecutorService().scheduleWithFixedDelay({ load() }, 0, PERIOD_S, TimeUnit.SECONDS)
        } else if (!toolWindow.isVisible) {
            timer?.cancel(false)
            timer = null
        }
    }

    fun loadNow() {
        ApplicationManager.getApplication().executeOnPooledThread { load() }
    }

    private fun load() {
        val result = loader.load()
        ApplicationManager.getApplication().invokeLater { panel.show(result) }
    }

    @Synchronized
    override fun dispose() {
        timer?.cancel(false)
        timer = null
    }

    private companion object {
        const val PERIOD_S = 30L
    }
}

class GainPanel : JPanel(BorderLayout()) {
    var onRefresh: () -> Unit = {}

    init {
        border = JBUI.Borders.empty(8)
        showMessage("Loading lean-ctx gain…")
    }

    fun show(result: GainLoadResult) = when (result) {
        is GainLoadResult.Ok -> showData(result.data)
        GainLoadResult.Empty -> showMessage("No data captured yet: gain counts the calls agents make through lean-ctx.")
        GainLoadResult.BinaryNotFound -> showMessage("lean-ctx binary not found. Install it and run `lean-ctx setup`, or check PATH (or set LEAN_CTX_BIN).")
        is GainLoadResult.Failed -> showFailure(result)
    }

    private fun refreshButton() = JButton("Refresh").apply { addActionListener { onRefresh() } }

    private fun replace(center: java.awt.Component) {
        removeAll()
        add(JPanel(FlowLayout(FlowLayout.RIGHT)).apply { add(refreshButton()) }, BorderLayout.NORTH)
        add(center, BorderLayout.CENTER)
        revalidate()
        repaint()
    }

    private fun showMessage(text: String) = replace(JBLabel(text))

    private fun showFailure(failed: GainLoadResult.Failed) {
        val box = JPanel().apply { layout = BoxLayout(this, BoxLayout.Y_AXIS) }
        box.add(JBLabel(failed.reason))
        if (failed.stderrExcerpt.isNotBlank()) box.add(JBLabel("<html><pre>${escape(failed.stderrExcerpt)}</pre></html>"))
        box.add(JButton("Retry").apply { addActionListener { onRefresh() } })
        replace(box)
    }

    private fun showData(data: GainData) {
        val s = data.summary
        val body = JPanel().apply { layout = BoxLayout(this, BoxLayout.Y_AXIS) }
        val hero = "<html><h1>Gain Score ${s.score?.total ?: "–"}</h1>" +
            "${LeanCtxStats.formatTokens(s.tokensSaved)} tokens saved · ${String.format(Locale.US, "%.1f", s.gainRatePct)}% · " +
            "${String.format(Locale.US, "$%.2f", s.avoidedUsd)} avoided</html>"
        body.add(JBLabel(hero))
        s.score?.let { score ->
            body.add(JPanel(GridLayout(1, 5, 8, 0)).apply {
                for ((name, value) in listOf(
                    "Compression" to score.compression, "Cost efficiency" to score.costEfficiency,
                    "Quality" to score.quality, "Consistency" to score.consistency, "Trend" to score.trend,
                )) add(JBLabel("<html><b>$value</b><br>$name</html>"))
            })
        }
        body.add(JBLabel("<html><h3>By task</h3></html>"))
        body.add(table(arrayOf("Task", "Commands", "Tokens saved", "Tool calls", "Tool spend"), data.tasks.map {
            arrayOf(it.category, it.commands, LeanCtxStats.formatTokens(it.tokensSaved), it.toolCalls, String.format(Locale.US, "$%.4f", it.toolSpendUsd))
        }))
        body.add(JBLabel("<html><h3>Top files</h3></html>"))
        body.add(table(arrayOf("File", "Accesses", "Tokens saved", "Compression"), data.heatmap.map {
            arrayOf(it.path, it.accessCount, LeanCtxStats.formatTokens(it.tokensSaved), String.format(Locale.US, "%.1f%%", it.compressionPct))
        }))
        val refreshed = LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss"))
        body.add(JBLabel("Model: ${s.model?.modelKey ?: "–"} · refreshed $refreshed"))
        replace(JBScrollPane(body))
    }

    /** A read-only table with its header (a bare JTable shows none outside a scroll pane). */
    private fun table(columns: Array<String>, rows: List<Array<Any>>): JPanel {
        val model = object : DefaultTableModel(columns, 0) {
            override fun isCellEditable(row: Int, column: Int) = false
        }
        rows.forEach { model.addRow(it) }
        val table = JBTable(model)
        return JPanel(BorderLayout()).apply {
            add(table.tableHeader, BorderLayout.NORTH)
            add(table, BorderLayout.CENTER)
        }
    }

    private fun escape(s: String) = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
}
