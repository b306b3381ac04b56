/**
 * The data dir rule: every case of `tests/fixtures/data-dir-cases.json`, the table the
 * daemon's `resolve_data_dir` is tested against too (`shared/src/paths.rs`), so the
 * plugin and the daemon land on the same directory; and which home the rule starts
 * from.
 */
package com.leanctx.core.port

import com.google.gson.JsonObject
import com.google.gson.JsonParser
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path

class DataDirTest {
    @TempDir
    lateinit var tmp: Path

    @Test
    fun `every case of the table the daemon is tested against`() {
        val table = JsonParser.parseString(Files.readString(Path.of("../../tests/fixtures/data-dir-cases.json"))).asJsonObject
        val cases = table.getAsJsonArray("cases").map { it.asJsonObject }
        assertTrue(cases.size > 20, "the table lost its cases")
        for ((n, case) in cases.withIndex()) {
            val world = Files.createDirectories(tmp.resolve("case$n"))
            val sub = { s: String -> s.replace("{tmp}", world.toString()) }
            for (file in case.getAsJsonArray("files") ?: emptyList()) {
                val name = sub(file.asString)
                val path = world.resolve(name)
                if (name.endsWith("/")) {
                    Files.createDirectories(path)
                } else {
                    Files.createDirectories(path.parent)
                    Files.createFile(path)
                }
            }
            for ((link, target) in case.getAsJsonObject("links")?.entrySet() ?: emptySet()) {
                val path = world.resolve(link)
                Files.createDirectories(path.parent)
                Files.createSymbolicLink(path, Path.of(sub(target.asString)))
            }
            val env = (case.getAsJsonObject("env") ?: JsonObject()).entrySet().associate { (k, v) -> k to sub(v.asString) } +
                ("HOME" to world.resolve("home").toString())
            val got = DataDir.resolve(env, userHome = "/nonexistent-user-home", windows = false)
            assertEquals(Path.of(sub(case.get("expect").asString)), got, case.get("name").asString)
        }
    }

    @Test
    fun `home is HOME when set and non-empty, else user home, and user home on Windows`() {
        val none = tmp.resolve("none")
        assertEquals(Path.of("$none/h/.config/lean-ctx"), DataDir.resolve(mapOf("HOME" to "$none/h"), "$none/u", false))
        assertEquals(Path.of("$none/u/.config/lean-ctx"), DataDir.resolve(mapOf("HOME" to ""), "$none/u", false))
        assertEquals(Path.of("$none/u/.config/lean-ctx"), DataDir.resolve(emptyMap(), "$none/u", false))
        assertEquals(
            Path.of("$none/u/.config/lean-ctx"),
            DataDir.resolve(mapOf("HOME" to "$none/h"), "$none/u", true),
            "Windows: the profile dir, like Rust",
        )
    }
}
