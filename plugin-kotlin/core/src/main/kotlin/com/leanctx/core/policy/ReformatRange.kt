/**
 * The one range of the requested file a `/reformat` touches: the whole file, the region,
 * or, for a symbol, the innermost declaration of that same file covering the requested
 * range. The symbol is never found by following a reference to its target, which may
 * lie in another file or a library (plugin-kotlin/README.md, "Under a busy IDE", point
 * 8): a reformat changes the requested file and nothing else.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.ReformatScopeKind

object ReformatRange {
    /**
     * Offsets `[start, end)` to reformat in a text of [textLength] chars. [requested] is
     * the scope's range as offsets (absent for the whole file); [declarations] are the
     * ranges of the requested file's named declarations around the requested start,
     * innermost first.
     */
    fun of(kind: ReformatScopeKind, textLength: Int, requested: Pair<Int, Int>?, declarations: List<Pair<Int, Int>>): Pair<Int, Int> = when (kind) {
        ReformatScopeKind.FILE -> 0 to textLength
        ReformatScopeKind.REGION -> requireNotNull(requested) { "a region reformat needs its range" }
        ReformatScopeKind.SYMBOL -> {
            val (start, end) = requireNotNull(requested) { "a symbol reformat needs its range" }
            declarations.firstOrNull { (s, e) -> s <= start && e >= end }
                ?: throw LeanCtxException(ErrorCode.NO_SYMBOL, "no declaration of this file covers offsets $start-$end")
        }
    }
}
