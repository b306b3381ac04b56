/**
 * Output hygiene: the lean-ctx CLI colours its output, and a Swing dialog or panel would
 * show the escape codes raw. Removes CSI sequences (colour/SGR, cursor movement:
 * `ESC [ params intermediates final`, the upstream plugin's regex) and OSC sequences
 * (`ESC ] ... BEL` or `ESC ] ... ESC \`, which terminals use for hyperlinks and titles
 * and which the CSI pattern alone would leave half-stripped).
 */
package com.leanctx.core.ui

object AnsiText {
    private val CSI = Regex("\u001B\\[[0-9;?]*[ -/]*[@-~]")
    private val OSC = Regex("\u001B\\][^\u0007\u001B]*(?:\u0007|\u001B\\\\)")

    fun strip(text: String): String = CSI.replace(OSC.replace(text, ""), "")
}
