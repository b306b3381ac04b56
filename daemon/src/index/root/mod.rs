//! The index of one worktree root: path → content hash → shared parsed symbols, kept
//! fresh by a directory watcher (`fs/watch.rs`).
//!
//! The first full walk runs on its own thread (honouring `.gitignore`, skipping nested
//! repositories and worktrees, oversized and binary files) with files parsed in
//! parallel over the cores; until it is done, callers that need the whole root get
//! `INDEXING` with progress (docs/design.md #6), while a single file is always
//! answered by parsing it on demand. Any answer about a file re-checks that file's
//! identity first, so it reflects every write, ours or anyone's, even before the
//! watcher has reported it. A root whose directories cannot all be watched (a watch
//! limit, a watch error) says so in its status and is walked again every
//! `rescan_interval` until a walk watches everything.

use std::{
    collections::{HashMap, HashSet},
    os::fd::AsFd,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, OnceLock, RwLock, Weak,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    ErrorCode, ErrorDetails, LeanError, Progress,
    protocol::{IndexState, IndexStatus},
};
use rustc_hash::{FxHashMap, FxHashSet};
use tokio::sync::watch;

use rustix::fs::{AtFlags, FileType};

use lean_ctx_syntax::{FileSymbols, Lang};

use super::{
    fs::{
        git_index::GitIndex,
        walk::{Listed, Rules, Walker, hidden, inputs_above, join},
        watch::{Change, DirWatcher},
    },
    ids::{self, FileId, Hash, IgnoreFiles, RACY},
    store::{
        Caches, ContentFacts, Counters, Parsed, WalkAgain,
        listing::{Dir, Listing},
    },
    text::plan::Query,
};
use crate::jail::{self, Jailed};

mod events;
mod warm;

/// Knobs of the index, from `config.toml`.
#[derive(Clone, Debug)]
pub struct IndexConfig {
    /// Larger files are skipped (generated code, vendored bundles).
    pub max_file_bytes: u64,
    pub threads: usize,
    /// How often a root that cannot be fully watched is walked again.
    pub rescan_interval: Duration,
}

impl Default for IndexConfig {
    fn default() -> IndexConfig {
        let section = crate::config::IndexSection::default();
        IndexConfig {
            max_file_bytes: section.max_file_bytes,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            rescan_interval: section.rescan_interval,
        }
    }
}

/// Opens a file found by a walk, beneath the root (`jail::open_beneath`).
type Opener<'a> = dyn Fn() -> std::io::Result<std::fs::File> + 'a;

/// Quiet time that ends a burst of file events.
const DEBOUNCE: Duration = Duration::from_millis(20);

#[derive(Debug)]
struct Entry {
    id: FileId,
    /// Whether `id` stands for the bytes `known` was made from for as long as it
    /// lasts: settled when they were read (`FileId::settled`), vouched for by git,
    /// or known to the store by it. Otherwise a write in the same timestamp tick may
    /// have kept the identity, and the next look at the file reads it again.
    settled: bool,
    /// Its content's hash and parse figures; the parse itself is fetched from the
    /// shared caches (or the store) when asked for.
    known: ContentFacts,
    /// The full walk that last saw the file: entries of older walks are gone.
    walk: AtomicU64,
}

impl Entry {
    fn new(id: FileId, settled: bool, known: ContentFacts, walk: u64) -> Entry {
        let walk = AtomicU64::new(walk);
        Entry {
            id,
            settled,
            known,
            walk,
        }
    }

    /// Whether the file, now of identity `id`, still holds this entry's bytes.
    fn holds(&self, id: &FileId) -> bool {
        self.settled && self.id == *id
    }
}

/// The root's files by root-relative path, with running totals that `daemon status`
/// reads without taking the lock: a status must never wait behind the walk's
/// writers (on a loaded machine a writer preempted while holding the lock held a
/// status for hundreds of milliseconds, and summing 100,000 entries under it cost
/// more). Every change goes through here, under the write lock, so the totals are
/// the map's.
#[derive(Debug, Default)]
struct FileTable {
    map: RwLock<FxHashMap<String, Entry>>,
    /// The map's names in path order, made when a search first wants them after a
    /// name came or went (`None`); a search over a large root would otherwise sort
    /// every name each time.
    order: Mutex<Option<Arc<[Arc<str>]>>>,
    /// Contents the table held and no longer does (a file changed or went away),
    /// since the registry last took them ([`RootIndex::take_superseded`]): the
    /// text index may drop them.
    superseded: Mutex<Vec<Hash>>,
    files: AtomicU64,
    symbols: AtomicU64,
    bytes: AtomicU64,
}

impl FileTable {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, FxHashMap<String, Entry>> {
        self.map.read().unwrap()
    }

    fn count(&self, entry: &Entry, add: bool) {
        let meta = entry.known.meta;
        for (total, n) in [
            (&self.files, 1),
            (&self.symbols, u64::from(meta.count)),
            (&self.bytes, u64::from(meta.weight)),
        ] {
            match add {
                true => total.fetch_add(n, Ordering::Relaxed),
                false => total.fetch_sub(n, Ordering::Relaxed),
            };
        }
    }

    fn insert(&self, rel: String, entry: Entry) {
        self.extend([(rel, entry)]);
    }

    /// Inserts many under one take of the lock (a restart enters a root's
    /// unchanged files at once).
    fn extend(&self, entries: impl IntoIterator<Item = (String, Entry)>) {
        let mut map = self.map.write().unwrap();
        for (rel, entry) in entries {
            self.count(&entry, true);
            let hash = entry.known.hash;
            match map.insert(rel, entry) {
                Some(old) => {
                    self.count(&old, false);
                    self.superseded(&old, Some(&hash));
                }
                None => *self.order.lock().unwrap() = None,
            }
        }
    }

