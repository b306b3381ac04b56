/**
 * The port file `<data dir>/jetbrains-<projecthash>.port` (docs/ide-wire.md, Port file):
 * how the daemon finds a project's IDE server. This file owns its JSON shape, its atomic,
 * owner-only write, and the sweep that removes the files of IDEs that died without
 * cleaning up.
 */
package com.leanctx.core.port

import com.google.gson.JsonParseException
import com.google.gson.JsonParser
import com.google.gson.annotations.SerializedName
import com.leanctx.core.files.TempFiles
import com.leanctx.core.wire.WireJson
import java.io.IOException
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.nio.file.StandardOpenOption
import java.nio.file.attribute.FileAttribute
import java.nio.file.attribute.PosixFilePermissions

/** The keys the daemon reads, snake_case; [startedAt] is epoch milliseconds. */
data class PortFile(
    val port: Int,
    /** 64 hex chars, sent back in `X-LeanCtx-Token`. */
    val token: String,
    val pid: Long,
    @SerializedName("project_root") val projectRoot: String,
    @SerializedName("ide_version") val ideVersion: String,
    @SerializedName("started_at") val startedAt: Long,
)

object PortFiles {
    private const val PREFIX = "jetbrains-"
    private const val SUFFIX = ".port"

    fun path(dataDir: Path, projectRoot: Path): Path = dataDir.resolve("$PREFIX${ProjectHash.of(projectRoot)}$SUFFIX")

    /**
     * Writes [content] to [target] so that no reader ever sees a partial file or a file
     * others can read: a temp file in the same directory is created with mode 0600
     * (before a byte of the token is in it), filled, fsynced, then atomically renamed
     * over [target]. The temp file's name carries our pid so [reap] can remove what a
     * crash mid-write left behind.
     */
    fun write(target: Path, content: PortFile) {
        val dir = target.toAbsolutePath().parent
        val posix = dir.fileSystem.supportedFileAttributeViews().contains("posix")
        // A data dir we create is ours alone (0700), as the daemon creates it: no one
        // else has a reason to list it or plant files in it.
        val privateDir: Array<FileAttribute<*>> =
            if (posix) arrayOf(PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))) else emptyArray()
        Files.createDirectories(dir, *privateDir)
        val ownerOnly = PosixFilePermissions.fromString("rw-------")
        val attrs: Array<FileAttribute<*>> = if (posix) arrayOf(PosixFilePermissions.asFileAttribute(ownerOnly)) else emptyArray()
        val pid = ProcessHandle.current().pid()
        val tmp = TempFiles.createBeside(dir, { n -> ".${target.fileName}.$pid.$n.tmp" }, *attrs)
        try {
            // The create-time mode is filtered by the umask, which could only narrow it;
            // setting it again makes it exactly 0600 whatever the umask.
            if (posix) Files.setPosixFilePermissions(tmp, ownerOnly)
            FileChannel.open(tmp, StandardOpenOption.WRITE).use { ch ->
                val buf = ByteBuffer.wrap(WireJson.gson.toJson(content).toByteArray(Charsets.UTF_8))
                while (buf.hasRemaining()) ch.write(buf)
                ch.force(true)
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE)
        } catch (e: IOException) {
            Files.deleteIfExists(tmp)
            throw e
        }
    }

    /** The port file at [path], or null if it is missing or not a port file. */
    fun read(path: Path): PortFile? = try {
        val obj = JsonParser.parseString(Files.readString(path))
        // Gson would fill missing keys with nulls behind Kotlin's back: check them first.
        if (obj.isJsonObject && REQUIRED.all { obj.asJsonObject.get(it)?.isJsonPrimitive == true }) {
            WireJson.gson.fromJson(obj, PortFile::class.java)
        } else {
            null
        }
    } catch (e: IOException) {
        null
    } catch (e: JsonParseException) {
        null
    } catch (e: NumberFormatException) {
        null
    }

    private val REQUIRED = listOf("port", "token", "pid", "project_root", "ide_version", "started_at")

    /**
     * Deletes the port files in [dataDir] whose pid is no longer alive, and our temp
     * files left by dead writers. A port file that does not parse is left alone: it is
     * not ours to judge. Returns what it deleted.
     */
    fun reap(dataDir: Path, alive: (Long) -> Boolean = ::pidAlive): List<Path> {
        if (!Files.isDirectory(dataDir)) return emptyList()
        val deleted = ArrayList<Path>()
        Files.newDirectoryStream(dataDir).use { entries ->
            for (entry in entries) {
                val name = entry.fileName.toString()
                val pid = when {
                    name.startsWith(PREFIX) && name.endsWith(SUFFIX) -> read(entry)?.pid
                    name.startsWith(".$PREFIX") && name.endsWith(".tmp") ->
                        name.removeSuffix(".tmp").split('.').getOrNull(3)?.toLongOrNull()
                    else -> null
                } ?: continue
                if (!alive(pid) && Files.deleteIfExists(entry)) deleted.add(entry)
            }
        }
        return deleted
    }

    fun pidAlive(pid: Long): Boolean = ProcessHandle.of(pid).map { it.isAlive }.orElse(false)
}
