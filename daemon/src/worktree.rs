//! Which git worktree group a project root belongs to, read from the `.git` entry
//! directly (no `git` process: this runs on every first call for a root).
//!
//! All worktrees of one repository share a git *common dir*; that dir is the group key,
//! so content-addressed state (symbol caches) is shared across a repo's worktrees
//! while everything else stays keyed by the worktree root.

use std::{
    fs,
    path::{Path, PathBuf},
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeInfo {
    /// Canonical git common dir; the root itself outside git.
    pub group: PathBuf,
    /// The checked-out branch; `None` outside git or on a detached HEAD.
    pub branch: Option<String>,
}

/// Describes `root` (an existing, canonical directory).
pub fn detect(root: &Path) -> WorktreeInfo {
    let fallback = WorktreeInfo {
        group: root.to_path_buf(),
        branch: None,
    };
    let Some(git_dir) = git_dir(root) else {
        return fallback;
    };
    let common = common_dir(&git_dir);
    let branch = fs::read_to_string(git_dir.join("HEAD"))
        .ok()
        .and_then(|head| {
            head.trim()
                .strip_prefix("ref: refs/heads/")
                .map(str::to_string)
        });
    WorktreeInfo {
        group: fs::canonicalize(&common).unwrap_or(common),
        branch,
    }
}

/// The git dir of `root`: `.git` itself, or the target of a `.git` file's `gitdir:` line.
pub(crate) fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let meta = fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    Some(root.join(target))
}

/// The repository's common dir for a worktree's git dir: a linked worktree's git
/// dir names it in `commondir` (relative to itself); the main worktree's git dir is
/// the common dir.
pub(crate) fn common_dir(git_dir: &Path) -> PathBuf {
    match fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use lean_ctx_testkit::git;

    use super::*;

    #[test]
    fn worktrees_of_one_repo_share_a_group_and_keep_their_branch() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q"]);
        fs::write(main.join("a.txt"), "a").unwrap();
        git(&main, &["add", "."]);
        git(&main, &["commit", "-qm", "init"]);
        git(&main, &["worktree", "add", "-q", "-b", "feature", "../wt"]);
        let main = fs::canonicalize(&main).unwrap();
        let wt = fs::canonicalize(tmp.path().join("wt")).unwrap();

        let a = detect(&main);
        let b = detect(&wt);
        assert_eq!(a.group, main.join(".git"));
        assert_eq!(a.group, b.group);
        assert_eq!(a.branch.as_deref(), Some("main"));
        assert_eq!(b.branch.as_deref(), Some("feature"));
    }

    #[test]
    fn outside_git_the_root_is_its_own_group() {
        let tmp = tempfile::tempdir().unwrap();
        let info = detect(tmp.path());
        assert_eq!(info.group, tmp.path());
        assert_eq!(info.branch, None);
    }
}
