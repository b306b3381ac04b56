//! One language server process for one (worktree root, language, command): spawning it
//! in its own process group, the `initialize` handshake, what it tells us unasked
//! (progress, rust-analyzer's server status, diagnostics, file-watch registrations),
//! readiness, document sync and shutdown.
//!
//!
//! Split by concern: [`live`] is what the server tells us unasked and the readiness
//! rules per server; [`docs`] is document sync (what the server has of each file);
//! here, the process, the handshake, requests and shutdown.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant, SystemTime},
};

use lean_ctx_shared::{
    ErrorCode, ErrorDetails, LeanError, Progress,
    protocol::{LanguageServerStatus, ServerState},
};
use lsp_types::{
    ClientCapabilities, InitializeParams, WorkspaceFolder, notification as note, request as req,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

mod docs;
mod live;

use docs::Doc;
pub use docs::Synced;
use live::{Live, Readiness, Shared};

use super::{
    positions::{Encoding, path_to_uri},
    rpc::{Connection, METHOD_NOT_FOUND, RpcError},
};
use crate::sys::{self, unix_ms};

/// How long `initialize` may take before the server counts as failed.
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);
/// Documents kept open per server; past this the least recently used is closed.
/// Lines of the server's stderr kept for error messages.
const STDERR_LINES: usize = 20;

/// What to run and how to talk to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ServerSpec {
    /// Our language name (`rust`, `python`, ...).
    pub language: &'static str,
    /// The LSP `languageId` of its documents.
    pub language_id: &'static str,
    pub command: Vec<String>,
    /// rust-analyzer's readiness rule and settings apply.
    pub rust_analyzer: bool,
    /// Sent as `initializationOptions` and answered to `workspace/configuration`
    /// (JSON text, so the spec stays hashable as a pool key).
    pub settings: String,
}

impl ServerSpec {
    pub fn program(&self) -> &str {
        self.command.first().map(String::as_str).unwrap_or("")
    }

    /// The program's file name (`rust-analyzer` for `/opt/ra/rust-analyzer`).
    pub fn program_name(&self) -> String {
        program_name(self.program())
    }
}

