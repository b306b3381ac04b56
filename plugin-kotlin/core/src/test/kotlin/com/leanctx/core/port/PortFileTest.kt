/**
 * The port file (docs/ide-wire.md, Port file): its name from the projecthash (with the
 * parity vector the Rust side checks too), its exact keys and types, mode 0600, the
 * atomic write (a concurrent reader never sees a partial file), the reaper, and a
 * session's life: written on start, re-written when deleted, deleted on close. (The data
 * dir rule: `DataDirTest`.)
 */
package com.leanctx.core.port

import com.google.gson.JsonParser
import com.leanctx.core.support.FakeBackend
import com.leanctx.core.support.Http
import com.leanctx.core.wire.Routes
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.net.ConnectException
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

class PortFileTest {
    @TempDir
    lateinit var tmp: Path

    private val sample = PortFile(43117, "ab".repeat(32), 4242, "/some/project", "IU-2024.2.4", 1_760_000_000_000)

    @Test
    fun `projecthash parity vector`() {
        assertEquals("a0317725f24b01df", ProjectHash.of(Path.of("/some/project")))
        assertEquals("/some/project", ProjectHash.canonical(Path.of("/some/project")))
    }

    @Test
    fun `a root is folded before it is hashed`() {
        for (spelling in listOf("/some/project/", "/some/./project", "/some/other/../project", "//some//project")) {
            assertEquals("a0317725f24b01df", ProjectHash.of(Path.of(spelling)), spelling)
        }
        assertNotEquals("a0317725f24b01df", ProjectHash.of(Path.of("/some/project2")))
    }

    @Test
    fun `an existing root is hashed through its symlinks, as Rust's canonicalize does`() {
        val real = Files.createDirectories(tmp.resolve("real/project"))
        val link = Files.createSymbolicLink(tmp.resolve("link"), real.parent)
        val viaLink = link.resolve("project")
        assertEquals(real.toRealPath().toString(), ProjectHash.canonical(viaLink))
        assertEquals(ProjectHash.of(real), ProjectHash.of(viaLink))
        assertTrue(Regex("[0-9a-f]{16}").matches(ProjectHash.of(real)))
    }

    @Test
    fun `a Windows verbatim prefix is dropped`() {
        assertEquals("""C:\work\p""", ProjectHash.stripVerbatimPrefix("""\\?\C:\work\p"""))
        assertEquals("""\\srv\share\p""", ProjectHash.stripVerbatimPrefix("""\\?\UNC\srv\share\p"""))
        assertEquals("/some/project", ProjectHash.stripVerbatimPrefix("/some/project"))
    }

    @Test
    fun `the port file is named by the projecthash in the data dir`() {
        assertEquals(tmp.resolve("jetbrains-a0317725f24b01df.port"), PortFiles.path(tmp, Path.of("/some/project")))
    }

