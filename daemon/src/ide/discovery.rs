//! Live knowledge of the JetBrains IDE windows: the data dir is watched for
//! `jetbrains-*.port` files, a table keyed by project hash follows them, and an IDE
//! counts as reachable for a root only when all three stages pass (spec §1.2): its
//! port file is there and names exactly that root, its pid is alive, and `GET /health`
//! answers within 300 ms. The answer is cached briefly; a file event or a failed call
//! forgets it, so a window that opens is used by the next call and one that dies is
//! left within the same call.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant, SystemTime},
};

use lean_ctx_shared::{
    ide::{PORT_FILE_PREFIX, PORT_FILE_SUFFIX, PortFile, project_hash},
    process::pid_alive,
    protocol::IdeStatus,
};
use notify::{RecursiveMode, Watcher};

use crate::sys::unix_ms;

/// `GET /health` must answer within this (spec §1.2).
const HEALTH_TIMEOUT: Duration = Duration::from_millis(300);
/// How long a reachability verdict is trusted without a file event or failed call.
const VERDICT_TTL: Duration = Duration::from_secs(2);

/// An IDE window that answered for a root.
#[derive(Clone, Debug)]
pub struct Ide {
    pub hash: String,
    pub port: u16,
    pub token: String,
}

#[derive(Debug)]
struct Entry {
    file: PortFile,
    /// When the three stages last ran, and what they found.
    verdict: Option<(Instant, bool)>,
    last_check_unix_ms: Option<u64>,
}

#[derive(Debug)]
pub struct Discovery {
    data_dir: PathBuf,
    table: Mutex<HashMap<String, Entry>>,
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
    http: reqwest::Client,
}

impl Discovery {
    /// Reads the port files there are and watches for more (the data dir is created
    /// if missing, so a first IDE window is seen too).
    pub fn start(data_dir: &Path) -> Arc<Discovery> {
        let me = Arc::new(Discovery {
            data_dir: data_dir.to_path_buf(),
            table: Mutex::new(HashMap::new()),
            watcher: Mutex::new(None),
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("an HTTP client without TLS builds"),
        });
        let _ = std::fs::create_dir_all(data_dir);
        let weak = Arc::downgrade(&me);
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Some(me) = weak.upgrade() else { return };
            match event {
                Ok(ev) => ev.paths.iter().for_each(|p| me.reload(p)),
                Err(e) => {
                    tracing::warn!(error = %e, "port file watch error; rescanning");
                    me.rescan();
                }
            }
        })
        .and_then(|mut w| w.watch(data_dir, RecursiveMode::NonRecursive).map(|()| w));
        match watcher {
            Ok(w) => *me.watcher.lock().unwrap() = Some(w),
            // Without a watcher every lookup re-reads its port file (see `lookup`).
            Err(e) => {
                tracing::warn!(dir = %data_dir.display(), error = %e, "cannot watch for IDE port files")
            }
        }
        me.rescan();
        me
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
    /// verdict forgotten) or removed. A bad file is ignored with its reason logged.
    fn reload(&self, path: &Path) {
        let Some(hash) = path.file_name().and_then(|n| n.to_str()).and_then(|n| {
            n.strip_prefix(PORT_FILE_PREFIX)?
                .strip_suffix(PORT_FILE_SUFFIX)
        }) else {
            return;
        };
        let parsed = match std::fs::read(path) {
            Ok(bytes) => PortFile::parse(&bytes).map_err(|why| {
                tracing::info!(file = %path.display(), %why, "ignoring a bad port file");
            }),
            Err(_) => Err(()),
        };
        let mut table = self.table.lock().unwrap();
        match parsed {
            // The same file seen again (our own read, then the watcher's event): the
            // verdict about it stands.
            Ok(file) if table.get(hash).is_some_and(|e| e.file == file) => {}
            Ok(file) => {
                table.insert(
                    hash.to_string(),
                    Entry {
                        file,
                        verdict: None,
                        last_check_unix_ms: None,
                    },
                );
            }
            Err(()) => {
                table.remove(hash);
            }
        }
    }

    /// The IDE window serving exactly `root`, if it passes the three stages.
    pub async fn lookup(&self, root: &Path) -> Option<Ide> {
        let hash = project_hash(root);
        // Not known yet: read it now rather than wait for the watcher's event, so a
        // window that just opened serves this very call (one failed open otherwise).
        let known = self.table.lock().unwrap().contains_key(&hash);
        if !known || !self.watching() {
            self.reload(&lean_ctx_shared::ide::port_file(&self.data_dir, root));
        }
        let (file, cached) = {
            let table = self.table.lock().unwrap();
            let entry = table.get(&hash)?;
            // Another worktree's window never answers for this one (and a hash
            // collision never mixes projects).
            if lean_ctx_shared::ide::canonical_root(&entry.file.project_root) != root {
                return None;
            }
            let fresh = entry
                .verdict
                .filter(|(at, _)| at.elapsed() < VERDICT_TTL)
                .map(|(_, ok)| ok);
            (entry.file.clone(), fresh)
        };
        let reachable = match cached {
            Some(ok) => ok,
            None => {
                let ok = pid_alive(file.pid) && self.healthy(file.port).await;
                if let Some(entry) = self.table.lock().unwrap().get_mut(&hash) {
                    entry.verdict = Some((Instant::now(), ok));
                    entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
                }
                ok
            }
        };
        reachable.then_some(Ide {
            hash,
            port: file.port,
            token: file.token,
        })
    }

    async fn healthy(&self, port: u16) -> bool {
        let get = self
            .http
            .get(format!("http://127.0.0.1:{port}/health"))
            .timeout(HEALTH_TIMEOUT)
            .send();
        matches!(get.await, Ok(r) if r.status().is_success())
    }

    /// A call to this IDE failed to connect: unreachable until its port file changes
    /// or the verdict ages out.
    pub fn mark_unreachable(&self, hash: &str) {
        if let Some(entry) = self.table.lock().unwrap().get_mut(hash) {
            entry.verdict = Some((Instant::now(), false));
            entry.last_check_unix_ms = Some(unix_ms(SystemTime::now()));
        }
    }

    /// The port file re-read (a 401: the IDE restarted with a new token); the new
    /// token, if the file names the same root.
    pub fn reread(&self, ide: &Ide) -> Option<Ide> {
        let path = self
            .data_dir
            .join(format!("{PORT_FILE_PREFIX}{}{PORT_FILE_SUFFIX}", ide.hash));
        self.reload(&path);
        let table = self.table.lock().unwrap();
        let entry = table.get(&ide.hash)?;
        Some(Ide {
            hash: ide.hash.clone(),
            port: entry.file.port,
            token: entry.file.token.clone(),
        })
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub fn status(&self) -> Vec<IdeStatus> {
        let table = self.table.lock().unwrap();
        let mut rows: Vec<IdeStatus> = table
            .values()
            .map(|e| IdeStatus {
                project_root: e.file.project_root.clone(),
                ide_version: e.file.ide_version.clone(),
                pid: e.file.pid,
                port: e.file.port,
                reachable: e.verdict.map(|(_, ok)| ok),
                last_check_unix_ms: e.last_check_unix_ms,
            })
            .collect();
        rows.sort_by(|a, b| a.project_root.cmp(&b.project_root));
        rows
    }
}
