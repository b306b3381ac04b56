/**
 * The script the contract double answers from: per route, a list of rules tried in
 * order; the first whose `match` fits the request answers (format in
 * `plugin-kotlin/README.md`). Everything is validated when the file is loaded, so a
 * typo fails the test that wrote it at startup, not as a confusing answer later.
 *
 * Matching is against the request as the router decoded it, re-encoded in wire form
 * (`scope` defaulted to `"project"`, `force` to `false`, ...), so a rule need not care
 * whether the daemon sent a default explicitly. A match is a subset: every key in it
 * must be present and equal, objects compared key by key recursively, arrays element by
 * element, numbers by value, `null` as absent.
 */
package com.leanctx.core.launcher

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParseException
import com.google.gson.JsonParser
import com.leanctx.core.wire.ApplyResponse
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.InspectionsResponse
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.ListInspectionsResponse
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.PreviewResponse
import com.leanctx.core.wire.ReformatResponse
import com.leanctx.core.wire.Routes
import com.leanctx.core.wire.SymbolsOverviewResponse
import com.leanctx.core.wire.TypeHierarchyResponse
import com.leanctx.core.wire.WireJson
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path

class ScriptException(message: String) : Exception(message)

/** One scripted answer. Exactly one of [response] and [error] is set, or neither when [busy]. */
class ScriptRule(
    val match: JsonObject?,
    val response: JsonObject?,
    val error: LeanCtxException?,
    /** Applied to the files, in order, before answering (refactoring and reformat effects). */
    val edits: List<EditRequest>,
    val delayMs: Long,
    /** How many more times this rule may answer; null for always. */
    private var remaining: Int?,
    /**
     * The IDE is busy past the request's deadline (a modal dialog left open): the rule
     * answers what the real plugin's gate answers then, at the deadline the request
     * brought (`X-LeanCtx-Timeout-Ms`) or the route's default.
     */
    val busy: Boolean = false,
) {
    /** Takes one use of the rule if it matches [request]. Callers hold the script's lock. */
    internal fun take(request: JsonElement): Boolean {
        if (remaining == 0 || (match != null && !ContractScript.matches(match, request))) return false
        remaining = remaining?.minus(1)
        return true
    }
}

class ContractScript private constructor(private val rules: Map<String, List<ScriptRule>>) {
    /** The first rule for [route] that matches [request], used up by one if it counts its uses. */
    @Synchronized
    fun pick(route: String, request: JsonElement): ScriptRule? = rules[route]?.firstOrNull { it.take(request) }