    @Test
    fun `the port file holds exactly the six keys, typed as WIRE says, with mode 0600`() {
        val target = tmp.resolve("data/jetbrains-a0317725f24b01df.port")
        PortFiles.write(target, sample)
        val json = JsonParser.parseString(Files.readString(target)).asJsonObject
        assertEquals(setOf("port", "token", "pid", "project_root", "ide_version", "started_at"), json.keySet())
        assertEquals(43117, json.get("port").asInt)
        assertTrue(json.get("port").asJsonPrimitive.isNumber && json.get("pid").asJsonPrimitive.isNumber && json.get("started_at").asJsonPrimitive.isNumber)
        assertTrue(json.get("token").asJsonPrimitive.isString && json.get("project_root").asJsonPrimitive.isString && json.get("ide_version").asJsonPrimitive.isString)
        assertEquals(1_760_000_000_000, json.get("started_at").asLong)
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target.parent)), "the data dir it created")
        assertEquals(sample, PortFiles.read(target))
        assertEquals(listOf(target.fileName.toString()), Files.list(target.parent).map { it.fileName.toString() }.toList(), "no temp file left")
    }

    @Test
    fun `a rewrite replaces a looser file with a 0600 one`() {
        val target = tmp.resolve("jetbrains-x.port")
        Files.writeString(target, "old")
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"))
        PortFiles.write(target, sample)
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        assertEquals(sample, PortFiles.read(target))
    }

    @Test
    fun `a concurrent reader never sees a partial or missing port file`() {
        val target = tmp.resolve("jetbrains-race.port")
        PortFiles.write(target, sample)
        val stop = AtomicBoolean(false)
        val bad = AtomicInteger()
        val reads = AtomicInteger()
        val reader = Thread {
            while (!stop.get()) {
                if (PortFiles.read(target) == null) bad.incrementAndGet()
                reads.incrementAndGet()
            }
        }
        reader.start()
        repeat(300) { i -> PortFiles.write(target, sample.copy(port = 1000 + i, ideVersion = "v".repeat(i % 50))) }
        stop.set(true)
        reader.join()
        assertEquals(0, bad.get(), "of ${reads.get()} reads")
        assertTrue(reads.get() > 0)
    }

    @Test
    fun `unreadable or incomplete port files read as null`() {
        val f = tmp.resolve("jetbrains-bad.port")
        for (content in listOf("", "{", "[]", """{"port":1,"token":"t"}""", """{"port":"x","token":"t","pid":1,"project_root":"/","ide_version":"v","started_at":1}""")) {
            Files.writeString(f, content)
            assertNull(PortFiles.read(f), content)
        }
        assertNull(PortFiles.read(tmp.resolve("missing.port")))
    }

    @Test
    fun `the reaper deletes port files and temp files of dead pids only`() {
        val deadPid = deadPid()
        val me = ProcessHandle.current().pid()
        val dead = tmp.resolve("jetbrains-dead.port").also { PortFiles.write(it, sample.copy(pid = deadPid)) }
        val live = tmp.resolve("jetbrains-live.port").also { PortFiles.write(it, sample.copy(pid = me)) }
        val garbled = tmp.resolve("jetbrains-garbled.port").also { Files.writeString(it, "not json") }
        val deadTemp = tmp.resolve(".jetbrains-dead.port.$deadPid.0.tmp").also { Files.writeString(it, "{") }
        val liveTemp = tmp.resolve(".jetbrains-live.port.$me.0.tmp").also { Files.writeString(it, "{") }
        val other = tmp.resolve("stats.json").also { Files.writeString(it, "{}") }
        val reaped = PortFiles.reap(tmp)
        assertEquals(setOf(dead, deadTemp), reaped.toSet())
        for (kept in listOf(live, garbled, liveTemp, other)) assertTrue(Files.exists(kept), "$kept")
        assertEquals(emptyList<Path>(), PortFiles.reap(tmp.resolve("no-such-dir")))
    }

    @Test
    fun `a session writes its port file, re-writes it when deleted, and deletes it on close`() {
        val root = Files.createDirectories(tmp.resolve("project"))
        val dataDir = tmp.resolve("data")
        val session = ProjectSession.start(SessionConfig(root, dataDir, keepEvery = Duration.ofMillis(50)), FakeBackend().backend(ideVersion = "IC-2024.2"))
        val portFile = PortFiles.path(dataDir, root)
        try {
            assertEquals(portFile, session.portFile)
            val content = PortFiles.read(portFile)!!
            assertEquals(session.port, content.port)
            assertEquals(session.token, content.token)
            assertEquals(ProcessHandle.current().pid(), content.pid)
            assertEquals(root.toRealPath().toString(), content.projectRoot)
            assertEquals("IC-2024.2", content.ideVersion)
            assertTrue(System.currentTimeMillis() - content.startedAt in 0..60_000)
            assertEquals(200, Http(content.port).get(Routes.HEALTH, content.token).status)

            Files.delete(portFile)
            assertTrue(waitFor { Files.exists(portFile) }, "port file not re-written")
            assertEquals(content, PortFiles.read(portFile))
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(portFile)))
        } finally {
            session.close()
        }
        assertFalse(Files.exists(portFile))
        Thread.sleep(150)
        assertFalse(Files.exists(portFile), "re-written after close")
        assertThrows<ConnectException> { Http(session.port).get(Routes.HEALTH) }
        session.close() // idempotent
    }

    @Test
    fun `closing leaves a port file that another instance has since written`() {
        val root = Files.createDirectories(tmp.resolve("p"))
        val dataDir = tmp.resolve("data")
        val session = ProjectSession.start(SessionConfig(root, dataDir), FakeBackend().backend())
        val theirs = sample.copy(token = "cd".repeat(32), pid = ProcessHandle.current().pid())
        PortFiles.write(session.portFile, theirs)
        session.close()
        assertEquals(theirs, PortFiles.read(session.portFile))
    }

    @Test
    fun `a detached close deletes the port file at once and stops the server only on the background executor`() {
        val root = Files.createDirectories(tmp.resolve("p"))
        val dataDir = tmp.resolve("data")
        val session = ProjectSession.start(SessionConfig(root, dataDir), FakeBackend().backend())
        val background = ArrayList<Runnable>()
        try {
            session.closeDetached { background.add(it) }
            assertFalse(Files.exists(session.portFile), "port file still there after a detached close")
            // The caller's thread did not stop the server: a handler could still finish.
            assertEquals(200, Http(session.port).get(Routes.HEALTH, session.token).status)
            assertEquals(1, background.size)
        } finally {
            background.forEach { it.run() }
            session.close() // a no-op after closeDetached; stops the server if the test failed early
        }
        assertThrows<ConnectException> { Http(session.port).get(Routes.HEALTH) }
    }

    @Test
    fun `starting a session reaps port files of dead IDEs`() {
        val dataDir = Files.createDirectories(tmp.resolve("data"))
        val stale = dataDir.resolve("jetbrains-0000000000000000.port").also { PortFiles.write(it, sample.copy(pid = deadPid())) }
        ProjectSession.start(SessionConfig(Files.createDirectories(tmp.resolve("p")), dataDir), FakeBackend().backend()).use {
            assertFalse(Files.exists(stale))
        }
    }

    private fun waitFor(condition: () -> Boolean): Boolean {
        val deadline = System.nanoTime() + 5_000_000_000
        while (System.nanoTime() < deadline) {
            if (condition()) return true
            Thread.sleep(10)
        }
        return false
    }

    /** The pid of a process that has exited (and been reaped). */
    private fun deadPid(): Long {
        val p = ProcessBuilder("true").start()
        p.waitFor()
        return p.pid()
    }
}
