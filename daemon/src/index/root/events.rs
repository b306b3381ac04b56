//! Keeping one root fresh after its walk: the directory watcher's events applied in
//! bursts (files indexed again, directories walked again, what vanished removed),
//! and, for a root that cannot be watched whole, a walk every `rescan_interval`.
//! A caller that must see every write made before it ([`RootIndex::catch_up`])
//! waits for the watcher to deliver what the kernel queued, then sends a flush down
//! the same channel: the burst before it is applied without waiting out the
//! debounce, and the flush answered.

use super::*;

impl RootIndex {
    pub(super) fn start_watcher(self: &Arc<Self>) {
        let (tx, rx) = mpsc::channel();
        let _ = self.flushes.set(tx.clone());
        match DirWatcher::new(tx) {
            Ok(w) => {
                let _ = self.watcher.set(w);
            }
            Err(e) => {
                // Answers stay correct for single files (identity re-check); root-wide
                // answers lag by at most the rescan interval.
                self.watch_failed(&self.root, &e);
                return;
            }
        }
        let me = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("lean-ctx-watch".into())
            .spawn(move || watch_loop(me, rx))
            .expect("spawn watch thread");
    }
    /// Watches `dir` (non-recursively; again is harmless). Only directories the walk
    /// enters are watched, so ignored trees (`target/`, `node_modules/`) cost no
    /// watches and send no events.
    pub(super) fn watch_dir(&self, dir: &Path) {
        let Some(watcher) = self.watcher.get() else {
            return;
        };
        if let Err(e) = watcher.watch(dir) {
            self.watch_failed(dir, &e);
        }
    }
    /// Applies one burst of file events: ignored paths are dropped, files re-indexed,
    /// directories re-walked (and watched), vanished paths removed. Only an event
    /// overflow or a change of ignore rules costs a full walk.
    pub(super) fn apply(&self, events: Vec<Change>) {
        let mut rescan = false;
        let mut paths = HashSet::new();
        for event in events {
            match event {
                Change::Rescan => rescan = true,
                Change::Path(path) => {
                    paths.insert(path);
                }
            }
        }
        let mut changed = Vec::new();
        let (mut gone, mut walks) = (Vec::new(), Vec::new());
        for path in paths {
            if rescan {
                break;
            }
            let Some(rel) = self.relative(&path) else {
                continue;
            };
            if matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some(".gitignore" | ".ignore")
            ) {
                self.ignores.lock().unwrap().clear();
                rescan = true;
                continue;
            }
            if self.is_ignored(&path) {
                continue;
            }
            changed.push(path.clone());
            // Not following a symlink: one that replaced a directory is no directory
            // of the root's (the walk never enters one).
            let kind = std::fs::symlink_metadata(&path).map(|m| m.file_type());
            if kind.as_ref().is_ok_and(|k| k.is_file()) {
                if Lang::from_path(&path).is_some() {
                    self.index_file(&path, &rel);
                }
                continue;
            }
            // The root itself: walked in full, which drops what it no longer finds.
            if rel.is_empty() {
                rescan = true;
                continue;
            }
            // A directory created, moved in or replaced is walked again (which
            // watches it); what was under it and the walk does not find goes after
            // the walk, so a file indexed meanwhile never drops out for a moment.
            if kind.is_ok_and(|k| k.is_dir()) {
                walks.push((path, rel));
                continue;
            }
            // Gone: what was under the name is not there any more (a directory moved
            // away took its files along).
            gone.push(rel);
        }
        // A full walk drops what it does not find and walks everything anyway.
        if !rescan {
            // One pass over the table for the whole batch, before the walks that
            // enter what is there now: a burst (a branch switched, a tree unpacked
            // or removed) is not a pass over every file per directory.
            let gone: FxHashSet<&str> = gone.iter().map(String::as_str).collect();
            if !gone.is_empty() {
                let kept = |rel: &str| {
                    let mut names =
                        std::iter::once(rel).chain(rel.match_indices('/').map(|(i, _)| &rel[..i]));
                    !names.any(|name| gone.contains(name))
                };
                self.files.retain(|rel, _| kept(rel));
                self.skipped.write().unwrap().retain(|rel, _| kept(rel));
            }
            for (path, rel) in walks {
                self.walk_again(&path, &rel);
            }
        }
        if !changed.is_empty() {
            // Nobody listening is fine.
            let _ = self.changes.send(changed.into());
        }
        if rescan {
            self.full_index();
        }
    }

    /// Walks the directory `rel` again, then drops what was indexed under it and the
    /// walk did not find, unless it is a file there now (written by us meanwhile).
    fn walk_again(&self, dir: &Path, rel: &str) {
        self.skipped.write().unwrap().retain(|r, _| !under(r, rel));
        let seen = Mutex::new(FxHashSet::default());
        let record = |l: Listed<'_>| {
            let mut seen = seen.lock().unwrap();
            for (name, _) in &l.files {
                seen.insert(match l.rel {
                    "" => name.to_string(),
                    dir => format!("{dir}/{name}"),
                });
            }
        };
        self.walk_and_index(dir, false, Some(&record));
        let seen = seen.into_inner().unwrap();
        let there = |r: &str| {
            std::fs::symlink_metadata(self.root.join(r)).is_ok_and(|m| m.file_type().is_file())
        };
        self.files
            .retain(|r, _| !under(r, rel) || seen.contains(r) || there(r));
    }
}

/// Walks the root again every `every` while it is not fully watched, so an unwatched
/// root is never silently stale; ends when the index is dropped (its project evicted).
pub(super) fn keep_fresh(index: Weak<RootIndex>, every: Duration) {
    loop {
        std::thread::sleep(every);
        let Some(index) = index.upgrade() else { return };
        if index.unwatched.lock().unwrap().is_some() {
            index.full_index();
        }
    }
}

impl RootIndex {
    /// Applies every change the watcher saw before the call: `false` if that cannot
    /// be known within `within` (no watcher here, a root not watched whole, a burst
    /// that takes longer), and the caller must look at every file itself.
    pub fn catch_up(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let (Some(watcher), Some(flushes)) = (self.watcher.get(), self.flushes.get()) else {
            return false;
        };
        if self.unwatched.lock().unwrap().is_some() || !watcher.sync(within) {
            return false;
        }
        let (ack, applied) = mpsc::channel();
        flushes.send(Note::Flush(ack)).is_ok()
            && applied
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .is_ok()
    }
}

/// What the watch thread hears: the watcher's changes, and flushes.
#[derive(Debug)]
pub(super) enum Note {
    Seen(Change),
    /// Apply what came before now, then answer.
    Flush(mpsc::Sender<()>),
}

impl From<Change> for Note {
    fn from(change: Change) -> Note {
        Note::Seen(change)
    }
}

fn watch_loop(index: Weak<RootIndex>, rx: mpsc::Receiver<Note>) {
    while let Ok(first) = rx.recv() {
        let (mut batch, mut flushed) = (Vec::new(), None);
        let mut note = Some(first);
        // A burst ends after a quiet `DEBOUNCE`, or at a flush.
        while let Some(n) = note.take() {
            match n {
                Note::Seen(change) => {
                    batch.push(change);
                    note = rx.recv_timeout(DEBOUNCE).ok();
                }
                Note::Flush(ack) => flushed = Some(ack),
            }
        }
        let Some(index) = index.upgrade() else { return };
        if !batch.is_empty() {
            index.apply(batch);
        }
        if let Some(ack) = flushed {
            let _ = ack.send(());
        }
    }
}
