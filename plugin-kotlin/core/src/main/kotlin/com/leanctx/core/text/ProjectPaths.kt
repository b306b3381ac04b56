/**
 * The plugin's side of the path jail: a wire path is relative to the project root (or
 * absolute inside it); anything that resolves outside the root, lexically or through a
 * symlink, is refused before a file is touched. Answers name files relative to the root
 * with `/` separators (docs/ide-wire.md, Positions and paths).
 */
package com.leanctx.core.text

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import java.io.IOException
import java.nio.file.Files
import java.nio.file.InvalidPathException
import java.nio.file.Path

class ProjectPaths(root: Path) {
    /** The root as given (an IDE names files under its project's base path as given). */
    val root: Path = root.toAbsolutePath().normalize()

    /** The root with symlinks resolved, so symlinked files are judged by where they really are. */
    val realRoot: Path = try {
        this.root.toRealPath()
    } catch (e: IOException) {
        this.root
    }

    /**
     * The real path of [wirePath], which must exist inside the root.
     *
     * @throws LeanCtxException `FILE_NOT_FOUND` for a path that is outside the root,
     *   malformed or missing
     */
    fun resolveExisting(wirePath: String): Path {
        val lexical = resolveLexically(wirePath)
        val real = try {
            lexical.toRealPath()
        } catch (e: IOException) {
            throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: no such file in the project")
        }
        if (!real.startsWith(realRoot)) {
            throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: resolves outside the project root (through a symlink)")
        }
        if (!Files.isRegularFile(real)) throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: not a regular file")
        return real
    }

    /**
     * [wirePath] against the root, `.` and `..` folded, refused if that leaves the root.
     * The file need not exist (a move target, say).
     */
    fun resolveLexically(wirePath: String): Path {
        val p = try {
            Path.of(wirePath)
        } catch (e: InvalidPathException) {
            throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: not a valid path")
        }
        val abs = (if (p.isAbsolute) p else root.resolve(p)).normalize()
        if (!abs.startsWith(root) && !abs.startsWith(realRoot)) throw LeanCtxException(ErrorCode.FILE_NOT_FOUND, "$wirePath: outside the project root $root")
        return abs
    }

    /**
     * [file] as a wire path: relative and `/`-separated inside the root; outside it (a
     * library source with scope `all`) absolute, for the daemon's jail to judge.
     */
    fun toWire(file: Path): String {
        val abs = file.toAbsolutePath().normalize()
        return when {
            abs.startsWith(root) -> root.relativize(abs).joinToString("/")
            abs.startsWith(realRoot) -> realRoot.relativize(abs).joinToString("/")
            else -> abs.toString()
        }
    }

    /** Whether [file] lies under the root, as given or with symlinks resolved (lexically: it need not exist). */
    fun isInside(file: Path): Boolean {
        val abs = file.toAbsolutePath().normalize()
        return abs.startsWith(root) || abs.startsWith(realRoot)
    }
}
