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
//! - rustup's toolchain files (`rust-toolchain{,.toml}`) are not read: the toolchain
//!   is pinned (`shared/src/tool_env.rs`). npm's resolution and Python's site files
//!   come from beside the servers themselves, not from the root's ancestors.
//!
//! Checked when a server would start and again before a server is told of any change
//! (the moment cargo may run again: rust-analyzer re-runs `cargo metadata` when a
//! manifest or a module changes), so a file planted after the start is caught before
//! it is read; the server is stopped then, and every later call says why.

use std::path::Path;

use lean_ctx_shared::{ErrorCode, LeanError};

/// The files above the root the toolchain of a server reads, by language server.
fn read_above(rust_analyzer: bool, language: &str) -> &'static [&'static str] {
    if rust_analyzer {
        &[".cargo", ".cargo/config.toml", ".cargo/config"]
    } else if language == "go" {
        &["go.work"]
    } else {
        &[]
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
}
