//! Directory watches for one root: non-recursive, one per directory the walk enters,
//! reporting paths that were created, written, deleted or moved.
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
        collections::HashMap,
        sync::{
            Arc, Mutex,
            atomic::{AtomicBool, Ordering},
        },
    };

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

    use super::*;

    #[derive(Debug)]
    pub struct DirWatcher {
        watches: Mutex<Watches>,
        dirs: Arc<Mutex<HashMap<WatchDescriptor, PathBuf>>>,
        stop: Arc<AtomicBool>,
    }

    impl DirWatcher {
        /// A watcher with no watches yet, sending what it sees to `tx` from its own
        /// thread.
        pub fn new(tx: mpsc::Sender<Change>) -> io::Result<DirWatcher> {
            let mut inotify = Inotify::init()?;
            let watches = inotify.watches();
            let dirs: Arc<Mutex<HashMap<WatchDescriptor, PathBuf>>> = Arc::default();
            let stop = Arc::new(AtomicBool::new(false));
            let (thread_dirs, thread_stop) = (dirs.clone(), stop.clone());
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
                                let _ = tx.send(Change::Rescan);
                                return;
                            }
                        };
                        if thread_stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let mut dirs = thread_dirs.lock().unwrap();
                        for ev in events {
                            let change = if ev.mask.contains(EventMask::Q_OVERFLOW) {
                                Change::Rescan
                            } else if ev.mask.contains(EventMask::IGNORED) {
                                // The watch is gone (its directory was deleted).
                                dirs.remove(&ev.wd);
                                continue;
                            } else if let Some(dir) = dirs.get(&ev.wd) {
                                Change::Path(match ev.name {
                                    Some(name) => dir.join(name),
                                    None => dir.clone(),
                                })
                            } else {
                                continue;
                            };
                            if tx.send(change).is_err() {
                                return;
                            }
                        }
                    }
                })?;
            Ok(DirWatcher {
                watches: Mutex::new(watches),
                dirs,
                stop,
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
                | WatchMask::EXCL_UNLINK;
            // Held across the add, so the reader never sees the new watch's events
            // before it knows the directory.
            let mut dirs = self.dirs.lock().unwrap();
            let wd = self.watches.lock().unwrap().add(dir, mask)?;
            dirs.insert(wd, dir.to_path_buf());
            Ok(())
        }
    }

    impl Drop for DirWatcher {
        /// Removing the watches wakes the reader (one `IN_IGNORED` each), which then
        /// sees `stop` and ends.
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            let wds: Vec<WatchDescriptor> = self.dirs.lock().unwrap().keys().cloned().collect();
            let mut watches = self.watches.lock().unwrap();
            for wd in wds {
                let _ = watches.remove(wd);
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
}
