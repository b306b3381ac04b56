//! Configuration a language server's toolchain reads from the directories above a
//! trusted root. Trusting a root trusts what is in it, not what another local user
//! can put above it (a shared `/tmp`, a group-writable parent), so every such file
//! must be ours (or root's) and beyond others' writing, or the server does not run.
//!
//! What is read, from the tools' own documentation:
//! - cargo (rust-analyzer's `cargo metadata`, the `rustc` it runs): `.cargo/config.toml`
//!   and `.cargo/config` in every ancestor; its `[env]` reaches `rustc` (a `force`d
//!   `LD_PRELOAD` runs code), and nothing in the environment outranks it.
//! - the go command (gopls): the nearest `go.work` above the module, which chooses the
//!   modules loaded (`GOTOOLCHAIN=local` and no `GOFLAGS`/`GOENV` already hold for
//!   the rest, `shared/src/tool_env.rs`).
//! - clangd (C, C++): `.clangd` files and the compilation databases
//!   (`compile_commands.json`, `compile_flags.txt`) it looks for in every ancestor of
//!   a file; they choose the compiler flags (a `-fplugin`, an `-include`).
//! - MSBuild (C# servers): `Directory.Build.props`/`.targets` and NuGet's config in
//!   every ancestor, imported into every project: tasks that run code, package sources.
//! - Bundler (ruby-lsp, Solargraph): the nearest `Gemfile` (or `gems.rb`) above a root
//!   that has none is the project's, and it is Ruby that runs.
//! - cabal and stack (haskell-language-server): `cabal.project*`, `stack.yaml`,
//!   `hie.yaml` above choose the packages and the build.
//! - dune (ocamllsp): the outermost `dune-workspace` (else `dune-project`) above is
//!   the workspace root, whose rules run.
//! - rustup's toolchain files (`rust-toolchain{,.toml}`) are not read: the toolchain
//!   is pinned (`shared/src/tool_env.rs`). npm's resolution and Python's site files
//!   come from beside the servers themselves, not from the root's ancestors.
//!
//! Checked when a server would start, watched while it runs ([`watch`]: the
//! directories above the root, for those names appearing or changing), and checked
//! again before a server is told of any change (the moment cargo may run again:
//! rust-analyzer re-runs `cargo metadata` when a manifest or a module changes). A
//! file planted after the start stops the server the moment it appears, and every
//! later call says why.
//!
//! Watched, not refused ahead: a root below a directory others may write (every
//! project under a sticky `/tmp`, where another user may create `/tmp/.cargo`) would
//! otherwise get no server at all, though nothing is planted there.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, mpsc},
};

use lean_ctx_shared::{ErrorCode, LeanError};

use crate::index::fs::watch::{Change, DirWatcher};

/// The files above the root the toolchain of a server reads, by language server
/// (the slot's language: C shares C++'s clangd).
fn read_above(rust_analyzer: bool, language: &str) -> &'static [&'static str] {
    if rust_analyzer {
        return &[".cargo", ".cargo/config.toml", ".cargo/config"];
    }
    match language {
        "go" => &["go.work"],
        "c" | "cpp" => &[".clangd", "compile_commands.json", "compile_flags.txt"],
        "csharp" => &[
            "Directory.Build.props",
            "Directory.Build.targets",
            "Directory.Packages.props",
            "NuGet.Config",
            "nuget.config",
        ],
        "ruby" => &["Gemfile", "gems.rb", ".solargraph.yml"],
        "haskell" => &[
            "cabal.project",
            "cabal.project.local",
            "stack.yaml",
            "hie.yaml",
        ],
        "ocaml" => &["dune-workspace", "dune-project"],
        _ => &[],
    }
}

