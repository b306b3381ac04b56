//! The per-project registry, keyed by worktree root (docs/design.md #5). Later work
//! attaches to a [`Project`] what belongs to one root: its index, language servers and
//! IDE state. Lookups never hold a map lock across anything slow: the worktree is
//! described before the entry is taken. Idle projects are evicted
//! ([`ProjectRegistry::evict_idle`]), never one a call or a language server uses.
//!
//! An evicted project's watches go with it (`daemon.project_idle_timeout`); the
//! content-addressed caches stay, so coming back costs a walk, not the parses.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, SystemTime},
};

use dashmap::DashMap;
use lean_ctx_shared::{ErrorCode, LeanError, protocol::ProjectStatus};
use rustc_hash::FxHashSet;

use crate::{
    index::{
        ids::Hash,
        root::{IndexConfig, RootIndex},
        store::Caches,
    },
    jail::{self, Jailed, Want},
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
    /// When a call was last noted in the store's recent roots (0: not yet).
    noted_unix_ms: AtomicU64,
    calls: AtomicU64,
}

/// How often a root in use is noted again in the recent roots: their order only
/// has to hold across days (what a start prewarms), so once an hour is plenty and
/// keeps the write off nearly every call.
const NOTE_EVERY_MS: u64 = 3_600_000;

impl Project {
    /// `path` (root-relative, or absolute inside the root) jailed to this worktree.
    pub fn resolve(&self, path: &str, want: Want) -> Result<Jailed, LeanError> {
        jail::resolve(&self.root, &self.worktree.group, path, want)
    }

