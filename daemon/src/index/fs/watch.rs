//! Directory watches for one root: non-recursive, one per directory the walk enters,
//! reporting paths that were created, written, deleted or moved.
//!
//! On Linux all roots share one inotify instance (the per-user instance limit is 128),
//! each root a subscription routed by watch descriptor.
//!
//! A search that must reflect every write made before it asks [`DirWatcher::sync`]:
//! it returns once every event the kernel queued before the call has been handed to
//! its subscriber. On Linux the shared instance also watches a file of its own (an
//! unnamed `O_TMPFILE`), written by each `sync`: inotify queues events in order, so when the
//! reader meets that write's event, all events queued before it are delivered.
//! Elsewhere (notify's backends give no such order) `sync` says it cannot.
//!
//! On Linux this is inotify itself. notify's inotify backend also subscribes to
//! `IN_OPEN`, so every file anyone opened under a watched directory (our own walks,
//! cargo, a language server loading the crate) woke its thread, and each watch it
//! added was a round trip to that thread: together most of a second worktree's
//! index time. Here a watch is one syscall on the caller's thread, and only content
//! changes are delivered. Elsewhere notify serves, with reads and metadata changes
//! filtered out.

use std::{io, path::Path, path::PathBuf, sync::mpsc, time::Duration};

/// What the watcher saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Something happened at this path (a file, or a directory with all under it).
    Path(PathBuf),
    /// Events were lost (queue overflow, watcher failure): only a full walk can tell.
    Rescan,
}

pub use imp::DirWatcher;

/// How a subscriber hears of changes: each [`Change`] as its own message type, so a
/// subscriber can send other messages down the same channel (the root's flushes).
type Deliver = Box<dyn Fn(Change) + Send>;

fn deliver<T: From<Change> + Send + 'static>(tx: mpsc::Sender<T>) -> Deliver {
    // A subscriber gone away is fine: its watcher goes with it.
    Box::new(move |change| drop(tx.send(T::from(change))))
}

#[cfg(target_os = "linux")]
mod imp {
    use std::{
        collections::{HashMap, HashSet},
        os::fd::{AsRawFd, OwnedFd},
        sync::{Arc, Condvar, Mutex},
        time::Instant,
    };

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

    use super::*;

    /// The daemon's one inotify instance, shared by every root: the kernel allows 128
    /// instances per user (`fs.inotify.max_user_instances`, counted across all of the
    /// user's processes), and one per root ran out at the 128th project. Its reader
    /// thread routes each event by watch descriptor to the roots watching that
    /// directory.
    struct Shared {
        watches: Mutex<Watches>,
        routes: Mutex<Routes>,
        /// The file `sync` writes to, and its watch; `None` where it could not be
        /// made (no `O_TMPFILE` in the temporary directory, no `/proc`): `sync`
        /// then says it cannot.
        marker: Option<(OwnedFd, WatchDescriptor)>,
        /// How many of the marker's events the reader has met, and who waits for
        /// the next.
        passed: Mutex<u64>,
        passing: Condvar,
        /// One `sync` at a time: inotify merges an event into an identical one
        /// still queued, so two writes in flight could be met as one.
        syncing: Mutex<()>,
    }

