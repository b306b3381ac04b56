/**
 * Where port files and `stats.json` live, resolved exactly as the published plugin and
 * the daemon (`shared/src/paths.rs`, `resolve_data_dir`) resolve it (docs/ide-wire.md,
 * Data dir): `$LEAN_CTX_DATA_DIR`, trimmed, when that leaves something (it names the
 * directory itself); else `~/.lean-ctx` if it holds any of [MARKERS]; else
 * `$XDG_CONFIG_HOME/lean-ctx` (trimmed; `~/.config` when that leaves nothing; a relative
 * one as it is) if it holds any of them; else `~/.lean-ctx` if it exists (any kind of
 * file), otherwise the XDG one. "Holds" follows symlinks.
 * `tests/fixtures/data-dir-cases.json` is the table both sides are tested against.
 *
 * "Home" is `$HOME` when set and non-empty, as Rust's `directories` crate reads it on
 * Unix, and the JVM's `user.home` otherwise (Windows, or no `$HOME`): the JVM's own
 * `user.home` comes from the password database and would disagree with the daemon
 * under a changed `$HOME`.
 */
package com.leanctx.core.port

import java.nio.file.Files
import java.nio.file.Path

object DataDir {
    const val ENV = "LEAN_CTX_DATA_DIR"

    /** Names whose presence means lean-ctx data lives in a directory. */
    val MARKERS = listOf("stats.json", "config.toml", "sessions")

    fun resolve(
        env: Map<String, String> = System.getenv(),
        userHome: String = System.getProperty("user.home"),
        windows: Boolean = System.getProperty("os.name").startsWith("Windows"),
    ): Path {
        env[ENV]?.trim()?.takeIf { it.isNotEmpty() }?.let { return Path.of(it) }
        val home = Path.of(env["HOME"]?.takeIf { it.isNotEmpty() && !windows } ?: userHome)
        val legacy = home.resolve(".lean-ctx")
        if (holdsData(legacy)) return legacy
        val xdgBase = env["XDG_CONFIG_HOME"]?.trim()?.takeIf { it.isNotEmpty() }?.let { Path.of(it) }
        val xdg = (xdgBase ?: home.resolve(".config")).resolve("lean-ctx")
        if (holdsData(xdg)) return xdg
        return if (Files.exists(legacy)) legacy else xdg
    }

    private fun holdsData(dir: Path): Boolean = MARKERS.any { Files.exists(dir.resolve(it)) }
}
