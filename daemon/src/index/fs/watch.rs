//! Directory watches for one root: non-recursive, one per directory the walk enters,
//! reporting paths that were created, written, deleted or moved.
//!
//! On Linux all roots share one inotify instance (the per-user instance limit is 128),
//! each root a subscription routed by watch descriptor.
//!
//! On Linux this is inotify itself. notify's inotify backend also subscribes to
//! `IN_OPEN`, so every file anyone opened under a watched directory (our own walks,
//! cargo, a language server loading the crate) woke its thread, and each watch it
//! added was a round trip to that thread: together most of a second worktree's
//! index time. Here a watch is one syscall on the caller's thread, and only content
//! changes are delivered. Elsewhere notify serves, with reads and metadata changes
//! filtered out.

use std::{io, path::Path, path::PathBuf, sync::mpsc};

/// What the watcher saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Something happened at this path (a file, or a directory with all under it).
    Path(PathBuf),
    /// Events were lost (queue overflow, watcher failure): only a full walk can tell.
    Rescan,
}

pub use imp::DirWatcher;

#[cfg(target_os = "linux")]
mod imp {
    use std::{
        collections::{HashMap, HashSet},
        sync::{Arc, Mutex},
    };

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

    use super::*;

    /// The daemon's one inotify instance, shared by every root: the kernel allows 128
    /// instances per user (`fs.inotify.max_user_instances`, counted across all of the
    /// user's processes), and one per root ran out at the 128th project. Its reader
    /// thread routes each event by watch descriptor to the roots watching that
    /// directory.
    #[derive(Debug)]
    struct Shared {
        watches: Mutex<Watches>,
        routes: Mutex<Routes>,
    }

    #[derive(Debug, Default)]
    struct Routes {
        next_id: u64,
        /// Each [`DirWatcher`]'s channel, by its id.
        subscribers: HashMap<u64, mpsc::Sender<Change>>,
        /// Who watches the directory of each watch, under which path: two roots can
        /// watch one directory (a project opened at a repository's subdirectory), and
        /// inotify gives one inode one descriptor per instance.
        by_wd: HashMap<WatchDescriptor, Vec<(u64, PathBuf)>>,
    }

    /// The shared instance, made on first use; made again after a failed start (an
    /// instance limit reached for a moment must not disable watching for good).
    static SHARED: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

