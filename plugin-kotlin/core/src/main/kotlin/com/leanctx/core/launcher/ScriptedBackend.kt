/**
 * The contract double's answers for everything but the symbol-body edits: navigation,
 * structure, inspections, refactorings and reformat come from a [ContractScript]; a
 * rule's `edits` really change files through the same [DocumentStore] the edit routes
 * use, so an apply leaves the disk as an IDE would.
 *
 * A request no rule matches is an `INTERNAL` error naming the request as received: in
 * a contract test that is the daemon sending something the test did not expect, and
 * the message shows what it sent. A `busy` rule is an IDE that never gets to the request
 * (a modal dialog left open): it answers what the real plugin's [IdeGate] answers, at the
 * request's [Deadline], so a test sees which deadline the daemon's request brought.
 */
package com.leanctx.core.launcher

import com.leanctx.core.api.DocumentStore
import com.leanctx.core.api.Inspections
import com.leanctx.core.api.Navigation
import com.leanctx.core.api.Refactorings
import com.leanctx.core.api.Reformatter
import com.leanctx.core.api.Structure
import com.leanctx.core.api.TextChange
import com.leanctx.core.policy.Deadline
import com.leanctx.core.policy.IdeGate
import com.leanctx.core.text.LineMap
import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.InlineRequest
import com.leanctx.core.wire.InspectionsResponse
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.ListInspectionsResponse
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.PositionRequest
import com.leanctx.core.wire.PreviewResponse
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.Routes
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.SymbolsOverviewResponse
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.TypeHierarchyResponse
import com.leanctx.core.wire.WireJson

class ScriptedBackend(
    private val script: ContractScript,
    private val store: DocumentStore,
) : Navigation, Structure, Inspections, Refactorings, Reformatter {
    override fun references(request: PositionRequest) = answer<LocationsResponse>(Routes.REFERENCES, request)
    override fun definition(request: PositionRequest) = answer<LocationsResponse>(Routes.DEFINITION, request)
    override fun implementations(request: PositionRequest) = answer<LocationsResponse>(Routes.IMPLEMENTATIONS, request)
    override fun declaration(request: PositionRequest) = answer<LocationsResponse>(Routes.DECLARATION, request)

    override fun symbolsOverview(request: FileRequest) = answer<SymbolsOverviewResponse>(Routes.SYMBOLS_OVERVIEW, request)
    override fun typeHierarchy(request: TypeHierarchyRequest) = answer<TypeHierarchyResponse>(Routes.TYPE_HIERARCHY, request)
    override fun callHierarchy(request: CallHierarchyRequest) = answer<CallHierarchyResponse>(Routes.CALL_HIERARCHY, request)

    override fun run(request: FileRequest) = answer<InspectionsResponse>(Routes.INSPECTIONS, request)
    override fun list(request: FileRequest) = answer<ListInspectionsResponse>(Routes.LIST_INSPECTIONS, request)

    override fun renamePreview(request: RenamePreviewRequest) = answer<PreviewResponse>(Routes.RENAME_PREVIEW, request)
    override fun renameApply(request: RenameApplyRequest) = answer<ApplyResponse>(Routes.RENAME_APPLY, request)
    override fun movePreview(request: MoveRequest) = answer<PreviewResponse>(Routes.MOVE_PREVIEW, request)
    override fun moveApply(request: MoveRequest) = answer<ApplyResponse>(Routes.MOVE_APPLY, request)
    override fun safeDeletePreview(request: SafeDeleteRequest) = answer<PreviewResponse>(Routes.SAFE_DELETE_PREVIEW, request)
    override fun safeDeleteApply(request: SafeDeleteRequest) = answer<ApplyResponse>(Routes.SAFE_DELETE_APPLY, request)
    override fun inlinePreview(request: InlineRequest) = answer<PreviewResponse>(Routes.INLINE_PREVIEW, request)
    override fun inlineApply(request: InlineRequest) = answer<ApplyResponse>(Routes.INLINE_APPLY, request)

    override fun reformat(request: ReformatRequest) = answer<ReformatResponse>(Routes.REFORMAT, request)

    private inline fun <reified R> answer(route: String, request: Any): R {
        val json = WireJson.gson.toJsonTree(request)
        val rule = script.pick(route, json)
            ?: throw LeanCtxException(ErrorCode.INTERNAL, "contract script has no rule for $route matching ${WireJson.gson.toJson(json)}")
        if (rule.busy) {
            val deadline = Deadline.current()
            Thread.sleep(deadline.remainingNanos() / 1_000_000, (deadline.remainingNanos() % 1_000_000).toInt())
            throw IdeGate.busy(route, deadline)
        }
        if (rule.delayMs > 0) Thread.sleep(rule.delayMs)
        applyEdits(rule)
        rule.error?.let { throw LeanCtxException(it.code, it.message ?: it.code.wire) }
        return WireJson.gson.fromJson(rule.response, R::class.java)
    }

    /** One store transaction per file; every range refers to the file as it was before the rule. */
    private fun applyEdits(rule: ScriptRule) {
        for ((path, edits) in rule.edits.groupBy { it.path }) {
            store.edit(path) { text ->
                val lines = LineMap(text)
                val changes = edits.map { e ->
                    val (start, end) = lines.offsets(e.range)
                    TextChange(start, end, e.text)
                }
                DocumentStore.Planned(changes, Unit)
            }
        }
    }
}