    impl std::fmt::Debug for Shared {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Shared")
                .field("marker", &self.marker.is_some())
                .finish_non_exhaustive()
        }
    }

    #[derive(Default)]
    struct Routes {
        next_id: u64,
        /// Each [`DirWatcher`]'s delivery, by its id.
        subscribers: HashMap<u64, Deliver>,
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
        let marker = marker(&mut inotify.watches())
            .inspect_err(|e| tracing::warn!(error = %e, "no sync marker; searches read every file"))
            .ok();
        let shared = Arc::new(Shared {
            watches: Mutex::new(inotify.watches()),
            routes: Mutex::default(),
            marker,
            passed: Mutex::new(0),
            passing: Condvar::new(),
            syncing: Mutex::new(()),
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
                            for deliver in reader.routes.lock().unwrap().subscribers.values() {
                                deliver(Change::Rescan);
                            }
                            return;
                        }
                    };
                    let mut routes = reader.routes.lock().unwrap();
                    for ev in events {
                        if reader.marker.as_ref().is_some_and(|(_, wd)| *wd == ev.wd) {
                            // Everything queued before it is delivered by now.
                            *reader.passed.lock().unwrap() += 1;
                            reader.passing.notify_all();
                        } else if ev.mask.contains(EventMask::Q_OVERFLOW) {
                            for deliver in routes.subscribers.values() {
                                deliver(Change::Rescan);
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
                                if let Some(deliver) = routes.subscribers.get(id) {
                                    deliver(Change::Path(path));
                                }
                            }
                        }
                    }
                }
            })?;
        *slot = Some(shared.clone());
        Ok(shared)
    }

    /// An unnamed file in the temporary directory, watched for writes through its
    /// `/proc` name: nobody else can open it, and it leaves nothing behind. (A
    /// `memfd` would do the same, but the kernel reports no events for one.)
    fn marker(watches: &mut Watches) -> io::Result<(OwnedFd, WatchDescriptor)> {
        use rustix::fs::{Mode, OFlags};
        let fd = rustix::fs::open(
            std::env::temp_dir(),
            OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
            Mode::RUSR | Mode::WUSR,
        )?;
        let name = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let wd = watches.add(name, WatchMask::MODIFY)?;
        Ok((fd, wd))
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
        pub fn new<T: From<Change> + Send + 'static>(
            tx: mpsc::Sender<T>,
        ) -> io::Result<DirWatcher> {
            let shared = shared()?;
            let mut routes = shared.routes.lock().unwrap();
            routes.next_id += 1;
            let id = routes.next_id;
            routes.subscribers.insert(id, deliver(tx));
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

        /// Returns `true` once every event the kernel queued before the call has
        /// been sent to its subscriber; `false` if that is not known within `within`
        /// or cannot be known here (no marker).
        pub fn sync(&self, within: Duration) -> bool {
            let Some((marker, _)) = &self.shared.marker else {
                return false;
            };
            let deadline = Instant::now() + within;
            let _one_at_a_time = self.shared.syncing.lock().unwrap();
            let mut passed = self.shared.passed.lock().unwrap();
            let before = *passed;
            if rustix::io::pwrite(marker, b"s", 0).is_err() {
                return false;
            }
            while *passed == before {
                let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                    return false;
                };
                passed = self.shared.passing.wait_timeout(passed, left).unwrap().0;
            }
            true
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
        pub fn new<T: From<Change> + Send + 'static>(
            tx: mpsc::Sender<T>,
        ) -> io::Result<DirWatcher> {
            let deliver = deliver(tx);
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
                        deliver(change);
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

        /// Never known here: notify's backends deliver in no order a caller could
        /// wait on.
        pub fn sync(&self, _within: Duration) -> bool {
            false
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

    /// `sync` returns once every event queued before it has been delivered: all of
    /// a burst of writes is there to take without waiting.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_sync_returns_after_every_event_queued_before_it_is_delivered() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        let (tx, rx) = mpsc::channel();
        let watcher = DirWatcher::new(tx).unwrap();
        watcher.watch(&dir).unwrap();
        for round in 0..50 {
            let names: Vec<_> = (0..20)
                .map(|i| dir.join(format!("f{round}_{i}.rs")))
                .collect();
            for name in &names {
                fs::write(name, "fn f() {}").unwrap();
            }
            assert!(watcher.sync(Duration::from_secs(5)), "round {round}");
            let seen: std::collections::HashSet<_> = rx
                .try_iter()
                .filter_map(|c| match c {
                    Change::Path(p) => Some(p),
                    Change::Rescan => None,
                })
                .collect();
            for name in &names {
                assert!(
                    seen.contains(name),
                    "round {round}: {} not delivered",
                    name.display()
                );
            }
        }
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