/// `BACKEND_REQUIRED` naming the first file above `root` the server's toolchain
/// would read that another user owns or others may write (a symlink: its target
/// too); `Ok` when there is none.
pub fn check(
    root: &Path,
    rust_analyzer: bool,
    language: &str,
    server: &str,
) -> Result<(), LeanError> {
    let names = read_above(rust_analyzer, language);
    for dir in root.ancestors().skip(1) {
        for name in names {
            let path = dir.join(name);
            // The link itself and what it names: either could be another user's.
            for meta in [std::fs::symlink_metadata(&path), std::fs::metadata(&path)]
                .into_iter()
                .flatten()
            {
                let Some(why) = lean_ctx_shared::paths::others_control(&meta) else {
                    continue;
                };
                return Err(LeanError::new(
                    ErrorCode::BackendRequired,
                    format!(
                        "{server} is not run for {}: its toolchain would read {}, which {why}",
                        root.display(),
                        path.display(),
                    ),
                )
                .with_remedy(format!(
                    "remove {} (or have its owner remove it), or move the project out of {}",
                    path.display(),
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// The directories above a root watched for what [`check`] reads; dropping it ends
/// the watch.
#[derive(Debug)]
pub struct Watch {
    _dirs: DirWatcher,
}

/// Watches the directories above `root` (each one itself, not what is below it) and
/// calls `breach` once, from the watch's thread, the first time [`check`] fails after
/// one of the names it reads appears, changes or goes there. `None` for a server
/// whose toolchain reads nothing above its root, or where no watch could be set up
/// (the checks before each change still hold then).
pub fn watch(
    root: &Path,
    rust_analyzer: bool,
    language: &'static str,
    server: String,
    breach: impl FnOnce(LeanError) + Send + 'static,
) -> Option<Watch> {
    let names = read_above(rust_analyzer, language);
    if names.is_empty() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    let dirs = DirWatcher::new(tx)
        .inspect_err(|e| tracing::warn!(root = %root.display(), "no ancestry watch: {e}"))
        .ok()?;
    let above: Arc<[PathBuf]> = root.ancestors().skip(1).map(Path::to_path_buf).collect();
    for dir in above.iter() {
        if let Err(e) = dirs.watch(dir) {
            tracing::warn!(dir = %dir.display(), "no ancestry watch: {e}");
            return None;
        }
    }
    let root = root.to_path_buf();
    // A name `check` reads (`.cargo/config.toml` appears as `.cargo` here, since
    // only the directories above are watched), or a watched directory itself.
    let relevant = move |path: &Path| {
        path.file_name().is_some_and(|n| {
            names
                .iter()
                .any(|name| Path::new(name).iter().next() == Some(n))
        }) || above.iter().any(|dir| dir == path)
    };
    let spawned = std::thread::Builder::new()
        .name("lsp-ancestry".into())
        .spawn(move || {
            // Ends when the `Watch` is dropped: its subscription goes, and the sender.
            for change in rx {
                let due = match &change {
                    Change::Path(path) => relevant(path),
                    Change::Rescan => true,
                };
                if !due {
                    continue;
                }
                if let Err(e) = check(&root, rust_analyzer, language, &server) {
                    breach(e);
                    return;
                }
            }
        });
    spawned.ok()?;
    Some(Watch { _dirs: dirs })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn configuration_above_the_root_must_be_ours_and_beyond_others_writing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("a/proj");
        std::fs::create_dir_all(&root).unwrap();
        assert!(check(&root, true, "rust", "rust-analyzer").is_ok());
        let cargo = tmp.path().join("a/.cargo");
        std::fs::create_dir(&cargo).unwrap();
        std::fs::write(cargo.join("config.toml"), "").unwrap();
        assert!(check(&root, true, "rust", "rust-analyzer").is_ok(), "ours");
        // A directory others may write: they could put a config there at any time.
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = check(&root, true, "rust", "rust-analyzer").unwrap_err();
        assert!(
            err.message.contains("a/.cargo, which others may write"),
            "{}",
            err.message
        );
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(
            cargo.join("config.toml"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        assert!(check(&root, true, "rust", "rust-analyzer").is_err());
        // Go reads go.work, not cargo's files; other servers neither.
        assert!(check(&root, false, "go", "gopls").is_ok());
        std::fs::write(tmp.path().join("go.work"), "").unwrap();
        std::fs::set_permissions(
            tmp.path().join("go.work"),
            std::fs::Permissions::from_mode(0o646),
        )
        .unwrap();
        assert!(check(&root, false, "go", "gopls").is_err());
        assert!(check(&root, false, "python", "pylsp").is_ok());
    }

    #[test]
    fn a_file_planted_above_a_watched_root_calls_the_breach_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("a/proj");
        std::fs::create_dir_all(&root).unwrap();
        let (tx, rx) = mpsc::channel();
        let watch = watch(&root, true, "rust", "rust-analyzer".into(), move |e| {
            tx.send(e.message).unwrap();
        })
        .expect("a watch");
        // Unrelated files above the root and a config that is ours change nothing.
        std::fs::write(tmp.path().join("a/notes.txt"), "").unwrap();
        let cargo = tmp.path().join("a/.cargo");
        std::fs::create_dir(&cargo).unwrap();
        let wait = std::time::Duration::from_millis(500);
        assert!(rx.recv_timeout(wait).is_err());
        // Replaced by one others may write (moved in whole, so the event finds it so).
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::remove_dir(&cargo).unwrap();
        std::fs::rename(&theirs, &cargo).unwrap();
        let why = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert!(why.contains("which others may write"), "{why}");
        std::fs::write(tmp.path().join("a/.cargo/config.toml"), "").unwrap();
        assert!(rx.recv_timeout(wait).is_err(), "once");
        drop(watch);
        assert!(super::watch(&root, false, "python", "pylsp".into(), |_| {}).is_none());
    }
}
