//! The index of one worktree root: path → content hash → shared parsed symbols, kept
//! fresh by a notify watcher.
//!
//! The first full walk runs on its own thread (honouring `.gitignore`, skipping nested
//! repositories and worktrees, oversized and binary files) with files parsed in
//! parallel over the cores; until it is done, callers that need the whole root get
//! `INDEXING` with progress (DESIGN invariant 6), while a single file is always
//! answered by parsing it on demand. Any answer about a file re-checks that file's
//! identity first, so it reflects every write, ours or anyone's, even before the
//! watcher has reported it.

use std::{
    collections::{HashMap, HashSet},
    fs,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, RwLock, Weak,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    ErrorCode, ErrorDetails, LeanError, Progress,
    protocol::{IndexState, IndexStatus},
};
use notify::{RecursiveMode, Watcher};
use tokio::sync::watch;

use super::{
    lang::Lang,
    store::{Caches, Counters, FileId, Parsed},
};

/// Knobs of the index, from `config.toml`.
#[derive(Clone, Debug)]
pub struct IndexConfig {
    /// Larger files are skipped (generated code, vendored bundles).
    pub max_file_bytes: u64,
    pub threads: usize,
}

impl Default for IndexConfig {
    fn default() -> IndexConfig {
        IndexConfig {
            max_file_bytes: 1024 * 1024,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// Quiet time that ends a burst of file events.
const DEBOUNCE: Duration = Duration::from_millis(20);

#[derive(Debug)]
struct Entry {
    id: FileId,
    parsed: Parsed,
}

#[derive(Debug, Default)]
struct Walk {
    total: AtomicU64,
    done: AtomicU64,
    binary: AtomicU64,
    too_large: AtomicU64,
    unreadable: AtomicU64,
}

#[derive(Debug)]
pub struct RootIndex {
    root: PathBuf,
    caches: Arc<Caches>,
    config: IndexConfig,
    files: RwLock<HashMap<String, Entry>>,
    counters: Counters,
    walk: Walk,
    ready: watch::Sender<bool>,
    started: AtomicBool,
    last_full_ms: AtomicU64,
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
    /// Full walks run one at a time (the first one, and rescans after overflow).
    walking: Mutex<()>,
}

impl RootIndex {
    pub fn new(root: PathBuf, caches: Arc<Caches>, config: IndexConfig) -> RootIndex {
        RootIndex {
            root,
            caches,
            config,
            files: RwLock::new(HashMap::new()),
            counters: Counters::default(),
            walk: Walk::default(),
            ready: watch::Sender::new(false),
            started: AtomicBool::new(false),
            last_full_ms: AtomicU64::new(0),
            watcher: Mutex::new(None),
            walking: Mutex::new(()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts the watcher and the first full walk, once; returns at once.
    pub fn start(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        // Watch before walking, so nothing written during the walk is missed.
        self.start_watcher();
        let me = self.clone();
        std::thread::Builder::new()
            .name("lean-ctx-index".into())
            .spawn(move || me.full_index())
            .expect("spawn index thread");
    }

    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// Waits up to `wait` for the first full walk; `INDEXING` with progress if it is
    /// still running then.
    pub async fn wait_ready(&self, wait: Duration) -> Result<(), LeanError> {
        let mut rx = self.ready.subscribe();
        let ready = tokio::time::timeout(wait, async { rx.wait_for(|r| *r).await.is_ok() }).await;
        if matches!(ready, Ok(true)) {
            return Ok(());
        }
        let (done, total) = (
            self.walk.done.load(Ordering::Relaxed),
            self.walk.total.load(Ordering::Relaxed),
        );
        let percent = (done * 100).checked_div(total).unwrap_or(0) as u8;
        Err(LeanError::new(
            ErrorCode::Indexing,
            format!(
                "indexing {}: {done} of {total} files ({percent}%)",
                self.root.display()
            ),
        )
        .with_details(ErrorDetails::Progress(Progress {
            done,
            total,
            percent,
            message: format!("{done}/{total} files"),
        })))
    }

    /// Walks the root and (re)indexes every file; unchanged files cost one `stat`.
    pub fn full_index(&self) {
        let _one_at_a_time = self.walking.lock().unwrap();
        let started = Instant::now();
        for counter in [
            &self.walk.total,
            &self.walk.done,
            &self.walk.binary,
            &self.walk.too_large,
            &self.walk.unreadable,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        let files = self.walk_files();
        self.walk.total.store(files.len() as u64, Ordering::Relaxed);
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..self.config.threads.max(1) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((abs, rel)) = files.get(i) else {
                            break;
                        };
                        self.index_file(abs, rel);
                        self.walk.done.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        let seen: HashSet<&str> = files.iter().map(|(_, rel)| rel.as_str()).collect();
        self.files
            .write()
            .unwrap()
            .retain(|rel, _| seen.contains(rel.as_str()));
        let ms = started.elapsed().as_millis() as u64;
        self.last_full_ms.store(ms, Ordering::Relaxed);
        self.ready.send_replace(true);
        tracing::info!(root = %self.root.display(), files = files.len(), ms, "indexed");
    }

    /// Files of a supported language under the root, `.gitignore` honoured, nested
    /// repositories and worktrees left out (they are other projects).
    fn walk_files(&self) -> Vec<(PathBuf, String)> {
        self.walk_under(&self.root, None)
    }

    fn walk_under(&self, dir: &Path, max_depth: Option<usize>) -> Vec<(PathBuf, String)> {
        let root = self.root.clone();
        ignore::WalkBuilder::new(dir)
            .require_git(false)
            .max_depth(max_depth)
            .filter_entry(move |e| {
                let nested = e.file_type().is_some_and(|t| t.is_dir())
                    && e.path() != root
                    && e.path().join(".git").exists();
                !nested
            })
            .build()
            .filter_map(Result::ok)
            .filter(|e| {
                e.file_type().is_some_and(|t| t.is_file()) && Lang::from_path(e.path()).is_some()
            })
            .filter_map(|e| {
                let rel = self.relative(e.path())?;
                Some((e.into_path(), rel))
            })
            .collect()
    }

    fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// Indexes one file; `None` if it is gone, unreadable, too large or binary.
    fn index_file(&self, abs: &Path, rel: &str) -> Option<Parsed> {
        let lang = Lang::from_path(abs)?;
        let Ok(meta) = fs::metadata(abs) else {
            self.files.write().unwrap().remove(rel);
            return None;
        };
        if meta.len() > self.config.max_file_bytes {
            self.walk.too_large.fetch_add(1, Ordering::Relaxed);
            self.files.write().unwrap().remove(rel);
            return None;
        }
        let id = FileId::of(&meta);
        if let Some(entry) = self.files.read().unwrap().get(rel).filter(|e| e.id == id) {
            return Some(entry.parsed.clone());
        }
        match self.caches.parse(abs, &meta, lang, &self.counters) {
            Ok(parsed) if parsed.symbols.binary => {
                self.walk.binary.fetch_add(1, Ordering::Relaxed);
                self.files.write().unwrap().remove(rel);
                None
            }
            Ok(parsed) => {
                self.files.write().unwrap().insert(
                    rel.to_string(),
                    Entry {
                        id,
                        parsed: parsed.clone(),
                    },
                );
                Some(parsed)
            }
            Err(_) => {
                self.walk.unreadable.fetch_add(1, Ordering::Relaxed);
                self.files.write().unwrap().remove(rel);
                None
            }
        }
    }

    /// The current parse of `abs` (inside this root), re-checked against the disk.
    /// Files the walk does not index (ignored ones) are parsed but not added.
    pub fn file(&self, abs: &Path, rel: &str) -> Result<Parsed, LeanError> {
        let lang = Lang::from_path(abs).ok_or_else(|| {
            LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{rel}: no symbol support for this file type"),
            )
            .with_remedy("supported: Rust, Python, TypeScript/TSX, JavaScript, Go, Java, Kotlin")
        })?;
        let meta = fs::metadata(abs)
            .map_err(|e| LeanError::new(ErrorCode::FileNotFound, format!("{rel}: {e}")))?;
        let id = FileId::of(&meta);
        let known = self
            .files
            .read()
            .unwrap()
            .get(rel)
            .map(|e| (e.id, e.parsed.clone()));
        match known {
            Some((known_id, parsed)) if known_id == id => Ok(parsed),
            Some(_) => self.index_file(abs, rel).ok_or_else(|| {
                LeanError::new(
                    ErrorCode::FileNotFound,
                    format!("{rel}: cannot be indexed (binary, too large or unreadable)"),
                )
            }),
            None => {
                let parsed = self
                    .caches
                    .parse(abs, &meta, lang, &self.counters)
                    .map_err(|e| LeanError::new(ErrorCode::FileNotFound, format!("{rel}: {e}")))?;
                Ok(parsed)
            }
        }
    }

    /// Records our own write of `bytes` to `rel`, so the next answer needs no re-read.
    pub fn wrote(&self, abs: &Path, rel: &str, bytes: &[u8]) {
        let (Some(lang), Ok(meta)) = (Lang::from_path(abs), fs::metadata(abs)) else {
            return;
        };
        let parsed = self.caches.parse_bytes(&meta, lang, bytes);
        let mut files = self.files.write().unwrap();
        if files.contains_key(rel) {
            files.insert(
                rel.to_string(),
                Entry {
                    id: FileId::of(&meta),
                    parsed,
                },
            );
        }
    }

    /// Every indexed file under `prefix` (a root-relative dir or file; empty = all),
    /// sorted by path.
    pub fn files_under(&self, prefix: &str) -> Vec<(String, Parsed)> {
        let files = self.files.read().unwrap();
        let mut out: Vec<(String, Parsed)> = files
            .iter()
            .filter(|(rel, _)| under(rel, prefix))
            .map(|(rel, e)| (rel.clone(), e.parsed.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub fn status(&self) -> IndexStatus {
        let files = self.files.read().unwrap();
        IndexStatus {
            state: if self.is_ready() {
                IndexState::Ready
            } else {
                IndexState::Indexing
            },
            files_total: self.walk.total.load(Ordering::Relaxed),
            files_indexed: files.len() as u64,
            symbols: files.values().map(|e| e.parsed.symbols.count as u64).sum(),
            skipped_binary: self.walk.binary.load(Ordering::Relaxed),
            skipped_too_large: self.walk.too_large.load(Ordering::Relaxed),
            skipped_unreadable: self.walk.unreadable.load(Ordering::Relaxed),
            symbol_bytes: files.values().map(|e| e.parsed.symbols.weight as u64).sum(),
            hash_cache: self.counters.hash(),
            symbol_cache: self.counters.symbols(),
            last_full_index_ms: self.last_full_ms.load(Ordering::Relaxed),
        }
    }

    fn start_watcher(self: &Arc<Self>) {
        let (tx, rx) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = tx.send(event);
        })
        .and_then(|mut w| w.watch(&self.root, RecursiveMode::Recursive).map(|()| w));
        match watcher {
            Ok(w) => *self.watcher.lock().unwrap() = Some(w),
            Err(e) => {
                // Answers stay correct for single files (identity re-check); only
                // root-wide answers may lag until the next rescan.
                tracing::warn!(root = %self.root.display(), error = %e, "cannot watch; root-wide answers may lag");
                return;
            }
        }
        let me = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("lean-ctx-watch".into())
            .spawn(move || watch_loop(me, rx))
            .expect("spawn watch thread");
    }

    /// Applies one burst of file events.
    fn apply(&self, events: Vec<notify::Result<notify::Event>>) {
        let mut rescan = false;
        let mut paths = HashSet::new();
        for event in events {
            match event {
                Ok(ev) if ev.need_rescan() => rescan = true,
                Ok(ev) => paths.extend(ev.paths),
                Err(e) => {
                    tracing::warn!(error = %e, "watch error; rescanning");
                    rescan = true;
                }
            }
        }
        if rescan {
            self.full_index();
            return;
        }
        for path in paths {
            let Some(rel) = self.relative(&path) else {
                continue;
            };
            if rel == ".git" || rel.starts_with(".git/") {
                continue;
            }
            if path.is_dir() || (!path.exists() && Lang::from_path(&path).is_none()) {
                // A directory appeared, moved or vanished: let the walk sort it out.
                self.full_index();
                return;
            }
            if Lang::from_path(&path).is_none() {
                continue;
            }
            let known = self.files.read().unwrap().contains_key(&rel);
            if known {
                self.index_file(&path, &rel);
            } else if path.is_file() {
                // New file: index it only if the walk would (ignore rules, nesting).
                let parent = path.parent().unwrap_or(&self.root);
                if self
                    .walk_under(parent, Some(1))
                    .iter()
                    .any(|(_, r)| *r == rel)
                {
                    self.index_file(&path, &rel);
                }
            }
        }
    }
}

fn under(rel: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty()
        || rel == prefix
        || rel
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn watch_loop(index: Weak<RootIndex>, rx: mpsc::Receiver<notify::Result<notify::Event>>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while let Ok(more) = rx.recv_timeout(DEBOUNCE) {
            batch.push(more);
        }
        let Some(index) = index.upgrade() else { return };
        index.apply(batch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn before_the_first_walk_finishes_the_answer_is_indexing_with_progress() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a.rs"), "fn a() {}").unwrap();
        let index = Arc::new(RootIndex::new(
            tmp.path().to_path_buf(),
            Arc::new(Caches::new(1 << 20)),
            IndexConfig::default(),
        ));
        let err = index.wait_ready(Duration::ZERO).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Indexing);
        assert!(
            matches!(
                err.details,
                Some(ErrorDetails::Progress(Progress { total: 0, .. }))
            ),
            "{err:?}"
        );
        assert_eq!(index.status().state, IndexState::Indexing);
        index.start();
        index.wait_ready(Duration::from_secs(10)).await.unwrap();
        let status = index.status();
        assert_eq!(
            (
                status.state,
                status.files_total,
                status.files_indexed,
                status.symbols
            ),
            (IndexState::Ready, 1, 1, 1)
        );
    }

    #[test]
    fn prefixes_match_whole_path_segments() {
        assert!(under("src/a.rs", ""));
        assert!(under("src/a.rs", "src"));
        assert!(under("src/a.rs", "src/"));
        assert!(under("src/a.rs", "src/a.rs"));
        assert!(!under("src2/a.rs", "src"));
        assert!(!under("src/a.rs", "sr"));
    }
}
