/**
 * Exclusive creation of a temp file beside the file it will replace (same file system,
 * so the final rename is atomic), shared by the source-file writer and the port-file
 * writer. Names carry the writer's pid so a sweep can tell a dead writer's leftovers.
 */
package com.leanctx.core.files

import java.nio.file.FileAlreadyExistsException
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.FileAttribute

object TempFiles {
    /** Creates `dir/name(n)` for the first free n; [attrs] apply at creation, before any content. */
    fun createBeside(dir: Path, name: (Int) -> String, vararg attrs: FileAttribute<*>): Path {
        for (n in 0..1000) {
            try {
                return Files.createFile(dir.resolve(name(n)), *attrs)
            } catch (e: FileAlreadyExistsException) {
                continue // another write of ours is in flight: take the next number
            }
        }
        throw FileAlreadyExistsException(dir.resolve(name(0)).toString(), null, "no free temp file name")
    }
}