    fn shared() -> io::Result<Arc<Shared>> {
        let mut slot = SHARED.lock().unwrap();
        if let Some(shared) = slot.as_ref() {
            return Ok(shared.clone());
        }
        let mut inotify = Inotify::init()?;
        let shared = Arc::new(Shared {
            watches: Mutex::new(inotify.watches()),
            routes: Mutex::default(),
        });
        let reader = shared.clone();
        std::thread::Builder::new()
            .name("lean-ctx-inotify".into())
            .spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    let events = match inotify.read_events_blocking(&mut buf) {
                        Ok(events) => events,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            tracing::warn!(error = %e, "inotify read failed; watching stops");
                            *SHARED.lock().unwrap() = None;
                            for tx in reader.routes.lock().unwrap().subscribers.values() {
                                let _ = tx.send(Change::Rescan);
                            }
                            return;
                        }
                    };
                    let mut routes = reader.routes.lock().unwrap();
                    for ev in events {
                        if ev.mask.contains(EventMask::Q_OVERFLOW) {
                            for tx in routes.subscribers.values() {
                                let _ = tx.send(Change::Rescan);
                            }
                        } else if ev.mask.contains(EventMask::IGNORED) {
                            // The watch is gone (its directory was deleted).
                            routes.by_wd.remove(&ev.wd);
                        } else if let Some(watchers) = routes.by_wd.get(&ev.wd) {
                            for (id, dir) in watchers {
                                let path = match ev.name {
                                    Some(name) => dir.join(name),
                                    None => dir.clone(),
                                };
                                // A subscriber being dropped unsubscribes itself.
                                if let Some(tx) = routes.subscribers.get(id) {
                                    let _ = tx.send(Change::Path(path));
                                }
                            }
                        }
                    }
                }
            })?;
        *slot = Some(shared.clone());
        Ok(shared)
    }

    /// One root's subscription to the shared instance.
    #[derive(Debug)]
    pub struct DirWatcher {
        shared: Arc<Shared>,
        id: u64,
        /// The descriptors this root added, to release on drop.
        mine: Mutex<HashSet<WatchDescriptor>>,
    }

    impl DirWatcher {
        /// A watcher with no watches yet, sending what it sees to `tx` from the
        /// shared reader thread.
        pub fn new(tx: mpsc::Sender<Change>) -> io::Result<DirWatcher> {
            let shared = shared()?;
            let mut routes = shared.routes.lock().unwrap();
            routes.next_id += 1;
            let id = routes.next_id;
            routes.subscribers.insert(id, tx);
            drop(routes);
            Ok(DirWatcher {
                shared,
                id,
                mine: Mutex::default(),
            })
        }

        /// Watches `dir` itself (not its subdirectories). Watching a directory again
        /// costs a syscall and keeps one watch (inotify watches inodes), under the
        /// path given last.
        pub fn watch(&self, dir: &Path) -> io::Result<()> {
            let mask = WatchMask::CREATE
                | WatchMask::DELETE
                | WatchMask::MODIFY
                | WatchMask::CLOSE_WRITE
                | WatchMask::MOVED_FROM
                | WatchMask::MOVED_TO
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF
                | WatchMask::ONLYDIR
                // A directory swapped for a symlink since the walk opened it is not
                // watched through the link (the add fails; the root shows unwatched
                // and is walked again).
                | WatchMask::DONT_FOLLOW
                | WatchMask::EXCL_UNLINK;
            // Held across the add, so the reader never sees the new watch's events
            // before it knows the directory. Every root adds the same mask, so a
            // second root's add of a directory changes nothing for the first.
            let mut routes = self.shared.routes.lock().unwrap();
            let wd = self.shared.watches.lock().unwrap().add(dir, mask)?;
            let watchers = routes.by_wd.entry(wd.clone()).or_default();
            watchers.retain(|(id, _)| *id != self.id);
            watchers.push((self.id, dir.to_path_buf()));
            self.mine.lock().unwrap().insert(wd);
            Ok(())
        }
    }

    impl Drop for DirWatcher {
        /// Unsubscribes, and removes the kernel's watches no other root uses.
        fn drop(&mut self) {
            let mut routes = self.shared.routes.lock().unwrap();
            routes.subscribers.remove(&self.id);
            let mut watches = self.shared.watches.lock().unwrap();
            for wd in self.mine.lock().unwrap().drain() {
                let Some(watchers) = routes.by_wd.get_mut(&wd) else {
                    // Already gone (`IN_IGNORED`): its number may be another's now.
                    continue;
                };
                watchers.retain(|(id, _)| *id != self.id);
                if watchers.is_empty() {
                    routes.by_wd.remove(&wd);
                    let _ = watches.remove(wd);
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::{collections::HashSet, sync::Mutex};

    use notify::{EventKind, RecursiveMode, Watcher, event::ModifyKind};

    use super::*;

    #[derive(Debug)]
    pub struct DirWatcher(Mutex<(notify::RecommendedWatcher, HashSet<PathBuf>)>);

    impl DirWatcher {
        /// A watcher with no watches yet, sending what it sees to `tx`.
        pub fn new(tx: mpsc::Sender<Change>) -> io::Result<DirWatcher> {
            let watcher =
                notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                    let changes = match event {
                        Ok(ev) if ev.need_rescan() => vec![Change::Rescan],
                        // Reads and metadata changes say nothing about content.
                        Ok(ev)
                            if matches!(
                                ev.kind,
                                EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
                            ) =>
                        {
                            Vec::new()
                        }
                        Ok(ev) => ev.paths.into_iter().map(Change::Path).collect(),
                        Err(e) => {
                            tracing::warn!(error = %e, "watch error; rescanning");
                            vec![Change::Rescan]
                        }
                    };
                    for change in changes {
                        let _ = tx.send(change);
                    }
                })
                .map_err(io::Error::other)?;
            Ok(DirWatcher(Mutex::new((watcher, HashSet::new()))))
        }

        /// Watches `dir` itself (not its subdirectories), once: some backends
        /// (FSEvents) restart their stream on every call.
        pub fn watch(&self, dir: &Path) -> io::Result<()> {
            let (watcher, watched) = &mut *self.0.lock().unwrap();
            if watched.contains(dir) {
                return Ok(());
            }
            watcher
                .watch(dir, RecursiveMode::NonRecursive)
                .map_err(io::Error::other)?;
            watched.insert(dir.to_path_buf());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{fs, time::Duration};

    use super::*;

    fn next(rx: &mpsc::Receiver<Change>) -> Option<Change> {
        rx.recv_timeout(Duration::from_secs(2)).ok()
    }

    #[test]
    fn writes_creations_and_deletions_are_reported_reads_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        fs::write(dir.join("old.rs"), "fn old() {}").unwrap();
        let (tx, rx) = mpsc::channel();
        let watcher = DirWatcher::new(tx).unwrap();
        watcher.watch(&dir).unwrap();

        // Reads and listings, ours or anyone's, are not changes.
        fs::read(dir.join("old.rs")).unwrap();
        fs::read_dir(&dir).unwrap().for_each(drop);
        fs::write(dir.join("new.rs"), "fn new() {}").unwrap();
        assert_eq!(next(&rx), Some(Change::Path(dir.join("new.rs"))));
        while rx.recv_timeout(Duration::from_millis(100)).is_ok() {}

        fs::remove_file(dir.join("old.rs")).unwrap();
        assert_eq!(next(&rx), Some(Change::Path(dir.join("old.rs"))));
        drop(watcher);
    }

    /// Two roots watching one directory both hear of a change in it, and one of them
    /// going away leaves the other's watch in place.
    #[test]
    fn roots_share_the_instance_and_keep_their_own_subscriptions() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        let (tx_a, rx_a) = mpsc::channel();
        let (tx_b, rx_b) = mpsc::channel();
        let a = DirWatcher::new(tx_a).unwrap();
        let b = DirWatcher::new(tx_b).unwrap();
        a.watch(&dir).unwrap();
        b.watch(&dir).unwrap();
        fs::write(dir.join("x.rs"), "fn x() {}").unwrap();
        assert_eq!(next(&rx_a), Some(Change::Path(dir.join("x.rs"))));
        assert_eq!(next(&rx_b), Some(Change::Path(dir.join("x.rs"))));
        drop(a);
        while rx_b.recv_timeout(Duration::from_millis(100)).is_ok() {}
        fs::write(dir.join("y.rs"), "fn y() {}").unwrap();
        assert_eq!(next(&rx_b), Some(Change::Path(dir.join("y.rs"))));
    }
}
