/**
 * The plugin's one handle on the `lean-ctx` binary and the data dir, shared by the
 * status bar, the Gain window, the Tools menu and the focus reporter.
 */
package com.leanctx.plugin.ui

import com.leanctx.core.port.DataDir
import com.leanctx.core.ui.CommandRunner
import com.leanctx.core.ui.ProcessCommandRunner
import com.leanctx.core.ui.StatsReader

object Cli {
    val runner: CommandRunner = ProcessCommandRunner()

    /** Resolved on each read: `LEAN_CTX_DATA_DIR` may differ between IDE restarts, not within one. */
    val stats: StatsReader get() = StatsReader(DataDir.resolve())

    /** The Gain tool window's id, used by every trigger (status bar, Tools menu). */
    const val GAIN_TOOL_WINDOW_ID = "LeanCtxGain"
}
