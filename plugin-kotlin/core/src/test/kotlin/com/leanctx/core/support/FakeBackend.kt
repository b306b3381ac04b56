/**
 * A scripted-in-code backend for router tests: a fixed, recognisable answer per route,
 * the last request it received, and a switch to make every call throw (to drive the
 * router's error paths). Edits go through a real [TextSymbolEdits] when a store is
 * given.
 */
package com.leanctx.core.support

import com.leanctx.core.api.DocumentStore
import com.leanctx.core.api.Inspections
import com.leanctx.core.api.Navigation
import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.api.Refactorings
import com.leanctx.core.api.Reformatter
import com.leanctx.core.api.ServerIdentity
import com.leanctx.core.api.Structure
import com.leanctx.core.api.SymbolEdits
import com.leanctx.core.text.TextSymbolEdits
import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.CallNode
import com.leanctx.core.wire.Conflict
import com.leanctx.core.wire.Diagnostic
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.EditResponse
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.HierarchyNode
import com.leanctx.core.wire.InlineRequest
import com.leanctx.core.wire.InspectionInfo
import com.leanctx.core.wire.InspectionsResponse
import com.leanctx.core.wire.ListInspectionsResponse
import com.leanctx.core.wire.Location
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.Position
import com.leanctx.core.wire.PositionRequest
import com.leanctx.core.wire.PreviewResponse
import com.leanctx.core.wire.Range
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.SymbolInfo
import com.leanctx.core.wire.SymbolsOverviewResponse
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.TypeHierarchyResponse
import com.leanctx.core.wire.Usage

class FakeBackend(store: DocumentStore? = null) : Navigation, Structure, Inspections, SymbolEdits, Refactorings, Reformatter {
    /** Thrown by every call when set. */
    @Volatile var failWith: Throwable? = null

    @Volatile var lastRequest: Any? = null

    /** Runs inside every call, on the server's handler thread, before it answers. */
    @Volatile var during: ((Any) -> Unit)? = null

    private val realEdits = store?.let { TextSymbolEdits(it) }

    val range = Range(Position(41, 8), Position(41, 14))

    private fun <T> record(request: Any, answer: () -> T): T {
        lastRequest = request
        during?.invoke(request)
        failWith?.let { throw it }
        return answer()
    }

    private fun locations(tag: String) = LocationsResponse.of(listOf(Location("src/$tag.kt", range)))
    private fun preview(tag: String) = PreviewResponse(listOf(Usage("src/$tag.kt", range, "run()")), listOf(Conflict("src/$tag.kt", null, "<$tag> conflict")))
    private fun applied(tag: String) = ApplyResponse(true, listOf("src/$tag.kt"))

    override fun references(request: PositionRequest) = record(request) { locations("references") }
    override fun definition(request: PositionRequest) = record(request) { locations("definition") }
    override fun implementations(request: PositionRequest) = record(request) { locations("implementations") }
    override fun declaration(request: PositionRequest) = record(request) { locations("declaration") }

    override fun symbolsOverview(request: FileRequest) = record(request) {
        SymbolsOverviewResponse.of(listOf(SymbolInfo("Main", "class", 3), SymbolInfo("run", "method", 7)))
    }

    override fun typeHierarchy(request: TypeHierarchyRequest) = record(request) {
        TypeHierarchyResponse(HierarchyNode("Main", "src/Main.kt", 3, listOf(HierarchyNode("Base", "src/Base.kt", 1, emptyList()))), false)
    }

    override fun callHierarchy(request: CallHierarchyRequest) = record(request) {
        val caller = CallNode("caller", "function", "src/Main.kt", Range(Position(44, 4), Position(44, 10)), listOf(range), emptyList())
        CallHierarchyResponse(CallNode("run", "method", "src/Main.kt", range, emptyList(), listOf(caller)), false)
    }

    override fun run(request: FileRequest) = record(request) {
        InspectionsResponse.of(listOf(Diagnostic("src/Main.kt", 12, "WARNING", "Unused symbol")))
    }

    override fun list(request: FileRequest) = record(request) {
        ListInspectionsResponse.of(listOf(InspectionInfo("UnusedSymbol", "Unused declaration", "WARNING")))
    }

    private fun edit(request: EditRequest, real: (SymbolEdits) -> EditResponse) = record(request) {
        realEdits?.let(real) ?: EditResponse(true, range, request.text)
    }

    override fun replaceSymbolBody(request: EditRequest) = edit(request) { it.replaceSymbolBody(request) }
    override fun insertBeforeSymbol(request: EditRequest) = edit(request) { it.insertBeforeSymbol(request) }
    override fun insertAfterSymbol(request: EditRequest) = edit(request) { it.insertAfterSymbol(request) }

    override fun renamePreview(request: RenamePreviewRequest) = record(request) { preview("rename") }
    override fun renameApply(request: RenameApplyRequest) = record(request) { applied("rename") }
    override fun movePreview(request: MoveRequest) = record(request) { preview("move") }
    override fun moveApply(request: MoveRequest) = record(request) { applied("move") }
    override fun safeDeletePreview(request: SafeDeleteRequest) = record(request) { preview("safeDelete") }
    override fun safeDeleteApply(request: SafeDeleteRequest) = record(request) { applied("safeDelete") }
    override fun inlinePreview(request: InlineRequest) = record(request) { preview("inline") }
    override fun inlineApply(request: InlineRequest) = record(request) { applied("inline") }

    override fun reformat(request: ReformatRequest) = record(request) { ReformatResponse.of(request.path, changed = true) }

    fun backend(ideVersion: String = "IU-2024.2.4", project: String = "demo") =
        ProjectBackend(ServerIdentity(ideVersion, project), this, this, this, this, this, this)
}
