/**
 * The projecthash that keys a project's port file (docs/ide-wire.md, Project hash):
 * `hex(sha256(utf8(canonical(root)))[0..8])`, 16 lowercase hex chars. The Rust side
 * computes the same string for the root it serves, so both sides must canonicalise
 * identically. The rule:
 *
 * 1. make the path absolute (against the working directory) and fold `.`, `..` and
 *    repeated or trailing separators;
 * 2. if it exists, resolve symlinks (`toRealPath`, Rust's `fs::canonicalize`);
 *    otherwise keep the folded form (a root that does not exist yet, or the parity
 *    vector);
 * 3. drop a Windows verbatim prefix: `\\?\C:\x` → `C:\x`, `\\?\UNC\srv\share` →
 *    `\\srv\share` (Rust's `canonicalize` adds it on Windows, the JVM does not: the
 *    upstream bug of two sides hashing one root differently);
 * 4. hash the UTF-8 bytes of the resulting string, OS separators as they are.
 *
 * Parity vector: `/some/project` → `a0317725f24b01df`.
 */
package com.leanctx.core.port

import java.io.IOException
import java.nio.file.Path
import java.security.MessageDigest

object ProjectHash {
    fun of(root: Path): String {
        val digest = MessageDigest.getInstance("SHA-256").digest(canonical(root).toByteArray(Charsets.UTF_8))
        return digest.take(8).joinToString("") { "%02x".format(it.toInt() and 0xff) }
    }

    fun canonical(root: Path): String {
        val folded = root.toAbsolutePath().normalize()
        val resolved = try {
            folded.toRealPath()
        } catch (e: IOException) {
            folded
        }
        return stripVerbatimPrefix(resolved.toString())
    }

    fun stripVerbatimPrefix(path: String): String = when {
        path.startsWith("""\\?\UNC\""") -> """\\""" + path.removePrefix("""\\?\UNC\""")
        path.startsWith("""\\?\""") -> path.removePrefix("""\\?\""")
        else -> path
    }
}
