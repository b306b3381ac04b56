/**
 * One project's HTTP server on the JDK's `com.sun.net.httpserver`: bound to 127.0.0.1 on
 * an ephemeral port (never the network), a fresh random token per start, every
 * request handed to a [RequestRouter]. Carries no IDE type, so the IDE's project
 * service, the contract double and the tests all run this same server.
 */
package com.leanctx.core.server

import com.leanctx.core.api.ProjectBackend
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.ErrorEnvelope
import com.leanctx.core.wire.WireJson
import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import java.io.ByteArrayOutputStream
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.security.SecureRandom
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

class BackendHttpServer private constructor(
    private val server: HttpServer,
    private val executor: ExecutorService,
    /** 64 lowercase hex chars: 32 bytes from [SecureRandom]. */
    val token: String,
) : AutoCloseable {
    val port: Int get() = server.address.port

    /** Where it listens: always a loopback address. */
    val boundAddress: InetSocketAddress get() = server.address

    /**
     * Stops listening at once, then lets handlers already running finish their work (an
     * apply half done would be worse than a lost answer) for up to five seconds. The
     * JDK's own grace period, `stop(n)`, waits the full n seconds even when idle.
     */
    override fun close() {
        server.stop(0)
        executor.shutdown()
        executor.awaitTermination(5, TimeUnit.SECONDS)
    }

    companion object {
        /** Bodies larger than this are refused (200 + `INTERNAL`) rather than read into memory. */
        const val MAX_BODY_BYTES = 64 * 1024 * 1024

        private const val NODELAY = "sun.net.httpserver.nodelay"

        /** Handler threads; PSI work is read actions, so a few can run side by side. */
        private const val THREADS = 4

        fun newToken(random: SecureRandom = SecureRandom()): String {
            val bytes = ByteArray(32)
            random.nextBytes(bytes)
            return bytes.joinToString("") { "%02x".format(it.toInt() and 0xff) }
        }

        fun start(backend: ProjectBackend, name: String = backend.identity.projectName): BackendHttpServer {
            // The JDK server writes headers and body separately; with Nagle on, the body
            // waits for the client's delayed ACK, some 40 ms per request. The property is
            // read once, when the JVM creates its first HttpServer.
            if (System.getProperty(NODELAY) == null) System.setProperty(NODELAY, "true")
            val token = newToken()
            val router = RequestRouter(token, backend)
            val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
            val counter = AtomicInteger()
            val executor = Executors.newFixedThreadPool(THREADS) { r ->
                Thread(r, "leanctx-http-$name-${counter.incrementAndGet()}").apply { isDaemon = true }
            }
            server.executor = executor
            server.createContext("/") { exchange -> serve(exchange, router) }
            server.start()
            return BackendHttpServer(server, executor, token)
        }

        private fun serve(exchange: HttpExchange, router: RequestRouter) {
            exchange.use {
                val result = try {
                    answer(exchange, router)
                } catch (e: IOException) {
                    return // the client went away mid-request: nobody to answer
                } catch (e: Throwable) {
                    // The router catches every Exception; this is an Error (say, out of
                    // memory): still answer, so the daemon does not wait for a timeout.
                    HttpResult(500, envelope("${e.javaClass.name}: ${e.message}"))
                }
                respond(exchange, result)
            }
        }

        private fun answer(exchange: HttpExchange, router: RequestRouter): HttpResult {
            val declared = exchange.requestHeaders.getFirst("Content-Length")?.toLongOrNull() ?: 0
            return router.handle(
                exchange.requestMethod,
                exchange.requestURI.path,
                exchange.requestHeaders.getFirst(RequestRouter.TOKEN_HEADER),
                exchange.requestHeaders.getFirst(RequestRouter.TIMEOUT_HEADER),
            ) { if (declared > MAX_BODY_BYTES) null else readBody(exchange) }
        }

        private fun envelope(message: String): String = WireJson.gson.toJson(ErrorEnvelope.of(ErrorCode.INTERNAL, message))

        /** The body, or null if it grows past [MAX_BODY_BYTES] (chunked uploads declare no length). */
        private fun readBody(exchange: HttpExchange): ByteArray? {
            val out = ByteArrayOutputStream()
            val buf = ByteArray(64 * 1024)
            exchange.requestBody.use { input ->
                while (true) {
                    val n = input.read(buf)
                    if (n < 0) break
                    out.write(buf, 0, n)
                    if (out.size() > MAX_BODY_BYTES) return null
                }
            }
            return out.toByteArray()
        }

        private fun respond(exchange: HttpExchange, result: HttpResult) {
            try {
                val bytes = result.body.toByteArray(Charsets.UTF_8)
                exchange.responseHeaders.set("Content-Type", "application/json; charset=utf-8")
                exchange.sendResponseHeaders(result.status, bytes.size.toLong())
                exchange.responseBody.use { it.write(bytes) }
            } catch (e: IOException) {
                return // the client hung up before the answer: nothing left to do
            }
        }
    }
}
