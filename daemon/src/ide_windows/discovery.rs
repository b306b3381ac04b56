//! Live knowledge of the JetBrains IDE windows: the data dir is watched for
//! `jetbrains-*.port` files, a table keyed by project hash follows them, and an IDE
//! counts as reachable for a root only when every stage passes (docs/ide-wire.md,
//! Reachability, and issue 15's "the IDE proves itself"): its port file is ours, 0600
//! and no symlink, and names exactly that root; its pid is alive; the socket listening
//! on its port belongs to that pid and to us ([`verify_listener`]); and `GET /health`
//! with the token answers within `[ide] health_timeout` (300 ms). The answer is cached
//! briefly; a file event or a failed call forgets it, so a window that opens is used by
//! the next call and one that dies is left within the same call. The listener is proven
//! again (cheaply: the same socket inodes as last time) before every request that
//! carries the token.
//!
//! A window that hung past its timeout is held off for [`HOLD_AFTER_TIMEOUT`]
//! (calls go straight to the next backing) and then has to pass the stages again,
//! unless its port file changes first (a restarted IDE).
//!
//! A port file someone else could have written is kept aside with its reason (logged
//! once, shown by `daemon status`) and never used; a window that claimed an edit it
//! did not make is not used again until its port file changes.
//!
//! The data dir is watched through the index's `DirWatcher` (the daemon's one inotify
//! instance), and access events (our own reads of a port file) are ignored, or every
//! check would invalidate itself.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant, SystemTime},
};

use crate::{
    config::IdeSection,
    index::fs::watch::{Change, DirWatcher},
    sys::unix_ms,
};
use lean_ctx_shared::{
    Paths,
    ide::{
        PORT_FILE_PREFIX, PORT_FILE_SUFFIX, PortFile, PortFileError, project_hash, read_port_file,
        verify_listener,
    },
    paths::DataDir,
    process::pid_alive,
    protocol::IdeStatus,
};

/// How long a window that hung past its timeout is not asked (a hung IDE would
/// otherwise cost every call the whole timeout).
pub const HOLD_AFTER_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a reachability verdict is trusted without a file event or failed call.
const VERDICT_TTL: Duration = Duration::from_secs(2);

/// An IDE window that answered for a root.
#[derive(Clone, Debug)]
pub struct Ide {
    pub hash: String,
    pub port: u16,
    pub token: String,
    pub pid: u32,
}

#[derive(Debug)]
struct Entry {
    file: PortFile,
    /// When the stages last ran, and what they found.
    verdict: Option<(Instant, bool)>,
    last_check_unix_ms: Option<u64>,
    /// The listening sockets (inodes) proven to be the pid's, for this file.
    sockets: Vec<u64>,
    /// Why the last check failed, for `daemon status`.
    last_failure: Option<String>,
    /// Set when the window lied (an edit it claimed and did not make): never used
    /// again until its port file changes.
    distrusted: Option<String>,
    /// Set when a call timed out: not asked before then.
    held_until: Option<Instant>,
}

impl Entry {
    fn new(file: PortFile) -> Entry {
        Entry {
            file,
            verdict: None,
            last_check_unix_ms: None,
            sockets: Vec::new(),
            last_failure: None,
            distrusted: None,
            held_until: None,
        }
    }
}

/// A port file that is not used, and why.
#[derive(Debug)]
struct Ignored {
    reason: String,
    claimed: Option<PortFile>,
}

#[derive(Debug, Default)]
struct Table {
    windows: HashMap<String, Entry>,
    ignored: HashMap<String, Ignored>,
}

#[derive(Debug)]
pub struct Discovery {
    data_dir: PathBuf,
    table: Mutex<Table>,
    /// The data dir's watch, on the daemon's one inotify instance (the index's:
    /// the per-user limit of 128 instances counts every process of the user).
    watcher: Mutex<Option<DirWatcher>>,
    http: reqwest::Client,
    timeouts: IdeSection,
}

