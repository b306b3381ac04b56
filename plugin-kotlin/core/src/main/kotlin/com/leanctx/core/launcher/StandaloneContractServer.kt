/**
 * StandaloneContractServer: NOT the JetBrains plugin, and no IDE. A contract double for
 * the daemon's tests: the plugin's real HTTP server, real token check and real port
 * file, serving one directory, with the symbol-body edits really written to its files
 * and every other route answered from a JSON script (README "The contract double").
 *
 *     java -jar leanctx-core-standalone.jar --root <dir> --script <json>
 *          [--data-dir <dir>] [--ide-version <s>]
 *
 * Prints one line, `READY <port> <port file path>`, once it serves. Exits, deleting its
 * port file, on SIGTERM and when its stdin reaches EOF, so a test that drops its end of
 * the pipe (or dies) never leaves it running. Usage errors exit 2.
 */
package com.leanctx.core.launcher

import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.api.ServerIdentity
import com.leanctx.core.files.FileDocumentStore
import com.leanctx.core.port.DataDir
import com.leanctx.core.port.ProjectSession
import com.leanctx.core.port.SessionConfig
import com.leanctx.core.text.ProjectPaths
import com.leanctx.core.text.TextSymbolEdits
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CountDownLatch
import kotlin.system.exitProcess

object StandaloneContractServer {
    /** What the port file and `/health` report, so nobody mistakes the double for an IDE. */
    const val DEFAULT_IDE_VERSION = "StandaloneContractServer (lean-ctx contract double, not an IDE)"

    private const val USAGE =
        "usage: java -jar leanctx-core-standalone.jar --root <dir> --script <json file> [--data-dir <dir>] [--ide-version <s>]"

    data class Options(val root: Path, val script: Path, val dataDir: Path, val ideVersion: String)

    class UsageException(message: String) : Exception(message)

    fun parseArgs(args: Array<String>, env: Map<String, String> = System.getenv()): Options {
        val values = HashMap<String, String>()
        var i = 0
        while (i < args.size) {
            val key = args[i]
            if (key !in setOf("--root", "--script", "--data-dir", "--ide-version")) throw UsageException("unknown argument $key")
            val value = args.getOrNull(i + 1) ?: throw UsageException("$key needs a value")
            values[key] = value
            i += 2
        }
        val root = Path.of(values["--root"] ?: throw UsageException("--root is required"))
        if (!Files.isDirectory(root)) throw UsageException("--root $root is not a directory")
        val script = Path.of(values["--script"] ?: throw UsageException("--script is required"))
        val dataDir = values["--data-dir"]?.let { Path.of(it) } ?: DataDir.resolve(env)
        return Options(root, script, dataDir, values["--ide-version"] ?: DEFAULT_IDE_VERSION)
    }

    /** Starts serving [options]; the caller owns the session and closes it. */
    fun start(options: Options): ProjectSession {
        val script = ContractScript.load(options.script)
        val paths = ProjectPaths(options.root)
        val store = FileDocumentStore(paths)
        val scripted = ScriptedBackend(script, store)
        val name = paths.root.fileName?.toString() ?: paths.root.toString()
        val backend = ProjectBackend(
            identity = ServerIdentity(options.ideVersion, name),
            navigation = scripted,
            structure = scripted,
            inspections = scripted,
            edits = TextSymbolEdits(store),
            refactorings = scripted,
            reformatter = scripted,
        )
        return ProjectSession.start(SessionConfig(projectRoot = options.root, dataDir = options.dataDir), backend)
    }

    @JvmStatic
    fun main(args: Array<String>) {
        System.err.println("lean-ctx StandaloneContractServer: a contract double for tests, NOT the JetBrains IDE plugin")
        val session = try {
            start(parseArgs(args))
        } catch (e: UsageException) {
            System.err.println("${e.message}\n$USAGE")
            exitProcess(2)
        } catch (e: ScriptException) {
            System.err.println("bad script: ${e.message}")
            exitProcess(2)
        }
        // SIGTERM runs shutdown hooks; so does the exit below once stdin closes.
        Runtime.getRuntime().addShutdownHook(Thread({ session.close() }, "leanctx-contract-shutdown"))
        println("READY ${session.port} ${session.portFile}")
        System.out.flush()
        val stdinClosed = CountDownLatch(1)
        Thread({
            val buf = ByteArray(4096)
            try {
                while (System.`in`.read(buf) >= 0) {
                    // Input carries no meaning; only its end does.
                }
            } finally {
                stdinClosed.countDown()
            }
        }, "leanctx-contract-stdin").apply { isDaemon = true }.start()
        stdinClosed.await()
        exitProcess(0)
    }
}
