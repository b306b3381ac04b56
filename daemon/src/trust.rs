//! Workspace trust (ARCHITECTURE.md, `daemon/`, the invariant on trust): language
//! servers run a repository's own code (rust-analyzer's `cargo metadata` honours its
//! `.cargo/config.toml` and `rust-analyzer.toml`, typescript-language-server its
//! `node_modules`, gopls its `go.mod`, jdtls its Gradle build), so they start only in a
//! root the user trusted.
//!
//! Trust is the `[trust]` table of `config.toml`: `roots`, directories taken as
//! written (each trusts itself and everything below it; `proj[1]` is the directory
//! of that name, never a pattern matching `proj1`), and `globs`, patterns the user
//! asked for by name (`~/src/**`; `*` stays within one directory name), both
//! matched against the canonical worktree root. Only the user writes it: `lean-ctx trust`, `lean-ctx
//! setup --write`, or an editor; no MCP tool and no daemon operation changes it, so an
//! agent cannot grant trust. The file is read again whenever it changes (one `stat`
//! per decision), and ignored unless it and its directory belong to the user and
//! nobody else may write them, and it lies in no repository
//! (`lean_ctx_shared::paths::not_the_users_own`): a planted trust list trusts nothing,
//! and a repository cannot trust itself by pointing `XDG_CONFIG_HOME` into itself.
//!
//! Default: nothing is trusted. The headless index (outline, search, symbol edits)
//! and an IDE window the user opened answer in every root.
//!
//! The pool asks before it reuses or starts any language server (`Pool::server`), so a
//! trust withdrawn holds from the next call; an untrusted root's call answers
//! `BACKEND_REQUIRED` with `lean-ctx trust <root>` as the remedy ([`Trust::require`]).

use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use lean_ctx_shared::{ErrorCode, LeanError};

use crate::config::Config;

/// The trust list, as last read.
#[derive(Debug)]
pub struct Trust {
    config_file: PathBuf,
    home: Option<PathBuf>,
    cached: Mutex<Option<(Stamp, Arc<Rules>)>>,
}

/// What identifies one version of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    /// The directory's owner and mode count too: they decide whether the file is read.
    dir: Option<(u32, u32)>,
}

#[derive(Debug, Default)]
struct Rules {
    dirs: Vec<PathBuf>,
    globs: GlobSet,
}

impl Trust {
    pub fn new(config_file: &Path, home: Option<&Path>) -> Trust {
        Trust {
            config_file: config_file.to_path_buf(),
            home: home.map(Path::to_path_buf),
            cached: Mutex::new(None),
        }
    }

    /// Whether the user trusted `root` (a canonical worktree root).
    pub fn is_trusted(&self, root: &Path) -> bool {
        let rules = self.rules();
        rules.dirs.iter().any(|d| root.starts_with(d)) || rules.globs.is_match(root)
    }

    /// `Ok` in a trusted root; else the error every language-server operation answers.
    pub fn require(&self, root: &Path, what: &str) -> Result<(), LeanError> {
        if self.is_trusted(root) {
            return Ok(());
        }
        Err(LeanError::new(
            ErrorCode::BackendRequired,
            format!(
                "{what} is not started in {}: it is not a trusted root, and a language server runs the repository's own code (build configuration, toolchain files, workspace packages)",
                root.display()
            ),
        )
        .with_remedy(format!(
            "if you trust this repository's code, run `lean-ctx trust {}` in a terminal (an agent cannot grant trust); outline, search and symbol edits work without it",
            root.display()
        )))
    }

    fn rules(&self) -> Arc<Rules> {
        let meta = std::fs::metadata(&self.config_file).ok();
        let stamp = meta.as_ref().map(|m| Stamp {
            ino: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
            ctime_ns: m.ctime() * 1_000_000_000 + m.ctime_nsec(),
            dir: self
                .config_file
                .parent()
                .and_then(|d| std::fs::metadata(d).ok())
                .map(|d| (d.uid(), d.mode())),
        });
        let mut cached = self.cached.lock().unwrap();
        match (stamp, cached.as_ref()) {
            (Some(stamp), Some((seen, rules))) if *seen == stamp => rules.clone(),
            (None, _) => Arc::default(),
            (Some(stamp), _) => {
                let rules = Arc::new(self.load());
                *cached = Some((stamp, rules.clone()));
                rules
            }
        }
    }