/// Kills the server's process group (its helpers with it) and records `why` as its
/// failure, unless it failed already.
fn stop(pid: Option<u32>, shared: &Shared, why: String) {
    shared.fail(why);
    if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// The file name of a command's program.
pub fn program_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A running (or failed) server.
pub struct Server {
    pub spec: ServerSpec,
    pub root: PathBuf,
    pid: Option<u32>,
    conn: Connection,
    shared: Arc<Shared>,
    init: OnceLock<Initialized>,
    docs: tokio::sync::Mutex<HashMap<PathBuf, Doc>>,
    open_documents: AtomicU64,
    started: Instant,
    started_at: SystemTime,
    last_used_ms: AtomicU64,
    calls: AtomicU64,
    /// Stops the server when configuration above its root stops being the user's
    /// alone (`ancestry`); none for servers whose toolchain reads nothing there.
    _ancestry: Option<super::ancestry::Watch>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("root", &self.root)
            .field("command", &self.spec.command)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Initialized {
    /// The raw `capabilities`: lsp-types drops some (`typeHierarchyProvider`).
    caps: Value,
    encoding: Encoding,
    name: String,
}

impl Server {
    /// Spawns the server and starts its handshake in the background; returns at once
    /// (a cold start never holds up the caller's lock).
    pub fn spawn(spec: ServerSpec, root: &Path) -> Result<Arc<Server>, LeanError> {
        let mut cmd = tokio::process::Command::new(spec.program());
        cmd.args(&spec.command[1..])
            // Built here, not inherited: the daemon may carry the environment of the
            // shim that spawned it, from another project (ARCHITECTURE.md, trust).
            .env_clear()
            .envs(lean_ctx_shared::tool_env::neutral(std::env::vars_os()))
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so eviction kills its helpers (rust-analyzer's
            // proc-macro server, cargo metadata) with it.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| {
            LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "cannot start the {} language server `{}`: {e}",
                    spec.language,
                    spec.command.join(" ")
                ),
            )
            .with_remedy(format!(
                "{}, or set lsp.{} in config.toml to a working command (`lean-ctx doctor` checks it)",
                lean_ctx_shared::servers::known_for(spec.language)
                    .iter()
                    .find(|k| lean_ctx_shared::servers::program(k.command) == spec.program())
                    .map_or("install it", |k| k.get),
                spec.language
            ))
        })?;
        let pid = child.id();
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let settings: Value = serde_json::from_str(&spec.settings).unwrap_or(Value::Null);
        let shared = Arc::new(Shared::new(
            root.to_path_buf(),
            settings,
            Readiness::of(&spec),
        ));
        let conn = Connection::start(stdin, stdout, shared.clone());
        let ancestry = super::ancestry::watch(
            root,
            spec.rust_analyzer,
            spec.language,
            spec.program_name(),
            {
                let shared = shared.clone();
                move |e| {
                    tracing::warn!(why = %e.message, "stopping a language server");
                    stop(pid, &shared, e.message);
                }
            },
        );
        let server = Arc::new(Server {
            spec,
            root: root.to_path_buf(),
            pid,
            conn,
            shared: shared.clone(),
            init: OnceLock::new(),
            docs: tokio::sync::Mutex::new(HashMap::new()),
            open_documents: AtomicU64::new(0),
            started: Instant::now(),
            started_at: SystemTime::now(),
            last_used_ms: AtomicU64::new(unix_ms(SystemTime::now())),
            calls: AtomicU64::new(0),
            _ancestry: ancestry,
        });
        tokio::spawn(read_stderr(stderr, shared.clone()));
        tokio::spawn(async move {
            let status = child.wait().await;
            shared.exited.store(true, Ordering::SeqCst);
            let what = match status {
                Ok(s) => format!("exited ({s})"),
                Err(e) => format!("lost ({e})"),
            };
            shared.fail(what);
        });
        tokio::spawn(initialize(server.clone()));
        Ok(server)
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn state(&self) -> ServerState {
        self.shared.live.lock().unwrap().phase()
    }

    /// Failed, or exited.
    pub fn is_dead(&self) -> bool {
        self.state() == ServerState::Failed
    }

    /// When it failed, if it did so before finishing `initialize` (a missing binary,
    /// a broken command line): retrying at once would fail the same way.
    pub fn failed_starting(&self) -> Option<Instant> {
        let live = self.shared.live.lock().unwrap();
        live.failed_at.filter(|_| !live.initialized)
    }

    pub fn failure(&self) -> Option<String> {
        self.shared.live.lock().unwrap().failure.clone()
    }

    pub fn last_used_ms(&self) -> u64 {
        self.last_used_ms.load(Ordering::Relaxed)
    }

    /// Records a call (status, LRU order).
    pub fn touch(&self) {
        self.last_used_ms
            .store(unix_ms(SystemTime::now()), Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    pub fn rss_bytes(&self) -> Option<u64> {
        self.pid.and_then(sys::rss_of_group)
    }

    /// The server's name as it reports it, else its program.
    pub fn name(&self) -> String {
        match self.init.get() {
            Some(init) => init.name.clone(),
            None => self.spec.program_name(),
        }
    }

    /// Whether the server announced `capability` (e.g. `referencesProvider`, or a
    /// nested `renameProvider/prepareProvider`).
    pub fn offers(&self, capability: &str) -> bool {
        self.init.get().is_some_and(|i| {
            let found = capability.split('/').try_fold(&i.caps, |v, key| v.get(key));
            !matches!(found, None | Some(Value::Null | Value::Bool(false)))
        })
    }

    pub fn encoding(&self) -> Encoding {
        self.init.get().map_or(Encoding::Utf16, |i| i.encoding)
    }

    /// Initialised (its handshake done: what it is told now reaches it), or as
    /// [`Server::wait_ready`] once `wait` has passed.
    pub async fn wait_started(&self, wait: Duration) -> Result<(), LeanError> {
        let mut changed = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let phase = self.shared.live.lock().unwrap().phase();
            match phase {
                ServerState::Starting => {}
                ServerState::Failed => return Err(self.failed_error()),
                ServerState::Ready | ServerState::Indexing => return Ok(()),
            }
            if tokio::time::timeout_at(deadline, changed.changed())
                .await
                .is_err()
            {
                return self.wait_ready(Duration::ZERO).await;
            }
        }
    }

    /// Ready, or `INDEXING` with progress once `wait` has passed; a failed server is
    /// `BACKEND_REQUIRED` with its reason.
    pub async fn wait_ready(&self, wait: Duration) -> Result<(), LeanError> {
        let mut changed = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let (phase, progress, unhealthy, grace) = {
                let live = self.shared.live.lock().unwrap();
                let elapsed = self.started.elapsed();
                let grace = live.grace_ends();
                (
                    live.phase(),
                    live.progress(elapsed),
                    self.unhealthy(&live),
                    grace,
                )
            };
            if let Some(broken) = unhealthy {
                return Err(broken);
            }
            match phase {
                ServerState::Ready => return Ok(()),
                ServerState::Failed => return Err(self.failed_error()),
                ServerState::Starting | ServerState::Indexing => {}
            }
            // Woken by news, or when a grace ends (the phase changes on its own).
            let wake = grace.map_or(deadline, |g| deadline.min(g.into()));
            if tokio::time::timeout_at(wake, changed.changed())
                .await
                .is_err()
                && wake == deadline
            {
                return Err(self.loading(progress));
            }
        }
    }

    /// Whether the server's load starts with the first file opened
    /// ([`Readiness::AfterOpen`]): a call opens its file before waiting for it.
    pub fn loads_on_open(&self) -> bool {
        self.shared.live.lock().unwrap().readiness == Readiness::AfterOpen
    }

    /// rust-analyzer says it could not load the workspace: every answer would be
    /// empty, so say why instead.
    fn unhealthy(&self, live: &Live) -> Option<LeanError> {
        (live.quiescent == Some(true) && live.health.as_deref() == Some("error")).then(|| {
            LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "{} cannot load {}: {}",
                    self.name(),
                    self.root.display(),
                    live.status_message.as_deref().unwrap_or("no reason given")
                ),
            )
            .with_remedy("fix the project so `cargo metadata` succeeds there (the server reloads on Cargo.toml changes); `lean-ctx daemon logs` has details")
        })
    }

    /// `INDEXING` with the server's progress.
    fn loading(&self, progress: Progress) -> LeanError {
        LeanError::new(
            ErrorCode::Indexing,
            format!(
                "{} is still loading {}: {}",
                self.name(),
                self.root.display(),
                progress.message
            ),
        )
        .with_remedy(
            "retry in a moment (the CLI waits by itself unless --no-wait; an MCP tool call waits up to LEAN_CTX_MCP_WAIT_MS)",
        )
        .with_details(ErrorDetails::Progress(progress))
    }

    fn failed_error(&self) -> LeanError {
        LeanError::new(
            ErrorCode::BackendRequired,
            format!(
                "the {} language server `{}` failed: {}",
                self.spec.language,
                self.spec.command.join(" "),
                self.failure().unwrap_or_else(|| "unknown reason".into())
            ),
        )
        .with_remedy(format!(
            "retry (the next call starts it again); if it keeps failing, check `lean-ctx doctor` and lsp.{} in config.toml",
            self.spec.language
        ))
    }

    /// A typed request, errors mapped to the catalog.
    pub async fn request<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
        timeout: Duration,
        load_wait_until: Instant,
    ) -> Result<R::Result, LeanError>
    where
        R::Params: Clone,
    {
        let mut retried = false;
        loop {
            let call = self.conn.request::<R>(params.clone(), timeout);
            match self.unless_loading(call, load_wait_until).await? {
                Ok(result) => return Ok(result),
                // "Content modified" / "server cancelled": the server was mid-update
                // (our own didChange, usually); one retry sees the new state.
                Err(RpcError::Server {
                    code: -32801 | -32802,
                    ..
                }) if !retried => {
                    retried = true;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => return Err(self.rpc_error(e)),
            }
        }
    }

    /// `call`'s answer, or `INDEXING` once the caller's wait (`wait_until`) is over
    /// while the server reports a load in progress (the call is dropped, which
    /// cancels it at the server; a retry after the load is answered at once).
    async fn unless_loading<T>(
        &self,
        call: impl Future<Output = T>,
        wait_until: Instant,
    ) -> Result<T, LeanError> {
        if self.spec.rust_analyzer {
            return Ok(call.await);
        }
        tokio::pin!(call);
        let mut changed = self.shared.changed.subscribe();
        let grace = tokio::time::sleep_until(wait_until.into());
        tokio::pin!(grace);
        let (mut past_grace, mut noted) = (false, false);
        loop {
            if let Some(progress) = self.loading_now() {
                if past_grace {
                    return Err(self.loading(progress));
                }
                if !noted {
                    noted = true;
                    tracing::info!(root = %self.root.display(), server = %self.name(), progress = %progress.message, "a request waits for the server's load");
                }
            }
            tokio::select! {
                answer = &mut call => return Ok(answer),
                () = &mut grace, if !past_grace => past_grace = true,
                seen = changed.changed() => {
                    if seen.is_err() {
                        return Ok(call.await);
                    }
                }
            }
        }
    }

    /// The server's progress while it reports work in progress.
    fn loading_now(&self) -> Option<Progress> {
        let live = self.shared.live.lock().unwrap();
        (!live.work.is_empty()).then(|| live.progress(self.started.elapsed()))
    }

    fn rpc_error(&self, e: RpcError) -> LeanError {
        match e {
            RpcError::Server {
                code: METHOD_NOT_FOUND,
                ref method,
                ..
            } => LeanError::new(
                ErrorCode::Unsupported,
                format!("{} does not implement {method}", self.name()),
            ),
            RpcError::Closed(_) => self.failed_error(),
            RpcError::Timeout { .. } => {
                // Still loading (tsserver loading a project it met with this file) is
                // INDEXING; a server busy with nothing it reports is an error.
                match self.loading_now() {
                    Some(progress) => self.loading(progress),
                    None => LeanError::internal(e.to_string()).with_remedy(
                        "retry; the language server may be busy (`lean-ctx daemon status` shows it)",
                    ),
                }
            }
            RpcError::Server { ref message, .. } if no_symbol_here(message) => LeanError::new(
                ErrorCode::NoSymbolAtPosition,
                format!("{}: {message}", self.name()),
            )
            .with_remedy("point at a symbol's name (line 1-based, column 0-based in characters)"),
            other => LeanError::internal(other.to_string()),
        }
    }

    /// The diagnostics the server published for `abs` after the text `synced` was
    /// sent, waiting at most `wait` for them; `None` if none came.
    pub async fn published_diagnostics(
        &self,
        abs: &Path,
        synced: &Synced,
        wait: Duration,
    ) -> Option<Vec<lsp_types::Diagnostic>> {
        let mut changed = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(p) = self.shared.diagnostics.lock().unwrap().get(abs)
                && p.seq > synced.seq
            {
                return Some(p.diagnostics.clone());
            }
            if tokio::time::timeout_at(deadline, changed.changed())
                .await
                .is_err()
            {
                return None;
            }
        }
    }

    /// Every diagnostic source seen in published diagnostics, with counts.
    pub fn diagnostic_sources(&self) -> Vec<(String, u32)> {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for p in self.shared.diagnostics.lock().unwrap().values() {
            for d in &p.diagnostics {
                let source = d.source.clone().unwrap_or_else(|| self.name());
                *counts.entry(source).or_default() += 1;
            }
        }
        let mut v: Vec<_> = counts.into_iter().collect();
        v.sort();
        v
    }

    /// `shutdown`, `exit`, a moment to comply, then the whole process group is killed.
    pub async fn shutdown(&self) {
        if !self.is_dead() {
            let _ = self
                .conn
                .request::<req::Shutdown>((), Duration::from_secs(2))
                .await;
            self.conn.notify::<note::Exit>(());
            let deadline = Instant::now() + Duration::from_secs(1);
            while !self.shared.exited.load(Ordering::SeqCst) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        self.kill();
    }

    /// SIGKILL to the process group (helpers included).
    pub fn kill(&self) {
        stop(self.pid, &self.shared, "stopped".into());
    }

    pub fn status(&self) -> LanguageServerStatus {
        // Scanning /proc happens before the lock: the connection's reader takes it
        // for every notification.
        let rss = self.rss_bytes();
        let live = self.shared.live.lock().unwrap();
        let phase = live.phase();
        LanguageServerStatus {
            root: self.root.clone(),
            language: self.spec.language.into(),
            server: self.name(),
            command: self.spec.command.clone(),
            pid: self.pid,
            rss_bytes: rss.filter(|_| phase != ServerState::Failed),
            state: phase,
            progress: matches!(phase, ServerState::Starting | ServerState::Indexing)
                .then(|| live.progress(self.started.elapsed())),
            message: live.failure.clone().or_else(|| live.status_message.clone()),
            position_encoding: self.encoding().as_str().into(),
            open_documents: self.open_documents.load(Ordering::Relaxed) as u32,
            started_at_unix_ms: unix_ms(self.started_at),
            last_used_unix_ms: self.last_used_ms(),
            calls_served: self.calls.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Evicted without a graceful shutdown (or the daemon is stopping): never leave
        // the server or its helpers behind.
        if !self.shared.exited.load(Ordering::SeqCst) {
            self.kill();
        }
    }
}

async fn initialize(server: Arc<Server>) {
    let uri = path_to_uri(&server.root);
    let name = server
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    #[allow(deprecated)] // root_uri: older servers read only this
    let params = InitializeParams {
        process_id: Some(std::process::id()),
        root_uri: Some(uri.clone()),
        workspace_folders: Some(vec![WorkspaceFolder { uri, name }]),
        capabilities: client_capabilities(),
        initialization_options: Some(server.shared.settings.clone()),
        client_info: Some(lsp_types::ClientInfo {
            name: "lean-ctx".into(),
            version: Some(lean_ctx_shared::protocol::VERSION.into()),
        }),
        ..InitializeParams::default()
    };
    let params = serde_json::to_value(params).expect("initialize params serialise");
    match server
        .conn
        .request_value(
            <req::Initialize as lsp_types::request::Request>::METHOD,
            params,
            INITIALIZE_TIMEOUT,
        )
        .await
    {
        Ok(mut result) => {
            let caps = result["capabilities"].take();
            let reported = result["serverInfo"]["name"].as_str().map(str::to_string);
            let encoding = Encoding::negotiated(
                caps["positionEncoding"]
                    .as_str()
                    .map(|e| lsp_types::PositionEncodingKind::from(e.to_string()))
                    .as_ref(),
                reported.as_deref(),
            );
            let _ = server.init.set(Initialized {
                caps,
                encoding,
                name: reported.unwrap_or_else(|| server.name()),
            });
            server
                .conn
                .notify::<note::Initialized>(lsp_types::InitializedParams {});
            tracing::info!(root = %server.root.display(), server = %server.name(), encoding = encoding.as_str(), "language server initialised");
            server.shared.update(|live| live.initialized = true);
        }
        Err(e) => {
            tracing::warn!(root = %server.root.display(), command = ?server.spec.command, error = %e, "language server failed to initialise");
            server.shared.fail(format!("initialize: {e}"));
        }
    }
}

/// A server's error saying the position holds no symbol. The last resort: positions
/// on no name are answered before a server is asked, from the file's own parse
/// (`backing::lsp`'s `require_word`); what the tree cannot tell (a string's text)
/// reaches the server. LSP has no error code for it, so the wording: gopls v0.23.0
/// answers `references`/`definition` on a keyword, a literal, a comment or a blank
/// with "no identifier found", the only such wording seen (pylsp answers those
/// positions without an error; `client/tests/lsp.rs` asks both).
fn no_symbol_here(message: &str) -> bool {
    message.to_ascii_lowercase().contains("no identifier found")
}

/// What we tell servers we can do: UTF-8 positions preferred, dynamic file-watch
/// registration (we send `didChangeWatchedFiles`), work-done progress and
/// rust-analyzer's server status (readiness), versioned diagnostics, pull diagnostics.
fn client_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({
        "general": { "positionEncodings": ["utf-8", "utf-16"] },
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": true },
            "workspaceEdit": { "documentChanges": true }
        },
        "textDocument": {
            "synchronization": { "dynamicRegistration": false },
            "definition": { "linkSupport": true },
            "declaration": { "linkSupport": true },
            "implementation": { "linkSupport": true },
            "references": {},
            "rename": { "prepareSupport": true },
            "formatting": {},
            "typeHierarchy": {},
            "callHierarchy": {},
            "publishDiagnostics": { "versionSupport": true, "relatedInformation": false },
            "diagnostic": {}
        },
        "window": { "workDoneProgress": true },
        "experimental": { "serverStatusNotification": true }
    }))
    .expect("client capabilities deserialise")
}

async fn read_stderr(stderr: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(target: "lsp_stderr", "{line}");
        let mut tail = shared.stderr.lock().unwrap();
        if tail.len() == STDERR_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_saying_the_position_holds_no_identifier_is_no_symbol_at_position() {
        assert!(no_symbol_here("no identifier found"));
        assert!(!no_symbol_here("context canceled"));
    }
}
