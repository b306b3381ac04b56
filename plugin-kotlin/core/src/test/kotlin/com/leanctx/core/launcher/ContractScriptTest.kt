/**
 * The contract double in-process, over real HTTP: scripted answers per route, matching
 * on request fields (defaults included), `times`, `error`, `delay_ms`, `busy` (the
 * request's own deadline, from the daemon's `X-LeanCtx-Timeout-Ms`), `edits` that
 * really write, edit routes served by the file store with UTF-16 ranges on non-ASCII
 * lines, and load-time validation of scripts.
 */
package com.leanctx.core.launcher

import com.leanctx.core.port.PortFiles
import com.leanctx.core.port.ProjectSession
import com.leanctx.core.support.Http
import com.leanctx.core.wire.Routes
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path

class ContractScriptTest {
    @TempDir
    lateinit var tmp: Path

    private var session: ProjectSession? = null

    @AfterEach
    fun stop() {
        session?.close()
    }

    private fun serve(script: String): Pair<Http, String> {
        val root = Files.createDirectories(tmp.resolve("project"))
        val scriptFile = tmp.resolve("script.json").also { Files.writeString(it, script) }
        val s = StandaloneContractServer.start(
            StandaloneContractServer.Options(root, scriptFile, tmp.resolve("data"), StandaloneContractServer.DEFAULT_IDE_VERSION),
        )
        session = s
        return Http(s.port) to s.token
    }

    private val range = """{"start":{"line":0,"character":4},"end":{"line":0,"character":7}}"""

    @Test
    fun `rules answer in order, matching on request fields and on defaults`() {
        val (http, token) = serve(
            """
            {"description": "navigation", "routes": {
              "/references": [
                {"match": {"path": "src/Main.kt", "line": 41, "scope": "all"},
                 "response": {"locations": [{"path": "lib/L.kt", "range": $range}], "truncated": false, "total": 1}},
                {"match": {"path": "src/Main.kt", "scope": "project"},
                 "response": {"locations": [], "truncated": true, "total": 900}}
              ],
              "/type_hierarchy": {"error": {"code": "UNSUPPORTED_LANGUAGE", "message": "type_hierarchy requires a JVM-capable IDE"}}
            }}
            """,
        )
        val all = http.post(Routes.REFERENCES, """{"path":"src/Main.kt","line":41,"character":8,"scope":"all"}""", token)
        assertEquals("""{"locations":[{"path":"lib/L.kt","range":$range}],"truncated":false,"total":1}""", all.body)
        val defaulted = http.post(Routes.REFERENCES, """{"path":"src/Main.kt","line":41,"character":8}""", token)
        assertEquals("""{"locations":[],"truncated":true,"total":900}""", defaulted.body, "scope defaults to project")
        val unmatched = http.post(Routes.REFERENCES, """{"path":"src/Other.kt","line":1,"character":0}""", token)
        assertEquals(200, unmatched.status)
        assertEquals("INTERNAL", unmatched.errorCode)
        assertTrue(unmatched.body.contains("src/Other.kt"), "the message shows the request: ${unmatched.body}")
        assertEquals(
            """{"error":{"code":"UNSUPPORTED_LANGUAGE","message":"type_hierarchy requires a JVM-capable IDE"}}""",
            http.post(Routes.TYPE_HIERARCHY, """{"path":"a.rs","line":0,"character":0}""", token).body,
        )
        assertEquals("INTERNAL", http.post(Routes.DEFINITION, """{"path":"a.rs","line":0,"character":0}""", token).errorCode, "unscripted route")
        assertEquals(401, http.post(Routes.REFERENCES, """{"path":"src/Main.kt","line":41,"character":8}""", null).status, "the real token check")
        assertEquals(StandaloneContractServer.DEFAULT_IDE_VERSION, http.get(Routes.HEALTH, token).obj.get("ideVersion").asString)
    }

    @Test
    fun `times limits a rule's uses, so a test can script INDEXING then an answer`() {
        val (http, token) = serve(
            """
            {"routes": {"/symbols_overview": [
              {"times": 2, "error": {"code": "INDEXING", "message": "indexing"}},
              {"response": {"symbols": [{"name": "Main", "kind": "class", "line": 3}], "truncated": false, "total": 1}}
            ]}}
            """,
        )
        val codes = (1..3).map { http.post(Routes.SYMBOLS_OVERVIEW, """{"path":"a.kt"}""", token) }
        assertEquals("INDEXING", codes[0].errorCode)
        assertEquals("INDEXING", codes[1].errorCode)
        assertEquals("""{"symbols":[{"name":"Main","kind":"class","line":3}],"truncated":false,"total":1}""", codes[2].body)
    }