    fn load(&self) -> Rules {
        let config = match Config::load_user(&self.config_file) {
            Ok((_, Some(why))) => {
                tracing::warn!(file = %self.config_file.display(), why, "the trust list is ignored");
                return Rules::default();
            }
            Ok((config, None)) => config,
            Err(e) => {
                tracing::warn!(error = %e, "the trust list is ignored until config.toml parses");
                return Rules::default();
            }
        };
        let mut rules = Rules::default();
        for entry in &config.trust.roots {
            let Some(dir) = self.absolute(entry) else {
                continue;
            };
            // Roots are canonical: so is what they are compared with.
            match std::fs::canonicalize(&dir) {
                Ok(canonical) => rules.dirs.push(canonical),
                Err(_) if entry.contains(['*', '?', '[', '{']) => tracing::warn!(
                    entry,
                    "a trust root is a directory taken as written, and none has this name; for a pattern, use `lean-ctx trust --glob` ([trust] globs)"
                ),
                Err(_) => rules.dirs.push(dir),
            }
        }
        let mut globs = GlobSetBuilder::new();
        for entry in &config.trust.globs {
            let Some(pattern) = self.absolute(entry) else {
                continue;
            };
            match GlobBuilder::new(&pattern.to_string_lossy())
                .literal_separator(true)
                .build()
            {
                Ok(glob) => {
                    globs.add(glob);
                }
                Err(e) => tracing::warn!(entry, error = %e, "not a valid trust glob; ignored"),
            }
        }
        rules.globs = globs.build().unwrap_or_default();
        rules
    }

    /// A trust entry as an absolute path (`~/` is the home directory); `None`, with a
    /// warning, for a relative one.
    fn absolute(&self, entry: &str) -> Option<PathBuf> {
        let expanded = match (entry.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if entry == "~" => self.home.clone().unwrap_or_default(),
            _ => PathBuf::from(entry),
        };
        if !expanded.is_absolute() {
            tracing::warn!(
                entry,
                "trust entries must be absolute paths or start with ~/; ignored"
            );
            return None;
        }
        Some(expanded)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn directories_globs_and_home_are_matched_against_roots() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let config = base.join("config");
        std::fs::create_dir(&config).unwrap();
        let file = config.join("config.toml");
        let trust = Trust::new(&file, Some(&base.join("home")));
        assert!(!trust.is_trusted(&base.join("a")), "nothing without a file");
        std::fs::write(
            &file,
            format!(
                "[trust]\nroots = [\"{}\", \"relative/dir\"]\nglobs = [\"~/src/**\"]\n",
                base.join("a").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o700)).unwrap();
        for (root, want) in [
            ("a", true),
            ("a/nested", true),
            ("ab", false),
            ("home/src/x", true),
            ("home/src", false),
            ("home/other", false),
            ("relative/dir", false),
        ] {
            assert_eq!(trust.is_trusted(&base.join(root)), want, "{root}");
        }
        let err = trust.require(&base.join("b"), "rust-analyzer").unwrap_err();
        assert_eq!(err.code, ErrorCode::BackendRequired);
        assert!(
            err.remedy.as_deref().unwrap().contains("lean-ctx trust"),
            "{err:?}"
        );

        // Writable by others: a list anyone could have planted trusts nothing.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(!trust.is_trusted(&base.join("a")));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(!trust.is_trusted(&base.join("a")));
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(trust.is_trusted(&base.join("a")));
        // Owned by another user (mode 0600: only the owner is wrong): trusts nothing.
        let nobody = Some(rustix::fs::Uid::from_raw(65534));
        rustix::fs::chown(&file, nobody, None).expect("chown (the test suite runs as root)");
        assert!(!trust.is_trusted(&base.join("a")));
        rustix::fs::chown(&file, Some(rustix::process::getuid()), None).unwrap();
        assert!(trust.is_trusted(&base.join("a")));
        // A root is the directory as written: glob characters in it are its name's.
        for name in ["proj[1]", "team*", "app{a,b}"] {
            std::fs::create_dir(base.join(name)).unwrap();
        }
        for name in ["proj1", "teamX/deep/evil", "appa"] {
            std::fs::create_dir_all(base.join(name)).unwrap();
        }
        std::fs::write(
            &file,
            format!(
                "[trust]\nroots = [\"{0}/proj[1]\", \"{0}/team*\", \"{0}/app{{a,b}}\"]\nglobs = [\"{0}/g*\"]\n",
                base.display()
            ),
        )
        .unwrap();
        for (root, want) in [
            ("proj[1]", true),
            ("proj1", false),
            ("team*", true),
            ("team*/x", true),
            ("teamX/deep/evil", false),
            ("app{a,b}", true),
            ("appa", false),
            // A pattern asked for as one: `*` stays within a name.
            ("gx", true),
            ("gx/deep", false),
        ] {
            assert_eq!(trust.is_trusted(&base.join(root)), want, "{root}");
        }
        // A config that stops parsing trusts nothing until fixed.
        std::fs::write(&file, "[trust\n").unwrap();
        assert!(!trust.is_trusted(&base.join("a")));
    }
}
