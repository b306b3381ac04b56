/**
 * The Gain tool window's API: the subset of `lean-ctx gain --json` it renders
 * (docs/ide-wire.md, `lean-ctx gain --json`), decoded with Gson. The Rust side pins these
 * keys with a drift test against `tests/fixtures/gain-sample.json`, and so does
 * `GainCodecTest` here: a schema change breaks a test instead of silently blanking the
 * panel. Keys the panel does not render (`usd_per_mtok`, `total_input_tokens`, ...) are
 * ignored.
 */
package com.leanctx.core.ui

import com.google.gson.JsonParseException
import com.google.gson.JsonParser
import com.google.gson.annotations.SerializedName
import com.leanctx.core.wire.WireJson

data class GainData(val summary: GainSummary, val tasks: List<TaskRow>, val heatmap: List<FileRow>) {
    /** Commands counted: the summary's total when the daemon sends it, else the tasks' sum (older daemons). */
    val totalCommands: Long get() = summary.totalCommands ?: tasks.sumOf { it.commands }
}

data class GainSummary(
    val model: GainModel?,
    @SerializedName("tokens_saved") val tokensSaved: Long,
    @SerializedName("gain_rate_pct") val gainRatePct: Double,
    @SerializedName("avoided_usd") val avoidedUsd: Double,
    val score: GainScore?,
    @SerializedName("total_commands") val totalCommands: Long?,
)

data class GainModel(@SerializedName("model_key") val modelKey: String)

/** The 0–100 scores; [total] is the hero number. */
data class GainScore(
    val total: Int,
    val compression: Int,
    @SerializedName("cost_efficiency") val costEfficiency: Int,
    val quality: Int,
    val consistency: Int,
    val trend: Int,
)

data class TaskRow(
    val category: String,
    val commands: Long,
    @SerializedName("tokens_saved") val tokensSaved: Long,
    @SerializedName("tool_calls") val toolCalls: Long,
    @SerializedName("tool_spend_usd") val toolSpendUsd: Double,
)

data class FileRow(
    val path: String,
    @SerializedName("access_count") val accessCount: Long,
    @SerializedName("tokens_saved") val tokensSaved: Long,
    @SerializedName("compression_pct") val compressionPct: Double,
)

class GainParseException(message: String) : Exception(message)

object GainCodec {
    /**
     * Decodes [json]. Missing `tasks`/`heatmap` become empty lists: Gson bypasses Kotlin
     * constructors, so defaults would not apply and a `null` would hide in a non-null
     * property; rows with missing text fields are dropped for the same reason.
     *
     * @throws GainParseException for output that is not a JSON object with a `summary`
     */
    // Gson leaves a missing key null even in a non-null property: the null checks are not senseless.
    @Suppress("SENSELESS_COMPARISON")
    fun parse(json: String): GainData {
        val root = try {
            JsonParser.parseString(json)
        } catch (e: JsonParseException) {
            throw GainParseException("gain --json printed no JSON: ${e.message}")
        }
        if (!root.isJsonObject) throw GainParseException("gain --json printed no JSON object")
        val summaryJson = root.asJsonObject.get("summary")
        if (summaryJson == null || !summaryJson.isJsonObject) throw GainParseException("gain --json has no summary")
        val raw = try {
            WireJson.gson.fromJson(root, RawGain::class.java)
        } catch (e: JsonParseException) {
            throw GainParseException("gain --json does not have the expected shape: ${e.message}")
        }
        return GainData(
            raw.summary,
            raw.tasks.orEmpty().filterNotNull().filter { it.category != null },
            raw.heatmap.orEmpty().filterNotNull().filter { it.path != null },
        )
    }

    /** What Gson really produces: every list may be absent. */
    private class RawGain(val summary: GainSummary, val tasks: List<TaskRow?>?, val heatmap: List<FileRow?>?)
}
