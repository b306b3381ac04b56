/**
 * The request bodies of every POST route (docs/ide-wire.md, Requests), each with its
 * decoder.
 *
 * Decoding is by hand rather than through Gson's reflection: Gson bypasses Kotlin
 * constructors, so a missing field would become a `null` inside a non-null property and
 * surface later as an NPE (a 500). Here a body is parsed, then validated, then handed on
 * (parse → validate → act): a missing or mistyped field is a [MalformedRequestException]
 * (200 + `INTERNAL`), an unknown move/reformat kind is `INVALID_TARGET` and an inverted
 * range `POSITION_OUT_OF_RANGE` (the catalog's codes for them). Optional fields get the
 * defaults docs/ide-wire.md documents.
 *
 * The `@SerializedName`s let Gson encode a decoded request back into its wire form;
 * the contract double matches its script against that canonical form.
 */
package com.leanctx.core.wire

import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonPrimitive
import com.google.gson.annotations.SerializedName

/** Where a navigation search looks. */
enum class SearchScope {
    @SerializedName("project") PROJECT,
    /** Libraries and the SDK as well. */
    @SerializedName("all") ALL,
}

enum class HierarchyDirection {
    @SerializedName("supertypes") SUPERTYPES,
    @SerializedName("subtypes") SUBTYPES,
}

/** `/call_hierarchy`: who calls the function, or what it calls. */
enum class CallDirection {
    @SerializedName("incoming") INCOMING,
    @SerializedName("outgoing") OUTGOING,
}

enum class MoveTargetKind {
    /** Into the directory [MoveTarget.path]. */
    @SerializedName("path") PATH,
    /** Into the container (class, object) at [MoveTarget.path] + [MoveTarget.range]. */
    @SerializedName("parent") PARENT,
}

enum class ReformatScopeKind {
    @SerializedName("file") FILE,
    @SerializedName("region") REGION,
    @SerializedName("symbol") SYMBOL,
}

/** `/references`, `/definition`, `/implementations`, `/declaration`. */
data class PositionRequest(
    val path: String,
    val line: Int,
    val character: Int,
    val scope: SearchScope,
) {
    val position: Position get() = Position(line, character)

    companion object {
        fun decode(body: JsonObject): PositionRequest {
            val f = Fields(body)
            return PositionRequest(
                f.path(), f.nonNegativeInt("line"), f.nonNegativeInt("character"),
                f.enumOr("scope", SearchScope.PROJECT),
            )
        }
    }
}

/** `/type_hierarchy`. */
data class TypeHierarchyRequest(
    val path: String,
    val line: Int,
    val character: Int,
    val direction: HierarchyDirection,
    val scope: SearchScope,
) {
    val position: Position get() = Position(line, character)

    companion object {
        fun decode(body: JsonObject): TypeHierarchyRequest {
            val f = Fields(body)
            return TypeHierarchyRequest(
                f.path(), f.nonNegativeInt("line"), f.nonNegativeInt("character"),
                f.enumOr("direction", HierarchyDirection.SUPERTYPES),
                f.enumOr("scope", SearchScope.PROJECT),
            )
        }
    }
}

/**
 * `/call_hierarchy`: [depth] levels of calls, 1 the direct callers (callees) only. A
 * missing or 0 depth is 1 and more than [MAX_CALL_DEPTH] is that many, as the daemon
 * reads its own `depth` (shared/src/wire/protocol.rs, `CallHierarchyRequest`).
 */
data class CallHierarchyRequest(
    val path: String,
    val line: Int,
    val character: Int,
    val direction: CallDirection,
    val depth: Int,
    val scope: SearchScope,
) {
    val position: Position get() = Position(line, character)

    companion object {
        const val MAX_CALL_DEPTH = 5

        fun decode(body: JsonObject): CallHierarchyRequest {
            val f = Fields(body)
            return CallHierarchyRequest(
                f.path(), f.nonNegativeInt("line"), f.nonNegativeInt("character"),
                f.enumOr("direction", CallDirection.INCOMING),
                f.nonNegativeIntOr("depth", 1).coerceIn(1, MAX_CALL_DEPTH),
                f.enumOr("scope", SearchScope.PROJECT),
            )
        }
    }
}

/** `/symbols_overview`, `/inspections`, `/list_inspections`. */
data class FileRequest(val path: String) {
    companion object {
        fun decode(body: JsonObject): FileRequest = FileRequest(Fields(body).path())
    }
}

/** `/replaceSymbolBody`, `/insertBeforeSymbol`, `/insertAfterSymbol`. */
data class EditRequest(val path: String, val range: Range, val text: String) {
    companion object {
        fun decode(body: JsonObject): EditRequest {
            val f = Fields(body)
            return EditRequest(f.path(), f.range("range"), f.string("text"))
        }
    }
}