    /// Replaces the entry of `rel`, if there is one.
    fn replace(&self, rel: &str, entry: Entry) {
        let mut map = self.map.write().unwrap();
        if let Some(old) = map.get_mut(rel) {
            self.count(old, false);
            self.count(&entry, true);
            self.superseded(old, Some(&entry.known.hash));
            *old = entry;
        }
    }

    fn remove(&self, rel: &str) {
        if let Some(old) = self.map.write().unwrap().remove(rel) {
            self.count(&old, false);
            self.superseded(&old, None);
            *self.order.lock().unwrap() = None;
        }
    }

    fn retain(&self, mut keep: impl FnMut(&str, &Entry) -> bool) {
        self.map.write().unwrap().retain(|rel, entry| {
            let kept = keep(rel, entry);
            if !kept {
                self.count(entry, false);
                self.superseded(entry, None);
                *self.order.lock().unwrap() = None;
            }
            kept
        });
    }

    /// Notes `old`'s content as no longer held here, unless its file holds it
    /// still (`now`).
    fn superseded(&self, old: &Entry, now: Option<&Hash>) {
        if now != Some(&old.known.hash) {
            self.superseded.lock().unwrap().push(old.known.hash);
        }
    }

    /// The names of `map` (the table, read-locked by the caller, so no name comes or
    /// goes meanwhile) in path order.
    fn order(&self, map: &FxHashMap<String, Entry>) -> Arc<[Arc<str>]> {
        let mut order = self.order.lock().unwrap();
        order
            .get_or_insert_with(|| {
                let mut names: Vec<Arc<str>> = map.keys().map(|k| Arc::from(k.as_str())).collect();
                names.sort_unstable();
                names.into()
            })
            .clone()
    }

    fn clear(&self) {
        self.retain(|_, _| false);
    }

    /// Room for `expected` files, made once rather than grown (and rehashed) file
    /// by file.
    fn reserve(&self, expected: usize) {
        let mut map = self.map.write().unwrap();
        let more = expected.saturating_sub(map.len());
        map.reserve(more);
    }
}

#[derive(Debug, Default)]
struct Walk {
    /// Files found so far by the running walk (it indexes as it finds them).
    total: AtomicU64,
    /// Files the walk is expected to find: the git index's tracked files of a
    /// supported language (0 without one), so progress means something while the
    /// walk is still finding files.
    expected: AtomicU64,
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
    files: FileTable,
    counters: Counters,
    walk: Walk,
    ready: watch::Sender<bool>,
    started: AtomicBool,
    last_full_ms: AtomicU64,
    watcher: Arc<OnceLock<DirWatcher>>,
    /// The watch thread's channel, for flushes (`events.rs`).
    flushes: OnceLock<mpsc::Sender<events::Note>>,
    /// Why some directory of the root could not be watched (the watcher did not
    /// start, a watch limit, a watch error); `None` while all are watched. Cleared by
    /// a full walk that watched every directory it entered.
    unwatched: Mutex<Option<String>>,
    /// Watch failures during the running full walk.
    walk_watch_errors: AtomicU64,
    /// The ignore rules in force per directory, for judging watcher events.
    ignores: Mutex<HashMap<PathBuf, Rules>>,
    /// Full walks run one at a time (the first one, and rescans after overflow).
    walking: Mutex<()>,
    /// Paths under the root that changed on disk (not ignored), for whoever mirrors
    /// files elsewhere: the language servers of this root.
    changes: tokio::sync::broadcast::Sender<Arc<[PathBuf]>>,
    /// Numbers full walks, for dropping the entries a walk did not see.
    generation: AtomicU64,
    /// The worktree's git index as of the last full walk: the blobs of files it
    /// vouches for (a stale one vouches for nothing that changed since: `stat` must
    /// still match).
    git: RwLock<Option<Arc<GitIndex>>>,
    /// Files found but not indexed, by path: named in listings and searches, never
    /// silently left out. Cleared by each full walk, which finds them again.
    skipped: RwLock<std::collections::BTreeMap<String, Skipped>>,
    /// The text index's epoch ([`TextIndex::epoch`]) when the root's last
    /// [`RootIndex::fill_text`] ended (`u64::MAX`: none yet, or one under way).
    text_filled: AtomicU64,
    /// Set while a full walk runs: what it reads goes to the text index only at its
    /// end ([`RootIndex::fill_text`]), after the calls waiting for the walk are
    /// answered, rather than on the walk's threads (the first index is what a new
    /// session waits for; a search meanwhile reads what the text index lacks).
    text_later: AtomicBool,
    /// Held from a full walk's end until its [`RootIndex::fill_text`] is done;
    /// searches wait for it.
    text_fill: Mutex<()>,
}

/// Why a file the walk found is not indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// NUL bytes in its first 8 KiB.
    Binary,
    /// Its size, over `index.max_file_bytes`.
    TooLarge(u64),
}

impl RootIndex {
    pub fn new(root: PathBuf, caches: Arc<Caches>, config: IndexConfig) -> RootIndex {
        RootIndex {
            root,
            caches,
            config,
            files: FileTable::default(),
            counters: Counters::default(),
            walk: Walk::default(),
            ready: watch::Sender::new(false),
            started: AtomicBool::new(false),
            last_full_ms: AtomicU64::new(0),
            watcher: Arc::default(),
            flushes: OnceLock::new(),
            unwatched: Mutex::new(None),
            walk_watch_errors: AtomicU64::new(0),
            ignores: Mutex::new(HashMap::new()),
            walking: Mutex::new(()),
            changes: tokio::sync::broadcast::Sender::new(64),
            git: RwLock::new(None),
            generation: AtomicU64::new(0),
            skipped: RwLock::default(),
            text_filled: AtomicU64::new(u64::MAX),
            text_later: AtomicBool::new(false),
            text_fill: Mutex::new(()),
        }
    }