    companion object {
        /** The routes the script answers, with the DTO each `response` must decode into. */
        val RESPONSE_TYPES: Map<String, Class<*>> = linkedMapOf(
            Routes.REFERENCES to LocationsResponse::class.java,
            Routes.DEFINITION to LocationsResponse::class.java,
            Routes.IMPLEMENTATIONS to LocationsResponse::class.java,
            Routes.DECLARATION to LocationsResponse::class.java,
            Routes.SYMBOLS_OVERVIEW to SymbolsOverviewResponse::class.java,
            Routes.TYPE_HIERARCHY to TypeHierarchyResponse::class.java,
            Routes.CALL_HIERARCHY to CallHierarchyResponse::class.java,
            Routes.INSPECTIONS to InspectionsResponse::class.java,
            Routes.LIST_INSPECTIONS to ListInspectionsResponse::class.java,
            Routes.RENAME_PREVIEW to PreviewResponse::class.java,
            Routes.RENAME_APPLY to ApplyResponse::class.java,
            Routes.REFORMAT to ReformatResponse::class.java,
            Routes.MOVE_PREVIEW to PreviewResponse::class.java,
            Routes.MOVE_APPLY to ApplyResponse::class.java,
            Routes.SAFE_DELETE_PREVIEW to PreviewResponse::class.java,
            Routes.SAFE_DELETE_APPLY to ApplyResponse::class.java,
            Routes.INLINE_PREVIEW to PreviewResponse::class.java,
            Routes.INLINE_APPLY to ApplyResponse::class.java,
        )

        /** Routes whose rules may carry `edits`: the ones that change files in the IDE too. */
        private val WRITING = setOf(
            Routes.RENAME_APPLY, Routes.MOVE_APPLY, Routes.SAFE_DELETE_APPLY, Routes.INLINE_APPLY, Routes.REFORMAT,
        )

        fun load(file: Path): ContractScript {
            val text = try {
                Files.readString(file)
            } catch (e: IOException) {
                throw ScriptException("cannot read script $file: ${e.message}")
            }
            return parse(text)
        }

        fun parse(text: String): ContractScript {
            val root = try {
                JsonParser.parseString(text)
            } catch (e: JsonParseException) {
                throw ScriptException("script is not JSON: ${e.message}")
            }
            if (!root.isJsonObject) throw ScriptException("script must be a JSON object with \"routes\"")
            val top = root.asJsonObject
            for (key in top.keySet()) {
                if (key != "routes" && key != "description") throw ScriptException("unknown top-level key \"$key\" (expected routes, description)")
            }
            val routes = top.get("routes")?.takeIf { it.isJsonObject }?.asJsonObject
                ?: throw ScriptException("script needs \"routes\": {\"/route\": rule or [rules]}")
            val parsed = LinkedHashMap<String, List<ScriptRule>>()
            for ((route, value) in routes.entrySet()) {
                if (route in Routes.EDITS) {
                    throw ScriptException("$route is served by the real file store, not the script")
                }
                if (route !in RESPONSE_TYPES) {
                    throw ScriptException("unknown route \"$route\"; scriptable: ${RESPONSE_TYPES.keys.joinToString(", ")}")
                }
                val list = if (value.isJsonArray) value.asJsonArray.toList() else listOf(value)
                parsed[route] = list.mapIndexed { i, rule -> rule(route, i, rule) }
            }
            return ContractScript(parsed)
        }

        private fun rule(route: String, index: Int, element: JsonElement): ScriptRule {
            val where = "$route rule #$index"
            if (!element.isJsonObject) throw ScriptException("$where must be an object")
            val o = element.asJsonObject
            val known = setOf("match", "response", "error", "edits", "delay_ms", "times", "busy")
            o.keySet().firstOrNull { it !in known }?.let { throw ScriptException("$where: unknown key \"$it\" (expected ${known.joinToString(", ")})") }

            val match = objectOrNull(o, "match", where)
            val response = objectOrNull(o, "response", where)
            val errorJson = objectOrNull(o, "error", where)
            val busy = o.get("busy")?.let { v ->
                if (!v.isJsonPrimitive || !v.asJsonPrimitive.isBoolean) throw ScriptException("$where: \"busy\" must be true or false")
                v.asBoolean
            } ?: false
            if (busy) {
                if (response != null || errorJson != null || o.has("edits")) throw ScriptException("$where: a busy rule answers at the deadline; it takes no \"response\", \"error\" or \"edits\"")
            } else if ((response == null) == (errorJson == null)) {
                throw ScriptException("$where needs exactly one of \"response\" and \"error\"")
            }
            if (response != null) {
                try {
                    WireJson.gson.fromJson(response, RESPONSE_TYPES.getValue(route))
                } catch (e: JsonParseException) {
                    throw ScriptException("$where: response does not fit $route: ${e.message}")
                }
            }
            val error = errorJson?.let { e ->
                val code = e.get("code")?.takeIf { it.isJsonPrimitive }?.asString
                    ?: throw ScriptException("$where: error needs \"code\"")
                val parsedCode = ErrorCode.parse(code) ?: throw ScriptException("$where: \"$code\" is not a catalog code (docs/errors.md)")
                val message = e.get("message")?.takeIf { it.isJsonPrimitive }?.asString ?: parsedCode.wire
                LeanCtxException(parsedCode, message)
            }
            val edits = o.get("edits")?.let { value ->
                if (route !in WRITING) throw ScriptException("$where: only ${WRITING.joinToString(", ")} may carry edits")
                if (!value.isJsonArray) throw ScriptException("$where: edits must be an array")
                value.asJsonArray.mapIndexed { i, edit ->
                    if (!edit.isJsonObject) throw ScriptException("$where: edit #$i must be {path, range, text}")
                    try {
                        EditRequest.decode(edit.asJsonObject)
                    } catch (e: IllegalArgumentException) {
                        throw ScriptException("$where: edit #$i: ${e.message}")
                    } catch (e: LeanCtxException) {
                        throw ScriptException("$where: edit #$i: ${e.message}")
                    }
                }
            }.orEmpty()
            return ScriptRule(match, response, error, edits, nonNegative(o, "delay_ms", where) ?: 0, nonNegative(o, "times", where)?.toInt(), busy)
        }

        private fun objectOrNull(o: JsonObject, key: String, where: String): JsonObject? {
            val v = o.get(key) ?: return null
            if (!v.isJsonObject) throw ScriptException("$where: \"$key\" must be an object")
            return v.asJsonObject
        }

        private fun nonNegative(o: JsonObject, key: String, where: String): Long? {
            val v = o.get(key) ?: return null
            val n = if (v.isJsonPrimitive && v.asJsonPrimitive.isNumber) v.asDouble else -1.0
            if (n < 0 || n != Math.floor(n)) throw ScriptException("$where: \"$key\" must be a non-negative integer")
            return n.toLong()
        }

        /** Whether [actual] has everything [expected] has (see the file comment). */
        fun matches(expected: JsonElement, actual: JsonElement?): Boolean = when {
            expected is JsonNull -> actual == null || actual is JsonNull
            actual == null -> false
            expected is JsonObject -> actual is JsonObject && expected.entrySet().all { (k, v) -> matches(v, actual.get(k)) }
            expected is JsonArray -> actual is JsonArray && expected.size() == actual.size() &&
                (0 until expected.size()).all { matches(expected[it], actual[it]) }
            expected.isJsonPrimitive && expected.asJsonPrimitive.isNumber ->
                actual.isJsonPrimitive && actual.asJsonPrimitive.isNumber &&
                    expected.asBigDecimal.compareTo(actual.asBigDecimal) == 0
            else -> expected == actual
        }
    }
}