/** `/renamePreview`. */
data class RenamePreviewRequest(
    val path: String,
    val range: Range,
    @SerializedName("new_name") val newName: String,
    @SerializedName("search_comments") val searchComments: Boolean,
    @SerializedName("search_text_occurrences") val searchTextOccurrences: Boolean,
) {
    companion object {
        fun decode(body: JsonObject): RenamePreviewRequest {
            val f = Fields(body)
            return RenamePreviewRequest(
                f.path(), f.range("range"), f.nonBlankString("new_name"),
                f.boolOr("search_comments", false), f.boolOr("search_text_occurrences", false),
            )
        }
    }
}

/**
 * `/renameApply`. The search options are beyond the published table (the published plugin
 * takes them on the preview only): our daemon sends them on both phases, so the apply
 * renames what the preview listed.
 */
data class RenameApplyRequest(
    val path: String,
    val range: Range,
    @SerializedName("new_name") val newName: String,
    /** Apply despite conflicts (skips the conflict gate). */
    val force: Boolean,
    @SerializedName("search_comments") val searchComments: Boolean = false,
    @SerializedName("search_text_occurrences") val searchTextOccurrences: Boolean = false,
) {
    companion object {
        fun decode(body: JsonObject): RenameApplyRequest {
            val f = Fields(body)
            return RenameApplyRequest(
                f.path(), f.range("range"), f.nonBlankString("new_name"), f.boolOr("force", false),
                f.boolOr("search_comments", false), f.boolOr("search_text_occurrences", false),
            )
        }
    }
}

/** Where `/movePreview` and `/moveApply` move a symbol to. */
data class MoveTarget(val kind: MoveTargetKind, val path: String, val range: Range?)

/** `/movePreview` and `/moveApply` (`force` only matters to apply). */
data class MoveRequest(val path: String, val range: Range, val target: MoveTarget, val force: Boolean) {
    companion object {
        fun decode(body: JsonObject): MoveRequest {
            val f = Fields(body)
            val path = f.path()
            val range = f.range("range")
            val t = f.objectOrNull("target")
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "move destination missing: no 'target'")
            val tf = Fields(t, "target.")
            val kind = tf.enumOrNull<MoveTargetKind>("kind", ErrorCode.INVALID_TARGET)
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "move target has no 'kind' (path | parent)")
            val targetPath = tf.stringOrNull("path")?.takeIf { it.isNotBlank() }
                ?: throw LeanCtxException(ErrorCode.INVALID_TARGET, "move destination missing: no 'target.path'")
            val targetRange = tf.rangeOrNull("range")
            if (kind == MoveTargetKind.PARENT && targetRange == null) {
                throw LeanCtxException(ErrorCode.INVALID_TARGET, "a 'parent' move target needs 'target.range'")
            }
            return MoveRequest(path, range, MoveTarget(kind, targetPath, targetRange), f.boolOr("force", false))
        }
    }
}

/** `/safeDeletePreview` and `/safeDeleteApply`. */
data class SafeDeleteRequest(
    val path: String,
    val range: Range,
    val force: Boolean,
    /** Also delete what only the deleted symbol used (e.g. now-unused parameters). */
    val propagate: Boolean,
) {
    companion object {
        fun decode(body: JsonObject): SafeDeleteRequest {
            val f = Fields(body)
            return SafeDeleteRequest(f.path(), f.range("range"), f.boolOr("force", false), f.boolOr("propagate", false))
        }
    }
}

/** `/inlinePreview` and `/inlineApply` (the wire has no `force` here). */
data class InlineRequest(
    val path: String,
    val range: Range,
    @SerializedName("keep_definition") val keepDefinition: Boolean,
) {
    companion object {
        fun decode(body: JsonObject): InlineRequest {
            val f = Fields(body)
            return InlineRequest(f.path(), f.range("range"), f.boolOr("keep_definition", false))
        }
    }
}

/** What `/reformat` formats: the whole file, a region, or the symbol at a range. */
data class ReformatScope(val kind: ReformatScopeKind, val range: Range?)

