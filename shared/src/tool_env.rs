//! The environment every tool lean-ctx starts runs with (language servers, `doctor`'s
//! probes): built here from an allowlist, never inherited wholesale (ARCHITECTURE.md,
//! the invariant on trust). An auto-spawned daemon carries the environment of
//! whichever shim started it (a `PATH` with one project's `bin/` first, an
//! `XDG_CONFIG_HOME` a `.envrc` set); none of that may reach the servers of every
//! later project. The daemon itself is started with [`for_daemon`]: what it reads and
//! what [`neutral`] passes on, no `LD_PRELOAD`, `NODE_OPTIONS` or `GOFLAGS` of one
//! project's shell.
//!
//! What it pins, and why:
//! - rustup's toolchain to the user's default (`RUSTUP_TOOLCHAIN`), so a repository's
//!   `rust-toolchain.toml` (whose `path` may point into the repository) picks no
//!   binary: rustup ranks the variable above toolchain files.
//! - `CARGO` and `RUSTC` to that toolchain's own binaries (rust-analyzer runs `$CARGO`,
//!   cargo runs `$RUSTC`; the variables rank above `build.rustc` in any
//!   `.cargo/config.toml`), and `RUSTC_WRAPPER`/`RUSTC_WORKSPACE_WRAPPER` set empty,
//!   which cargo reads as "no wrapper" over `build.rustc-wrapper` in any config file.
//! - `GOTOOLCHAIN=local`: a `toolchain` line in `go.mod`/`go.work` never switches (or
//!   downloads) the Go toolchain.
//! - `PATH` without entries that are relative, inside a git repository or worktree
//!   (a project's own `bin/` or `node_modules/.bin` put there by direnv or a shell
//!   hook), or writable by other users.
//! - The directory variables that pick code ([`DIRECTORIES`]) only under the same
//!   rule: a shim whose `XDG_CONFIG_HOME` pointed into a repository would otherwise
//!   hand gopls's `go` that repository's `go/env` file, whose `GOFLAGS=-toolexec=…`
//!   runs a program of the repository's on every `go list`. (`GOFLAGS` and `GOENV`
//!   themselves never pass: the go command reads only the user's own `go/env`.)
//! - `TMPDIR` only where no repository holds it and no other user can replace what a
//!   tool puts there (the go command builds and runs helpers in its temp dirs): not
//!   writable by others unless sticky, as `/tmp` is; dropped, tools use `/tmp`.
//!
//! A repository at `$HOME` itself (dotfiles kept in git) is the user's, not a
//! project's: it does not make `~/.cargo/bin` or `~/.local/bin` "inside a repository".

use std::{
    ffi::{OsStr, OsString},
    os::unix::{ffi::OsStrExt, fs::MetadataExt},
    path::{Path, PathBuf},
};

/// Variables passed through as they are: who the user is, where their tools keep
/// their state, locale. Nothing that selects code to run.
const PASSED: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOPATH",
    "GOROOT",
    "GOMODCACHE",
    "GOCACHE",
    "JAVA_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    // The test command's marker: its last step finds every process a test left
    // running by it, language servers included.
    "LEAN_CTX_TEST_RUN",
];

/// Passed variables that name directories whose contents choose what runs: the go
/// command's `go/env` file (`GOFLAGS`, `GOTOOLCHAIN`) under `XDG_CONFIG_HOME`, the Go
/// installation and its `go.env` (`GOROOT`), Go's module and build caches (their
/// entries are trusted as built), rustup's toolchains, cargo's configuration, the JDK.
/// Kept only when every directory they list passes the `PATH` rule ([`safe_path_dir`]);
/// dropped, each tool falls back to its default under `HOME`.
const DIRECTORIES: &[&str] = &[
    "XDG_CONFIG_HOME",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOROOT",
    "GOPATH",
    "GOMODCACHE",
    "GOCACHE",
    "JAVA_HOME",
];