    @Test
    fun `call_hierarchy rules match the canonical request, depth and direction defaulted`() {
        val site = """{"start":{"line":5,"character":36},"end":{"line":5,"character":39}}"""
        val caller = """{"name":"caller","kind":"function","path":"src/Main.kt","range":$range,"sites":[$site],"children":[]}"""
        val tree = """{"name":"run","kind":"method","path":"src/Main.kt","range":$range,"sites":[],"children":[$caller]}"""
        val (http, token) = serve(
            """
            {"routes": {"/call_hierarchy": [
              {"match": {"path": "src/Main.kt", "direction": "outgoing", "depth": 5}, "error": {"code": "UNSUPPORTED_LANGUAGE", "message": "callees of Kotlin"}},
              {"match": {"path": "src/Main.kt", "line": 3, "character": 8, "direction": "incoming", "depth": 1, "scope": "project"},
               "response": {"tree": $tree, "truncated": false}}
            ]}}
            """,
        )
        val callers = http.post(Routes.CALL_HIERARCHY, """{"path":"src/Main.kt","line":3,"character":8}""", token)
        assertEquals("""{"tree":$tree,"truncated":false}""", callers.body)
        val callees = http.post(Routes.CALL_HIERARCHY, """{"path":"src/Main.kt","line":3,"character":8,"direction":"outgoing","depth":7}""", token)
        assertEquals("UNSUPPORTED_LANGUAGE", callees.errorCode, "depth 7 is taken as 5")
        val bad = """{"routes": {"/call_hierarchy": {"response": {"tree": {"name": "run", "sites": 3}, "truncated": false}}}}"""
        assertTrue(assertThrows<ScriptException> { ContractScript.parse(bad) }.message!!.contains("does not fit"))
    }

    @Test
    fun `delay_ms holds the answer back, for the daemon's timeout tests`() {
        val (http, token) = serve("""{"routes": {"/list_inspections": {"delay_ms": 400, "response": {"inspections": [], "truncated": false, "total": 0}}}}""")
        val t0 = System.nanoTime()
        assertEquals(200, http.post(Routes.LIST_INSPECTIONS, """{"path":"a.kt"}""", token).status)
        assertTrue((System.nanoTime() - t0) / 1_000_000 >= 400)
    }

    @Test
    fun `a busy rule answers INDEXING at the deadline the request announced, as the plugin's gate does`() {
        val (http, token) = serve("""{"routes": {"/references": {"busy": true}}}""")
        val body = """{"path":"a.kt","line":0,"character":0}"""
        val t0 = System.nanoTime()
        // 1200 ms announced: the plugin gives up a quarter sooner, at 900 ms.
        val a = http.post(Routes.REFERENCES, body, token, mapOf("X-LeanCtx-Timeout-Ms" to "1200"))
        val took = (System.nanoTime() - t0) / 1_000_000
        assertEquals(200, a.status, a.body)
        assertEquals("INDEXING", a.errorCode, a.body)
        assertTrue(a.obj.getAsJsonObject("error").get("message").asString.contains("the IDE is busy"), a.body)
        assertTrue(took in 900..1190, "answered after $took ms")
    }

    @Test
    fun `an apply's edits really change the files, all ranges against the file as it was`() {
        val (http, token) = serve(
            """
            {"routes": {
              "/renamePreview": {"response": {"usages": [{"path": "src/Main.kt", "range": $range, "context": "run()"}], "conflicts": []}},
              "/renameApply": {"match": {"new_name": "execute", "force": false}, "edits": [
                  {"path": "src/Main.kt", "range": $range, "text": "execute"},
                  {"path": "src/Main.kt", "range": {"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 13}}, "text": "execute"},
                  {"path": "src/Caller.kt", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "text": "execute"}
                ],
                "response": {"applied": true, "changed_paths": ["src/Main.kt", "src/Caller.kt"]}}
            }}
            """,
        )
        val root = tmp.resolve("project")
        Files.createDirectories(root.resolve("src"))
        Files.writeString(root.resolve("src/Main.kt"), "fun run() {}\nval x = { run() }\n")
        Files.writeString(root.resolve("src/Caller.kt"), "run()\n")
        val preview = http.post(Routes.RENAME_PREVIEW, """{"path":"src/Main.kt","range":$range,"new_name":"execute"}""", token)
        assertEquals("""{"usages":[{"path":"src/Main.kt","range":$range,"context":"run()"}],"conflicts":[]}""", preview.body)
        val apply = http.post(Routes.RENAME_APPLY, """{"path":"src/Main.kt","range":$range,"new_name":"execute"}""", token)
        assertEquals("""{"applied":true,"changed_paths":["src/Main.kt","src/Caller.kt"]}""", apply.body)
        assertEquals("fun execute() {}\nval x = { execute() }\n", Files.readString(root.resolve("src/Main.kt")))
        assertEquals("execute()\n", Files.readString(root.resolve("src/Caller.kt")))
    }

