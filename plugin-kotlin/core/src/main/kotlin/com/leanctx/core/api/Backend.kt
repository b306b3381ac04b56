/**
 * The seams between the IDE-free server and whatever answers it: the interfaces the
 * IntelliJ adapter implements with PSI (and the contract double with a script), and the
 * document store both edit through. The router calls only these, never IntelliJ types
 * (the IdeaVim engine/IDE split, ARCHITECTURE.md, `plugin-kotlin/`).
 *
 * Every method may throw [com.leanctx.core.wire.LeanCtxException] for a catalog error
 * (`INDEXING` in dumb mode or when the IDE does not get to the call by the request's
 * deadline, `NO_SYMBOL_AT_POSITION`, `UNSUPPORTED_LANGUAGE`, ...). Paths
 * in requests and answers are relative to the project root; positions are 0-based
 * lines and UTF-16 columns.
 */
package com.leanctx.core.api

import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.EditResponse
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.InlineRequest
import com.leanctx.core.wire.InspectionsResponse
import com.leanctx.core.wire.ListInspectionsResponse
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.PositionRequest
import com.leanctx.core.wire.PreviewResponse
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.SymbolsOverviewResponse
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.TypeHierarchyResponse

/** Read-only semantic navigation. */
interface Navigation {
    fun references(request: PositionRequest): LocationsResponse
    fun definition(request: PositionRequest): LocationsResponse
    fun implementations(request: PositionRequest): LocationsResponse
    fun declaration(request: PositionRequest): LocationsResponse
}

/**
 * File structure, type and call hierarchy; symbols and types carry 1-based lines, call
 * nodes 0-based ranges.
 */
interface Structure {
    fun symbolsOverview(request: FileRequest): SymbolsOverviewResponse
    fun typeHierarchy(request: TypeHierarchyRequest): TypeHierarchyResponse
    fun callHierarchy(request: CallHierarchyRequest): CallHierarchyResponse
}

/** Inspections of the project profile; answers carry 1-based lines. */
interface Inspections {
    fun run(request: FileRequest): InspectionsResponse
    fun list(request: FileRequest): ListInspectionsResponse
}

/** Symbol-body edits. [com.leanctx.core.text.TextSymbolEdits] implements them on a [DocumentStore]. */
interface SymbolEdits {
    fun replaceSymbolBody(request: EditRequest): EditResponse
    fun insertBeforeSymbol(request: EditRequest): EditResponse
    fun insertAfterSymbol(request: EditRequest): EditResponse
}

/**
 * The two-phase refactoring engine (docs/ide-wire.md, Refactorings): a preview lists
 * usages and conflicts, an apply changes every file in one transaction. Applies refuse
 * with `CONFLICT` when conflicts exist and `force` is false (inline has no `force` on the
 * wire).
 */
interface Refactorings {
    fun renamePreview(request: RenamePreviewRequest): PreviewResponse
    fun renameApply(request: RenameApplyRequest): ApplyResponse
    fun movePreview(request: MoveRequest): PreviewResponse
    fun moveApply(request: MoveRequest): ApplyResponse
    fun safeDeletePreview(request: SafeDeleteRequest): PreviewResponse
    fun safeDeleteApply(request: SafeDeleteRequest): ApplyResponse
    fun inlinePreview(request: InlineRequest): PreviewResponse
    fun inlineApply(request: InlineRequest): ApplyResponse
}

/** Code-style reformatting of one file. */
interface Reformatter {
    fun reformat(request: ReformatRequest): ReformatResponse
}

/**
 * One replacement in a document's text: UTF-16 offsets `[start, end)` of the text the
 * store handed to the plan, and what goes there.
 */
data class TextChange(val start: Int, val end: Int, val replacement: String)

/**
 * The documents edits go through. The IDE's is the `Document` of the file, changed in
 * one `WriteCommandAction` and saved; the contract double's is the plain file, written
 * atomically. Either way a reader never sees half an edit.
 */
interface DocumentStore {
    /**
     * Reads [path] (relative to the project root), lets [plan] compute the changes from
     * its current text, and applies them as one step: nothing else changes the document
     * in between, and all of them land or none does. The text the plan sees uses `\n`,
     * `\r\n` or `\r` line breaks as the document holds them (an IDE `Document` only `\n`).
     * Changes must not overlap; their offsets all refer to the text the plan saw.
     *
     * @throws com.leanctx.core.wire.LeanCtxException `FILE_NOT_FOUND` for a path that is
     *   missing, unreadable or outside the project root; whatever [plan] throws.
     */
    fun <T> edit(path: String, plan: (text: String) -> Planned<T>): T

    /** The changes a plan wants applied, and what the caller gets back once they are. */
    data class Planned<T>(val changes: List<TextChange>, val result: T)
}

/** Who answers `GET /health`: the IDE's version string and the project's name. */
data class ServerIdentity(val ideVersion: String, val projectName: String)

/** Everything one project's server routes to. */
data class ProjectBackend(
    val identity: ServerIdentity,
    val navigation: Navigation,
    val structure: Structure,
    val inspections: Inspections,
    val edits: SymbolEdits,
    val refactorings: Refactorings,
    val reformatter: Reformatter,
)