/// A variable [`PASSED`] names, or the locale's `LC_*`.
fn passed(key: &[u8]) -> bool {
    PASSED.iter().any(|p| p.as_bytes() == key) || key.starts_with(b"LC_")
}

/// The environment for a tool lean-ctx starts, built from `from` (the daemon's or the
/// shim's own environment).
pub fn neutral(from: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let from: Vec<(OsString, OsString)> = from.into_iter().collect();
    let get = |key: &str| from.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let home = get("HOME").map(PathBuf::from);
    let home = home.as_deref();
    let mut env: Vec<(OsString, OsString)> = from
        .iter()
        .filter(|(k, v)| {
            let k = k.as_bytes();
            passed(k)
                && (k != b"TMPDIR" || safe_temp_dir(Path::new(v), home))
                && (!DIRECTORIES.iter().any(|d| d.as_bytes() == k)
                    || std::env::split_paths(v).all(|dir| safe_path_dir(&dir, home)))
        })
        .cloned()
        .collect();
    let kept = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let rustup_home = kept("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| kept("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    env.push(("PATH".into(), clean_path(get("PATH").as_deref(), home)));
    if let Some((name, bin)) = rustup_home.as_deref().and_then(default_toolchain) {
        env.push(("RUSTUP_TOOLCHAIN".into(), name.into()));
        if let Some(bin) = bin {
            env.push(("CARGO".into(), bin.join("cargo").into()));
            env.push(("RUSTC".into(), bin.join("rustc").into()));
        }
    }
    env.push(("RUSTC_WRAPPER".into(), "".into()));
    env.push(("RUSTC_WORKSPACE_WRAPPER".into(), "".into()));
    env.push(("GOTOOLCHAIN".into(), "local".into()));
    env
}

/// The `PATH` of the environment [`neutral`] builds from this process's own: where
/// the tools lean-ctx starts are looked up (`servers.rs` searches it).
pub fn neutral_path() -> Option<OsString> {
    neutral(std::env::vars_os())
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)
}

/// The environment an auto-spawned daemon starts with, built from the shim's: what
/// [`neutral`] passes (as it is: the daemon judges its directories when it reads
/// them and builds each tool's environment again), a `PATH` without what a
/// repository or another user controls, lean-ctx's own variables but the daemon
/// binary's (chosen for this shim), and Rust's logging.
pub fn for_daemon(
    from: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    let from: Vec<(OsString, OsString)> = from.into_iter().collect();
    let home = from
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v));
    let mut env: Vec<(OsString, OsString)> = from
        .iter()
        .filter(|(k, _)| {
            let k = k.as_bytes();
            passed(k)
                || (k.starts_with(b"LEAN_CTX_") && k != b"LEAN_CTX_DAEMON_BIN")
                || k == b"RUST_LOG"
                || k == b"RUST_BACKTRACE"
        })
        .cloned()
        .collect();
    let path = from
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_os_str());
    env.push(("PATH".into(), clean_path(path, home.as_deref())));
    env
}

/// rustup's default toolchain from `settings.toml` (read, never asked of `rustup`,
/// which would itself read toolchain files from its working directory), and that
/// toolchain's `bin/` when it is installed.
fn default_toolchain(rustup_home: &Path) -> Option<(String, Option<PathBuf>)> {
    let text = std::fs::read_to_string(rustup_home.join("settings.toml")).ok()?;
    let name = text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "default_toolchain").then(|| value.trim().trim_matches('"').to_string())
    })?;
    if name.is_empty() {
        return None;
    }
    let toolchains = rustup_home.join("toolchains");
    // `stable` in settings names `stable-<host>` on disk.
    let dir = std::iter::once(toolchains.join(&name))
        .chain(
            std::fs::read_dir(&toolchains)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.as_bytes().starts_with(format!("{name}-").as_bytes()))
                }),
        )
        .map(|d| d.join("bin"))
        .find(|bin| bin.join("cargo").is_file() && bin.join("rustc").is_file());
    Some((name, dir))
}