    /// File events under the root, after the index applied them.
    pub fn subscribe_changes(&self) -> tokio::sync::broadcast::Receiver<Arc<[PathBuf]>> {
        self.changes.subscribe()
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
        let weak = Arc::downgrade(self);
        // A rewalk is spawned from a runtime thread where there is one: spawned from
        // the thread that found the store lying, often the walk behind an answer (nice
        // 10), it would inherit that priority, and callers wait for a rewalk.
        let runtime = tokio::runtime::Handle::try_current().ok();
        self.caches.on_discard(WalkAgain(Box::new(move || {
            let Some(me) = weak.upgrade() else {
                return false;
            };
            let spawn = move || {
                std::thread::Builder::new()
                    .name("lean-ctx-index".into())
                    .spawn(move || me.index_again())
                    .is_ok()
            };
            match &runtime {
                Some(runtime) => {
                    runtime.spawn(async move { spawn() });
                    true
                }
                None => spawn(),
            }
        })));
        let me = self.clone();
        std::thread::Builder::new()
            .name("lean-ctx-index".into())
            .spawn(move || {
                // Answered from the last walk's listing, the full walk still follows
                // (behind the answer): it watches every directory before listing it,
                // finds what changed since the check, and keeps a new listing. Nobody
                // waits for it, nor for what this thread does after it (settling,
                // rescans), so it leaves the cores to the caller first.
                if me.warm_start() {
                    crate::sys::lower_priority();
                }
                me.full_index();
                let (index, every) = (Arc::downgrade(&me), me.config.rescan_interval);
                // Held no longer: an evicted project's index must be dropped.
                drop(me);
                std::thread::sleep(RACY);
                if let Some(index) = index.upgrade() {
                    index.settle();
                }
                events::keep_fresh(index, every);
            })
            .expect("spawn index thread");
    }

    /// Why the root is not fully watched, if it is not.
    pub fn unwatched(&self) -> Option<String> {
        self.unwatched.lock().unwrap().clone()
    }

