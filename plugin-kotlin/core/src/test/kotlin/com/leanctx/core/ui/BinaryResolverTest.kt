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

    @Test
    fun `a hung binary is killed at the timeout and reported as exit -1`() {
        val bin = script("c", "echo started; sleep 30")
        val t0 = System.nanoTime()
        val r = runner(bin).run(emptyList(), Duration.ofMillis(300))
        val elapsedMs = (System.nanoTime() - t0) / 1_000_000
        assertTrue(r.timedOut)
        assertEquals(-1, r.exitCode)
        assertTrue(elapsedMs < 5_000, "took $elapsedMs ms")
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

    @Test
    fun `launch starts the command without waiting for it`() {
        val marker = tmp.resolve("launched")
        val bin = script("d", "sleep 0.2; echo \"$*\" > '$marker'")
        val t0 = System.nanoTime()
        assertTrue(runner(bin).launch(listOf("dashboard")))
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 200, "launch waited for the command")
        val deadline = System.nanoTime() + 10_000_000_000
        while (!Files.exists(marker) && System.nanoTime() < deadline) Thread.sleep(20)
        assertEquals("dashboard\n", Files.readString(marker))
    }
}
