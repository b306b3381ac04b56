//! The per-project registry, keyed by worktree root (DESIGN invariant 5). Later work
//! attaches to a [`Project`] what belongs to one root: its index, language servers and
//! IDE state. Lookups never hold a map lock across anything slow (invariant 7): the
//! worktree is described before the entry is taken.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::SystemTime,
};

use dashmap::DashMap;
use lean_ctx_shared::{ErrorCode, LeanError, protocol::ProjectStatus};

use crate::{
    index::{
        root::{IndexConfig, RootIndex},
        store::Caches,
    },
    sys::unix_ms,
    worktree::{self, WorktreeInfo},
};

/// One worktree root the daemon has been asked about.
#[derive(Debug)]
pub struct Project {
    pub root: PathBuf,
    pub worktree: WorktreeInfo,
    /// The headless index; its first walk starts on the first call that needs it.
    pub index: Arc<RootIndex>,
    registered_at_unix_ms: u64,
    last_used_unix_ms: AtomicU64,
    calls: AtomicU64,
}

impl Project {
    /// Records a call made for this project.
    pub fn touch(&self) {
        self.last_used_unix_ms
            .store(unix_ms(SystemTime::now()), Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    pub fn status(&self) -> ProjectStatus {
        ProjectStatus {
            root: self.root.clone(),
            worktree_group: self.worktree.group.clone(),
            branch: self.worktree.branch.clone(),
            registered_at_unix_ms: self.registered_at_unix_ms,
            last_used_unix_ms: self.last_used_unix_ms.load(Ordering::Relaxed),
            calls: self.calls.load(Ordering::Relaxed),
            index: Some(self.index.status()),
            backings: vec![lean_ctx_shared::protocol::BackingStatus {
                name: "headless".into(),
                state: if self.index.is_ready() {
                    "ready".into()
                } else {
                    "indexing".into()
                },
            }],
        }
    }
}

#[derive(Debug)]
pub struct ProjectRegistry {
    projects: DashMap<PathBuf, Arc<Project>>,
    caches: Arc<Caches>,
    index_config: IndexConfig,
}

impl ProjectRegistry {
    pub fn new(caches: Arc<Caches>, index_config: IndexConfig) -> ProjectRegistry {
        ProjectRegistry {
            projects: DashMap::new(),
            caches,
            index_config,
        }
    }

    /// Validates `root` (absolute, an existing directory), canonicalizes it and returns
    /// its project, registering it on first sight.
    pub fn open(&self, root: &Path) -> Result<Arc<Project>, LeanError> {
        if !root.is_absolute() {
            return Err(LeanError::new(
                ErrorCode::FileNotFound,
                format!("project root {} is not absolute", root.display()),
            ));
        }
        let root = std::fs::canonicalize(root)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                LeanError::new(
                    ErrorCode::FileNotFound,
                    format!(
                        "project root {} is not an existing directory",
                        root.display()
                    ),
                )
            })?;
        if let Some(project) = self.projects.get(&root) {
            return Ok(project.clone());
        }
        let worktree = worktree::detect(&root);
        let index = Arc::new(RootIndex::new(
            root.clone(),
            self.caches.clone(),
            self.index_config.clone(),
        ));
        let now = unix_ms(SystemTime::now());
        let project = self
            .projects
            .entry(root.clone())
            .or_insert_with(|| {
                Arc::new(Project {
                    root,
                    worktree,
                    index,
                    registered_at_unix_ms: now,
                    last_used_unix_ms: AtomicU64::new(now),
                    calls: AtomicU64::new(0),
                })
            })
            .clone();
        Ok(project)
    }

    /// The project of an already registered (canonical) root.
    pub fn get(&self, root: &Path) -> Option<Arc<Project>> {
        self.projects.get(root).map(|p| p.clone())
    }

    /// Every project, sorted by root.
    pub fn list(&self) -> Vec<ProjectStatus> {
        let mut rows: Vec<ProjectStatus> = self.projects.iter().map(|p| p.status()).collect();
        rows.sort_by(|a, b| a.root.cmp(&b.root));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_is_registered_once_under_its_canonical_path() {
        let tmp = tempfile::tempdir().unwrap();
        let reg = ProjectRegistry::new(Arc::new(Caches::new(1 << 20)), IndexConfig::default());
        let a = reg.open(tmp.path()).unwrap();
        let b = reg.open(&tmp.path().join(".")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        a.touch();
        let rows = reg.list();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].root, std::fs::canonicalize(tmp.path()).unwrap());
        assert_eq!(rows[0].calls, 1);
    }

    #[test]
    fn bad_roots_are_file_not_found() {
        let reg = ProjectRegistry::new(Arc::new(Caches::new(1 << 20)), IndexConfig::default());
        for root in [Path::new("relative"), Path::new("/definitely/not/here")] {
            let err = reg.open(root).unwrap_err();
            assert_eq!(err.code, ErrorCode::FileNotFound);
        }
        assert!(reg.list().is_empty());
    }
}
