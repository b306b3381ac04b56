/**
 * Runs the contract double as a separate JVM, the way the daemon's tests run it: piped
 * stdin, one `READY <port> <port file>` line on stdout. [close] kills it if a test left
 * it running, so no test leaves a process behind.
 */
package com.leanctx.core.launcher

import java.io.BufferedReader
import java.io.InputStreamReader
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

class ContractProcess(command: List<String>) : AutoCloseable {
    val process: Process = ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start()
    private val stdout = BufferedReader(InputStreamReader(process.inputStream, Charsets.UTF_8))
    val stderr: CompletableFuture<String> = CompletableFuture.supplyAsync { String(process.errorStream.readAllBytes()) }

    /** The first stdout line, or null if the process ended or printed nothing in time. */
    fun firstLine(timeoutSeconds: Long = 30): String? =
        CompletableFuture.supplyAsync { stdout.readLine() }.get(timeoutSeconds, TimeUnit.SECONDS)

    data class Ready(val port: Int, val portFile: Path)

    fun ready(): Ready {
        val line = firstLine() ?: error("no READY line; stderr: ${stderr.get(5, TimeUnit.SECONDS)}")
        val parts = line.split(" ", limit = 3)
        check(parts.size == 3 && parts[0] == "READY") { "unexpected first line '$line'" }
        return Ready(parts[1].toInt(), Path.of(parts[2]))
    }

    fun exited(timeoutSeconds: Long = 15): Boolean = process.waitFor(timeoutSeconds, TimeUnit.SECONDS)

    override fun close() {
        if (process.isAlive) {
            process.destroyForcibly()
            process.waitFor(10, TimeUnit.SECONDS)
        }
    }

    companion object {
        val JAVA: String = Path.of(System.getProperty("java.home"), "bin", "java").toString()
    }
}
