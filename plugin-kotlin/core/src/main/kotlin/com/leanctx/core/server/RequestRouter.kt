/**
 * Maps one HTTP request to one answer, with no HTTP server and no IDE in sight, so it
 * can be reasoned about (and tested) as a function. The rules (docs/ide-wire.md, HTTP):
 *
 * - every request must carry `X-LeanCtx-Token`, `GET /health` included (as the
 *   published plugin does), else 401 `UNAUTHORIZED` and nothing else happens
 *   (an unknown route without a token is a 401 too, so routes cannot be probed, and a
 *   listener that merely answers `/health` proves nothing to a client);
 * - a method and path with no route: 404 `NOT_FOUND`;
 * - a body that is not a JSON object or lacks a required field: 200 + `INTERNAL`;
 * - a [LeanCtxException] from the backend: 200 with its code;
 * - an [IllegalArgumentException] from the backend: 200 + `INTERNAL`, as the published
 *   plugin answers it;
 * - anything else: 500 + `INTERNAL`, the only 500.
 *
 * The backend runs within the request's [Deadline] (the daemon's timeout for it, as its
 * `X-LeanCtx-Timeout-Ms` header says or the route's default, less a margin), which every
 * wait on the IDE honours.
 */
package com.leanctx.core.server

import com.google.gson.JsonObject
import com.google.gson.JsonParseException
import com.google.gson.JsonParser
import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.policy.Deadline
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.ErrorEnvelope
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.HealthResponse
import com.leanctx.core.wire.InlineRequest
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.MalformedRequestException
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.PositionRequest
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.Routes
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.WireJson
import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction
import java.security.MessageDigest

/** An answer: the HTTP status and the JSON body. */
data class HttpResult(val status: Int, val body: String)

class RequestRouter(private val token: String, private val backend: ProjectBackend) {
    private val tokenBytes = token.toByteArray(Charsets.UTF_8)

    /** Decodes the body and calls the backend; returns the response DTO. */
    private val routes: Map<String, (JsonObject) -> Any> = with(backend) {
        linkedMapOf(
            Routes.REFERENCES to { b -> navigation.references(PositionRequest.decode(b)) },
            Routes.DEFINITION to { b -> navigation.definition(PositionRequest.decode(b)) },
            Routes.IMPLEMENTATIONS to { b -> navigation.implementations(PositionRequest.decode(b)) },
            Routes.DECLARATION to { b -> navigation.declaration(PositionRequest.decode(b)) },
            Routes.SYMBOLS_OVERVIEW to { b -> structure.symbolsOverview(FileRequest.decode(b)) },
            Routes.TYPE_HIERARCHY to { b -> structure.typeHierarchy(TypeHierarchyRequest.decode(b)) },
            Routes.CALL_HIERARCHY to { b -> structure.callHierarchy(CallHierarchyRequest.decode(b)) },
            Routes.INSPECTIONS to { b -> inspections.run(FileRequest.decode(b)) },
            Routes.LIST_INSPECTIONS to { b -> inspections.list(FileRequest.decode(b)) },
            Routes.REPLACE_SYMBOL_BODY to { b -> edits.replaceSymbolBody(EditRequest.decode(b)) },
            Routes.INSERT_BEFORE_SYMBOL to { b -> edits.insertBeforeSymbol(EditRequest.decode(b)) },
            Routes.INSERT_AFTER_SYMBOL to { b -> edits.insertAfterSymbol(EditRequest.decode(b)) },
            Routes.RENAME_PREVIEW to { b -> refactorings.renamePreview(RenamePreviewRequest.decode(b)) },
            Routes.RENAME_APPLY to { b -> refactorings.renameApply(RenameApplyRequest.decode(b)) },
            Routes.REFORMAT to { b -> reformatter.reformat(ReformatRequest.decode(b)) },
            Routes.MOVE_PREVIEW to { b -> refactorings.movePreview(MoveRequest.decode(b)) },
            Routes.MOVE_APPLY to { b -> refactorings.moveApply(MoveRequest.decode(b)) },
            Routes.SAFE_DELETE_PREVIEW to { b -> refactorings.safeDeletePreview(SafeDeleteRequest.decode(b)) },
            Routes.SAFE_DELETE_APPLY to { b -> refactorings.safeDeleteApply(SafeDeleteRequest.decode(b)) },
            Routes.INLINE_PREVIEW to { b -> refactorings.inlinePreview(InlineRequest.decode(b)) },
            Routes.INLINE_APPLY to { b -> refactorings.inlineApply(InlineRequest.decode(b)) },
        )
    }

