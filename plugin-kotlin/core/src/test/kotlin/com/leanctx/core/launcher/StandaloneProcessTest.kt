/**
 * The contract double's process life, in a child JVM from the test classpath: READY
 * line, real port file, exit with the port file deleted when stdin reaches EOF or on
 * SIGTERM, exit 2 on bad arguments. (The packaged jar is checked the same way by
 * `StandaloneJarIT` after `package`.)
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
import java.nio.file.attribute.PosixFilePermissions
import java.util.concurrent.TimeUnit

class StandaloneProcessTest {
    @TempDir
    lateinit var tmp: Path

    private fun command(vararg extra: String): List<String> {
        val root = Files.createDirectories(tmp.resolve("project"))
        val script = tmp.resolve("script.json")
        Files.writeString(script, """{"routes": {"/symbols_overview": {"response": {"symbols": [], "truncated": false, "total": 0}}}}""")
        return listOf(
            ContractProcess.JAVA, "-cp", System.getProperty("java.class.path"), StandaloneContractServer::class.java.name,
            "--root", root.toString(), "--script", script.toString(), "--data-dir", tmp.resolve("data").toString(),
        ) + extra
    }

    @Test
    fun `serves until stdin reaches EOF, then exits 0 and deletes its port file`() {
        ContractProcess(command("--ide-version", "contract-test")).use { p ->
            val ready = p.ready()
            assertEquals(PortFiles.path(tmp.resolve("data"), tmp.resolve("project")), ready.portFile)
            val content = PortFiles.read(ready.portFile)!!
            assertEquals(ready.port, content.port)
            assertEquals(p.process.pid(), content.pid)
            assertEquals("contract-test", content.ideVersion)
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ready.portFile)))
            val http = Http(ready.port)
            assertEquals(200, http.get(Routes.HEALTH, content.token).status)
            assertEquals("""{"symbols":[],"truncated":false,"total":0}""", http.post(Routes.SYMBOLS_OVERVIEW, """{"path":"a.kt"}""", content.token).body)

            p.process.outputStream.close()
            assertTrue(p.exited(), "still running after stdin EOF")
            assertEquals(0, p.process.exitValue())
            assertFalse(Files.exists(ready.portFile))
            assertTrue(p.stderr.get(5, TimeUnit.SECONDS).contains("NOT the JetBrains IDE plugin"))
        }
    }

    @Test
    fun `exits on SIGTERM and deletes its port file`() {
        ContractProcess(command()).use { p ->
            val ready = p.ready()
            assertTrue(Files.exists(ready.portFile))
            p.process.destroy() // SIGTERM on Unix
            assertTrue(p.exited(), "still running after SIGTERM")
            assertFalse(Files.exists(ready.portFile))
        }
    }

    @Test
    fun `bad arguments and bad scripts exit 2 with a message`() {
        ContractProcess(listOf(ContractProcess.JAVA, "-cp", System.getProperty("java.class.path"), StandaloneContractServer::class.java.name, "--root")).use { p ->
            assertTrue(p.exited())
            assertEquals(2, p.process.exitValue())
            assertTrue(p.stderr.get(5, TimeUnit.SECONDS).contains("usage:"))
        }
        val cmd = command()
        Files.writeString(tmp.resolve("script.json"), """{"routes": {"/nope": {}}}""")
        ContractProcess(cmd).use { p ->
            assertTrue(p.exited())
            assertEquals(2, p.process.exitValue())
            assertTrue(p.stderr.get(5, TimeUnit.SECONDS).contains("bad script"))
        }
    }
}
