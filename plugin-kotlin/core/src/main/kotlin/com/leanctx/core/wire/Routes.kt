/**
 * The HTTP routes of docs/ide-wire.md: one constant per path, so the router, the contract
 * double's script and the tests spell them once.
 */
package com.leanctx.core.wire

object Routes {
    const val HEALTH = "/health"
    const val REFERENCES = "/references"
    const val DEFINITION = "/definition"
    const val IMPLEMENTATIONS = "/implementations"
    const val DECLARATION = "/declaration"
    const val SYMBOLS_OVERVIEW = "/symbols_overview"
    const val TYPE_HIERARCHY = "/type_hierarchy"

    /** Beyond the published plugin, which answers it 404: the daemon then asks its language server. */
    const val CALL_HIERARCHY = "/call_hierarchy"
    const val INSPECTIONS = "/inspections"
    const val LIST_INSPECTIONS = "/list_inspections"
    const val REPLACE_SYMBOL_BODY = "/replaceSymbolBody"
    const val INSERT_BEFORE_SYMBOL = "/insertBeforeSymbol"
    const val INSERT_AFTER_SYMBOL = "/insertAfterSymbol"
    const val RENAME_PREVIEW = "/renamePreview"
    const val RENAME_APPLY = "/renameApply"
    const val REFORMAT = "/reformat"
    const val MOVE_PREVIEW = "/movePreview"
    const val MOVE_APPLY = "/moveApply"
    const val SAFE_DELETE_PREVIEW = "/safeDeletePreview"
    const val SAFE_DELETE_APPLY = "/safeDeleteApply"
    const val INLINE_PREVIEW = "/inlinePreview"
    const val INLINE_APPLY = "/inlineApply"

    /** The symbol-body edits: served by the document store, in the IDE and the double alike. */
    val EDITS: List<String> = listOf(REPLACE_SYMBOL_BODY, INSERT_BEFORE_SYMBOL, INSERT_AFTER_SYMBOL)

    /**
     * The routes the daemon waits for with its `apply_timeout` rather than its `timeout`
     * (docs/ide-wire.md, Timeouts and retries): the symbol edits, every `*Apply`, `/reformat`.
     */
    val APPLY_TIMEOUT: Set<String> = (EDITS + listOf(RENAME_APPLY, REFORMAT, MOVE_APPLY, SAFE_DELETE_APPLY, INLINE_APPLY)).toSet()

    /** Every POST route, in the order of docs/ide-wire.md, Routes. */
    val POST: List<String> = listOf(
        REFERENCES, DEFINITION, IMPLEMENTATIONS, DECLARATION, SYMBOLS_OVERVIEW, TYPE_HIERARCHY,
        CALL_HIERARCHY, INSPECTIONS, LIST_INSPECTIONS, REPLACE_SYMBOL_BODY, INSERT_BEFORE_SYMBOL, INSERT_AFTER_SYMBOL,
        RENAME_PREVIEW, RENAME_APPLY, REFORMAT, MOVE_PREVIEW, MOVE_APPLY, SAFE_DELETE_PREVIEW,
        SAFE_DELETE_APPLY, INLINE_PREVIEW, INLINE_APPLY,
    )
}