/** `/reformat`. */
data class ReformatRequest(
    val path: String,
    val scope: ReformatScope,
    @SerializedName("optimize_imports") val optimizeImports: Boolean,
) {
    companion object {
        fun decode(body: JsonObject): ReformatRequest {
            val f = Fields(body)
            val path = f.path()
            // The upstream reference's own example sends no scope: the whole file.
            val scope = when (val s = f.objectOrNull("scope")) {
                null -> ReformatScope(ReformatScopeKind.FILE, null)
                else -> {
                    val sf = Fields(s, "scope.")
                    val kind = sf.enumOrNull<ReformatScopeKind>("kind", ErrorCode.INVALID_TARGET)
                        ?: ReformatScopeKind.FILE
                    val range = sf.rangeOrNull("range")
                    if (kind != ReformatScopeKind.FILE && range == null) {
                        throw LeanCtxException(ErrorCode.INVALID_TARGET, "a '${kind.name.lowercase()}' reformat scope needs 'scope.range'")
                    }
                    ReformatScope(kind, range)
                }
            }
            return ReformatRequest(path, scope, f.boolOr("optimize_imports", false))
        }
    }
}

/**
 * Typed access to the members of one JSON object. A JSON `null` counts as absent, so
 * `"force": null` takes the default rather than failing. [prefix] names nested
 * objects in messages (`target.kind`).
 */
internal class Fields(private val obj: JsonObject, private val prefix: String = "") {
    private fun member(name: String): JsonElement? = obj.get(name)?.takeUnless { it.isJsonNull }

    private fun malformed(name: String, what: String): Nothing =
        throw MalformedRequestException("field '$prefix$name' $what")

    fun stringOrNull(name: String): String? {
        val e = member(name) ?: return null
        if (e !is JsonPrimitive || !e.isString) malformed(name, "must be a string")
        return e.asString
    }

    /** A required string; empty is allowed (an edit may insert or replace with ""). */
    fun string(name: String): String = stringOrNull(name) ?: malformed(name, "is missing")

    fun nonBlankString(name: String): String =
        string(name).also { if (it.isBlank()) malformed(name, "must not be blank") }

    /** The request's `path`: relative to the project root (or absolute inside it). */
    fun path(): String = nonBlankString("path")

    fun nonNegativeInt(name: String): Int {
        val e = member(name) ?: malformed(name, "is missing")
        if (e !is JsonPrimitive || !e.isNumber) malformed(name, "must be a number")
        val d = e.asDouble
        if (d != Math.floor(d) || d < 0 || d > Int.MAX_VALUE) malformed(name, "must be a non-negative integer")
        return d.toInt()
    }

    fun nonNegativeIntOr(name: String, default: Int): Int = if (member(name) == null) default else nonNegativeInt(name)

    fun boolOr(name: String, default: Boolean): Boolean {
        val e = member(name) ?: return default
        if (e !is JsonPrimitive || !e.isBoolean) malformed(name, "must be true or false")
        return e.asBoolean
    }

    fun objectOrNull(name: String): JsonObject? {
        val e = member(name) ?: return null
        if (!e.isJsonObject) malformed(name, "must be an object")
        return e.asJsonObject
    }

    /** The enum constant whose `@SerializedName` is the member's value. */
    inline fun <reified E : Enum<E>> enumOrNull(name: String, unknown: ErrorCode = ErrorCode.INTERNAL): E? {
        val s = stringOrNull(name) ?: return null
        return enumValues<E>().firstOrNull { wireName(it) == s } ?: run {
            val allowed = enumValues<E>().joinToString(" | ") { wireName(it) }
            val message = "field '${qualified(name)}' must be one of $allowed, not '$s'"
            if (unknown == ErrorCode.INTERNAL) throw MalformedRequestException(message)
            throw LeanCtxException(unknown, message)
        }
    }

    inline fun <reified E : Enum<E>> enumOr(name: String, default: E): E = enumOrNull<E>(name) ?: default

    fun qualified(name: String): String = prefix + name

    fun rangeOrNull(name: String): Range? {
        val o = objectOrNull(name) ?: return null
        val rf = Fields(o, "$prefix$name.")
        val start = rf.position("start")
        val end = rf.position("end")
        if (end < start) {
            throw LeanCtxException(
                ErrorCode.POSITION_OUT_OF_RANGE,
                "'$prefix$name' ends (${end.line}:${end.character}) before it starts (${start.line}:${start.character})",
            )
        }
        return Range(start, end)
    }

    fun range(name: String): Range = rangeOrNull(name) ?: malformed(name, "is missing")

    private fun position(name: String): Position {
        val o = objectOrNull(name) ?: malformed(name, "is missing")
        val pf = Fields(o, "$prefix$name.")
        return Position(pf.nonNegativeInt("line"), pf.nonNegativeInt("character"))
    }
}

/** The wire spelling of an enum constant: its `@SerializedName`. */
fun wireName(e: Enum<*>): String =
    e.javaClass.getField(e.name).getAnnotation(SerializedName::class.java)?.value ?: e.name
