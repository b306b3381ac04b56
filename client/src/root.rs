//! Which project a call is about. The root comes from where the shim runs, never from
//! an agent's parameter (an implicit project root, like a filesystem root, is nothing
//! an agent should reason about): the innermost git worktree (a `.git` directory or
//! file), else the nearest directory with a project marker, else the working directory
//! itself. `--root` overrides.
//!
//! A repository at `$HOME` itself (dotfiles kept in git) is a worktree only for a shim
//! running at `$HOME`: below it, it would make every project without its own `.git`
//! the whole home directory (indexed, watched, and trusted or not as one).

use std::path::{Path, PathBuf};

use lean_ctx_shared::{ErrorCode, LeanError, paths::counts_as_worktree};

/// Files that mark a project root outside git.
const MARKERS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
];

/// Resolves the project root for a shim running in `cwd`, for a user whose home is
/// `home` (canonical).
pub fn resolve(
    cwd: &Path,
    explicit: Option<&Path>,
    home: Option<&Path>,
) -> Result<PathBuf, LeanError> {
    let start = explicit
        .map(|p| cwd.join(p))
        .unwrap_or_else(|| cwd.to_path_buf());
    let start = std::fs::canonicalize(&start)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            LeanError::new(
                ErrorCode::FileNotFound,
                format!("{} is not an existing directory", start.display()),
            )
            .with_remedy("pass an existing directory to --root, or run lean-ctx inside the project")
        })?;
    if explicit.is_some() {
        return Ok(start);
    }
    if let Some(worktree) = start
        .ancestors()
        .find(|dir| counts_as_worktree(dir, &start, home))
    {
        return Ok(worktree.to_path_buf());
    }
    if let Some(project) = start
        .ancestors()
        .find(|dir| MARKERS.iter().any(|m| dir.join(m).is_file()))
    {
        return Ok(project.to_path_buf());
    }
    Ok(start)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn git_worktree_wins_over_a_nearer_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(repo.join(".git")).unwrap();
        let krate = repo.join("crates/a/src");
        fs::create_dir_all(&krate).unwrap();
        fs::write(repo.join("crates/a/Cargo.toml"), "").unwrap();
        assert_eq!(resolve(&krate, None, None).unwrap(), repo);
    }

    #[test]
    fn innermost_worktree_is_chosen_and_a_git_file_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(outer.join(".git")).unwrap();
        let inner = outer.join("wt");
        fs::create_dir_all(inner.join("src")).unwrap();
        fs::write(inner.join(".git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
        assert_eq!(resolve(&inner.join("src"), None, None).unwrap(), inner);
    }

    #[test]
    fn marker_then_cwd_outside_git() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let proj = base.join("proj");
        fs::create_dir_all(proj.join("pkg/sub")).unwrap();
        fs::write(proj.join("pyproject.toml"), "").unwrap();
        assert_eq!(resolve(&proj.join("pkg/sub"), None, None).unwrap(), proj);
        let loose = base.join("loose");
        fs::create_dir(&loose).unwrap();
        // `base` may itself sit under a marker or a repo on this machine; only assert
        // when nothing above claims it.
        if !base
            .ancestors()
            .any(|d| d.join(".git").exists() || MARKERS.iter().any(|m| d.join(m).is_file()))
        {
            assert_eq!(resolve(&loose, None, None).unwrap(), loose);
        }
    }

    #[test]
    fn explicit_root_overrides_and_must_exist() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(base.join(".git")).unwrap();
        fs::create_dir(base.join("sub")).unwrap();
        assert_eq!(
            resolve(&base, Some(Path::new("sub")), None).unwrap(),
            base.join("sub")
        );
        let err = resolve(&base, Some(Path::new("nope")), None).unwrap_err();
        assert_eq!(err.code, ErrorCode::FileNotFound);
    }

    #[test]
    fn a_home_kept_in_git_is_the_root_only_at_home() {
        let tmp = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(home.join(".git")).unwrap();
        let (marked, loose) = (home.join("work/app/src"), home.join("scratch"));
        fs::create_dir_all(&marked).unwrap();
        fs::create_dir_all(&loose).unwrap();
        fs::write(home.join("work/app/Cargo.toml"), "").unwrap();
        let at = |cwd: &Path| resolve(cwd, None, Some(&home)).unwrap();
        assert_eq!(at(&marked), home.join("work/app"));
        assert_eq!(at(&loose), loose);
        assert_eq!(at(&home), home);
        // A repository of its own below home is still found.
        fs::create_dir(home.join("work/app/.git")).unwrap();
        assert_eq!(at(&marked), home.join("work/app"));
    }
}
