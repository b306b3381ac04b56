/**
 * The one Gson configuration of the plugin: HTML escaping off (source text full of
 * `<`, `>` and `=` must reach the daemon byte for byte, not as `\u003c`), nulls
 * omitted (optional fields such as `Usage.context` are simply absent).
 */
package com.leanctx.core.wire

import com.google.gson.Gson
import com.google.gson.GsonBuilder

object WireJson {
    val gson: Gson = GsonBuilder().disableHtmlEscaping().create()
}