impl Discovery {
    /// Reads the port files there are and watches for more. The data dir is created
    /// (0700) if missing, so a first IDE window is seen too, and tightened if it is
    /// ours and open to others (`Paths::ensure_data_dir` says why).
    pub fn start(paths: &Paths, timeouts: &IdeSection) -> Arc<Discovery> {
        let data_dir = paths.data_dir.as_path();
        match paths.ensure_data_dir() {
            Ok(DataDir::Created | DataDir::Private) => {}
            Ok(DataDir::Tightened { was }) => tracing::warn!(
                dir = %data_dir.display(),
                "the data dir was mode {was:o}; made it 0700 (only this user's IDE and lean-ctx use it)"
            ),
            Ok(DataDir::NotOurs { owner }) => tracing::warn!(
                dir = %data_dir.display(),
                owner,
                "the data dir belongs to another user; left as it is (its port files are not used)"
            ),
            Err(e) => tracing::warn!(error = %e, "cannot create the data dir"),
        }
        let me = Arc::new(Discovery {
            data_dir: data_dir.to_path_buf(),
            table: Mutex::new(Table::default()),
            watcher: Mutex::new(None),
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("an HTTP client without TLS builds"),
            timeouts: timeouts.clone(),
        });
        match me.watch() {
            Ok(w) => *me.watcher.lock().unwrap() = Some(w),
            // Without a watcher every lookup re-reads its port file (see `lookup`).
            Err(e) => {
                tracing::warn!(dir = %data_dir.display(), error = %e, "cannot watch for IDE port files")
            }
        }
        me.rescan();
        me
    }

    /// Watches the data dir (by its canonical path: a symlinked data dir is watched
    /// where it is), handing what changes to `reload` on a thread of ours that ends
    /// when the watch is dropped with the discovery.
    fn watch(self: &Arc<Self>) -> std::io::Result<DirWatcher> {
        let (tx, rx) = std::sync::mpsc::channel();
        let watcher = DirWatcher::new(tx)?;
        watcher.watch(&std::fs::canonicalize(&self.data_dir)?)?;
        let weak = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("lean-ctx-ports".into())
            .spawn(move || {
                while let Ok(change) = rx.recv() {
                    let Some(me) = weak.upgrade() else { return };
                    match change {
                        Change::Path(path) => me.reload(&path),
                        Change::Rescan => {
                            tracing::warn!("port file events were lost; rescanning");
                            me.rescan();
                        }
                    }
                }
            })?;
        Ok(watcher)
    }

    fn watching(&self) -> bool {
        self.watcher.lock().unwrap().is_some()
    }

    fn rescan(&self) {
        let Ok(entries) = std::fs::read_dir(&self.data_dir) else {
            return;
        };
        for entry in entries.flatten() {
            self.reload(&entry.path());
        }
    }

    /// Re-reads one path of the data dir if it is a port file: added, changed (its
    /// verdict forgotten) or removed. A bad file is ignored with its reason logged,
    /// and so is one someone else could have written (kept aside for `status`).
    fn reload(&self, path: &Path) {
        let Some(hash) = path.file_name().and_then(|n| n.to_str()).and_then(|n| {
            n.strip_prefix(PORT_FILE_PREFIX)?
                .strip_suffix(PORT_FILE_SUFFIX)
        }) else {
            return;
        };
        let read = read_port_file(path);
        let mut table = self.table.lock().unwrap();
        match read {
            Ok(file) => {
                table.ignored.remove(hash);
                // The same file seen again (our own read, then the watcher's event):
                // the verdict about it stands.
                if table.windows.get(hash).is_none_or(|e| e.file != file) {
                    table.windows.insert(hash.to_string(), Entry::new(file));
                }
            }
            Err(PortFileError::Untrusted { reason, claimed }) => {
                table.windows.remove(hash);
                // Logged once per reason, not on every lookup that re-reads it.
                if table.ignored.get(hash).is_none_or(|i| i.reason != reason) {
                    tracing::warn!(file = %path.display(), %reason, "ignoring a port file someone else could have written");
                }
                table
                    .ignored
                    .insert(hash.to_string(), Ignored { reason, claimed });
            }
            Err(PortFileError::Bad(why)) => {
                tracing::info!(file = %path.display(), %why, "ignoring a bad port file");
                table.windows.remove(hash);
                table.ignored.remove(hash);
            }
            Err(PortFileError::Gone) => {
                table.windows.remove(hash);
                table.ignored.remove(hash);
            }
        }
    }

