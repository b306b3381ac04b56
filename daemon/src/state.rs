//! What lives as long as the daemon: its configuration, counters, the recent calls,
//! the shutdown tokens, the project registry, the caches, the language servers and the
//! IDE windows. Shared as `Arc<Daemon>` by every connection. Not the dashboard: the
//! connections' handlers hold it (`service::Handler`), so the state knows nothing of
//! what shows it.
//!
//! [`Daemon::call`] is the one choke point every operation goes through: it refuses
//! new work while stopping, counts calls in flight (what a shutdown drains), turns a
//! panic into `INTERNAL`, refuses an answer over the budget before tarpc encodes it
//! (`budget::check`) and logs the call (`call_log`). A starting daemon prewarms the
//! roots calls were last made for ([`Daemon::prewarm`], `index.prewarm_roots`), and an
//! auto-spawned one, without waiting for a pause, the root its shim wrote on its stdin
//! ([`Daemon::start_first_root`]), whose check then runs while the shim connects. A
//! prewarm is a restart's check, never a speculative first index: only a root that is
//! still the directory called for and whose last walk's listing the store keeps.

use std::{
    future::Future,
    panic::AssertUnwindSafe,
    path::PathBuf,
    pin::pin,
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime},
};

use futures::FutureExt;
use lean_ctx_shared::{ErrorCode, LeanError, Paths, protocol::StartMode};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::{
    accounting::Gain,
    budget,
    call_log::{self, CallLog, CallRecord},
    config::{IdeSection, LspSection},
    edit::FileLocks,
    ide_windows::discovery::Discovery,
    index::{root::IndexConfig, store::Caches},
    language_servers::pool::Pool,
    registry::{Project, ProjectRegistry},
    sys::unix_ms,
    trust::Trust,
};

/// How long ago a root's last call may have been for a starting daemon to prewarm
/// it: a week covers a weekend and a holiday's first days, and no more, since a
/// prewarmed root costs a walk and its resident index until it is evicted idle.
const PREWARM_WITHIN: Duration = Duration::from_secs(7 * 24 * 3600);

/// The pause in calls a prewarm waits for before each root: longer than the CLI's
/// 250 ms polling while a first index runs, so a prewarm never joins one, and short
/// against the seconds an agent thinks between calls.
const PREWARM_LULL: Duration = Duration::from_millis(300);

/// How long a prewarm waits for one root before it goes on to the next (a root of
/// a million files); the walk itself goes on.
const PREWARM_WAIT: Duration = Duration::from_secs(600);

/// How this daemon runs; fixed at start.
#[derive(Clone, Debug)]
pub struct DaemonConfig {
    pub paths: Paths,
    /// The socket actually served (bound, or passed by systemd).
    pub socket: PathBuf,
    pub start_mode: StartMode,
    /// Exit after this long without connections; `None`: never.
    pub idle_timeout: Option<Duration>,
    pub index: IndexConfig,
    pub symbol_cache_bytes: u64,
    /// `[index] text_index`: whether the caches keep the text index, and the most
    /// its lists may take (a quarter of `index.store_max_bytes`).
    pub text_index: bool,
    pub text_index_cap: u64,
    pub lsp: LspSection,
    pub ide: IdeSection,
    pub limits: Limits,
    /// `answers.max_bytes`: the cap of one answer (`budget.rs`).
    pub answer_max_bytes: u64,
}

/// What bounds the daemon's connections and projects (`[daemon]` in config.toml).
#[derive(Clone, Debug)]
pub struct Limits {
    /// A connection without a call for this long is closed.
    pub connection_idle: Duration,
    /// Most open connections; more are refused in the hello.
    pub max_connections: usize,
    /// A project without a call for this long is evicted (when nothing uses it).
    pub project_idle: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::from(&crate::config::DaemonSection::default())
    }
}

impl From<&crate::config::DaemonSection> for Limits {
    fn from(c: &crate::config::DaemonSection) -> Limits {
        Limits {
            connection_idle: c.connection_idle_timeout,
            max_connections: c.max_connections,
            project_idle: c.project_idle_timeout,
        }
    }
}