    @Test
    fun `edit routes are served by the real file store, in UTF-16 units`() {
        val (http, token) = serve("""{"routes": {}}""")
        val file = tmp.resolve("project/ü.kt")
        Files.writeString(file, "val s = \"😀é漢\"; fun target() = 1\n")
        // `fun` starts at UTF-16 column 16 (the emoji is two units); the line ends at 32.
        val body = """{"path":"ü.kt","range":{"start":{"line":0,"character":16},"end":{"line":0,"character":32}},"text":"fun renamed() = 2"}"""
        val a = http.post(Routes.REPLACE_SYMBOL_BODY, body, token)
        assertEquals("""{"applied":true,"newRange":{"start":{"line":0,"character":16},"end":{"line":0,"character":33}},"editedText":"fun renamed() = 2"}""", a.body)
        assertEquals("val s = \"😀é漢\"; fun renamed() = 2\n", Files.readString(file))
        val past = """{"path":"ü.kt","range":{"start":{"line":0,"character":16},"end":{"line":0,"character":40}},"text":"x"}"""
        assertEquals("POSITION_OUT_OF_RANGE", http.post(Routes.INSERT_AFTER_SYMBOL, past, token).errorCode)
        assertEquals("FILE_NOT_FOUND", http.post(Routes.INSERT_BEFORE_SYMBOL, """{"path":"../x.kt","range":$range,"text":"x"}""", token).errorCode)
    }

    @Test
    fun `the session's port file is the real one`() {
        serve("""{"routes": {}}""")
        val s = session!!
        val content = PortFiles.read(s.portFile)!!
        assertEquals(s.port, content.port)
        assertEquals(tmp.resolve("project").toRealPath().toString(), content.projectRoot)
        assertEquals(PortFiles.path(tmp.resolve("data"), tmp.resolve("project")), s.portFile)
    }

    @Test
    fun `scripts are validated when loaded`() {
        val bad = mapOf(
            "[]" to "JSON object",
            """{"routes": {"/nope": {"response": {}}}}""" to "unknown route",
            """{"routes": {"/replaceSymbolBody": {"response": {}}}}""" to "real file store",
            """{"routes": {"/references": {"match": {}}}}""" to "exactly one",
            """{"routes": {"/references": {"response": {}, "error": {"code": "INTERNAL"}}}}""" to "exactly one",
            """{"routes": {"/references": {"error": {"code": "WHATEVER"}}}}""" to "catalog",
            """{"routes": {"/references": {"response": {"locations": 3}}}}""" to "does not fit",
            """{"routes": {"/references": {"response": {}, "edits": []}}}""" to "may carry edits",
            """{"routes": {"/renameApply": {"response": {}, "edits": [{"path": "a", "text": "x"}]}}}""" to "edit #0",
            """{"routes": {"/references": {"response": {}, "delay_ms": -1}}}""" to "delay_ms",
            """{"routes": {"/references": {"response": {}, "sometimes": 1}}}""" to "unknown key",
            """{"routes": {"/references": {"busy": true, "response": {}}}}""" to "busy rule",
            """{"routes": {"/references": {"busy": "yes"}}}""" to "true or false",
            """{"route": {}}""" to "unknown top-level key",
        )
        for ((script, message) in bad) {
            val e = assertThrows<ScriptException>(script) { ContractScript.parse(script) }
            assertTrue(e.message!!.contains(message), "'$script': ${e.message}")
        }
    }

    @Test
    fun `matching is a subset, numbers by value, null as absent`() {
        fun m(expected: String, actual: String) =
            ContractScript.matches(com.google.gson.JsonParser.parseString(expected), com.google.gson.JsonParser.parseString(actual))
        assertTrue(m("""{"range":{"start":{"line":6}}}""", """{"path":"a","range":{"start":{"line":6,"character":4}}}"""))
        assertTrue(m("""{"line":6.0}""", """{"line":6}"""))
        assertTrue(m("""{"gone":null}""", """{"line":6}"""))
        assertTrue(!m("""{"line":6}""", """{"line":7}"""))
        assertTrue(!m("""{"line":6}""", """{}"""))
        assertTrue(!m("""{"line":"6"}""", """{"line":6}"""))
        assertTrue(!m("""{"a":[1]}""", """{"a":[1,2]}"""))
    }

    @Test
    fun `arguments are parsed and checked`() {
        val root = Files.createDirectories(tmp.resolve("r"))
        val o = StandaloneContractServer.parseArgs(arrayOf("--root", root.toString(), "--script", "s.json"), mapOf("LEAN_CTX_DATA_DIR" to "/d"))
        assertEquals(Path.of("/d"), o.dataDir)
        assertEquals(StandaloneContractServer.DEFAULT_IDE_VERSION, o.ideVersion)
        val o2 = StandaloneContractServer.parseArgs(arrayOf("--root", root.toString(), "--script", "s.json", "--data-dir", "/e", "--ide-version", "IU-1"), emptyMap())
        assertEquals(Path.of("/e"), o2.dataDir)
        assertEquals("IU-1", o2.ideVersion)
        for (args in listOf(arrayOf(), arrayOf("--script", "s"), arrayOf("--root", root.toString()), arrayOf("--root", "/no/such/dir", "--script", "s"), arrayOf("--root"), arrayOf("--port", "1"))) {
            assertThrows<StandaloneContractServer.UsageException>(args.joinToString(" ")) { StandaloneContractServer.parseArgs(args, emptyMap()) }
        }
    }
}