    /// Records a failed watch: the root is stale between rescans now, which
    /// `daemon status` shows; logged loudly once, not per directory.
    fn watch_failed(&self, what: &Path, error: &std::io::Error) {
        self.walk_watch_errors.fetch_add(1, Ordering::Relaxed);
        let mut unwatched = self.unwatched.lock().unwrap();
        if unwatched.is_none() {
            tracing::warn!(
                root = %self.root.display(),
                dir = %what.display(),
                %error,
                every = ?self.config.rescan_interval,
                "cannot watch; rescanning periodically instead"
            );
        }
        *unwatched = Some(format!("{}: {error}", what.display()));
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
        let (done, total) = (self.walk.done.load(Ordering::Relaxed), self.walk_total());
        // Not done until the walk says so: more files may still turn up.
        let percent = (done * 100).checked_div(total).unwrap_or(0).min(99) as u8;
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
        let store_waits = self.caches.walking();
        let started = Instant::now();
        let generation = self.begin_walk(true);
        self.walk_watch_errors.store(0, Ordering::Relaxed);
        let mut listing = Listing {
            started: ids::now(),
            ..Listing::default()
        };
        let dirs = Mutex::new(Vec::new());
        let record = |l: Listed<'_>| {
            dirs.lock().unwrap().push(Dir {
                rel: l.rel.to_string().into(),
                id: l.id,
                ignores: l.ignores,
                files: l
                    .files
                    .iter()
                    .map(|&(n, lang)| (n.to_string().into(), lang))
                    .collect(),
            });
        };
        // Without a store nothing keeps the listing: not recorded.
        let keep = self.caches.store().is_some();
        self.text_later.store(true, Ordering::Relaxed);
        self.walk_and_index(&self.root, true, keep.then_some(&record));
        self.text_later.store(false, Ordering::Relaxed);
        listing.dirs = dirs.into_inner().unwrap();
        if self.watcher.get().is_some() && self.walk_watch_errors.load(Ordering::Relaxed) == 0 {
            // Every directory is watched (again): events keep the root fresh.
            if self.unwatched.lock().unwrap().take().is_some() {
                tracing::info!(root = %self.root.display(), "watching again");
            }
        }
        drop(store_waits);
        // Taken before the walk's waiters are let go: a search they make next waits
        // for the text index's fill rather than read every file it lacks.
        let filling = self.text_fill.lock().unwrap();
        self.end_walk(generation, started, "walked");
        if keep {
            self.keep_listing(listing);
        }
        self.caches
            .verify_sample(&|lang, hash| self.content_of(lang, hash));
        self.fill_text();
        drop(filling);
        self.caches.save_text();
    }

    /// Resets the walk's counters for a walk of the whole root, and (`git`) takes the
    /// git index; the walk's generation. A start from a listing goes without: its
    /// unchanged files are known by identity, and reading Django's git index (a
    /// megabyte) cost a tenth of that start.
    fn begin_walk(&self, git: bool) -> u64 {
        for counter in [
            &self.walk.total,
            &self.walk.done,
            &self.walk.binary,
            &self.walk.too_large,
            &self.walk.unreadable,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        self.skipped.write().unwrap().clear();
        if git {
            let git = GitIndex::load(&self.root).map(Arc::new);
            let expected = git.as_ref().map_or(0, |g| {
                g.paths()
                    .filter(|p| {
                        Lang::from_name(p.rsplit('/').next().unwrap_or(p).as_bytes()).is_some()
                    })
                    .count()
            });
            self.walk.expected.store(expected as u64, Ordering::Relaxed);
            *self.git.write().unwrap() = git;
            self.files.reserve(expected);
        }
        self.generation.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Ends a walk of the whole root: drops what it did not see, and answers.
    fn end_walk(&self, generation: u64, started: Instant, how: &str) {
        self.caches.settle();
        let elapsed = started.elapsed();
        self.files
            .retain(|_, e| e.walk.load(Ordering::Relaxed) == generation);
        let count = self.files.files.load(Ordering::Relaxed);
        self.last_full_ms
            .store(elapsed.as_millis() as u64, Ordering::Relaxed);
        // To a tenth of a millisecond: a start from a listing takes a few. Logged
        // before the waiting answers are let go, so whoever has one finds the line
        // (the tests count starts from a listing by it; one read the log first).
        let ms = (elapsed.as_micros() / 100) as f64 / 10.0;
        tracing::info!(root = %self.root.display(), files = count, ms, how, "indexed");
        self.ready.send_replace(true);
    }

    /// Forgets every file and walks the root again: what it held came (partly) from
    /// a store found lying. Callers get `INDEXING` until the walk is done.
    fn index_again(&self) {
        self.ready.send_replace(false);
        self.files.clear();
        self.full_index();
    }

    /// Walks `dir` once over the configured threads and indexes each file of a
    /// supported language as it is found (stamped with the current walk), leaving
    /// out what [`walk`](super::walk) leaves out. Every directory is watched when
    /// it is opened, before it is listed, so a file created meanwhile is either
    /// listed or reported: one walk, no window. `progress`: count into the full
    /// walk's progress (a subtree re-walk after a watcher event must not push it past
    /// 100%); `listed`: each directory listed, for the root's listing.
    fn walk_and_index(
        &self,
        dir: &Path,
        progress: bool,
        listed: Option<&(dyn Fn(Listed<'_>) + Sync)>,
    ) {
        let rel = self.relative(dir).unwrap_or_default();
        // Beneath the root, no symlink on the way: a directory the watcher named,
        // swapped for a symlink since, is not walked through.
        let start =
            jail::open_root(&self.root).and_then(|r| jail::open_dir_beneath(r.as_fd(), &rel));
        // Unreadable or gone: left out, as the walk leaves out any directory it
        // cannot open.
        let Ok(start) = start else { return };
        let rules = self.rules_above(dir);
        Walker {
            threads: self.config.threads,
            listed,
            descend: None,
            enter: &|dir| self.watch_dir(dir),
            file: &|found| {
                if progress {
                    self.walk.total.fetch_add(1, Ordering::Relaxed);
                }
                self.index_found_from(found.rel, found.lang, found.id, &|| found.open());
                if progress {
                    self.walk.done.fetch_add(1, Ordering::Relaxed);
                }
            },
        }
        .run(start, dir, &rel, rules);
    }

    /// Whether the walk would leave `path` out: hidden, not UTF-8, inside a nested
    /// repository or worktree, or ignored by the rules of a directory above it.
    fn is_ignored(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        if rel.to_str().is_none() || rel.components().any(|c| hidden(c.as_os_str())) {
            return true;
        }
        let mut dir = self.root.clone();
        let mut parts = rel.components().peekable();
        while let Some(part) = parts.next() {
            let here = dir.join(part);
            let is_dir = parts.peek().is_some() || path.is_dir();
            if is_dir && here.join(".git").exists() {
                return true;
            }
            if self.rules_inside(&dir).ignores(&here, is_dir) {
                return true;
            }
            dir = here;
        }
        false
    }

    /// The ignore rules in force in the parent of `dir` (the root or a directory
    /// under it): above the root, those of its repository.
    fn rules_above(&self, dir: &Path) -> Rules {
        match dir.parent() {
            Some(parent) if dir != self.root && dir.starts_with(&self.root) => {
                self.rules_inside(parent)
            }
            _ => Rules::above(
                &self.root,
                lean_ctx_shared::paths::canonical_home().as_deref(),
            ),
        }
    }

    /// The ignore rules in force inside `dir` (the root or a directory under it),
    /// remembered for judging later events.
    fn rules_inside(&self, dir: &Path) -> Rules {
        if let Some(rules) = self.ignores.lock().unwrap().get(dir) {
            return rules.clone();
        }
        let rules = self.rules_above(dir).inside(dir, IgnoreFiles::on_disk(dir));
        self.ignores
            .lock()
            .unwrap()
            .insert(dir.to_path_buf(), rules.clone());
        rules
    }

    fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// Hash and symbols of `rel` (identity `id`, read through `open` if at all) from
    /// the shared caches, with the blob the git index says it holds if it vouches
    /// for it; and whether `id` stands for those bytes for as long as it lasts
    /// ([`Caches::parse`]).
    fn parse(
        &self,
        rel: &str,
        lang: Lang,
        id: FileId,
        open: &dyn Fn() -> std::io::Result<std::fs::File>,
    ) -> std::io::Result<(ContentFacts, bool)> {
        let blob = self
            .git
            .read()
            .unwrap()
            .as_ref()
            .and_then(|g| g.clean_blob(rel, &id));
        let text_now = !self.text_later.load(Ordering::Relaxed);
        self.caches
            .parse(open, id, lang, &self.counters, blob, text_now)
    }

    /// Reads again the files whose identities were not settled when they were read
    /// (changed within `ids::RACY` before: a fresh clone or checkout), now that
    /// they may be: so that the store learns them, and the next restart knows those
    /// files by identity instead of reading every one of them again. Called once,
    /// `RACY` after the first full walk; a file still settling then is read at its
    /// next look.
    fn settle(&self) {
        let unsettled: Vec<String> = self
            .files
            .read()
            .iter()
            .filter(|(_, e)| !e.settled)
            .map(|(rel, _)| rel.clone())
            .collect();
        for rel in unsettled {
            self.index_file(&self.root.join(&rel), &rel);
        }
    }

    /// Indexes one file the watcher reported, read beneath the root
    /// ([`RootIndex::open`]); `None` if it is gone, unreadable, too large, binary or
    /// no longer a regular file inside the root.
    fn index_file(&self, abs: &Path, rel: &str) -> Option<ContentFacts> {
        let lang = Lang::from_path(abs)?;
        let open = || self.open(rel);
        let Ok(id) = open().and_then(|f| Ok(FileId::from(&rustix::fs::fstat(&f)?))) else {
            self.files.remove(rel);
            self.skip(rel, None);
            return None;
        };
        self.index_found_from(rel, lang, id, &open)
    }

    /// A file the walk or the watcher found, by its root-relative name, opened beneath
    /// a descriptor of the root without following any symlink (`jail::open_beneath`):
    /// one swapped in since it was found is refused, never read.
    pub fn open(&self, rel: &str) -> std::io::Result<std::fs::File> {
        jail::open_beneath(jail::open_root(&self.root)?.as_fd(), rel)
    }

    /// [`RootIndex::index_found`] reading through `open`.
    fn index_found_from(
        &self,
        rel: &str,
        lang: Lang,
        id: FileId,
        open: &dyn Fn() -> std::io::Result<std::fs::File>,
    ) -> Option<ContentFacts> {
        if id.size() > self.config.max_file_bytes {
            self.walk.too_large.fetch_add(1, Ordering::Relaxed);
            self.files.remove(rel);
            self.skip(rel, Some(Skipped::TooLarge(id.size())));
            return None;
        }
        let walk = self.generation.load(Ordering::Relaxed);
        if let Some(entry) = self.files.read().get(rel).filter(|e| e.holds(&id)) {
            entry.walk.store(walk, Ordering::Relaxed);
            return Some(entry.known.clone());
        }
        match self.parse(rel, lang, id, open) {
            Ok((known, _)) if known.meta.binary => {
                self.walk.binary.fetch_add(1, Ordering::Relaxed);
                self.files.remove(rel);
                self.skip(rel, Some(Skipped::Binary));
                None
            }
            Ok((known, settled)) => {
                let entry = Entry::new(id, settled, known.clone(), walk);
                self.files.insert(rel.to_string(), entry);
                self.skip(rel, None);
                Some(known)
            }
            Err(_) => {
                self.walk.unreadable.fetch_add(1, Ordering::Relaxed);
                self.files.remove(rel);
                self.skip(rel, None);
                None
            }
        }
    }

    /// The current parse of a jailed file, re-checked against the disk and read
    /// beneath the jail's held directory. Files the walk does not index (ignored
    /// ones) are parsed but not added.
    pub fn file(&self, file: &Jailed) -> Result<Parsed, LeanError> {
        let rel = file.rel.as_str();
        let lang = Lang::from_path(&file.abs).ok_or_else(|| {
            LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{rel}: no symbol support for this file type"),
            )
            .with_remedy("supported: Rust, Python, TypeScript/TSX, JavaScript, Go, Java, Kotlin")
        })?;
        let not_found =
            |e: std::io::Error| LeanError::new(ErrorCode::FileNotFound, format!("{rel}: {e}"));
        let id = file
            .open()
            .and_then(|f| Ok(FileId::from(&rustix::fs::fstat(&f)?)))
            .map_err(not_found)?;
        self.parse_allowed(rel, id.size())?;
        let open = || file.open();
        let indexed = self
            .files
            .read()
            .get(rel)
            .map(|e| (e.holds(&id), e.known.clone()));
        let known = match indexed {
            Some((true, known)) => known,
            Some(_) => self.index_found_from(rel, lang, id, &open).ok_or_else(|| {
                LeanError::new(
                    ErrorCode::FileNotFound,
                    format!("{rel}: cannot be indexed (binary, too large or unreadable)"),
                )
            })?,
            None => self.parse(rel, lang, id, &open).map_err(not_found)?.0,
        };
        self.caches.symbols_of(&known, id, &open).map_err(not_found)
    }

    /// Refuses a file over `index.max_file_bytes` before anything parses it: the
    /// walk's limit holds for single files and edits too. A parse is several times
    /// the file's size in memory: a 50 MB file took the daemon from 65 MB to 485 MB,
    /// kept by the symbol cache, and its outline outgrew one answer.
    pub fn parse_allowed(&self, rel: &str, size: u64) -> Result<(), LeanError> {
        if size <= self.config.max_file_bytes {
            return Ok(());
        }
        Err(LeanError::new(
            ErrorCode::Unsupported,
            format!(
                "{rel}: {size} bytes, over the index limit of {} bytes (index.max_file_bytes)",
                self.config.max_file_bytes
            ),
        )
        .with_remedy(
            "generated or vendored files this large are not parsed: read or edit a line range directly, or raise index.max_file_bytes in config.toml",
        ))
    }

    /// Records our own write of `bytes` to `file`, so the next answer needs no
    /// re-parse (a read and a hash while the new identity is not yet settled).
    pub fn wrote(&self, file: &Jailed, bytes: &[u8], parsed: Option<FileSymbols>) {
        let rel = file.rel.as_str();
        let id = file
            .open()
            .and_then(|f| Ok(FileId::from(&rustix::fs::fstat(&f)?)));
        let (Some(lang), Ok(id)) = (Lang::from_path(&file.abs), id) else {
            return;
        };
        let known = self.caches.parse_bytes(lang, bytes, parsed);
        // Just written: not settled (`FileId::settled`).
        let walk = self.generation.load(Ordering::Relaxed);
        self.files.replace(rel, Entry::new(id, false, known, walk));
    }

    /// The first `limit` indexed files of a code language under `prefix` (a
    /// root-relative dir or file; empty = all) by path, with their parses, and how
    /// many there are: what answers about symbols go through (text files have none).
    pub fn files_under(&self, prefix: &str, limit: usize) -> (Vec<(String, Parsed)>, usize) {
        let (found, total) = self.listed_under(prefix, limit, |k| k.lang.is_code());
        let parsed = self
            .fetched(found)
            .into_iter()
            .map(|(rel, _, parsed)| (rel, parsed))
            .collect();
        (parsed, total)
    }

    /// Records why `rel` is not indexed, or (`None`) that it is again or is gone.
    fn skip(&self, rel: &str, why: Option<Skipped>) {
        match why {
            Some(why) => {
                self.skipped.write().unwrap().insert(rel.to_string(), why);
            }
            // A read lock first: nearly every file indexed was never skipped.
            None if self.skipped.read().unwrap().contains_key(rel) => {
                self.skipped.write().unwrap().remove(rel);
            }
            None => {}
        }
    }

    /// The files under `prefix` found but not indexed, by path, and why.
    pub fn skipped_under(&self, prefix: &str) -> Vec<(String, Skipped)> {
        let skipped = self.skipped.read().unwrap();
        skipped
            .iter()
            .filter(|(rel, _)| under(rel, prefix))
            .map(|(rel, why)| (rel.clone(), *why))
            .collect()
    }

    /// The code languages of the indexed files.
    pub fn code_languages(&self) -> Vec<Lang> {
        let mut langs: Vec<Lang> = Vec::new();
        for e in self.files.read().values() {
            let lang = e.known.lang;
            if lang.is_code() && !langs.contains(&lang) {
                langs.push(lang);
            }
        }
        langs
    }

    /// The first `limit` indexed files under `prefix` by path, with their languages
    /// (no parse is fetched), and how many there are.
    pub fn langs_under(&self, prefix: &str, limit: usize) -> (Vec<(String, Lang)>, usize) {
        let (found, total) = self.listed_under(prefix, limit, |_| true);
        let langs = found.into_iter().map(|(rel, _, k)| (rel, k.lang)).collect();
        (langs, total)
    }

    /// The first `limit` entries under `prefix` that `keep` keeps, by path, and how
    /// many there are.
    fn listed_under(
        &self,
        prefix: &str,
        limit: usize,
        keep: impl Fn(&ContentFacts) -> bool,
    ) -> (Vec<(String, FileId, ContentFacts)>, usize) {
        let files = self.files.read();
        let mut found: Vec<(&String, &Entry)> = files
            .iter()
            .filter(|(rel, e)| under(rel, prefix) && keep(&e.known))
            .collect();
        let total = found.len();
        if limit < total {
            found.select_nth_unstable_by(limit, |a, b| a.0.cmp(b.0));
            found.truncate(limit);
        }
        found.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let out = found
            .into_iter()
            .map(|(rel, e)| (rel.clone(), e.id, e.known.clone()))
            .collect();
        (out, total)
    }

    /// The parses of `listed` (in order), from the shared caches or the store, else
    /// read again beneath the root; a file whose parse cannot be had (it went away:
    /// the watcher drops it) is left out. Over the index's threads when there are
    /// many: after a restart, the first question about a whole root reads every
    /// parse from the store.
    fn fetched(
        &self,
        listed: Vec<(String, FileId, ContentFacts)>,
    ) -> Vec<(String, FileId, Parsed)> {
        let fetch = |part: Vec<(String, FileId, ContentFacts)>| -> Vec<(String, FileId, Parsed)> {
            part.into_iter()
                .filter_map(|(rel, id, known)| {
                    let open = || self.open(&rel);
                    let parsed = self.caches.symbols_of(&known, id, &open).ok()?;
                    Some((rel, id, parsed))
                })
                .collect()
        };
        let threads = self.config.threads.max(1);
        if threads == 1 || listed.len() < 256 {
            return fetch(listed);
        }
        let per = listed.len().div_ceil(threads);
        let mut parts = Vec::with_capacity(threads);
        let mut rest = listed;
        while rest.len() > per {
            let tail = rest.split_off(per);
            parts.push(rest);
            rest = tail;
        }
        parts.push(rest);
        std::thread::scope(|s| {
            let running: Vec<_> = parts.into_iter().map(|p| s.spawn(|| fetch(p))).collect();
            running
                .into_iter()
                .flat_map(|t| t.join().expect("a fetch thread panicked"))
                .collect()
        })
    }

    /// Every indexed file under `prefix` by path, with the identity it was indexed at:
    /// whoever reads one by name checks it is still that file.
    pub fn identified_under(&self, prefix: &str) -> Vec<(String, FileId, Parsed)> {
        self.fetched(self.listed_under(prefix, usize::MAX, |_| true).0)
    }

    /// The indexed files under `prefix` that `through` lets through and whose
    /// content may hold a match of `query` (the text index's candidates: its
    /// contents satisfying the query, and every content it has not seen), by path,
    /// with the identity they were indexed at and what the index knows of their
    /// content (the parse itself: [`RootIndex::parsed`]); and how many files
    /// `through` let through. Waits for a full walk's fill of the text index, if
    /// one is under way.
    pub fn identified_matching(
        &self,
        prefix: &str,
        query: &Query,
        through: impl Fn(&str) -> bool,
    ) -> (Vec<(Arc<str>, FileId, ContentFacts)>, usize) {
        drop(self.text_fill.lock().unwrap());
        let candidates = self.caches.text().candidates(query);
        let files = self.files.read();
        let mut considered = 0;
        let mut kept = |rel: &str, e: &Entry| {
            let passes = under(rel, prefix) && through(rel);
            considered += usize::from(passes);
            passes && candidates.may_hold(&e.known.hash)
        };
        // Put in path order: up to half the files sorted; more (a pattern the index
        // cannot plan, a root whose contents it may not have seen) taken in the
        // order kept for the table, as sorting most of a large root's names costs
        // more than looking each one up (and a lookup by name, a cache miss on the
        // name's bytes, costs more than sorting a fifth of them: Kubernetes'
        // `return err`, BENCHMARKS.md). How many is judged before any file is looked
        // at, by the contents (of every root) that satisfy the query.
        let text = self.caches.text();
        let filled = self.text_filled.load(Ordering::Relaxed) == text.epoch() && !text.is_full();
        let few = filled
            && candidates
                .matched()
                .is_some_and(|n| n < files.len() as u64 / 2);
        let listed: Vec<_> = if few {
            let mut found: Vec<(&String, &Entry)> =
                files.iter().filter(|(rel, e)| kept(rel, e)).collect();
            found.sort_unstable_by(|a, b| a.0.cmp(b.0));
            found
                .into_iter()
                .map(|(rel, e)| (Arc::from(rel.as_str()), e.id, e.known.clone()))
                .collect()
        } else {
            // Names under `prefix` lie in one run of the sorted names.
            let run = prefix.trim_end_matches('/');
            let order = self.files.order(&files);
            let first = order.partition_point(|rel| &**rel < run);
            order[first..]
                .iter()
                .take_while(|rel| rel.starts_with(run))
                .filter_map(|rel| Some((rel, files.get(&**rel)?)))
                .filter(|(rel, e)| kept(rel, e))
                .map(|(rel, e)| (rel.clone(), e.id, e.known.clone()))
                .collect()
        };
        drop(files);
        drop(candidates);
        let kept = listed.len() as u64;
        self.caches.text().searched(considered as u64 - kept, kept);
        (listed, considered)
    }

    /// The parse of a file [`RootIndex::identified_matching`] listed, from the shared
    /// caches or the store, else read again beneath the root; `None` if it went away.
    pub fn parsed(&self, rel: &str, id: FileId, known: &ContentFacts) -> Option<Parsed> {
        self.caches.symbols_of(known, id, &|| self.open(rel)).ok()
    }

    /// The contents this root's files held and no longer hold, since the last call.
    pub fn take_superseded(&self) -> Vec<Hash> {
        std::mem::take(&mut self.files.superseded.lock().unwrap())
    }

    /// Adds the content of every indexed file to `live`.
    pub fn held_contents(&self, live: &mut FxHashSet<Hash>) {
        live.extend(self.files.read().values().map(|e| e.known.hash));
    }

    /// Files found by the walk; while it runs, at least as many as expected.
    fn walk_total(&self) -> u64 {
        let found = self.walk.total.load(Ordering::Relaxed);
        match self.is_ready() {
            true => found,
            false => found.max(self.walk.expected.load(Ordering::Relaxed)),
        }
    }

    /// Read without a lock (`FileTable`): never waits on the index.
    pub fn status(&self) -> IndexStatus {
        let total = |n: &AtomicU64| n.load(Ordering::Relaxed);
        IndexStatus {
            state: if self.is_ready() {
                IndexState::Ready
            } else {
                IndexState::Indexing
            },
            files_total: self.walk_total(),
            files_indexed: total(&self.files.files),
            symbols: total(&self.files.symbols),
            skipped_binary: self.walk.binary.load(Ordering::Relaxed),
            skipped_too_large: self.walk.too_large.load(Ordering::Relaxed),
            skipped_unreadable: self.walk.unreadable.load(Ordering::Relaxed),
            symbol_bytes: total(&self.files.bytes),
            hash_cache: self.counters.hash(),
            symbol_cache: self.counters.symbols(),
            last_full_index_ms: self.last_full_ms.load(Ordering::Relaxed),
            unwatched: self.unwatched(),
            rescan_interval_ms: self.config.rescan_interval.as_millis() as u64,
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

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A root's index with the default configuration and caches of its own.
    pub(super) fn index_of(root: PathBuf) -> RootIndex {
        RootIndex::new(root, Arc::new(Caches::new(1 << 20)), IndexConfig::default())
    }

    /// Whether any indexed file holds a symbol named `name`.
    fn holds(index: &RootIndex, name: &str) -> bool {
        let (files, _) = index.files_under("", usize::MAX);
        files
            .iter()
            .any(|(_, p)| p.symbols.all().any(|s| s.name() == name))
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_outside_is_never_read_by_the_walk_or_the_watcher() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let (root, outside) = (base.join("root"), base.join("outside"));
        fs::create_dir_all(root.join("src/sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("src/sub/t.py"), "def inside():\n    pass\n").unwrap();
        fs::write(outside.join("t.py"), "def secret_outside():\n    pass\n").unwrap();
        let index = index_of(root.clone());
        index.full_index();
        assert!(holds(&index, "inside"), "indexed first");
        let (sub, aside) = (root.join("src/sub"), root.join("src/sub.aside"));
        let (file, rel) = (sub.join("t.py"), "src/sub/t.py");
        // The watcher's way in, with the directory a symlink out now: what it names
        // by text is refused, not read.
        fs::rename(&sub, &aside).unwrap();
        std::os::unix::fs::symlink(&outside, &sub).unwrap();
        assert!(index.index_file(&file, rel).is_none());
        assert!(!holds(&index, "secret_outside"));
        fs::remove_file(&sub).unwrap();
        fs::rename(&aside, &sub).unwrap();
        // The race: 10,000 swaps against walks and watcher reads of the same file.
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..10_000 {
                    fs::rename(&sub, &aside).unwrap();
                    std::os::unix::fs::symlink(&outside, &sub).unwrap();
                    fs::remove_file(&sub).unwrap();
                    fs::rename(&aside, &sub).unwrap();
                }
                done.store(true, Ordering::SeqCst);
            });
            let mut rounds = 0;
            while !done.load(Ordering::SeqCst) {
                index.full_index();
                index.index_file(&file, rel);
                assert!(!holds(&index, "secret_outside"), "round {rounds}");
                rounds += 1;
            }
            assert!(rounds > 0);
        });
    }

    #[tokio::test]
    async fn before_the_first_walk_finishes_the_answer_is_indexing_with_progress() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a.rs"), "fn a() {}").unwrap();
        let index = Arc::new(index_of(tmp.path().to_path_buf()));
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
    fn a_file_changed_within_a_tick_of_its_read_is_read_again_until_settled() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
        let index = index_of(root.clone());
        index.full_index();
        let file = jail::resolve(&root, &root, "a.rs", jail::Want::File).unwrap();
        let reads = || index.counters.hash().misses;
        assert_eq!(reads(), 1);
        // Just written: a same-size write in the same timestamp tick would have
        // kept its identity, so each answer reads it again.
        index.file(&file).unwrap();
        index.file(&file).unwrap();
        assert_eq!(reads(), 3);
        // Settled, one more read, and then the identity stands for the bytes.
        std::thread::sleep(RACY + Duration::from_millis(100));
        index.file(&file).unwrap();
        index.file(&file).unwrap();
        assert_eq!(reads(), 4);
    }

    #[test]
    fn files_read_before_they_settled_are_read_once_more_after() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        for name in ["a.rs", "b.rs"] {
            fs::write(root.join(name), format!("fn {}() {{}}\n", &name[..1])).unwrap();
        }
        let index = index_of(root.clone());
        index.full_index();
        let ids: Vec<FileId> = ["a.rs", "b.rs"]
            .map(|n| FileId::stat(&root.join(n)).unwrap())
            .into();
        assert!(ids.iter().all(|id| !index.caches.knows(id)));
        std::thread::sleep(RACY + Duration::from_millis(100));
        index.settle();
        assert!(ids.iter().all(|id| index.caches.knows(id)));
        assert_eq!(index.counters.hash().misses, 4, "each read once more");
        index.settle();
        assert_eq!(index.counters.hash().misses, 4, "and then known");
    }

    #[tokio::test]
    async fn progress_counts_against_the_files_git_tracks() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        for (name, text) in [
            ("a.rs", "fn a() {}"),
            ("b.rs", "fn b() {}"),
            ("c.py", "def c(): pass"),
            ("notes.txt", "not code"),
        ] {
            fs::write(root.join(name), text).unwrap();
        }
        lean_ctx_testkit::git(&root, &["init", "-q"]);
        lean_ctx_testkit::git(&root, &["add", "."]);
        let index = index_of(root.clone());
        index.full_index();
        // Every file git tracks: the text file too.
        assert_eq!(index.walk.expected.load(Ordering::Relaxed), 4);
        // As if a walk were running and had found one file so far.
        index.ready.send_replace(false);
        index.walk.total.store(1, Ordering::Relaxed);
        index.walk.done.store(1, Ordering::Relaxed);
        let err = index.wait_ready(Duration::ZERO).await.unwrap_err();
        assert!(
            matches!(
                err.details,
                Some(ErrorDetails::Progress(Progress {
                    done: 1,
                    total: 4,
                    percent: 25,
                    ..
                }))
            ),
            "{err:?}"
        );
        assert_eq!(index.status().files_total, 4);
    }

    /// `daemon status` reads the root's figures while the walk holds the file table
    /// (a writer preempted on a loaded machine holds it for as long as it waits).
    #[test]
    fn status_does_not_wait_for_the_file_table() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a.rs"), "fn a() {}\nfn b() {}\n").unwrap();
        let index = Arc::new(index_of(tmp.path().to_path_buf()));
        index.full_index();
        let held = index.files.map.write().unwrap();
        let (tx, rx) = mpsc::channel();
        let asking = index.clone();
        let thread = std::thread::spawn(move || {
            let st = asking.status();
            let _ = tx.send((st.files_indexed, st.symbols));
        });
        let answered = rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        thread.join().unwrap();
        assert_eq!(answered, Ok((1, 2)));
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