#[derive(Debug)]
pub struct Daemon {
    pub config: DaemonConfig,
    pub registry: ProjectRegistry,
    pub caches: Arc<Caches>,
    pub locks: Arc<FileLocks>,
    pub gain: Arc<Gain>,
    /// What each agent session has been given by `read`.
    pub reads: Arc<crate::reads::Reads>,
    /// The warm language servers.
    pub lsp: Arc<Pool>,
    /// JetBrains IDE windows, from their port files.
    pub ides: Arc<Discovery>,
    started_at: SystemTime,
    started: Instant,
    /// Open connections; the idle watcher subscribes to it.
    connections: watch::Sender<usize>,
    in_flight: AtomicUsize,
    in_flight_zero: Notify,
    calls_served: AtomicU64,
    /// The last calls and the call rate, for the dashboard.
    pub calls: CallLog,
    /// Fired to stop: the accept loop ends and new calls are refused.
    shutdown: CancellationToken,
    /// Fired once in-flight calls are done: connections flush and close.
    drained: CancellationToken,
}

impl Daemon {
    pub fn new(config: DaemonConfig) -> Daemon {
        budget::set_cap(config.answer_max_bytes);
        let caches = Arc::new(
            Caches::new(config.symbol_cache_bytes)
                .with_text_index(config.text_index, config.text_index_cap),
        );
        Daemon {
            registry: ProjectRegistry::new(caches.clone(), config.index.clone()),
            caches,
            locks: Arc::new(FileLocks::across_daemons(config.paths.clone())),
            lsp: Arc::new(Pool::new(
                config.lsp.clone(),
                Trust::new(
                    &config.paths.config_file(),
                    std::env::var_os("HOME").map(PathBuf::from).as_deref(),
                ),
            )),
            ides: Discovery::start(&config.paths, &config.ide),
            gain: Arc::new(Gain::load(&config.paths.data_dir)),
            reads: Arc::default(),
            config,
            started_at: SystemTime::now(),
            started: Instant::now(),
            connections: watch::Sender::new(0),
            in_flight: AtomicUsize::new(0),
            in_flight_zero: Notify::new(),
            calls_served: AtomicU64::new(0),
            calls: CallLog::default(),
            shutdown: CancellationToken::new(),
            drained: CancellationToken::new(),
        }
    }

