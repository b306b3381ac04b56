/**
 * Where port files and `stats.json` live, resolved exactly as the daemon resolves it
 * (`shared/src/paths.rs`): `$LEAN_CTX_DATA_DIR` when set and non-empty (it names the
 * directory itself), else `~/.lean-ctx`. "Home" is `$HOME` when set and non-empty, as
 * Rust's `directories` crate reads it on Unix, and the JVM's `user.home` otherwise
 * (Windows, or no `$HOME`): the JVM's own `user.home` comes from the password database
 * and would disagree with the daemon under a changed `$HOME`.
 */
package com.leanctx.core.port

import java.nio.file.Path

object DataDir {
    const val ENV = "LEAN_CTX_DATA_DIR"

    fun resolve(
        env: Map<String, String> = System.getenv(),
        userHome: String = System.getProperty("user.home"),
        windows: Boolean = System.getProperty("os.name").startsWith("Windows"),
    ): Path {
        env[ENV]?.takeIf { it.isNotEmpty() }?.let { return Path.of(it) }
        val home = env["HOME"]?.takeIf { it.isNotEmpty() && !windows } ?: userHome
        return Path.of(home, ".lean-ctx")
    }
}
