//! A restart's warm start for one root (`RootIndex::warm_start`): the listing the
//! last full walk kept (`store/listing.rs`) checked against the disk a directory at a
//! time, unchanged directories' files entered from the store without opening them,
//! changed ones listed again; and the listing kept after each full walk for the next
//! start.

use super::*;

impl RootIndex {
    /// Keeps what a full walk listed in the store, with the identity of every ignore
    /// file its rules came from, for the next start ([`RootIndex::warm_start`]).
    pub(super) fn keep_listing(&self, mut listing: Listing) {
        let Some(store) = self.caches.store() else {
            return;
        };
        let home = lean_ctx_shared::paths::canonical_home();
        let mut inputs = inputs_above(&self.root, home.as_deref());
        for dir in &listing.dirs {
            let abs = self.root.join(&*dir.rel);
            inputs.extend(dir.ignores.names().map(|name| abs.join(name)));
        }
        listing.inputs = inputs
            .into_iter()
            .map(|path| {
                let id = FileId::stat(&path).ok();
                (path, id)
            })
            .collect();
        listing.sort();
        store.save_listing(&self.root, &listing.encode());
    }
    /// Answers from the listing the last full walk of this root kept (`store/listing.rs`):
    /// each directory's identity is checked with one `stat`, each file of an
    /// unchanged directory `stat`ed and looked up, a changed directory listed again
    /// (and whatever is new under it walked). Nothing is served (`false`) without a
    /// usable listing, or if any ignore file changed: the caller walks in full.
    ///
    /// No watch is added here: the full walk that follows the answer watches every
    /// directory before listing it, and finds whatever changed between this check
    /// and that watch. Files are `stat`ed by name in their directory, opened beneath
    /// the root's descriptor without following a symlink, and read only beneath it
    /// the same way, so a directory swapped for a symlink since its check leads
    /// nowhere.
    pub(super) fn warm_start(&self) -> bool {
        // Timed from here: the answer waits for the store's load and the listing's
        // read, check and decode as much as for the `stat`s.
        let started = Instant::now();
        let Some(bytes) = self
            .caches
            .store()
            .and_then(|store| store.load_listing(&self.root))
        else {
            return false;
        };
        let Some(listing) = Listing::decode(&bytes) else {
            return false;
        };
        let _one_at_a_time = self.walking.lock().unwrap();
        // The store's writer waits for the check as for a walk: its fsyncs beside
        // the check (the recent roots a first call notes, the parses of changed
        // files) made Django's check 10.6 -> 12.8 ms on this machine's disk.
        let _store_waits = self.caches.walking();
        if listing
            .inputs
            .iter()
            .any(|(path, id)| FileId::stat(path).ok() != *id)
        {
            return false;
        }
        let Ok(root_fd) = jail::open_root(&self.root) else {
            return false;
        };
        let generation = self.begin_walk(false);
        self.files
            .reserve(listing.dirs.iter().map(|d| d.files.len()).sum());
        let dirs = &listing.dirs;
        let known: FxHashSet<&str> = dirs.iter().map(|d| &*d.rel).collect();
        let ignores_moved = AtomicBool::new(false);
        let index = |rel: &str, lang: Lang, id: FileId, open: &Opener<'_>| {
            self.walk.total.fetch_add(1, Ordering::Relaxed);
            self.index_found_from(rel, lang, id, open);
            self.walk.done.fetch_add(1, Ordering::Relaxed);
        };
        // First every directory is checked where it stands and, if unchanged, its
        // files are `stat`ed and entered by the same job, with one handle on it
        // (its own `stat` by path and then an open cost a third more, the larger
        // part of a restart of a tree of small directories such as x/tools').
        // Files go in runs of at most `STAT_RUN` (a flat directory of hundreds,
        // like an npm package's root, spread over every thread), each run looked up
        // and entered by the thread that `stat`ed it. A directory without files is
        // only `stat`ed by path: nothing beneath it is opened.
        const STAT_RUN: usize = 64;
        let jobs: Vec<(usize, std::ops::Range<usize>)> = dirs
            .iter()
            .enumerate()
            .flat_map(|(i, dir)| {
                let runs = dir.files.len().div_ceil(STAT_RUN).max(1);
                (0..runs).map(move |r| (i, r * STAT_RUN..((r + 1) * STAT_RUN)))
            })
            .collect();
        let same: Vec<AtomicBool> = dirs.iter().map(|_| AtomicBool::new(false)).collect();
        let unchanged = |dir: &Dir, st: rustix::io::Result<rustix::fs::Stat>| {
            st.is_ok_and(|st| {
                FileType::from_raw_mode(st.st_mode as _) == FileType::Directory
                    && listing.unchanged(&dir.id, &FileId::from(&st))
            })
        };
        // Two runs (up to 128 `stat`s and lookups) are worth a thread.
        par_each(jobs.len(), self.config.threads, 2, |j| {
            let (i, run) = &jobs[j];
            let dir = &dirs[*i];
            if dir.files.is_empty() {
                let st = stat_listed(root_fd.as_fd(), &dir.rel);
                same[*i].store(unchanged(dir, st), Ordering::Relaxed);
                return;
            }
            // Reached beneath the root without following a symlink: one swapped in
            // on the way since the last walk leads nowhere (a `stat` by path from
            // the root would follow it), and the directory is judged below.
            let Ok(at) = jail::dir_handle_beneath(root_fd.as_fd(), &dir.rel) else {
                return;
            };
            if !unchanged(dir, rustix::fs::fstat(&at)) {
                return;
            }
            // The first run speaks for the directory. One that changes while its runs
            // are checked is as in any restart: if the first run found it unchanged,
            // a later run that does not enters nothing, and the full walk that
            // follows the answer sees it; if the first run found it changed, it is
            // listed again below, which enters every file anew.
            if run.start == 0 {
                same[*i].store(true, Ordering::Relaxed);
            }
            // Each file `stat`ed by name in its directory: the path is looked up once
            // a run, not once a file.
            let run = &dir.files[run.start..run.end.min(dir.files.len())];
            let found = run.iter().filter_map(|(name, lang)| {
                let st = rustix::fs::statat(&at, &**name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
                (FileType::from_raw_mode(st.st_mode as _) == FileType::RegularFile)
                    .then(|| (&**name, *lang, FileId::from(&st)))
            });
            self.enter_unchanged(at.as_fd(), &dir.rel, found.collect(), &index);
        });
        let checks = self.check_dirs(&listing, root_fd.as_fd(), &same);
        // A directory that is a nested repository now (or gone) takes its subtree
        // along, whose unchanged directories' files were entered above. Only the
        // top of each skipped subtree is kept (subtrees are contiguous), so the
        // table is filtered against a few prefixes, not one per directory.
        let mut skipped: Vec<&str> = Vec::new();
        for (dir, check) in dirs.iter().zip(&checks) {
            if *check == Check::Skip && !skipped.last().is_some_and(|top| under(&dir.rel, top)) {
                skipped.push(&dir.rel);
            }
        }
        if !skipped.is_empty() {
            self.files
                .retain(|rel, _| !skipped.iter().any(|dir| under(rel, dir)));
        }
        // Changed directories are listed again and their files indexed.
        let changed: Vec<&Dir> = dirs
            .iter()
            .zip(&checks)
            .filter(|(_, check)| **check == Check::Changed)
            .map(|(dir, _)| dir)
            .collect();
        par_each(changed.len(), self.config.threads, 1, |c| {
            let dir = changed[c];
            // Gone or swapped since the check: the full walk that follows the answer
            // sees what it is now.
            let Ok(at) = jail::open_dir_beneath(root_fd.as_fd(), &dir.rel) else {
                return;
            };
            let abs = self.root.join(&*dir.rel);
            Walker {
                threads: 1,
                enter: &|_| {},
                file: &|found| {
                    index(found.rel, found.lang, found.id, &|| found.open());
                },
                // Its ignore files came or went: the rules of everything under it
                // may differ.
                listed: Some(&|l: Listed<'_>| {
                    if l.rel == dir.rel && l.ignores != dir.ignores {
                        ignores_moved.store(true, Ordering::Relaxed);
                    }
                }),
                // ContentFacts subdirectories are checked on their own.
                descend: Some(&|rel| !known.contains(rel)),
            }
            .run(at, &abs, &dir.rel, self.rules_above(&abs));
        });
        // What was entered meanwhile is harmless: the full walk that follows keeps
        // only what it sees.
        if ignores_moved.load(Ordering::Relaxed) {
            return false;
        }
        self.end_walk(generation, started, "from the last walk's listing");
        true
    }
    /// Enters a run of files `found` (by name) in a restart's unchanged directory
    /// `rel`, held open as `dir`: those whose identity the store knows, with a parse
    /// it holds, at once (no file opened, one lookup and one take of the table's lock
    /// for the run); the rest (changed since, too large, binary, or not in the store)
    /// through `index`, opened by name beneath `dir`.
    fn enter_unchanged(
        &self,
        dir: rustix::fd::BorrowedFd<'_>,
        rel: &str,
        found: Vec<(&str, Lang, FileId)>,
        index: &(dyn Fn(&str, Lang, FileId, &Opener<'_>) + Sync),
    ) {
        let keys: Vec<(FileId, Lang)> = found.iter().map(|(_, lang, id)| (*id, *lang)).collect();
        let stored = self.caches.stored_many(&keys, &self.counters);
        let walk = self.generation.load(Ordering::Relaxed);
        let mut rest = Vec::new();
        let mut entries = Vec::with_capacity(found.len());
        for ((name, lang, id), known) in found.into_iter().zip(stored) {
            match known {
                Some(known) if id.size() <= self.config.max_file_bytes && !known.meta.binary => {
                    // The store holds only identities that stood for their bytes.
                    entries.push((join(rel, name), Entry::new(id, true, known, walk)));
                }
                _ => rest.push((name, lang, id)),
            }
        }
        let entered = entries.len() as u64;
        self.walk.total.fetch_add(entered, Ordering::Relaxed);
        self.files.extend(entries);
        self.walk.done.fetch_add(entered, Ordering::Relaxed);
        for (name, lang, id) in rest {
            let open = || jail::open_beneath(dir, name);
            index(&join(rel, name), lang, id, &open);
        }
    }
    /// Each listed directory's check: unchanged (`same`, found so where it was
    /// entered), changed (to be listed again), or skipped with everything under it
    /// (gone, no longer a directory, or now a nested repository).
    fn check_dirs(
        &self,
        listing: &Listing,
        root: rustix::fd::BorrowedFd<'_>,
        same: &[AtomicBool],
    ) -> Vec<Check> {
        let checks: Vec<OnceLock<Check>> = listing.dirs.iter().map(|_| OnceLock::new()).collect();
        let rest: Vec<usize> = (0..listing.dirs.len())
            .filter(|&i| {
                let unchanged = same[i].load(Ordering::Relaxed);
                if unchanged {
                    let _ = checks[i].set(Check::Same);
                }
                !unchanged
            })
            .collect();
        // A directory's `stat` is a microsecond or two: a thread is worth its start
        // (a tenth of a millisecond, more in a daemon just started) from a few
        // hundred on.
        par_each(rest.len(), self.config.threads, 256, |r| {
            let i = rest[r];
            let dir = &listing.dirs[i];
            let check = match stat_listed(root, &dir.rel) {
                Ok(st) if FileType::from_raw_mode(st.st_mode as _) == FileType::Directory => {
                    let nested = || {
                        let git = format!("{}/.git", dir.rel);
                        rustix::fs::statat(root, git.as_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok()
                    };
                    if listing.unchanged(&dir.id, &FileId::from(&st)) {
                        Check::Same
                    } else if !dir.rel.is_empty() && nested() {
                        Check::Skip
                    } else {
                        Check::Changed
                    }
                }
                _ => Check::Skip,
            };
            let _ = checks[i].set(check);
        });
        // A skipped directory takes its subtree along (contiguous after it).
        let mut out = Vec::with_capacity(checks.len());
        let mut skipped: Option<&str> = None;
        for (dir, check) in listing.dirs.iter().zip(checks) {
            if skipped.is_some_and(|s| under(&dir.rel, s)) {
                out.push(Check::Skip);
                continue;
            }
            let check = check.into_inner().unwrap_or(Check::Skip);
            skipped = (check == Check::Skip).then_some(&*dir.rel);
            out.push(check);
        }
        out
    }
    /// Reads again the files whose content the text index holds no entry for, and
    /// gives it each one whose bytes still hash to what the root knows. After each
    /// full walk: the walk leaves what it reads to this (`text_later`), and a
    /// restart knows unchanged files by identity and reads none of them, so where
    /// the text index's snapshot was not kept (over its share of the store's cap)
    /// or was dropped, their contents would stay unknown to it, and every search
    /// would read them all.
    pub(super) fn fill_text(&self) {
        let text = self.caches.text();
        let epoch = text.epoch();
        self.text_filled.store(u64::MAX, Ordering::Relaxed);
        // Listed first: the table's lock is not held while the text index's is taken.
        let listed: Vec<(String, Hash)> = (self.files.read().iter())
            .map(|(rel, e)| (rel.clone(), e.known.hash))
            .collect();
        let missing: Vec<_> = listed.into_iter().filter(|(_, h)| !text.knows(h)).collect();
        let Ok(root) = jail::open_root(&self.root) else {
            return;
        };
        let taken = AtomicU64::new(0);
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        par_each(missing.len(), threads, 256, |i| {
            let (rel, hash) = &missing[i];
            let mut bytes = Vec::new();
            let read = jail::open_beneath(root.as_fd(), rel)
                .and_then(|mut f| std::io::Read::read_to_end(&mut f, &mut bytes));
            if read.is_ok() && blake3::hash(&bytes).as_bytes() == hash {
                text.add(*hash, &bytes);
                taken.fetch_add(1, Ordering::Relaxed);
            }
        });
        let taken = taken.into_inner();
        if taken > 0 {
            tracing::info!(root = %self.root.display(), files = taken, "text index filled in");
        }
        self.text_filled.store(epoch, Ordering::Relaxed);
    }

    /// The bytes of an indexed file whose content has `hash` (parsed as `lang`, if
    /// given), read beneath the root; the caller checks they still hash to it.
    pub(super) fn content_of(&self, lang: Option<Lang>, hash: &Hash) -> Option<Vec<u8>> {
        let rel = self
            .files
            .read()
            .iter()
            .find(|(_, e)| e.known.hash == *hash && lang.is_none_or(|l| e.known.lang == l))
            .map(|(rel, _)| rel.clone())?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut self.open(&rel).ok()?, &mut bytes).ok()?;
        Some(bytes)
    }
}

/// What a restart makes of one listed directory ([`RootIndex::warm_start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Gone, no longer a directory, a nested repository now, or under one of those.
    Skip,
    /// Its identity vouches for its listing: its files are `stat`ed.
    Same,
    /// Listed again.
    Changed,
}

/// Runs `each(i)` for every `i` below `n`, over at most `threads` threads taking the
/// next index as they go (listed directories differ widely in their files); one
/// thread per `grain` items at most, as a thread costs a `clone` and its stack, and
/// a start's unchanged root often has little to do.
fn par_each(n: usize, threads: usize, grain: usize, each: impl Fn(usize) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return;
            }
            each(i);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads.min(n.div_ceil(grain)) {
            s.spawn(work);
        }
        work();
    });
}

/// Directory `rel` of a listing, `stat`ed by path from `root` (itself when empty),
/// not following a symlink at its end.
fn stat_listed(
    root: rustix::fd::BorrowedFd<'_>,
    rel: &str,
) -> rustix::io::Result<rustix::fs::Stat> {
    match rel {
        "" => rustix::fs::fstat(root),
        rel => rustix::fs::statat(root, rel, AtFlags::SYMLINK_NOFOLLOW),
    }
}
