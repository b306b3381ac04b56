/**
 * Finding and running the `lean-ctx` binary (docs/ide-wire.md, Finding `lean-ctx`). An
 * IDE started from a desktop launcher (macOS Dock, a .desktop file) rarely has the
 * shell's PATH, so after `$LEAN_CTX_BIN` and PATH the usual install directories are
 * tried: cargo's, `~/.local/bin`, Homebrew's and `/usr/local/bin`.
 *
 * [ProcessCommandRunner] never throws: a missing binary, a spawn error and a timeout
 * are all [CommandResult]s, so every caller (Gain panel, Tools menu, focus reporter)
 * handles one shape.
 */
package com.leanctx.core.ui

import java.io.IOException
import java.io.InputStream
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/** A finished command; [timedOut] commands report exit code -1. */
data class CommandResult(val exitCode: Int, val stdout: String, val stderr: String, val timedOut: Boolean = false)

interface CommandRunner {
    /** Runs `lean-ctx <args>` to completion or [timeout], whichever is first. */
    fun run(args: List<String>, timeout: Duration): CommandResult

    /** Starts `lean-ctx <args>` and does not wait (its output is discarded); false if it could not start. */
    fun launch(args: List<String>): Boolean

    companion object {
        /** What stderr says when there is no binary; [GainLoader] keys on it. */
        const val BINARY_NOT_FOUND = "binary not found"
    }
}

class BinaryResolver(
    private val env: Map<String, String> = System.getenv(),
    private val home: String = System.getProperty("user.home"),
    private val windows: Boolean = System.getProperty("os.name").startsWith("Windows"),
    private val executable: (Path) -> Boolean = { Files.isRegularFile(it) && Files.isExecutable(it) },
) {
    private val name = if (windows) "lean-ctx.exe" else "lean-ctx"

    /** Every place looked at, in order. */
    fun candidates(): List<Path> {
        val out = ArrayList<Path>()
        env[OVERRIDE]?.takeIf { it.isNotBlank() }?.let { out.add(Path.of(it)) }
        val sep = if (windows) ";" else ":"
        env["PATH"].orEmpty().split(sep).filter { it.isNotBlank() }.forEach { out.add(Path.of(it, name)) }
        for (dir in listOf("$home/.cargo/bin", "$home/.local/bin", "/opt/homebrew/bin", "/usr/local/bin")) {
            out.add(Path.of(dir, name))
        }
        return out.distinct()
    }

    /** The binary to run, or null if there is none. */
    fun resolve(): Path? = candidates().firstOrNull(executable)

    companion object {
        /** Names the binary explicitly (tests, unusual installs). */
        const val OVERRIDE = "LEAN_CTX_BIN"
    }
}

class ProcessCommandRunner(private val resolver: BinaryResolver = BinaryResolver()) : CommandRunner {
    override fun run(args: List<String>, timeout: Duration): CommandResult {
        val binary = resolver.resolve() ?: return notFound()
        val process = try {
            ProcessBuilder(listOf(binary.toString()) + args).redirectInput(ProcessBuilder.Redirect.PIPE).start()
        } catch (e: IOException) {
            return CommandResult(-1, "", "cannot start $binary: ${e.message}")
        }
        process.outputStream.close() // no input: a command that asks for some sees EOF, not a hang
        val stdout = drain(process.inputStream)
        val stderr = drain(process.errorStream)
        val finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
        if (!finished) {
            process.descendants().forEach { it.destroyForcibly() }
            process.destroyForcibly()
            process.waitFor(2, TimeUnit.SECONDS)
        }
        val out = collected(stdout)
        val err = collected(stderr)
        return if (finished) CommandResult(process.exitValue(), out, err) else CommandResult(-1, out, err, timedOut = true)
    }

    override fun launch(args: List<String>): Boolean {
        val binary = resolver.resolve() ?: return false
        return try {
            ProcessBuilder(listOf(binary.toString()) + args)
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start()
            true
        } catch (e: IOException) {
            false
        }
    }

    private fun notFound(): CommandResult = CommandResult(
        -1, "",
        "lean-ctx ${CommandRunner.BINARY_NOT_FOUND}; looked in: ${resolver.candidates().joinToString(", ")}. " +
            "Install lean-ctx and run `lean-ctx setup`, or set ${BinaryResolver.OVERRIDE}.",
    )

    /**
     * Reads a stream to its end on its own daemon thread, so a full pipe never blocks the
     * child (and no shared pool thread blocks on a read).
     */
    private fun drain(stream: InputStream): CompletableFuture<String> {
        val result = CompletableFuture<String>()
        Thread({
            try {
                result.complete(stream.use { String(it.readAllBytes(), Charsets.UTF_8) })
            } catch (e: IOException) {
                result.complete("")
            }
        }, "leanctx-command-output").apply { isDaemon = true }.start()
        return result
    }

    /** What [drain] read; empty if a grandchild that escaped the kill still holds the pipe. */
    private fun collected(output: CompletableFuture<String>): String = try {
        output.get(2, TimeUnit.SECONDS)
    } catch (e: TimeoutException) {
        ""
    }

    private fun nullDevice(): java.io.File =
        java.io.File(if (System.getProperty("os.name").startsWith("Windows")) "NUL" else "/dev/null")
}
