/**
 * One open project's presence for the daemon: its running [BackendHttpServer] and its
 * port file, kept for as long as the project is open (docs/ide-wire.md, Port file). The
 * IDE's project service and the contract double both run exactly this.
 *
 * - start: sweep port files of dead pids, start the server, write the port file;
 * - while open: a port file deleted from under us (a cleanup script, the other
 *   instance's close) is written again within [SessionConfig.keepEvery];
 * - close: stop re-writing, delete the port file if it is still ours (another IDE
 *   window on the same root may have replaced it), stop the server; [closeDetached]
 *   stops the server on another thread, for a caller that must not block.
 */
package com.leanctx.core.port

import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.server.BackendHttpServer
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.Executor
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

data class SessionConfig(
    val projectRoot: Path,
    val dataDir: Path = DataDir.resolve(),
    /** How often to check that the port file is still there. */
    val keepEvery: Duration = Duration.ofSeconds(2),
)

class ProjectSession private constructor(
    private val server: BackendHttpServer,
    val portFile: Path,
    private val content: PortFile,
    keepEvery: Duration,
) : AutoCloseable {
    private val closed = AtomicBoolean(false)
    private val keeper: ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor { r ->
        Thread(r, "leanctx-portfile-keeper").apply { isDaemon = true }
    }

    val port: Int get() = server.port
    val token: String get() = server.token

    init {
        val ms = keepEvery.toMillis()
        keeper.scheduleWithFixedDelay({ rewriteIfMissing() }, ms, ms, TimeUnit.MILLISECONDS)
    }

    /** Writes the port file again if it is gone; true if it did. */
    fun rewriteIfMissing(): Boolean {
        if (closed.get() || Files.exists(portFile)) return false
        return try {
            PortFiles.write(portFile, content)
            true
        } catch (e: IOException) {
            false // the data dir is unwritable right now; the next round tries again
        }
    }

    override fun close() = closeDetached(Runnable::run)

    /**
     * [close] for a caller that must not block: the IDE disposes its project service on
     * the EDT, while HTTP handlers in flight may be waiting for a turn on that very EDT
     * (`IdeGate.write`, until their deadline), so stopping the server there could block it
     * for seconds. The
     * port file goes at once (the daemon stops calling); the keeper's last round, a
     * second port-file check and the server's stop run on [background].
     */
    fun closeDetached(background: Executor) {
        if (!closed.compareAndSet(false, true)) return
        keeper.shutdownNow()
        deleteIfOurs()
        background.execute {
            try {
                // A keeper round that began before closing may have re-written the file.
                keeper.awaitTermination(2, TimeUnit.SECONDS)
                deleteIfOurs()
            } finally {
                server.close()
            }
        }
    }

    private fun deleteIfOurs() {
        try {
            if (PortFiles.read(portFile)?.token == content.token) Files.deleteIfExists(portFile)
        } catch (e: IOException) {
            // Nothing more to do: the reaper of the next start removes a dead pid's file.
        }
    }

    companion object {
        fun start(config: SessionConfig, backend: ProjectBackend): ProjectSession {
            PortFiles.reap(config.dataDir)
            val server = BackendHttpServer.start(backend)
            try {
                val portFile = PortFiles.path(config.dataDir, config.projectRoot)
                val content = PortFile(
                    port = server.port,
                    token = server.token,
                    pid = ProcessHandle.current().pid(),
                    projectRoot = ProjectHash.canonical(config.projectRoot),
                    ideVersion = backend.identity.ideVersion,
                    startedAt = System.currentTimeMillis(),
                )
                PortFiles.write(portFile, content)
                return ProjectSession(server, portFile, content, config.keepEvery)
            } catch (e: Throwable) {
                server.close()
                throw e
            }
        }
    }
}