    init {
        check(routes.keys.toList() == Routes.POST) { "router and Routes.POST disagree" }
    }

    /**
     * [presentedToken] is the `X-LeanCtx-Token` header, null when absent;
     * [announcedTimeout] the `X-LeanCtx-Timeout-Ms` header, null when absent (the
     * published daemon sends none). [body] is read only once the request is authorised
     * and routed; it returns null for a body too large to take.
     */
    fun handle(method: String, path: String, presentedToken: String?, announcedTimeout: String? = null, body: () -> ByteArray?): HttpResult {
        if (!tokenMatches(presentedToken)) {
            val why = if (presentedToken == null) "missing X-LeanCtx-Token header" else "wrong X-LeanCtx-Token"
            return error(401, ErrorCode.UNAUTHORIZED, "$why; the token is in the port file and rotates on IDE restart")
        }
        if (method == "GET" && path == Routes.HEALTH) {
            val id = backend.identity
            return ok(HealthResponse("ok", id.ideVersion, id.projectName))
        }
        val route = (if (method == "POST") routes[path] else null)
            ?: return error(404, ErrorCode.NOT_FOUND, "no route for $method $path")
        val json = try {
            parseObject(body() ?: throw MalformedRequestException("body too large"))
        } catch (e: MalformedRequestException) {
            return error(200, ErrorCode.INTERNAL, "malformed request body for $path: ${e.message}")
        }
        return try {
            ok(Deadline.within(Deadline(Deadline.budget(path, announcedTimeout))) { route(json) })
        } catch (e: LeanCtxException) {
            error(200, e.code, e.message ?: e.code.wire)
        } catch (e: IllegalArgumentException) {
            error(200, ErrorCode.INTERNAL, "$path: ${e.message ?: e.javaClass.simpleName}")
        } catch (e: Exception) {
            error(500, ErrorCode.INTERNAL, "$path failed unexpectedly: ${e.javaClass.name}: ${e.message}")
        }
    }

    /** Constant-time, so response timing does not leak how much of a guess was right. */
    private fun tokenMatches(presented: String?): Boolean =
        presented != null && MessageDigest.isEqual(presented.toByteArray(Charsets.UTF_8), tokenBytes)

    private fun parseObject(body: ByteArray): JsonObject {
        if (body.isEmpty()) throw MalformedRequestException("empty body (expected a JSON object)")
        val text = try {
            Charsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(body))
                .toString()
        } catch (e: CharacterCodingException) {
            throw MalformedRequestException("body is not UTF-8")
        }
        val element = try {
            JsonParser.parseString(text)
        } catch (e: JsonParseException) {
            throw MalformedRequestException("not JSON: ${e.message}")
        }
        if (!element.isJsonObject) throw MalformedRequestException("expected a JSON object")
        return element.asJsonObject
    }

    private fun ok(dto: Any) = HttpResult(200, WireJson.gson.toJson(dto))

    private fun error(status: Int, code: ErrorCode, message: String) =
        HttpResult(status, WireJson.gson.toJson(ErrorEnvelope.of(code, message)))

    companion object {
        const val TOKEN_HEADER = "X-LeanCtx-Token"

        /** Our daemon's timeout for the request, in milliseconds (docs/ide-wire.md, Timeouts and retries). */
        const val TIMEOUT_HEADER = "X-LeanCtx-Timeout-Ms"
    }
}