/// `PATH` without the entries a repository or another user could control (`home`:
/// the user's `HOME`, see the module doc).
pub fn clean_path(path: Option<&OsStr>, home: Option<&Path>) -> OsString {
    let kept: Vec<PathBuf> = path
        .map(std::env::split_paths)
        .into_iter()
        .flatten()
        .filter(|dir| safe_path_dir(dir, home))
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

fn safe_path_dir(dir: &Path, home: Option<&Path>) -> bool {
    // Writable by group or others: anyone could plant a `cargo` there.
    own_dir(dir, home).is_some_and(|mode| mode & 0o022 == 0)
}

/// A temp dir others may write only if sticky: they cannot replace what is ours.
fn safe_temp_dir(dir: &Path, home: Option<&Path>) -> bool {
    own_dir(dir, home).is_some_and(|mode| mode & 0o022 == 0 || mode & 0o1000 != 0)
}

/// The mode of `dir` if it is an absolute path to a directory outside every git
/// repository or worktree but one at `home` itself.
fn own_dir(dir: &Path, home: Option<&Path>) -> Option<u32> {
    if !dir.is_absolute() {
        return None;
    }
    let meta = std::fs::metadata(dir).ok().filter(|m| m.is_dir())?;
    let in_repository = dir
        .ancestors()
        .any(|d| Some(d) != home && d.join(".git").exists());
    (!in_repository).then_some(meta.mode())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn get<'a>(env: &'a [(OsString, OsString)], key: &str) -> Option<&'a OsStr> {
        env.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_os_str())
    }

    #[test]
    fn only_the_allowlist_passes_and_the_toolchain_is_pinned() {
        let tmp = tempfile::tempdir().unwrap();
        let rustup = tmp.path().join("rustup");
        let bin = rustup.join("toolchains/stable-x86_64-unknown-linux-gnu/bin");
        std::fs::create_dir_all(&bin).unwrap();
        for b in ["cargo", "rustc"] {
            std::fs::write(bin.join(b), "").unwrap();
        }
        std::fs::write(
            rustup.join("settings.toml"),
            "version = \"12\"\ndefault_toolchain = \"stable\"\n",
        )
        .unwrap();
        let repo_bin = tmp.path().join("repo/bin");
        std::fs::create_dir_all(tmp.path().join("repo/.git")).unwrap();
        std::fs::create_dir_all(&repo_bin).unwrap();
        let shared_bin = tmp.path().join("shared");
        std::fs::create_dir_all(&shared_bin).unwrap();
        std::fs::set_permissions(&shared_bin, std::fs::Permissions::from_mode(0o777)).unwrap();
        let path = std::env::join_paths([
            repo_bin.as_path(),
            Path::new("relative/bin"),
            shared_bin.as_path(),
            Path::new("/usr/bin"),
        ])
        .unwrap();
        let repo_config = tmp.path().join("repo/.config");
        std::fs::create_dir_all(&repo_config).unwrap();
        let gopath = tmp.path().join("gopath");
        std::fs::create_dir_all(&gopath).unwrap();
        let env = neutral([
            ("PATH".into(), path),
            ("XDG_CONFIG_HOME".into(), repo_config.into()),
            ("GOROOT".into(), shared_bin.clone().into()),
            ("GOPATH".into(), gopath.clone().into()),
            ("GOENV".into(), "/evil/env".into()),
            ("RUSTUP_HOME".into(), rustup.clone().into()),
            ("HOME".into(), "/home/u".into()),
            ("LC_ALL".into(), "C".into()),
            ("GOFLAGS".into(), "-toolexec=/evil".into()),
            ("RUSTC_WRAPPER".into(), "/evil".into()),
            ("RUSTUP_TOOLCHAIN".into(), "evil".into()),
            ("LD_PRELOAD".into(), "/evil.so".into()),
        ]);
        assert_eq!(get(&env, "PATH"), Some(OsStr::new("/usr/bin")));
        assert_eq!(get(&env, "LC_ALL"), Some(OsStr::new("C")));
        assert_eq!(get(&env, "GOFLAGS"), None);
        assert_eq!(get(&env, "GOENV"), None);
        // A repository's configuration, a directory others may write: dropped.
        assert_eq!(get(&env, "XDG_CONFIG_HOME"), None);
        assert_eq!(get(&env, "GOROOT"), None);
        assert_eq!(get(&env, "GOPATH"), Some(gopath.as_os_str()));
        assert_eq!(get(&env, "LD_PRELOAD"), None);
        assert_eq!(get(&env, "RUSTC_WRAPPER"), Some(OsStr::new("")));
        assert_eq!(get(&env, "RUSTUP_TOOLCHAIN"), Some(OsStr::new("stable")));
        assert_eq!(get(&env, "CARGO"), Some(bin.join("cargo").as_os_str()));
        assert_eq!(get(&env, "RUSTC"), Some(bin.join("rustc").as_os_str()));
        assert_eq!(get(&env, "GOTOOLCHAIN"), Some(OsStr::new("local")));
        // Each key once: a later duplicate would override the pin.
        let mut keys: Vec<_> = env.iter().map(|(k, _)| k).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), env.len());
    }

    #[test]
    fn a_home_kept_in_git_keeps_its_tools_and_a_temp_dir_must_be_ours_or_sticky() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let dir = |rel: &str, mode: u32| {
            let d = home.join(rel);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).unwrap();
            d
        };
        // Dotfiles in git at home; a clone below it with its own `bin/`.
        let (cargo_bin, clone_bin) = (dir(".cargo/bin", 0o755), dir("src/clone/bin", 0o755));
        dir(".git", 0o755);
        dir("src/clone/.git", 0o755);
        let env_with = |tmpdir: &Path| {
            neutral([
                ("HOME".into(), home.clone().into()),
                (
                    "PATH".into(),
                    std::env::join_paths([&clone_bin, &cargo_bin]).unwrap(),
                ),
                ("TMPDIR".into(), tmpdir.into()),
            ])
        };
        let env = env_with(&dir("tmp", 0o700));
        assert_eq!(get(&env, "PATH"), Some(cargo_bin.as_os_str()));
        assert_eq!(get(&env, "TMPDIR"), Some(home.join("tmp").as_os_str()));
        // Sticky and open to all, as /tmp: kept; open without the sticky bit, or
        // inside a clone: dropped.
        let sticky = dir("sticky", 0o1777);
        assert_eq!(get(&env_with(&sticky), "TMPDIR"), Some(sticky.as_os_str()));
        assert_eq!(get(&env_with(&dir("open", 0o777)), "TMPDIR"), None);
        assert_eq!(get(&env_with(&dir("src/clone/tmp", 0o700)), "TMPDIR"), None);
        assert_eq!(get(&env_with(Path::new("relative")), "TMPDIR"), None);
    }

    #[test]
    fn a_daemon_gets_what_it_reads_and_no_projects_shell() {
        let from: Vec<(OsString, OsString)> = [
            ("HOME", "/home/u"),
            ("LC_ALL", "C"),
            ("LEAN_CTX_STATE_DIR", "/s"),
            ("LEAN_CTX_DAEMON_BIN", "/repo/evil"),
            ("RUST_LOG", "debug"),
            ("LD_PRELOAD", "/repo/evil.so"),
            ("NODE_OPTIONS", "--require /repo/evil.js"),
            ("GOFLAGS", "-toolexec=/repo/evil"),
            ("PATH", "relative/bin:/usr/bin"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
        let env = for_daemon(from);
        let keys: Vec<_> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            keys,
            ["HOME", "LC_ALL", "LEAN_CTX_STATE_DIR", "RUST_LOG", "PATH"]
        );
        assert_eq!(get(&env, "PATH"), Some(OsStr::new("/usr/bin")));
    }
}
