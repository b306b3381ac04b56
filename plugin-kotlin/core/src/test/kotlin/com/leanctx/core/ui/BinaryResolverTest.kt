/**
 * Finding `lean-ctx` (override, PATH, the usual install dirs) and running it: output
 * captured, exit codes passed on, a hung binary killed at the timeout, a missing one
 * reported as "binary not found". Real processes: small shell scripts in a temp dir.
 */
package com.leanctx.core.ui

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions
import java.time.Duration

class BinaryResolverTest {
    @TempDir
    lateinit var tmp: Path

    private fun script(dir: String, body: String): Path {
        val f = Files.createDirectories(tmp.resolve(dir)).resolve("lean-ctx")
        Files.writeString(f, "#!/bin/sh\n$body\n")
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"))
        return f
    }

    @Test
    fun `candidates are the override, PATH, then the usual install dirs`() {
        val r = BinaryResolver(mapOf("LEAN_CTX_BIN" to "/opt/lc/lean-ctx", "PATH" to "/usr/bin::/bin"), "/home/u", false) { false }
        assertEquals(
            listOf("/opt/lc/lean-ctx", "/usr/bin/lean-ctx", "/bin/lean-ctx", "/home/u/.cargo/bin/lean-ctx", "/home/u/.local/bin/lean-ctx", "/opt/homebrew/bin/lean-ctx", "/usr/local/bin/lean-ctx"),
            r.candidates().map { it.toString() },
        )
        assertNull(r.resolve())
    }

    @Test
    fun `the first executable candidate wins`() {
        val onPath = script("path", "exit 0")
        val inCargo = script("home/.cargo/bin", "exit 0")
        assertEquals(onPath, BinaryResolver(mapOf("PATH" to onPath.parent.toString()), tmp.resolve("home").toString(), false).resolve())
        assertEquals(inCargo, BinaryResolver(mapOf("PATH" to tmp.resolve("empty").toString()), tmp.resolve("home").toString(), false).resolve(), "GUI-launched IDE without cargo on PATH")
        Files.setPosixFilePermissions(onPath, PosixFilePermissions.fromString("rw-------"))
        assertEquals(inCargo, BinaryResolver(mapOf("PATH" to onPath.parent.toString()), tmp.resolve("home").toString(), false).resolve(), "not executable")
    }

    private fun runner(bin: Path) = ProcessCommandRunner(BinaryResolver(mapOf("LEAN_CTX_BIN" to bin.toString()), tmp.toString(), false))

    @Test
    fun `runs with arguments and captures stdout, stderr and the exit code`() {
        val bin = script("a", """echo "out:$*"; echo "err" >&2; exit 3""")
        assertEquals(CommandResult(3, "out:gain --json\n", "err\n"), runner(bin).run(listOf("gain", "--json"), Duration.ofSeconds(10)))
    }

    @Test
    fun `a command that asks for input sees EOF instead of hanging`() {
        val bin = script("b", "cat; echo done")
        assertEquals(CommandResult(0, "done\n", ""), runner(bin).run(emptyList(), Duration.ofSeconds(10)))
    }

    // A runner that waited for the hour-long script would hang here: the JUnit timeout
    // bounds that failure; what is asserted is that the process is gone.
    @Test
    @Timeout(60)
    fun `a hung binary is killed at the timeout and reported as exit -1`() {
        val pidFile = tmp.resolve("hung.pid")
        val bin = script("c", "echo $$ > '$pidFile'; echo started; exec sleep 3600")
        val r = runner(bin).run(emptyList(), Duration.ofMillis(300))
        assertTrue(r.timedOut)
        assertEquals(-1, r.exitCode)
        val pid = Files.readString(pidFile).trim().toLong()
        assertFalse(ProcessHandle.of(pid).map { it.isAlive }.orElse(false), "pid $pid still runs")
    }

    @Test
    fun `no binary is a result saying binary not found, not an exception`() {
        val r = ProcessCommandRunner(BinaryResolver(mapOf("PATH" to tmp.toString()), tmp.toString(), false) { false })
        val result = r.run(listOf("gain", "--json"), Duration.ofSeconds(1))
        assertEquals(-1, result.exitCode)
        assertTrue(result.stderr.contains(CommandRunner.BINARY_NOT_FOUND))
        assertEquals(GainLoadResult.BinaryNotFound, GainLoader.classify(result))
        assertFalse(r.launch(listOf("dashboard")))
    }

    // The command cannot finish before the gate opens, and the gate opens only after
    // `launch` returned: a `launch` that waited would never return (bounded by the JUnit
    // timeout).
    @Test
    @Timeout(60)
    fun `launch starts the command without waiting for it`() {
        val (gate, marker) = tmp.resolve("gate") to tmp.resolve("launched")
        val bin = script("d", "while [ ! -e '$gate' ]; do sleep 0.05; done; echo \"$*\" > '$marker'")
        assertTrue(runner(bin).launch(listOf("dashboard")))
        assertFalse(Files.exists(marker))
        Files.createFile(gate)
        while (!Files.exists(marker) || Files.size(marker) == 0L) Thread.sleep(20)
        assertEquals("dashboard\n", Files.readString(marker))
    }
}
