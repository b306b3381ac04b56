/**
 * A [DocumentStore] on plain files, for the contract double: edits really write, the way
 * the daemon's headless writer does (ARCHITECTURE.md: a write is all or nothing). Under a
 * per-file lock: read, plan, then write a temp file beside the target with the target's
 * mode, fsync, rename over it, fsync the directory. A reader sees the old file or the new
 * one.
 *
 * Text is UTF-8; a BOM is kept but, as in an IntelliJ `Document`, is not part of the
 * text positions count in. A file that is not valid UTF-8 is refused rather than
 * silently rewritten with replacement characters.
 */
package com.leanctx.core.files

import com.leanctx.core.api.DocumentStore
import com.leanctx.core.text.ProjectPaths
import com.leanctx.core.text.TextChanges
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import java.io.IOException
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.nio.file.StandardOpenOption
import java.nio.file.attribute.PosixFileAttributeView
import java.util.concurrent.ConcurrentHashMap

class FileDocumentStore(private val paths: ProjectPaths) : DocumentStore {
    private val locks = ConcurrentHashMap<Path, Any>()

    override fun <T> edit(path: String, plan: (text: String) -> DocumentStore.Planned<T>): T {
        val file = paths.resolveExisting(path)
        synchronized(locks.computeIfAbsent(file) { Any() }) {
            val bytes = try {
                Files.readAllBytes(file)
            } catch (e: IOException) {
                throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$path: ${e.message}")
            }
            val bom = bytes.size >= 3 && bytes[0] == 0xEF.toByte() && bytes[1] == 0xBB.toByte() && bytes[2] == 0xBF.toByte()
            val text = decode(bytes, if (bom) 3 else 0, path)
            val planned = plan(text)
            val updated = TextChanges.apply(text, planned.changes)
            val out = updated.toByteArray(Charsets.UTF_8)
            writeAtomically(file, if (bom) BOM + out else out)
            return planned.result
        }
    }

    private fun decode(bytes: ByteArray, from: Int, path: String): String = try {
        Charsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes, from, bytes.size - from))
            .toString()
    } catch (e: CharacterCodingException) {
        throw LeanCtxException(ErrorCode.INTERNAL, "$path is not UTF-8 text; file untouched")
    }

    companion object {
        private val BOM = byteArrayOf(0xEF.toByte(), 0xBB.toByte(), 0xBF.toByte())

        /**
         * Replaces [file] with [content] through `.<name>.lean-ctx.<pid>.<n>.tmp` beside it
         * (the daemon's temp-file name, so its stale-temp sweep recognises ours), keeping
         * the file's POSIX permissions.
         */
        fun writeAtomically(file: Path, content: ByteArray) {
            val dir = file.parent
            val pid = ProcessHandle.current().pid()
            val tmp = try {
                TempFiles.createBeside(dir, { n -> ".${file.fileName}.lean-ctx.$pid.$n.tmp" })
            } catch (e: IOException) {
                throw LeanCtxException(ErrorCode.INTERNAL, "writing ${file.fileName}: ${e.message}; file untouched")
            }
            try {
                val posix = Files.getFileAttributeView(file, PosixFileAttributeView::class.java)
                if (posix != null) Files.setPosixFilePermissions(tmp, posix.readAttributes().permissions())
                FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING).use { ch ->
                    val buf = ByteBuffer.wrap(content)
                    while (buf.hasRemaining()) ch.write(buf)
                    ch.force(true)
                }
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE)
            } catch (e: IOException) {
                Files.deleteIfExists(tmp)
                throw LeanCtxException(ErrorCode.INTERNAL, "writing ${file.fileName}: ${e.message}; file untouched")
            }
            syncDirectory(dir)
        }

        /** Makes the rename durable; not every platform can open a directory, and then the rename stands unsynced. */
        private fun syncDirectory(dir: Path) {
            try {
                FileChannel.open(dir, StandardOpenOption.READ).use { it.force(true) }
            } catch (e: IOException) {
                return
            }
        }
    }
}