    pub fn started_at(&self) -> SystemTime {
        self.started_at
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn connections(&self) -> usize {
        *self.connections.borrow()
    }

    pub fn subscribe_connections(&self) -> watch::Receiver<usize> {
        self.connections.subscribe()
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    pub fn calls_served(&self) -> u64 {
        self.calls_served.load(Ordering::Relaxed)
    }

    /// Asks the daemon to stop (idempotent).
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    pub fn drained_token(&self) -> &CancellationToken {
        &self.drained
    }

    /// Counts an open connection until the guard drops.
    pub fn connection_guard(&self) -> ConnectionGuard<'_> {
        self.connections.send_modify(|c| *c += 1);
        ConnectionGuard(self)
    }

    /// Runs one call: refuses it while stopping, counts it in flight, turns a panic
    /// into `INTERNAL` so one bad request never takes the daemon down,
    /// refuses an answer larger than one frame ([`budget::check`]: the connection
    /// would drop otherwise), and logs it for the dashboard with the root and backing
    /// the operation noted ([`call_log::note_root`], [`call_log::note_backing`]).
    pub async fn call<T, F>(&self, op: &'static str, fut: F) -> Result<T, LeanError>
    where
        T: serde::Serialize,
        F: Future<Output = Result<T, LeanError>>,
    {
        if self.shutdown.is_cancelled() {
            return Err(LeanError::internal("lean-ctxd is shutting down")
                .with_remedy("retry: the next call starts a fresh daemon"));
        }
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let _in_flight = InFlightGuard(self);
        let started = Instant::now();
        let (result, note) = call_log::noted(AssertUnwindSafe(fut).catch_unwind()).await;
        let result = match result {
            Ok(result) => result.and_then(|answer| budget::check(op, answer)),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".into());
                tracing::error!(op, panic = %what, "request panicked");
                Err(LeanError::internal(format!(
                    "{op} failed: internal panic: {what}"
                )))
            }
        };
        let seq = self.calls_served.fetch_add(1, Ordering::Relaxed) + 1;
        let latency = started.elapsed();
        self.calls.record(CallRecord {
            seq,
            at_unix_ms: unix_ms(SystemTime::now()),
            action: op,
            root: note.root,
            backing: note.backing.filter(|_| result.is_ok()),
            latency_us: latency.as_micros() as u64,
            error: result.as_ref().err().map(|e| e.code.as_str()),
        });
        // `INDEXING` is a progress report the front doors poll on (the CLI every
        // 250 ms while a first index runs), not an answer: counting it would count
        // the polling, and load the tokenizer on the cores the index needs (seen at
        // 39% of a first index's samples in perf).
        if let Err(e) = &result
            && e.code != ErrorCode::Indexing
        {
            self.gain
                .record_error(op, lean_ctx_shared::render::error(e));
        }
        let code = result.as_ref().err().map(|e| e.code.as_str());
        tracing::debug!(op, elapsed_us = latency.as_micros() as u64, error = ?code, "call");
        result
    }

    /// Evicts idle projects until `stop` fires: a project without a call for
    /// `limits.project_idle` whose root has no live language server (a server follows
    /// its index's file events, so it keeps its project); and sweeps the text index
    /// of contents no file holds any more ([`ProjectRegistry::sweep_text`]).
    pub async fn run_project_eviction(self: Arc<Self>, stop: CancellationToken) {
        let idle = self.config.limits.project_idle;
        let every = (idle / 4).clamp(Duration::from_millis(200), Duration::from_secs(30));
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            self.registry
                .evict_idle(idle, |root| !self.lsp.servers_of(root).is_empty());
            // Off the runtime: a sweep rewrites the text index's lists.
            let me = self.clone();
            let _ = tokio::task::spawn_blocking(move || me.registry.sweep_text()).await;
        }
    }

    /// Indexes the `roots` roots calls were last made for (within
    /// [`PREWARM_WITHIN`]) in the calls' pauses after this daemon starts, one after
    /// another, most recent first, until `stop` fires: each is checked against its
    /// last walk's listing (`RootIndex::warm_start`), so the first call after a
    /// reboot or an upgrade of a service-run daemon, or any call after the first
    /// pause, finds its root indexed. A root starts only after a pause in calls
    /// ([`Daemon::lull`]): the shim that spawned this daemon is about to ask about
    /// its own root, and another root's walk would take the cores from that one's.
    /// A root a call registered first counts as warmed; one that is gone is skipped.
    /// A prewarmed root is an ordinary project: no call counted, evicted when idle.
    pub async fn prewarm(self: Arc<Self>, roots: usize, stop: CancellationToken) {
        if roots == 0 {
            return;
        }
        let caches = self.caches.clone();
        // Waits for the store's load, as the first call would.
        let Ok(recent) = tokio::task::spawn_blocking(move || caches.recent_roots()).await else {
            return;
        };
        let since = unix_ms(SystemTime::now()).saturating_sub(PREWARM_WITHIN.as_millis() as u64);
        let mut warmed = 0;
        for (root, at) in recent.into_iter().filter(|(_, at)| *at >= since) {
            if warmed == roots || !self.lull(&stop).await {
                return;
            }
            if self.registry.get(&root).is_some() {
                warmed += 1;
                continue;
            }
            let Some(project) = self.clone().open_listed(root.clone()).await else {
                tracing::debug!(root = %root.display(), "not prewarming: gone, moved, or no listing");
                continue;
            };
            warmed += 1;
            tracing::info!(
                root = %project.root.display(),
                last_call_s_ago = unix_ms(SystemTime::now()).saturating_sub(at) / 1000,
                "prewarming"
            );
            project.index.start();
            tokio::select! {
                () = stop.cancelled() => return,
                _ = project.index.wait_ready(PREWARM_WAIT) => {}
            }
        }
    }