    /// The IDE window serving exactly `root`, if it passes every stage.
    pub async fn lookup(&self, root: &Path) -> Option<Ide> {
        let hash = project_hash(root);
        // Not known yet: read it now rather than wait for the watcher's event, so a
        // window that just opened serves this very call (one failed open otherwise).
        let known = self.table.lock().unwrap().windows.contains_key(&hash);
        if !known || !self.watching() {
            self.reload(&lean_ctx_shared::ide::port_file(&self.data_dir, root));
        }
        let (file, cached) = {
            let table = self.table.lock().unwrap();
            let entry = table.windows.get(&hash)?;
            // Another worktree's window never answers for this one (and a hash
            // collision never mixes projects).
            if lean_ctx_shared::ide::canonical_root(&entry.file.project_root) != root
                || entry.distrusted.is_some()
                || entry.held_until.is_some_and(|t| Instant::now() < t)
            {
                return None;
            }
            let fresh = entry
                .verdict
                .filter(|(at, _)| at.elapsed() < VERDICT_TTL)
                .map(|(_, ok)| ok);
            (entry.file.clone(), fresh)
        };
        let ide = Ide {
            hash: hash.clone(),
            port: file.port,
            token: file.token,
            pid: file.pid,
        };
        let reachable = match cached {
            Some(ok) => ok,
            None => {
                let checked = if !pid_alive(ide.pid) {
                    Err(format!("its pid {} is gone", ide.pid))
                } else {
                    match self.verify(&ide).await {
                        Ok(()) => self.healthy(&ide).await,
                        Err(why) => Err(why),
                    }
                };
                if let Err(why) = &checked {
                    tracing::info!(root = %root.display(), port = ide.port, %why, "IDE window not used");
                }
                let ok = checked.is_ok();
                if let Some(entry) = self.table.lock().unwrap().windows.get_mut(&hash) {
                    entry.verdict = Some((Instant::now(), ok));
                    entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
                    entry.last_failure = checked.err();
                }
                ok
            }
        };
        reachable.then_some(ide)
    }

    /// Proves the socket listening on the window's port is its pid's and ours, the
    /// step before anything carrying its token is sent (see [`verify_listener`]); the
    /// proven sockets are remembered for the same port file, so a repeat costs one
    /// read of `/proc/net/tcp{,6}`.
    pub async fn verify(&self, ide: &Ide) -> Result<(), String> {
        let known = self
            .table
            .lock()
            .unwrap()
            .windows
            .get(&ide.hash)
            .filter(|e| e.file.port == ide.port && e.file.pid == ide.pid)
            .map(|e| e.sockets.clone())
            .unwrap_or_default();
        let (port, pid) = (ide.port, ide.pid);
        let proven = tokio::task::spawn_blocking(move || verify_listener(port, pid, &known))
            .await
            .unwrap_or_else(|e| Err(format!("the listener check failed: {e}")))?;
        if let Some(entry) = self.table.lock().unwrap().windows.get_mut(&ide.hash)
            && entry.file.port == port
            && entry.file.pid == pid
        {
            entry.sockets = proven;
        }
        Ok(())
    }

    /// `GET /health` with the token, as the published plugin requires
    /// (docs/ide-wire.md, Token). A 401 still counts as the window being there: the
    /// listener is proven ours, and the call's own 401 re-reads the port file and
    /// reports `UNAUTHORIZED` rather than silently answering from another backing.
    async fn healthy(&self, ide: &Ide) -> Result<(), String> {
        let get = self
            .http
            .get(format!("http://127.0.0.1:{}/health", ide.port))
            .header("X-LeanCtx-Token", &ide.token)
            .timeout(self.timeouts.health_timeout)
            .send();
        match get.await {
            Ok(r) if r.status().is_success() || r.status() == reqwest::StatusCode::UNAUTHORIZED => {
                Ok(())
            }
            Ok(r) => Err(format!("GET /health answered HTTP {}", r.status())),
            Err(e) => Err(format!("GET /health: {e}")),
        }
    }