    /// Records a call made for this project; `true` when it is due to be noted in
    /// the recent roots (its first call here, then once per [`NOTE_EVERY_MS`]).
    pub fn touch(&self) -> bool {
        let now = unix_ms(SystemTime::now());
        self.last_used_unix_ms.store(now, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        let noted = self.noted_unix_ms.load(Ordering::Relaxed);
        (noted == 0 || now.saturating_sub(noted) >= NOTE_EVERY_MS)
            && self
                .noted_unix_ms
                .compare_exchange(noted, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
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
            // The language servers' pool judges trust (`Pool::trusts`).
            trusted: false,
        }
    }
}

#[derive(Debug)]
pub struct ProjectRegistry {
    projects: DashMap<PathBuf, Arc<Project>>,
    caches: Arc<Caches>,
    index_config: IndexConfig,
    /// When a call last entered a project (unix ms; 0: none yet).
    last_entered_unix_ms: AtomicU64,
    /// Contents projects' files held and no longer hold, gathered until the text
    /// index is swept of them ([`ProjectRegistry::sweep_text`]).
    superseded: Mutex<FxHashSet<Hash>>,
}

impl ProjectRegistry {
    pub fn new(caches: Arc<Caches>, index_config: IndexConfig) -> ProjectRegistry {
        ProjectRegistry {
            projects: DashMap::new(),
            caches,
            index_config,
            last_entered_unix_ms: AtomicU64::new(0),
            superseded: Mutex::default(),
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
        // Whoever named it (a shim's working directory, an MCP client's root, a
        // prewarm): never registered, so never indexed, watched or remembered.
        let home = lean_ctx_shared::paths::canonical_home();
        if let Some(why) = lean_ctx_shared::paths::too_broad_root(&root, home.as_deref()) {
            return Err(LeanError::new(
                ErrorCode::InvalidTarget,
                format!("{} is not a project root: it is {why}", root.display()),
            )
            .with_remedy(
                "run lean-ctx inside the project (a git worktree, or a directory with Cargo.toml, package.json, pyproject.toml, go.mod, pom.xml or build.gradle), or pass --root DIR; an MCP client should offer the project's directory as its root",
            ));
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
                    noted_unix_ms: AtomicU64::new(0),
                    calls: AtomicU64::new(0),
                })
            })
            .clone();
        Ok(project)
    }

    /// A call's project: opened (registered on first sight), the call counted, the
    /// root noted for the next start's prewarm when due, its index started.
    pub fn enter(&self, root: &Path) -> Result<Arc<Project>, LeanError> {
        let project = self.open(root)?;
        self.last_entered_unix_ms
            .store(unix_ms(SystemTime::now()), Ordering::Relaxed);
        if project.touch() {
            self.caches.used(&project.root);
        }
        project.index.start();
        Ok(project)
    }

    /// How long since a call last entered a project (`None`: none has).
    pub fn since_last_entered(&self) -> Option<Duration> {
        let at = self.last_entered_unix_ms.load(Ordering::Relaxed);
        (at != 0).then(|| Duration::from_millis(unix_ms(SystemTime::now()).saturating_sub(at)))
    }

    /// The project of an already registered (canonical) root.
    pub fn get(&self, root: &Path) -> Option<Arc<Project>> {
        self.projects.get(root).map(|p| p.clone())
    }

    /// Drops every project unused for `idle` that nothing holds: no call in flight
    /// (each holds its project) and `in_use` (a live language server) says no. Its
    /// watches go with its index; the content-addressed caches keep its parses, so
    /// the next call re-registers it at the cost of a walk of `stat`s. Returns the
    /// roots dropped.
    pub fn evict_idle(&self, idle: Duration, in_use: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
        let cutoff = unix_ms(SystemTime::now()).saturating_sub(idle.as_millis() as u64);
        let idle_roots: Vec<PathBuf> = self
            .projects
            .iter()
            .filter(|p| p.last_used_unix_ms.load(Ordering::Relaxed) <= cutoff)
            .map(|p| p.key().clone())
            .collect();
        let mut evicted = Vec::new();
        for root in idle_roots {
            if in_use(&root) {
                continue;
            }
            // Judged again under the entry's lock: a call taking the project now
            // either holds a clone already (kept) or registers it afresh after.
            let removed = self.projects.remove_if(&root, |_, p| {
                Arc::strong_count(p) == 1 && p.last_used_unix_ms.load(Ordering::Relaxed) <= cutoff
            });
            if removed.is_some() {
                tracing::info!(root = %root.display(), "evicted idle project");
                evicted.push(root);
            }
        }
        evicted
    }

    /// Drops from the text index the contents that files held and no longer hold,
    /// unless a registered project's file holds them still, once they are an
    /// eighth of its contents or it turned one away for its cap: an agent's edits
    /// would otherwise leave every earlier version of a file in it, in memory and
    /// against the cap, for the daemon's life. Contents of evicted projects that
    /// did not change stay (the next call to one finds them, as it finds its
    /// parses). How many went.
    pub fn sweep_text(&self) -> u64 {
        let text = self.caches.text();
        let mut superseded = self.superseded.lock().unwrap();
        for p in self.projects.iter() {
            superseded.extend(p.index.take_superseded());
        }
        // Off, it holds nothing: no pass over every project's table for it.
        if text.is_off() {
            superseded.clear();
            return 0;
        }
        let many = superseded.len() as u64 >= text.figures().contents / 8;
        if superseded.is_empty() || !(many || text.is_full()) {
            return 0;
        }
        let mark = text.mark();
        let mut live = FxHashSet::default();
        for p in self.projects.iter() {
            p.index.held_contents(&mut live);
        }
        let dropped = text.retain(mark, |h| live.contains(h) || !superseded.contains(h));
        superseded.clear();
        if dropped > 0 {
            tracing::info!(
                contents = dropped,
                "text index swept of contents no file holds"
            );
        }
        dropped
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
        assert!(a.touch(), "a first call is noted");
        assert!(!a.touch(), "the next within the hour is not");
        let rows = reg.list();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].root, std::fs::canonicalize(tmp.path()).unwrap());
        assert_eq!(rows[0].calls, 2);
    }

    #[test]
    fn only_idle_projects_nothing_holds_are_evicted() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        for dir in [&a, &b, &c] {
            std::fs::create_dir(dir).unwrap();
        }
        let reg = ProjectRegistry::new(Arc::new(Caches::new(1 << 20)), IndexConfig::default());
        reg.open(&a).unwrap();
        let held = reg.open(&b).unwrap();
        reg.open(&c).unwrap();
        let c = std::fs::canonicalize(&c).unwrap();
        // Nothing is idle for an hour yet.
        assert!(
            reg.evict_idle(Duration::from_secs(3600), |_| false)
                .is_empty()
        );
        // Idle at once: `b` is held by a call, `c` has a language server.
        let evicted = reg.evict_idle(Duration::ZERO, |root| root == c);
        assert_eq!(evicted, [std::fs::canonicalize(&a).unwrap()]);
        let left: Vec<PathBuf> = reg.list().into_iter().map(|p| p.root).collect();
        assert_eq!(left, [held.root.clone(), c]);
        drop(held);
        assert_eq!(reg.evict_idle(Duration::ZERO, |_| false).len(), 2);
        // The next call registers it again.
        reg.open(&a).unwrap();
        assert_eq!(reg.list().len(), 1);
    }

    /// A content a file no longer holds leaves the text index; one a file holds
    /// still stays, and so does an evicted project's.
    #[test]
    fn the_text_index_is_swept_of_contents_no_file_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for (dir, names) in [(&a, ["x.rs", "y.rs"]), (&b, ["z.rs", "w.rs"])] {
            std::fs::create_dir(dir).unwrap();
            for name in names {
                std::fs::write(dir.join(name), format!("fn f() {{}} // {name}\n")).unwrap();
            }
        }
        let reg = ProjectRegistry::new(Arc::new(Caches::new(1 << 20)), IndexConfig::default());
        let text = reg.caches.text();
        let hash = |bytes: &[u8]| *blake3::hash(bytes).as_bytes();
        let known =
            |dir: &Path, name: &str| text.knows(&hash(&std::fs::read(dir.join(name)).unwrap()));
        let (pa, pb) = (reg.open(&a).unwrap(), reg.open(&b).unwrap());
        pa.index.full_index();
        pb.index.full_index();
        let files = [(&a, "x.rs"), (&a, "y.rs"), (&b, "z.rs"), (&b, "w.rs")];
        assert!(files.iter().all(|(dir, name)| known(dir, name)));
        drop(pb);
        assert_eq!(
            reg.evict_idle(Duration::ZERO, |root| root == pa.root).len(),
            1
        );
        // `x.rs` edited by us: its old content is held by no file now.
        let old = hash(&std::fs::read(a.join("x.rs")).unwrap());
        let new = b"fn g() {}\n";
        std::fs::write(a.join("x.rs"), new).unwrap();
        let x = pa.resolve("x.rs", Want::File).unwrap();
        pa.index.wrote(&x, new, None);
        assert!(text.knows(&old));
        assert_eq!(reg.sweep_text(), 1);
        assert!(!text.knows(&old) && text.knows(&hash(new)));
        assert!(files[1..].iter().all(|(dir, name)| known(dir, name)));
        // Nothing superseded since: nothing to sweep.
        assert_eq!(reg.sweep_text(), 0);
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