    /// The project of `root` if it may be started before anyone calls for it. On the
    /// blocking pool: a root on a mount that hangs (a network file system gone away
    /// since) must not hold a runtime thread; a call that names it would, but that is
    /// the caller's choice, this is ours. Only the directory itself: a root that is now
    /// a symlink (or under one) leads somewhere nobody asked about. And only one with
    /// a listing: without one (a new build's store, a clear) a start is a whole first
    /// index, seconds of CPU for a root nobody may ask about today, so that is left to
    /// the first call. Waits for the store's load, as the first call would.
    async fn open_listed(self: Arc<Self>, root: PathBuf) -> Option<Arc<Project>> {
        tokio::task::spawn_blocking(move || {
            let same = std::fs::canonicalize(&root).is_ok_and(|c| c == root);
            let cheap = same && self.caches.has_listing(&root);
            cheap.then(|| self.registry.open(&root).ok()).flatten()
        })
        .await
        .ok()
        .flatten()
    }

    /// Starts `root`, the root the shim that spawned this daemon is about to call for,
    /// as soon as the store is loaded (if it has a listing): its check then runs while
    /// the shim connects and says hello, not after.
    pub async fn start_first_root(self: Arc<Self>, root: PathBuf) {
        if let Some(project) = self.open_listed(root).await {
            tracing::info!(root = %project.root.display(), "starting the spawning shim's root");
            project.index.start();
        }
    }

    /// Waits for a pause in calls: none in flight and none entering a project for
    /// [`PREWARM_LULL`]; `false` if `stop` fired first. Calls that touch no project
    /// (`daemon status`, a dashboard's polling) do not end a pause.
    async fn lull(&self, stop: &CancellationToken) -> bool {
        loop {
            let quiet = self
                .registry
                .since_last_entered()
                .is_none_or(|d| d >= PREWARM_LULL);
            if quiet && self.in_flight() == 0 && self.uptime() >= PREWARM_LULL {
                return true;
            }
            tokio::select! {
                () = stop.cancelled() => return false,
                () = tokio::time::sleep(PREWARM_LULL / 6) => {}
            }
        }
    }

    /// Waits until no call is in flight, at most `cap`; `false` if the cap was hit.
    pub async fn wait_idle_calls(&self, cap: Duration) -> bool {
        let wait = async {
            loop {
                let mut notified = pin!(self.in_flight_zero.notified());
                notified.as_mut().enable();
                if self.in_flight() == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(cap, wait).await.is_ok()
    }
}

#[derive(Debug)]
pub struct ConnectionGuard<'a>(&'a Daemon);

impl Drop for ConnectionGuard<'_> {
    fn drop(&mut self) {
        self.0.connections.send_modify(|c| *c -= 1);
    }
}