    /// A call to this IDE failed to connect: unreachable until its port file changes
    /// or the verdict ages out.
    pub fn mark_unreachable(&self, hash: &str) {
        if let Some(entry) = self.table.lock().unwrap().windows.get_mut(hash) {
            entry.verdict = Some((Instant::now(), false));
            entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
        }
    }

    /// A call to this IDE timed out: not asked for [`HOLD_AFTER_TIMEOUT`], then only
    /// if it passes the stages again (or sooner once its port file changes).
    pub fn hold(&self, hash: &str, why: String) {
        tracing::warn!(hash, %why, "IDE window held off after a timeout");
        if let Some(entry) = self.table.lock().unwrap().windows.get_mut(hash) {
            entry.verdict = Some((Instant::now(), false));
            entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
            entry.held_until = Some(Instant::now() + HOLD_AFTER_TIMEOUT);
            entry.last_failure = Some(why);
        }
    }

    /// How long a call may wait for a window's answer: a read, or (`slow`) an apply.
    pub fn timeout(&self, slow: bool) -> Duration {
        if slow {
            self.timeouts.apply_timeout
        } else {
            self.timeouts.timeout
        }
    }

    /// The window answered something the disk contradicts: it is not used again
    /// until its port file changes (a restarted IDE writes a new one).
    pub fn distrust(&self, hash: &str, why: String) {
        tracing::warn!(hash, %why, "IDE window not used again until its port file changes");
        if let Some(entry) = self.table.lock().unwrap().windows.get_mut(hash) {
            entry.verdict = Some((Instant::now(), false));
            entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
            entry.distrusted = Some(why);
        }
    }

    /// The port file re-read (a 401: the IDE restarted with a new token); the new
    /// token, if the file is still one we believe.
    pub fn reread(&self, ide: &Ide) -> Option<Ide> {
        let path = self
            .data_dir
            .join(format!("{PORT_FILE_PREFIX}{}{PORT_FILE_SUFFIX}", ide.hash));
        self.reload(&path);
        let table = self.table.lock().unwrap();
        let entry = table.windows.get(&ide.hash)?;
        Some(Ide {
            hash: ide.hash.clone(),
            port: entry.file.port,
            token: entry.file.token.clone(),
            pid: entry.file.pid,
        })
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub fn status(&self) -> Vec<IdeStatus> {
        let table = self.table.lock().unwrap();
        let mut rows: Vec<IdeStatus> = table
            .windows
            .values()
            .map(|e| IdeStatus {
                project_root: e.file.project_root.clone(),
                ide_version: e.file.ide_version.clone(),
                pid: e.file.pid,
                port: e.file.port,
                reachable: e.verdict.map(|(_, ok)| ok),
                last_check_unix_ms: e.last_check_unix_ms,
                ignored: e.distrusted.clone().or_else(|| {
                    e.verdict
                        .is_some_and(|(_, ok)| !ok)
                        .then(|| e.last_failure.clone())
                        .flatten()
                }),
            })
            .collect();
        rows.extend(table.ignored.iter().map(|(hash, i)| {
            let claimed = i.claimed.as_ref();
            IdeStatus {
                project_root: claimed.map(|c| c.project_root.clone()).unwrap_or_default(),
                ide_version: claimed.map(|c| c.ide_version.clone()).unwrap_or_default(),
                pid: claimed.map_or(0, |c| c.pid),
                port: claimed.map_or(0, |c| c.port),
                reachable: Some(false),
                last_check_unix_ms: None,
                ignored: Some(format!(
                    "{PORT_FILE_PREFIX}{hash}{PORT_FILE_SUFFIX}: {}",
                    i.reason
                )),
            }
        }));
        rows.sort_by(|a, b| a.project_root.cmp(&b.project_root));
        rows
    }
}