#[cfg(test)]
mod ignore_tests {
    use std::fs;

    use super::{tests::index_of, *};

    #[test]
    fn events_are_judged_by_the_walks_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        for dir in ["src/gen", "target/debug", "nested/.git", ".hidden", "sub"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::write(root.join(".gitignore"), "target/\n*.tmp.rs\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "local.rs\n").unwrap();
        let index = index_of(root.clone());
        for (path, ignored) in [
            ("src/a.rs", false),
            ("src/gen", false),
            ("target", true),
            ("target/debug/x.rs", true),
            ("src/x.tmp.rs", true),
            ("sub/local.rs", true),
            ("sub/other.rs", false),
            ("local.rs", false),
            ("nested", true),
            ("nested/a.rs", true),
            (".hidden/a.rs", true),
            (".git/index", true),
        ] {
            assert_eq!(index.is_ignored(&root.join(path)), ignored, "{path}");
        }
        assert!(index.is_ignored(Path::new("/elsewhere/a.rs")));
    }

    /// Every supported file on disk is either indexed by the walk or judged ignored
    /// when an event names it, never both: negations, deeper files and `.ignore`
    /// included.
    #[test]
    fn the_walk_and_the_event_judge_agree_on_every_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        lean_ctx_testkit::git(&root, &["init", "-q"]);
        let files = [
            "src/a.rs",
            "src/gen/x.gen.rs",
            "src/gen/keep.gen.rs",
            "target/debug/b.rs",
            "sub/local.rs",
            "sub/other.rs",
            "sub/inner/local.rs",
            "nested/.git/HEAD",
            "nested/c.rs",
            ".hidden/d.rs",
            "excluded.rs",
        ];
        for rel in files {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "fn f() {}\n").unwrap();
        }
        fs::write(root.join(".gitignore"), "target/\n*.gen.rs\n!keep.gen.rs\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "local.rs\nother.rs\n").unwrap();
        fs::write(root.join("sub/.ignore"), "!other.rs\n").unwrap();
        fs::write(root.join("sub/inner/.gitignore"), "!local.rs\n").unwrap();
        fs::write(root.join(".git/info/exclude"), "excluded.rs\n").unwrap();
        // Not UTF-8: no request can name it.
        let latin1 = root
            .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"latin1-\xe9.rs"));
        fs::write(&latin1, "fn f() {}\n").unwrap();
        let index = index_of(root.clone());
        index.full_index();
        let (indexed, _) = index.files_under("", usize::MAX);
        let indexed: HashSet<String> = indexed.into_iter().map(|(rel, _)| rel).collect();
        let mut expected = HashSet::new();
        for rel in files.into_iter().filter(|r| r.ends_with(".rs")) {
            let walked = indexed.contains(rel);
            assert_eq!(walked, !index.is_ignored(&root.join(rel)), "{rel}");
            if walked {
                expected.insert(rel.to_string());
            }
        }
        assert_eq!(indexed, expected);
        assert_eq!(indexed.len(), 4, "{indexed:?}");
        assert!(index.is_ignored(&latin1));
    }
}
