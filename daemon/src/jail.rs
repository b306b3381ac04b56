//! PathJail (DESIGN invariant 2): every path an agent gives is resolved against the
//! caller's root and proven to stay inside it before anything is read or written.
//!
//! Canonicalisation resolves `..` and symlinks, so a symlink pointing out is judged by
//! where it points. A path that lands in another worktree of the same repository
//! (beside the root, or nested inside it) is `WORKTREE_MISMATCH`: that is how the
//! upstream tool's edits landed in the wrong checkout (its issue #803).

use std::{
    fs,
    path::{Path, PathBuf},
};

use lean_ctx_shared::{ErrorCode, LeanError};

use crate::worktree;

/// A path proven to be inside the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jailed {
    pub abs: PathBuf,
    /// Root-relative, `/`-separated; empty for the root itself.
    pub rel: String,
}

/// What the path must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    File,
    FileOrDir,
}

/// Resolves `path` (relative to `root`, or absolute) inside `root` (canonical).
pub fn resolve(root: &Path, group: &Path, path: &str, want: Want) -> Result<Jailed, LeanError> {
    let refuse = |code: ErrorCode, why: String| {
        LeanError::new(code, format!("{path:?}: {why}")).with_remedy(format!(
            "give a path inside the project root {} (relative to it, or absolute inside it)",
            root.display()
        ))
    };
    if path.contains('\0') {
        return Err(refuse(
            ErrorCode::FileNotFound,
            "contains a NUL byte".into(),
        ));
    }
    let given = Path::new(path);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    let abs = match fs::canonicalize(&joined) {
        Ok(abs) => abs,
        Err(_) if escapes_lexically(given) && !given.is_absolute() => {
            return Err(refuse(
                ErrorCode::FileNotFound,
                "escapes the project root".into(),
            ));
        }
        Err(e) => {
            return Err(refuse(
                ErrorCode::FileNotFound,
                format!("not found in the project ({e})"),
            ));
        }
    };
    let Ok(rel_path) = abs.strip_prefix(root) else {
        if same_repo_worktree(&abs, group) {
            return Err(refuse(
                ErrorCode::WorktreeMismatch,
                format!(
                    "is in another worktree of this repository ({}), not in {}",
                    abs.display(),
                    root.display()
                ),
            ));
        }
        return Err(refuse(
            ErrorCode::FileNotFound,
            format!("resolves to {}, outside the project root", abs.display()),
        ));
    };
    // Nested repositories and worktrees inside the root are other projects. Only the
    // directories strictly between the root and the path count (the path itself too
    // when it is a directory): whatever lies above the root is not ours to judge.
    let below_root = abs
        .ancestors()
        .skip(usize::from(!abs.is_dir()))
        .take_while(|d| *d != root);
    for d in below_root {
        if d.join(".git").exists() {
            let code = if worktree::detect(d).group == group {
                ErrorCode::WorktreeMismatch
            } else {
                ErrorCode::FileNotFound
            };
            return Err(refuse(
                code,
                format!("is inside {}, a nested repository or worktree", d.display()),
            ));
        }
    }
    if rel_path
        .components()
        .next()
        .is_some_and(|c| c.as_os_str() == ".git")
    {
        return Err(refuse(ErrorCode::FileNotFound, "is inside .git".into()));
    }
    let meta = fs::metadata(&abs).map_err(|e| refuse(ErrorCode::FileNotFound, e.to_string()))?;
    match want {
        Want::File if !meta.is_file() => {
            return Err(refuse(
                ErrorCode::FileNotFound,
                "is not a regular file".into(),
            ));
        }
        Want::FileOrDir if !meta.is_file() && !meta.is_dir() => {
            return Err(refuse(
                ErrorCode::FileNotFound,
                "is not a regular file or directory".into(),
            ));
        }
        _ => {}
    }
    let rel = rel_path.to_string_lossy().replace('\\', "/");
    Ok(Jailed { abs, rel })
}

/// `..` that climbs above the start, judged on the text alone.
fn escapes_lexically(path: &Path) -> bool {
    let mut depth: i64 = 0;
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => depth -= 1,
            std::path::Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// `abs` lies in a worktree whose git common dir is `group`.
fn same_repo_worktree(abs: &Path, group: &Path) -> bool {
    abs.ancestors()
        .skip(1)
        .find(|d| d.join(".git").exists())
        .is_some_and(|wt| worktree::detect(wt).group == group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_inside_another_repository_is_its_own_world() {
        // Regression: a root nested in an outer repository refused its own files.
        let tmp = tempfile::tempdir().unwrap();
        let outer = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(outer.join(".git")).unwrap();
        let root = outer.join("inner");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        let group = root.join(".git");
        for (path, rel) in [(".", ""), ("src", "src"), ("src/a.rs", "src/a.rs")] {
            let j = resolve(&root, &group, path, Want::FileOrDir).unwrap();
            assert_eq!(j.rel, rel, "{path}");
        }
        assert!(resolve(&root, &group, "../inner/src/a.rs", Want::File).is_ok());
        assert!(resolve(&root, &group, "..", Want::FileOrDir).is_err());
    }
}