struct InFlightGuard<'a>(&'a Daemon);

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.in_flight_zero.notify_waiters();
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use lean_ctx_shared::ErrorCode;

    use super::*;

    pub(crate) fn daemon_in(dir: &std::path::Path) -> Daemon {
        Daemon::new(DaemonConfig {
            socket: dir.join("run/lean-ctxd.sock"),
            paths: Paths {
                data_dir: dir.join("data"),
                runtime_dir: dir.join("run"),
                state_dir: dir.join("state"),
                config_dir: dir.join("config"),
            },
            start_mode: StartMode::Foreground,
            idle_timeout: None,
            index: IndexConfig::default(),
            symbol_cache_bytes: 1 << 24,
            text_index: true,
            text_index_cap: 0,
            lsp: LspSection::default(),
            ide: IdeSection::default(),
            limits: Limits::default(),
            answer_max_bytes: budget::DEFAULT_CAP,
        })
    }

    #[tokio::test]
    async fn a_prewarm_waits_for_a_pause_in_calls_that_enter_a_project() {
        let tmp = tempfile::tempdir().unwrap();
        let d = daemon_in(tmp.path());
        let root = tmp.path().join("proj");
        std::fs::create_dir(&root).unwrap();
        let stop = CancellationToken::new();
        d.registry.enter(&root).unwrap();
        let entered = Instant::now();
        assert!(d.lull(&stop).await);
        assert!(entered.elapsed() >= PREWARM_LULL, "{:?}", entered.elapsed());
        // A call in flight holds it off, however long ago a project was entered.
        let slow = d.call("slow", async {
            tokio::time::sleep(Duration::from_millis(600)).await;
            Ok(())
        });
        let waited = async {
            let t = Instant::now();
            assert!(d.lull(&stop).await);
            t.elapsed()
        };
        let (done, waited) = tokio::join!(slow, waited);
        assert_eq!(done, Ok(()));
        assert!(waited >= Duration::from_millis(600), "{waited:?}");
        // A stop ends the wait.
        d.registry.enter(&root).unwrap();
        stop.cancel();
        assert!(!d.lull(&stop).await);
    }

    #[tokio::test]
    async fn a_panicking_call_answers_internal_and_the_next_call_works() {
        let tmp = tempfile::tempdir().unwrap();
        let d = daemon_in(tmp.path());
        let err = d
            .call("boom", async {
                if d.in_flight() == 1 {
                    panic!("kaboom");
                }
                Ok(())
            })
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Internal);
        assert!(err.message.contains("kaboom"), "{}", err.message);
        assert_eq!(d.in_flight(), 0);
        assert_eq!(d.call("ok", async { Ok(7) }).await, Ok(7));
        assert_eq!(d.calls_served(), 2);
        let recent = d.calls.recent();
        assert_eq!(
            recent
                .iter()
                .map(|c| (c.seq, c.action, c.error))
                .collect::<Vec<_>>(),
            [(2, "ok", None), (1, "boom", Some("INTERNAL"))]
        );
    }

    #[tokio::test]
    async fn a_call_logs_the_root_and_backing_it_noted() {
        let tmp = tempfile::tempdir().unwrap();
        let d = daemon_in(tmp.path());
        d.call("navigate", async {
            call_log::note_root(std::path::Path::new("/p"));
            call_log::note_backing("pylsp");
            Ok(())
        })
        .await
        .unwrap();
        let call = &d.calls.recent()[0];
        assert_eq!(call.root.as_deref(), Some(std::path::Path::new("/p")));
        assert_eq!(call.backing.as_deref(), Some("pylsp"));
        assert!(d.calls.per_second(call.at_unix_ms) > 0.0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_indexing_answer_is_logged_but_not_counted_as_a_command() {
        let tmp = tempfile::tempdir().unwrap();
        let d = daemon_in(tmp.path());
        let refuse = |code| async move { Err::<(), _>(LeanError::new(code, "no")) };
        for _ in 0..3 {
            d.call("outline", refuse(ErrorCode::Indexing))
                .await
                .unwrap_err();
        }
        d.call("outline", refuse(ErrorCode::FileNotFound))
            .await
            .unwrap_err();
        d.gain.flush_at_exit(Duration::from_secs(60)).await;
        let stats = d.gain.snapshot();
        assert_eq!((stats.total_commands, stats.total_errors), (1, 1));
        assert_eq!(d.calls.recent().len(), 4);
    }

    #[tokio::test]
    async fn calls_are_refused_once_shutdown_starts() {
        let tmp = tempfile::tempdir().unwrap();
        let d = daemon_in(tmp.path());
        d.shutdown();
        let err = d.call("late", async { Ok(()) }).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Internal);
        assert!(err.message.contains("shutting down"));
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_for_in_flight_calls_ends_when_they_finish() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Arc::new(daemon_in(tmp.path()));
        let d2 = d.clone();
        let call = tokio::spawn(async move {
            d2.call("slow", async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                Ok(())
            })
            .await
        });
        tokio::task::yield_now().await;
        assert_eq!(d.in_flight(), 1);
        assert!(!d.wait_idle_calls(Duration::from_secs(1)).await);
        assert!(d.wait_idle_calls(Duration::from_secs(10)).await);
        call.await.unwrap().unwrap();
    }
}
