/**
 * The HTTP contract of docs/ide-wire.md against the real server on 127.0.0.1: every route
 * with a valid token, a missing one and a wrong one; 404s; malformed bodies; the envelope
 * and response shapes it fixes (casing quirks included); the defaults of optional request
 * fields; the one case that is a 500.
 */
package com.leanctx.core.server

import com.leanctx.core.policy.Deadline
import com.leanctx.core.support.FakeBackend
import com.leanctx.core.wire.CallDirection
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.support.Http
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.MoveRequest
import com.leanctx.core.wire.MoveTargetKind
import com.leanctx.core.wire.PositionRequest
import com.leanctx.core.wire.ReformatRequest
import com.leanctx.core.wire.ReformatScopeKind
import com.leanctx.core.wire.RenameApplyRequest
import com.leanctx.core.wire.RenamePreviewRequest
import com.leanctx.core.wire.Routes
import com.leanctx.core.wire.SafeDeleteRequest
import com.leanctx.core.wire.SearchScope
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.HierarchyDirection
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.MethodSource
import org.junit.jupiter.params.provider.ValueSource
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterHttpTest {
    private val fake = FakeBackend()
    private lateinit var server: BackendHttpServer
    private lateinit var http: Http

    @BeforeAll
    fun start() {
        server = BackendHttpServer.start(fake.backend())
        http = Http(server.port)
    }

    @AfterAll
    fun stop() = server.close()

    @BeforeEach
    fun reset() {
        fake.failWith = null
        fake.lastRequest = null
        fake.during = null
    }

    private val range = """{"start":{"line":6,"character":4},"end":{"line":6,"character":7}}"""

    /** A minimal valid body per route, and the keys its answer must have. */
    private val cases: Map<String, Pair<String, Set<String>>> = mapOf(
        Routes.REFERENCES to (position() to setOf("locations", "truncated", "total")),
        Routes.DEFINITION to (position() to setOf("locations", "truncated", "total")),
        Routes.IMPLEMENTATIONS to (position() to setOf("locations", "truncated", "total")),
        Routes.DECLARATION to (position() to setOf("locations", "truncated", "total")),
        Routes.SYMBOLS_OVERVIEW to ("""{"path":"src/Main.kt"}""" to setOf("symbols", "truncated", "total")),
        Routes.TYPE_HIERARCHY to (position() to setOf("tree", "truncated")),
        Routes.CALL_HIERARCHY to (position() to setOf("tree", "truncated")),
        Routes.INSPECTIONS to ("""{"path":"src/Main.kt"}""" to setOf("diagnostics", "truncated", "total")),
        Routes.LIST_INSPECTIONS to ("""{"path":"src/Main.kt"}""" to setOf("inspections", "truncated", "total")),
        Routes.REPLACE_SYMBOL_BODY to (edit() to setOf("applied", "newRange", "editedText")),
        Routes.INSERT_BEFORE_SYMBOL to (edit() to setOf("applied", "newRange", "editedText")),
        Routes.INSERT_AFTER_SYMBOL to (edit() to setOf("applied", "newRange", "editedText")),
        Routes.RENAME_PREVIEW to ("""{"path":"src/Main.kt","range":$range,"new_name":"execute"}""" to setOf("usages", "conflicts")),
        Routes.RENAME_APPLY to ("""{"path":"src/Main.kt","range":$range,"new_name":"execute","force":false}""" to setOf("applied", "changed_paths")),
        Routes.REFORMAT to ("""{"path":"src/Main.kt"}""" to setOf("reformatted", "path", "applied", "changed_paths")),
        Routes.MOVE_PREVIEW to ("""{"path":"src/Main.kt","range":$range,"target":{"kind":"path","path":"src/util"}}""" to setOf("usages", "conflicts")),
        Routes.MOVE_APPLY to ("""{"path":"src/Main.kt","range":$range,"target":{"kind":"path","path":"src/util"},"force":true}""" to setOf("applied", "changed_paths")),
        Routes.SAFE_DELETE_PREVIEW to ("""{"path":"src/Main.kt","range":$range}""" to setOf("usages", "conflicts")),
        Routes.SAFE_DELETE_APPLY to ("""{"path":"src/Main.kt","range":$range,"force":false,"propagate":true}""" to setOf("applied", "changed_paths")),
        Routes.INLINE_PREVIEW to ("""{"path":"src/Main.kt","range":$range}""" to setOf("usages", "conflicts")),
        Routes.INLINE_APPLY to ("""{"path":"src/Main.kt","range":$range,"keep_definition":true}""" to setOf("applied", "changed_paths")),
    )

    private fun position() = """{"path":"src/Main.kt","line":41,"character":8,"scope":"project"}"""
    private fun edit() = """{"path":"src/Main.kt","range":$range,"text":"fun run() { println(\"new\") }"}"""

    fun routes(): List<String> = Routes.POST

    @Test
    fun `every POST route of the spec has a test case`() {
        assertEquals(Routes.POST.toSet(), cases.keys)
        assertEquals(21, Routes.POST.size)
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `a route with the token answers 200 with its response shape`(route: String) {
        val (body, keys) = cases.getValue(route)
        val a = http.post(route, body, server.token)
        assertEquals(200, a.status, a.body)
        assertEquals(keys, a.obj.keySet(), a.body)
        assertEquals("application/json; charset=utf-8", a.contentType)
        assertTrue(fake.lastRequest != null, "the backend was not called")
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `the backend runs within the daemon's timeout for the route, less the margin`(route: String) {
        var budget: Duration? = null
        fake.during = { budget = Deadline.current().budget }
        assertEquals(200, http.post(route, cases.getValue(route).first, server.token).status)
        // docs/ide-wire.md, Timeouts and retries: 120 s for edits, applies and reformat, 30 s for the rest.
        val daemon = if (route.endsWith("Apply") || route.endsWith("Symbol") || route.endsWith("SymbolBody") || route == Routes.REFORMAT) 120L else 30L
        assertEquals(Duration.ofSeconds(daemon).minus(Deadline.MARGIN), budget)
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `the backend runs within the timeout the daemon announces in X-LeanCtx-Timeout-Ms, less the margin`(route: String) {
        var budget: Duration? = null
        fake.during = { budget = Deadline.current().budget }
        val announced = mapOf("X-LeanCtx-Timeout-Ms" to "45000")
        assertEquals(200, http.post(route, cases.getValue(route).first, server.token, announced).status)
        assertEquals(Duration.ofSeconds(43), budget)
        // A value the plugin cannot believe is the route's default, as without the header.
        assertEquals(200, http.post(route, cases.getValue(route).first, server.token, mapOf("X-LeanCtx-Timeout-Ms" to "soon")).status)
        assertEquals(Deadline.budget(route), budget)
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `a route without the token is 401 UNAUTHORIZED and never reaches the backend`(route: String) {
        val a = http.post(route, cases.getValue(route).first, null)
        assertEquals(401, a.status)
        assertEquals("UNAUTHORIZED", a.errorCode)
        assertEquals(null, fake.lastRequest)
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `a route with a wrong token is 401 UNAUTHORIZED`(route: String) {
        val wrong = server.token.substring(0, 63) + (if (server.token.endsWith("0")) "1" else "0")
        for (token in listOf(wrong, "", server.token.uppercase().takeIf { it != server.token } ?: "x")) {
            val a = http.post(route, cases.getValue(route).first, token)
            assertEquals(401, a.status, "token '$token'")
            assertEquals("UNAUTHORIZED", a.errorCode)
        }
        assertEquals(null, fake.lastRequest)
    }

    @ParameterizedTest
    @MethodSource("routes")
    fun `a route with an empty object body is 200 INTERNAL`(route: String) {
        val a = http.post(route, "{}", server.token)
        assertEquals(200, a.status)
        assertEquals("INTERNAL", a.errorCode, a.body)
        assertEquals(null, fake.lastRequest)
    }

    @ParameterizedTest
    @ValueSource(strings = ["", "not json", "[1,2]", "\"path\"", "{\"path\":", "null"])
    fun `a malformed body is 200 INTERNAL`(body: String) {
        val a = http.post(Routes.REFERENCES, body, server.token)
        assertEquals(200, a.status)
        assertEquals("INTERNAL", a.errorCode)
        assertTrue(a.obj.getAsJsonObject("error").get("message").asString.contains("malformed"), a.body)
    }

    @ParameterizedTest
    @ValueSource(
        strings = [
            """{"line":1,"character":0}""",
            """{"path":"a.kt","character":0}""",
            """{"path":"a.kt","line":-1,"character":0}""",
            """{"path":"a.kt","line":1.5,"character":0}""",
            """{"path":"a.kt","line":"1","character":0}""",
            """{"path":"","line":1,"character":0}""",
            """{"path":7,"line":1,"character":0}""",
            """{"path":"a.kt","line":1,"character":0,"scope":"galaxy"}""",
        ],
    )
    fun `a missing or mistyped field is 200 INTERNAL naming the field`(body: String) {
        val a = http.post(Routes.REFERENCES, body, server.token)
        assertEquals(200, a.status)
        assertEquals("INTERNAL", a.errorCode, a.body)
        assertTrue(a.obj.getAsJsonObject("error").get("message").asString.contains("field '"), a.body)
    }

    @Test
    fun `a body that is not UTF-8 is 200 INTERNAL`() {
        val a = http.post(Routes.SYMBOLS_OVERVIEW, String(byteArrayOf(0x7b, 0xff.toByte(), 0x7d), Charsets.ISO_8859_1), server.token)
        assertEquals(200, a.status)
        assertEquals("INTERNAL", a.errorCode)
    }

    @Test
    fun `unknown routes and wrong methods are 404 NOT_FOUND`() {
        for ((method, path) in listOf("POST" to "/nope", "GET" to Routes.REFERENCES, "POST" to Routes.HEALTH, "PUT" to Routes.RENAME_APPLY, "POST" to "/references/", "POST" to "/")) {
            val a = http.send(method, path, "{}", server.token)
            assertEquals(404, a.status, "$method $path")
            assertEquals("NOT_FOUND", a.errorCode)
            assertTrue(a.obj.getAsJsonObject("error").get("message").asString.contains(path))
        }
    }

    @Test
    fun `an unknown route without a token is 401, so routes cannot be probed`() {
        val a = http.post("/nope", "{}", null)
        assertEquals(401, a.status)
        assertEquals("UNAUTHORIZED", a.errorCode)
    }

    @Test
    fun `health needs the token like every route and answers camelCase`() {
        val a = http.get(Routes.HEALTH, server.token)
        assertEquals(200, a.status)
        assertEquals("""{"status":"ok","ideVersion":"IU-2024.2.4","project":"demo"}""", a.body)
        for (token in listOf(null, "wrong")) {
            val refused = http.get(Routes.HEALTH, token)
            assertEquals(401, refused.status, "token $token")
            assertEquals("UNAUTHORIZED", refused.errorCode)
            assertFalse(refused.body.contains("IU-2024.2.4"), refused.body)
        }
    }

    @Test
    fun `envelopes are exactly error code and message`() {
        fake.failWith = LeanCtxException(ErrorCode.INDEXING, "indexing, 40%")
        val a = http.post(Routes.REFERENCES, position(), server.token)
        assertEquals(200, a.status)
        assertEquals("""{"error":{"code":"INDEXING","message":"indexing, 40%"}}""", a.body)
        for (code in ErrorCode.values()) {
            fake.failWith = LeanCtxException(code, "m")
            assertEquals("""{"error":{"code":"${code.wire}","message":"m"}}""", http.post(Routes.DEFINITION, position(), server.token).body)
        }
        fake.failWith = null
        val unauthorized = http.post(Routes.REFERENCES, position(), null)
        assertEquals(setOf("error"), unauthorized.obj.keySet())
        assertEquals(setOf("code", "message"), unauthorized.obj.getAsJsonObject("error").keySet())
    }

    @Test
    fun `an IllegalArgumentException from the backend is 200 INTERNAL, anything else unexpected 500 INTERNAL`() {
        fake.failWith = IllegalArgumentException("bad offset")
        val a = http.post(Routes.REFERENCES, position(), server.token)
        assertEquals(200, a.status)
        assertEquals("INTERNAL", a.errorCode)
        fake.failWith = IllegalStateException("boom")
        val b = http.post(Routes.REFERENCES, position(), server.token)
        assertEquals(500, b.status)
        assertEquals("INTERNAL", b.errorCode)
        assertTrue(b.body.contains("boom"))
        fake.failWith = null
        assertEquals(200, http.post(Routes.REFERENCES, position(), server.token).status, "the server survives")
    }

    @Test
    fun `response bodies follow the wire's casing and keep HTML characters raw`() {
        val edit = http.post(Routes.REPLACE_SYMBOL_BODY, """{"path":"a.kt","range":$range,"text":"a < b && c > d = e"}""", server.token).obj
        assertEquals("a < b && c > d = e", edit.get("editedText").asString)
        assertEquals(setOf("start", "end"), edit.getAsJsonObject("newRange").keySet())
        val preview = http.post(Routes.RENAME_PREVIEW, cases.getValue(Routes.RENAME_PREVIEW).first, server.token)
        assertTrue(preview.body.contains("\"message\":\"<rename> conflict\""), preview.body)
        assertTrue(!preview.body.contains("\"range\":null"), "absent optional fields are omitted")
        val symbols = http.post(Routes.SYMBOLS_OVERVIEW, """{"path":"src/Main.kt"}""", server.token)
        assertEquals("""{"symbols":[{"name":"Main","kind":"class","line":3},{"name":"run","kind":"method","line":7}],"truncated":false,"total":2}""", symbols.body)
        val reformat = http.post(Routes.REFORMAT, """{"path":"src/Main.kt"}""", server.token)
        assertEquals("""{"reformatted":true,"path":"src/Main.kt","applied":true,"changed_paths":["src/Main.kt"]}""", reformat.body)
    }

    @Test
    fun `optional fields take WIRE defaults and explicit nulls count as absent`() {
        http.post(Routes.REFERENCES, """{"path":"a.kt","line":1,"character":2}""", server.token)
        assertEquals(PositionRequest("a.kt", 1, 2, SearchScope.PROJECT), fake.lastRequest)
        http.post(Routes.REFERENCES, """{"path":"a.kt","line":1,"character":2,"scope":"all"}""", server.token)
        assertEquals(SearchScope.ALL, (fake.lastRequest as PositionRequest).scope)
        http.post(Routes.TYPE_HIERARCHY, """{"path":"a.kt","line":1,"character":2,"direction":null}""", server.token)
        assertEquals(HierarchyDirection.SUPERTYPES, (fake.lastRequest as TypeHierarchyRequest).direction)
        http.post(Routes.TYPE_HIERARCHY, """{"path":"a.kt","line":1,"character":2,"direction":"subtypes"}""", server.token)
        assertEquals(HierarchyDirection.SUBTYPES, (fake.lastRequest as TypeHierarchyRequest).direction)
        http.post(Routes.RENAME_PREVIEW, """{"path":"a.kt","range":$range,"new_name":"x"}""", server.token)
        val rename = fake.lastRequest as RenamePreviewRequest
        assertEquals(false, rename.searchComments)
        assertEquals(false, rename.searchTextOccurrences)
        http.post(Routes.RENAME_APPLY, """{"path":"a.kt","range":$range,"new_name":"x"}""", server.token)
        assertEquals(false, (fake.lastRequest as RenameApplyRequest).searchComments)
        http.post(Routes.RENAME_APPLY, """{"path":"a.kt","range":$range,"new_name":"x","search_comments":true,"search_text_occurrences":true}""", server.token)
        val renameApply = fake.lastRequest as RenameApplyRequest
        assertEquals(true, renameApply.searchComments)
        assertEquals(true, renameApply.searchTextOccurrences)
        http.post(Routes.SAFE_DELETE_APPLY, """{"path":"a.kt","range":$range}""", server.token)
        assertEquals(SafeDeleteRequest("a.kt", (fake.lastRequest as SafeDeleteRequest).range, false, false), fake.lastRequest)
        http.post(Routes.REFORMAT, """{"path":"a.kt","scope":{"kind":"region","range":$range},"optimize_imports":true}""", server.token)
        val reformat = fake.lastRequest as ReformatRequest
        assertEquals(ReformatScopeKind.REGION, reformat.scope.kind)
        assertEquals(true, reformat.optimizeImports)
        http.post(Routes.MOVE_PREVIEW, """{"path":"a.kt","range":$range,"target":{"kind":"parent","path":"b.kt","range":$range}}""", server.token)
        val move = fake.lastRequest as MoveRequest
        assertEquals(MoveTargetKind.PARENT, move.target.kind)
        assertEquals(false, move.force)
    }

    @Test
    fun `call_hierarchy takes direction, depth and scope with defaults, and answers a tree with call sites`() {
        val answer = http.post(Routes.CALL_HIERARCHY, """{"path":"a.kt","line":1,"character":2}""", server.token)
        assertEquals(CallHierarchyRequest("a.kt", 1, 2, CallDirection.INCOMING, 1, SearchScope.PROJECT), fake.lastRequest)
        val site = """{"start":{"line":41,"character":8},"end":{"line":41,"character":14}}"""
        assertEquals(
            """{"tree":{"name":"run","kind":"method","path":"src/Main.kt","range":$site,"sites":[],"children":[""" +
                """{"name":"caller","kind":"function","path":"src/Main.kt","range":{"start":{"line":44,"character":4},"end":{"line":44,"character":10}},""" +
                """"sites":[$site],"children":[]}]},"truncated":false}""",
            answer.body,
        )
        http.post(Routes.CALL_HIERARCHY, """{"path":"a.kt","line":1,"character":2,"direction":"outgoing","depth":3,"scope":"all"}""", server.token)
        assertEquals(CallHierarchyRequest("a.kt", 1, 2, CallDirection.OUTGOING, 3, SearchScope.ALL), fake.lastRequest)
        // As the daemon reads its own depth: 0 is one level, more than five is five.
        for ((asked, taken) in listOf(0 to 1, 9 to CallHierarchyRequest.MAX_CALL_DEPTH)) {
            http.post(Routes.CALL_HIERARCHY, """{"path":"a.kt","line":1,"character":2,"depth":$asked}""", server.token)
            assertEquals(taken, (fake.lastRequest as CallHierarchyRequest).depth)
        }
        for (bad in listOf(""""direction":"sideways"""", """"depth":-1""", """"depth":"2"""")) {
            val refused = http.post(Routes.CALL_HIERARCHY, """{"path":"a.kt","line":1,"character":2,$bad}""", server.token)
            assertEquals(ErrorCode.INTERNAL.wire, refused.errorCode, bad)
        }
    }

    @Test
    fun `unknown move and reformat kinds are INVALID_TARGET, an inverted range POSITION_OUT_OF_RANGE`() {
        val badMoves = listOf(
            """{"path":"a.kt","range":$range,"target":{"kind":"sideways","path":"b"}}""",
            """{"path":"a.kt","range":$range}""",
            """{"path":"a.kt","range":$range,"target":{"kind":"path"}}""",
            """{"path":"a.kt","range":$range,"target":{"kind":"parent","path":"b.kt"}}""",
        )
        for (body in badMoves) assertEquals("INVALID_TARGET", http.post(Routes.MOVE_APPLY, body, server.token).errorCode, body)
        for (scope in listOf("""{"kind":"page"}""", """{"kind":"region"}""", """{"kind":"symbol"}""")) {
            assertEquals("INVALID_TARGET", http.post(Routes.REFORMAT, """{"path":"a.kt","scope":$scope}""", server.token).errorCode, scope)
        }
        val inverted = """{"start":{"line":6,"character":4},"end":{"line":5,"character":7}}"""
        val a = http.post(Routes.INLINE_PREVIEW, """{"path":"a.kt","range":$inverted}""", server.token)
        assertEquals(200, a.status)
        assertEquals("POSITION_OUT_OF_RANGE", a.errorCode)
    }

    @Test
    fun `the token is 64 hex chars, fresh per server, and the server listens on loopback only`() {
        assertTrue(Regex("[0-9a-f]{64}").matches(server.token), server.token)
        BackendHttpServer.start(FakeBackend().backend()).use { other ->
            assertNotEquals(server.token, other.token)
            assertNotEquals(server.port, other.port)
            assertEquals(401, Http(other.port).post(Routes.REFERENCES, position(), server.token).status)
        }
        assertTrue(server.boundAddress.address.isLoopbackAddress, "${server.boundAddress}")
    }

    @Test
    fun `requests are served concurrently`() {
        // The first request is held inside its handler until the second one has reached
        // its own: a server that serves one request at a time never lets it through.
        // The timeout only bounds the failure.
        val firstArrived = CountDownLatch(1)
        val secondArrived = CountDownLatch(1)
        val firstSawSecond = AtomicBoolean(false)
        fake.during = { request ->
            when ((request as PositionRequest).path) {
                "first.kt" -> {
                    firstArrived.countDown()
                    firstSawSecond.set(secondArrived.await(10, TimeUnit.SECONDS))
                }
                "second.kt" -> secondArrived.countDown()
            }
        }
        val pool = Executors.newFixedThreadPool(8)
        try {
            val first = pool.submit<Int> { http.post(Routes.REFERENCES, """{"path":"first.kt","line":1,"character":0}""", server.token).status }
            assertTrue(firstArrived.await(30, TimeUnit.SECONDS), "the first request never reached its handler")
            val second = pool.submit<Int> { http.post(Routes.REFERENCES, """{"path":"second.kt","line":1,"character":0}""", server.token).status }
            assertEquals(200, second.get(60, TimeUnit.SECONDS))
            assertEquals(200, first.get(60, TimeUnit.SECONDS))
            assertTrue(firstSawSecond.get(), "the second request was served only after the first")

            fake.during = null
            val statuses = (1..80).map { i ->
                pool.submit<Int> { http.post(Routes.REFERENCES, """{"path":"f$i.kt","line":$i,"character":0}""", server.token).status }
            }.map { it.get(30, TimeUnit.SECONDS) }
            assertEquals(List(80) { 200 }, statuses)
        } finally {
            pool.shutdownNow()
        }
    }
}
