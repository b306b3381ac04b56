/**
 * The packaged `target/leanctx-core-standalone.jar`, run with `java -jar` exactly as the
 * daemon's contract tests run it: READY line, health, a scripted route, an edit that
 * really writes, and a clean exit with the port file gone when stdin closes.
 */
package com.leanctx.core.launcher

import com.leanctx.core.port.PortFiles
import com.leanctx.core.support.Http
import com.leanctx.core.wire.Routes
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path

class StandaloneJarIT {
    @TempDir
    lateinit var tmp: Path

    @Test
    fun `the shaded jar serves a directory and exits when stdin closes`() {
        val jar = Path.of(System.getProperty("leanctx.standaloneJar"))
        assertTrue(Files.isRegularFile(jar), "$jar")
        val root = Files.createDirectories(tmp.resolve("project"))
        Files.writeString(root.resolve("Main.kt"), "fun run() = 1\n")
        val script = tmp.resolve("script.json")
        Files.writeString(script, """{"routes": {"/declaration": {"match": {"path": "Main.kt"}, "error": {"code": "NO_SYMBOL_AT_POSITION", "message": "nothing at 0:0"}}}}""")
        val cmd = listOf(ContractProcess.JAVA, "-jar", jar.toString(), "--root", root.toString(), "--script", script.toString(), "--data-dir", tmp.resolve("data").toString())
        ContractProcess(cmd).use { p ->
            val ready = p.ready()
            val token = PortFiles.read(ready.portFile)!!.token
            val http = Http(ready.port)
            assertEquals("ok", http.get(Routes.HEALTH, token).obj.get("status").asString)
            assertEquals("NO_SYMBOL_AT_POSITION", http.post(Routes.DECLARATION, """{"path":"Main.kt","line":0,"character":0}""", token).errorCode)
            val edit = """{"path":"Main.kt","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":13}},"text":"fun run() = 2"}"""
            assertEquals(true, http.post(Routes.REPLACE_SYMBOL_BODY, edit, token).obj.get("applied").asBoolean)
            assertEquals("fun run() = 2\n", Files.readString(root.resolve("Main.kt")))

            p.process.outputStream.close()
            assertTrue(p.exited())
            assertEquals(0, p.process.exitValue())
            assertFalse(Files.exists(ready.portFile))
        }
    }
}
