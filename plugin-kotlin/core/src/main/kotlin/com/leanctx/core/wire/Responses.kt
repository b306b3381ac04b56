/**
 * The answer bodies of every route (docs/ide-wire.md, Responses), encoded with Gson.
 *
 * The casing quirks are the published plugin's and are kept on purpose so either side
 * can be swapped: edits answer camelCase (`newRange`, `editedText`), applies
 * snake_case (`changed_paths`), `/health` camelCase (`ideVersion`). The `line` fields
 * here are 1-based; every [Position] stays 0-based.
 */
package com.leanctx.core.wire

import com.google.gson.annotations.SerializedName

/** Most entries any list answer carries; the rest is summarised by `total`. */
const val RESULT_LIMIT = 500

/** `/references`, `/definition`, `/implementations`, `/declaration`. */
data class LocationsResponse(val locations: List<Location>, val truncated: Boolean, val total: Int) {
    companion object {
        /** The first [RESULT_LIMIT] of [all], flagged when some were left off. */
        fun of(all: List<Location>): LocationsResponse =
            LocationsResponse(all.take(RESULT_LIMIT), all.size > RESULT_LIMIT, all.size)
    }
}

/** A type and its super- or subtypes; [line] is 1-based. */
data class HierarchyNode(val name: String, val path: String, val line: Int, val children: List<HierarchyNode>)

/** `/type_hierarchy`: [truncated] when the tree was cut at a node limit. */
data class TypeHierarchyResponse(val tree: HierarchyNode, val truncated: Boolean)

/**
 * A function or method of a call hierarchy: where its name is, and [sites], the calls
 * that link it to its parent node. As in LSP's call hierarchy they lie in the caller's
 * file: this node's for incoming calls, the parent's for outgoing ones (the root has
 * none). [kind] is `function`, `method` or `constructor`.
 */
data class CallNode(
    val name: String,
    val kind: String,
    val path: String,
    val range: Range,
    val sites: List<Range>,
    val children: List<CallNode>,
)

/**
 * `/call_hierarchy`: the function asked about, its callers (callees) as children, level
 * by level; a function reached twice is listed each time and expanded once.
 * [truncated] when the tree was cut at [RESULT_LIMIT] nodes.
 */
data class CallHierarchyResponse(val tree: CallNode, val truncated: Boolean)

/** One top-level symbol; [line] is 1-based. */
data class SymbolInfo(val name: String, val kind: String, val line: Int)

/** `/symbols_overview`. */
data class SymbolsOverviewResponse(val symbols: List<SymbolInfo>, val truncated: Boolean, val total: Int) {
    companion object {
        fun of(all: List<SymbolInfo>): SymbolsOverviewResponse =
            SymbolsOverviewResponse(all.take(RESULT_LIMIT), all.size > RESULT_LIMIT, all.size)
    }
}

/** One inspection finding; [line] is 1-based, [severity] the IDE's level name (`WARNING`). */
data class Diagnostic(val path: String, val line: Int, val severity: String, val message: String)

/** `/inspections`. */
data class InspectionsResponse(val diagnostics: List<Diagnostic>, val truncated: Boolean, val total: Int) {
    companion object {
        fun of(all: List<Diagnostic>): InspectionsResponse =
            InspectionsResponse(all.take(RESULT_LIMIT), all.size > RESULT_LIMIT, all.size)
    }
}

/** One inspection enabled in the project profile. */
data class InspectionInfo(val id: String, val name: String, val severity: String)

/** `/list_inspections`. */
data class ListInspectionsResponse(val inspections: List<InspectionInfo>, val truncated: Boolean, val total: Int) {
    companion object {
        fun of(all: List<InspectionInfo>): ListInspectionsResponse =
            ListInspectionsResponse(all.take(RESULT_LIMIT), all.size > RESULT_LIMIT, all.size)
    }
}

/**
 * `/replaceSymbolBody`, `/insertBeforeSymbol`, `/insertAfterSymbol`: [newRange] spans
 * [editedText], the text as written (line endings as the file has them).
 */
data class EditResponse(val applied: Boolean, val newRange: Range, val editedText: String)

/** A place a refactoring touches; [context] is a short excerpt of the line, if any. */
data class Usage(val path: String, val range: Range, val context: String? = null)

/** Why a refactoring should not go ahead; [range] is absent for file-level conflicts. */
data class Conflict(val path: String, val range: Range? = null, val message: String)

/** Every `*Preview`: what the apply would touch, and what stands in its way. */
data class PreviewResponse(val usages: List<Usage>, val conflicts: List<Conflict>)

/** Every `*Apply`: the files changed, relative to the project root. */
data class ApplyResponse(val applied: Boolean, @SerializedName("changed_paths") val changedPaths: List<String>)

/**
 * `/reformat`. The upstream reference documents `{reformatted, path}`, the published
 * plugin answers `{applied, changed_paths}`; one object carries both so either daemon
 * reads it. `reformatted`/`applied` say the reformat ran; `changed_paths` holds the file
 * only if its text changed (the daemon evicts caches of changed files only).
 */
data class ReformatResponse(
    val reformatted: Boolean,
    val path: String,
    val applied: Boolean,
    @SerializedName("changed_paths") val changedPaths: List<String>,
) {
    companion object {
        fun of(path: String, changed: Boolean): ReformatResponse =
            ReformatResponse(true, path, true, if (changed) listOf(path) else emptyList())
    }
}

/** `GET /health` (camelCase on the wire). */
data class HealthResponse(val status: String, val ideVersion: String, val project: String)

/** The body of every negative answer: 200 for domain errors, 401, 404, 500. */
data class ErrorEnvelope(val error: ErrorBody) {
    companion object {
        fun of(code: ErrorCode, message: String): ErrorEnvelope = ErrorEnvelope(ErrorBody(code.wire, message))
    }
}

data class ErrorBody(val code: String, val message: String)
