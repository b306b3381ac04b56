/**
 * The Gain tool window's schema contract (docs/ide-wire.md, `lean-ctx gain --json`)
 * against `tests/fixtures/gain-sample.json`, real `lean-ctx gain --json` output that the
 * Rust side's drift test checks too: every field the plugin reads decodes to the sample's
 * value, and every key it reads exists there. Also the codec's normalisation and the
 * load-result classification.
 */
package com.leanctx.core.ui

import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.gson.annotations.SerializedName
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.nio.file.Files
import java.nio.file.Path

class GainCodecTest {
    /** From the core module's directory, where Maven runs the tests. */
    private val sample: String = Files.readString(Path.of("../../tests/fixtures/gain-sample.json"))

    @Test
    fun `every field the plugin reads decodes from the sample`() {
        val data = GainCodec.parse(sample)
        val s = data.summary
        assertEquals("claude-sonnet", s.model?.modelKey)
        assertEquals(2594L, s.tokensSaved)
        assertEquals(73.0, s.gainRatePct)
        assertEquals(0.007782, s.avoidedUsd)
        assertEquals(GainScore(total = 76, compression = 73, costEfficiency = 80, quality = 80, consistency = 100, trend = 50), s.score)
        assertEquals(5L, s.totalCommands)
        assertEquals(
            listOf(
                TaskRow("outline", 4, 2594, 4, 0.002772),
                TaskRow("search_symbol", 1, 0, 1, 0.000102),
            ),
            data.tasks,
        )
        assertEquals(
            listOf(
                FileRow("/home/dev/lean-ctx/src/stats.rs", 2, 440, 50.1),
                FileRow("/home/dev/lean-ctx/src/paths.rs", 1, 2154, 83.5),
            ),
            data.heatmap,
        )
        assertEquals(GainLoadResult.Ok(data), GainLoader.classify(CommandResult(0, sample, "")))
    }

    @Test
    fun `every key the DTOs read exists in the sample (drift guard)`() {
        val root = JsonParser.parseString(sample).asJsonObject
        fun check(obj: JsonObject, cls: Class<*>, where: String) {
            for (field in cls.declaredFields) {
                if (java.lang.reflect.Modifier.isStatic(field.modifiers)) continue
                val key = field.getAnnotation(SerializedName::class.java)?.value ?: field.name
                assertTrue(obj.has(key), "$where.$key is read by ${cls.simpleName} but missing from the sample")
                val nested = when (field.type) {
                    GainModel::class.java, GainScore::class.java -> field.type
                    else -> null
                }
                if (nested != null) check(obj.getAsJsonObject(key), nested, "$where.$key")
            }
        }
        check(root.getAsJsonObject("summary"), GainSummary::class.java, "summary")
        val tasks = root.getAsJsonArray("tasks")
        val heatmap = root.getAsJsonArray("heatmap")
        assertTrue(tasks.size() > 0 && heatmap.size() > 0, "the sample must have non-empty arrays")
        tasks.forEach { check(it.asJsonObject, TaskRow::class.java, "tasks[]") }
        heatmap.forEach { check(it.asJsonObject, FileRow::class.java, "heatmap[]") }
    }

    @Test
    fun `missing arrays decode as empty lists, unknown keys are ignored`() {
        val data = GainCodec.parse("""{"summary":{"tokens_saved":10,"gain_rate_pct":1.5,"avoided_usd":0.1,"energy_wh":3},"roi":{}}""")
        assertEquals(emptyList<TaskRow>(), data.tasks)
        assertEquals(emptyList<FileRow>(), data.heatmap)
        assertEquals(null, data.summary.model)
        assertEquals(0L, data.totalCommands, "no total_commands and no tasks")
        val nulls = GainCodec.parse("""{"summary":{"tokens_saved":1},"tasks":null,"heatmap":[null,{"access_count":2}]}""")
        assertEquals(emptyList<TaskRow>(), nulls.tasks)
        assertEquals(emptyList<FileRow>(), nulls.heatmap, "rows without a path are dropped")
    }

    @Test
    fun `without total_commands the tasks' commands count (older daemons)`() {
        val data = GainCodec.parse("""{"summary":{"tokens_saved":0},"tasks":[{"category":"read","commands":3,"tokens_saved":0,"tool_calls":3,"tool_spend_usd":0}]}""")
        assertEquals(3L, data.totalCommands)
        assertTrue(GainLoader.classify(CommandResult(0, """{"summary":{"tokens_saved":0},"tasks":[{"category":"read","commands":3}]}""", "")) is GainLoadResult.Ok)
    }

    @Test
    fun `output without a summary object is a parse error`() {
        for (bad in listOf("", "not json", "[]", "{}", """{"summary":3}""")) {
            assertThrows<GainParseException>(bad) { GainCodec.parse(bad) }
        }
    }

    @Test
    fun `load results classify into Ok, Empty, BinaryNotFound and Failed`() {
        val empty = """{"summary":{"tokens_saved":0,"gain_rate_pct":0.0,"avoided_usd":0.0,"total_commands":0},"tasks":[],"heatmap":[]}"""
        assertEquals(GainLoadResult.Empty, GainLoader.classify(CommandResult(0, empty, "")))
        assertEquals(GainLoadResult.BinaryNotFound, GainLoader.classify(CommandResult(-1, "", "lean-ctx binary not found; looked in: /usr/bin")))

        val failed = GainLoader.classify(CommandResult(2, "", "\u001B[31merror:\u001B[0m unexpected argument '--json'\n"))
        assertEquals(GainLoadResult.Failed("lean-ctx gain exited with code 2", "error: unexpected argument '--json'"), failed)

        val timedOut = GainLoader.classify(CommandResult(-1, "", "", timedOut = true))
        assertEquals(GainLoadResult.Failed("lean-ctx gain timed out after 10 s", ""), timedOut)

        val garbage = GainLoader.classify(CommandResult(0, "warming up…", "note"))
        assertTrue(garbage is GainLoadResult.Failed && garbage.reason.contains("no JSON") && garbage.stderrExcerpt == "note", "$garbage")
    }

    @Test
    fun `the stderr excerpt is cut to a dozen lines`() {
        val long = (1..40).joinToString("\n") { "line $it" }
        val excerpt = GainLoader.excerpt(long)
        assertEquals(13, excerpt.lines().size)
        assertTrue(excerpt.endsWith("line 12\n…"))
        assertEquals(1_002, GainLoader.excerpt("x".repeat(5_000)).length)
    }

    @Test
    fun `the loader runs gain --json with the 10 s timeout`() {
        var seen: Pair<List<String>, java.time.Duration>? = null
        val runner = object : CommandRunner {
            override fun run(args: List<String>, timeout: java.time.Duration): CommandResult {
                seen = args to timeout
                return CommandResult(0, sample, "")
            }

            override fun launch(args: List<String>) = true
        }
        assertTrue(GainLoader(runner).load() is GainLoadResult.Ok)
        assertEquals(listOf("gain", "--json") to java.time.Duration.ofSeconds(10), seen)
    }
}
