//! What a language server tells us unasked, and when it counts as ready.
//!
//! Readiness is "the first load finished" ([`Readiness`]), never "no progress
//! running right now": a server starts its load only after `initialized` (gopls) or
//! after the first file opens (tsserver), so an idle moment before it proves nothing.
//! rust-analyzer reports `quiescent` before its first load even starts
//! (rust-analyzer#23331): it is ready once it is quiescent after at least one
//! work-done progress has ended (or it reports an unhealthy state, which no amount of
//! waiting fixes). gopls is ready once its initial workspace load ("Setting up
//! workspace", "Loading packages…") has ended. typescript-language-server loads a
//! project when its first file opens, so readiness cannot see it coming; it runs
//! tsserver's semantic server alone (`pool.rs`), which answers only after loading
//! the file's project. clangd reads the compilation database when its first file
//! opens and then indexes every file of it in the background (the index other files'
//! references come from): a call opens its file before it waits, and clangd is ready
//! once that first progress has ended, or none began within `LOAD_GRACE` (no
//! database: nothing to index); a session's prewarm opens one file so the index is
//! built before the first call. bash-language-server analyses a file after it opens
//! (its first answer about a file it has just been given is empty): the same rule.
//! Any other server is ready once initialised with no work-done progress running. A request that outlives its deadline while the server
//! reports work in progress is `INDEXING` with that progress, not an error; and one
//! whose caller's wait (`wait_ms`) is over while the server reports a load in
//! progress (tsserver's "Initializing JS/TS language features" while it loads the
//! project a file just opened into, which holds every request until it ends) answers
//! `INDEXING` then, not after the whole deadline, and is cancelled at the server. The
//! same wait bounds readiness and loads, so an MCP client that allows 20 s gets a
//! complete answer from a project that loads in 10, and `--no-wait` gets `INDEXING`
//! as soon as a load shows. rust-analyzer is exempt: its loads are seen by
//! readiness, and its later progress (`cargo check`) is not a load.
//!
//!
//! What the server tells us unasked, kept here for the requests to read: progress
//! and rust-analyzer's server status (readiness), diagnostics as published,
//! file-watch registrations and the settings it asks for.

use std::{
    collections::{HashMap, VecDeque},
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use lean_ctx_shared::{Progress, protocol::ServerState};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::ServerSpec;
use crate::language_servers::{
    positions::{path_to_uri, uri_to_path},
    rpc::{Handler, METHOD_NOT_FOUND},
};

/// What the server told us, shared with the connection's reader.
pub(super) struct Shared {
    pub(super) root: PathBuf,
    pub(super) settings: Value,
    pub(super) live: Mutex<Live>,
    /// Bumped on every change of `live` or `diagnostics`.
    pub(super) changed: watch::Sender<u64>,
    pub(super) diagnostics: Mutex<HashMap<PathBuf, Published>>,
    /// Registration id → the globs of `workspace/didChangeWatchedFiles`.
    pub(super) watchers: Mutex<HashMap<String, globset::GlobSet>>,
    pub(super) stderr: Mutex<VecDeque<String>>,
    pub(super) seq: AtomicU64,
    pub(super) exited: AtomicBool,
}

#[derive(Debug)]
pub(super) struct Published {
    pub(super) diagnostics: Vec<lsp_types::Diagnostic>,
    pub(super) seq: u64,
}

#[derive(Debug, Default)]
pub(super) struct Live {
    pub(super) initialized: bool,
    pub(super) failure: Option<String>,
    pub(super) failed_at: Option<Instant>,
    /// Running work-done progress by token.
    pub(super) work: HashMap<String, Work>,
    pub(super) saw_work_end: bool,
    pub(super) quiescent: Option<bool>,
    pub(super) health: Option<String>,
    pub(super) status_message: Option<String>,
    pub(super) readiness: Readiness,
    /// When the first file was opened ([`Readiness::AfterOpen`]).
    pub(super) first_open: Option<Instant>,
}

/// When a server has loaded its project (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Readiness {
    /// Quiescent after a work-done progress ended, or unhealthy.
    RustAnalyzer,
    /// Its first work-done progress (the initial workspace load) has ended.
    FirstLoad,
    /// Its load starts when the first file opens (clangd reads the compilation
    /// database then, and indexes in the background): once a file is open, the
    /// first work-done progress has ended, or none began within [`LOAD_GRACE`] (no
    /// database: nothing to index).
    AfterOpen,
    /// Initialised, with no work-done progress running.
    #[default]
    Idle,
}

/// How long after its first file opens an [`Readiness::AfterOpen`] server may take
/// to start its load before it counts as having none.
pub(super) const LOAD_GRACE: Duration = Duration::from_secs(2);

impl Readiness {
    pub(super) fn of(spec: &ServerSpec) -> Readiness {
        let program = spec.program_name();
        if spec.rust_analyzer {
            Readiness::RustAnalyzer
        } else if program.starts_with("gopls") {
            Readiness::FirstLoad
        } else if program.starts_with("clangd") || program.starts_with("bash-language-server") {
            Readiness::AfterOpen
        } else {
            Readiness::Idle
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Work {
    pub(super) title: String,
    pub(super) message: Option<String>,
    pub(super) percent: Option<u32>,
}

impl Live {
    /// When the phase may change with no news from the server: the end of an
    /// [`Readiness::AfterOpen`] server's grace, while it lasts.
    pub(super) fn grace_ends(&self) -> Option<Instant> {
        let at = self.first_open? + LOAD_GRACE;
        (self.readiness == Readiness::AfterOpen && !self.saw_work_end && at > Instant::now())
            .then_some(at)
    }

    pub(super) fn phase(&self) -> ServerState {
        if self.failure.is_some() {
            return ServerState::Failed;
        }
        if !self.initialized {
            return ServerState::Starting;
        }
        let loaded = match self.readiness {
            Readiness::RustAnalyzer => {
                self.quiescent == Some(true)
                    && (self.saw_work_end || self.health.as_deref().is_some_and(|h| h != "ok"))
            }
            Readiness::FirstLoad => self.saw_work_end && self.work.is_empty(),
            Readiness::AfterOpen => {
                self.work.is_empty()
                    && (self.saw_work_end
                        || self.first_open.is_some_and(|at| at.elapsed() >= LOAD_GRACE))
            }
            Readiness::Idle => self.work.is_empty(),
        };
        if loaded {
            ServerState::Ready
        } else {
            ServerState::Indexing
        }
    }

    pub(super) fn progress(&self, elapsed: Duration) -> Progress {
        let work = self.work.values().max_by_key(|w| w.percent.unwrap_or(0));
        let message = match (work, self.initialized) {
            (Some(w), _) => match &w.message {
                Some(m) => format!("{} {m}", w.title),
                None => w.title.clone(),
            },
            (None, false) => "starting".into(),
            (None, true) => self
                .status_message
                .clone()
                .unwrap_or_else(|| "loading the workspace".into()),
        };
        let percent = work.and_then(|w| w.percent).unwrap_or(0).min(100);
        Progress {
            done: percent.into(),
            total: 100,
            percent: percent as u8,
            message: format!("{message} ({}s)", elapsed.as_secs()),
        }
    }
}

impl Shared {
    pub(super) fn new(root: PathBuf, settings: Value, readiness: Readiness) -> Shared {
        Shared {
            root,
            settings,
            live: Mutex::new(Live {
                readiness,
                ..Live::default()
            }),
            changed: watch::Sender::new(0),
            diagnostics: Mutex::new(HashMap::new()),
            watchers: Mutex::new(HashMap::new()),
            stderr: Mutex::new(VecDeque::new()),
            seq: AtomicU64::new(0),
            exited: AtomicBool::new(false),
        }
    }

    pub(super) fn update(&self, f: impl FnOnce(&mut Live)) {
        f(&mut self.live.lock().unwrap());
        self.changed.send_modify(|n| *n += 1);
    }

    /// The first failure wins: it is the reason.
    pub(super) fn fail(&self, why: String) {
        let tail: Vec<String> = self.stderr.lock().unwrap().iter().cloned().collect();
        self.update(|live| {
            if live.failure.is_none() {
                let tail = tail.iter().rev().take(3).rev().cloned().collect::<Vec<_>>();
                live.failure = Some(if tail.is_empty() {
                    why
                } else {
                    format!("{why}; stderr: {}", tail.join(" | "))
                });
                live.failed_at = Some(Instant::now());
            }
        });
    }

    pub(super) fn watches(&self, path: &Path) -> bool {
        self.watchers
            .lock()
            .unwrap()
            .values()
            .any(|set| set.is_match(path))
    }

    pub(super) fn configuration(&self, params: &Value) -> Value {
        let rust_analyzer = self.live.lock().unwrap().readiness == Readiness::RustAnalyzer;
        let items = params["items"].as_array().cloned().unwrap_or_default();
        Value::Array(
            items
                .iter()
                .map(|item| match item["section"].as_str() {
                    // rust-analyzer asks for its own section; our settings are it.
                    Some("rust-analyzer") if rust_analyzer => self.settings.clone(),
                    Some(section) => section
                        .split('.')
                        .try_fold(&self.settings, |v, key| v.get(key))
                        .cloned()
                        .unwrap_or(Value::Null),
                    None => self.settings.clone(),
                })
                .collect(),
        )
    }

    pub(super) fn register(&self, params: &Value) {
        for reg in params["registrations"].as_array().into_iter().flatten() {
            if reg["method"] != "workspace/didChangeWatchedFiles" {
                continue;
            }
            let mut set = globset::GlobSetBuilder::new();
            for watcher in reg["registerOptions"]["watchers"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let pattern = match &watcher["globPattern"] {
                    Value::String(p) => Some(p.clone()),
                    Value::Object(rel) => {
                        let base = rel["baseUri"]
                            .as_str()
                            .or_else(|| rel["baseUri"]["uri"].as_str())
                            .and_then(|u| u.parse().ok())
                            .and_then(|u| uri_to_path(&u));
                        rel["pattern"].as_str().map(|p| match base {
                            Some(base) => format!("{}/{p}", base.display()),
                            None => p.to_string(),
                        })
                    }
                    _ => None,
                };
                // `**/x` must also match at the root itself, and relative patterns are
                // relative to the workspace.
                if let Some(p) = pattern {
                    let p = if p.starts_with('/') || p.starts_with("**") {
                        p
                    } else {
                        format!("{}/{p}", self.root.display())
                    };
                    match globset::Glob::new(&p) {
                        Ok(g) => {
                            set.add(g);
                        }
                        Err(e) => tracing::debug!(pattern = %p, error = %e, "unusable watch glob"),
                    }
                }
            }
            if let (Some(id), Ok(set)) = (reg["id"].as_str(), set.build()) {
                self.watchers.lock().unwrap().insert(id.to_string(), set);
            }
        }
    }

    pub(super) fn progress(&self, params: &Value) {
        let token = match &params["token"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let value = &params["value"];
        let percent = value["percentage"].as_u64().map(|p| p as u32);
        let message = value["message"].as_str().map(str::to_string);
        self.update(|live| match value["kind"].as_str() {
            Some("begin") => {
                live.work.insert(
                    token,
                    Work {
                        title: value["title"].as_str().unwrap_or("working").to_string(),
                        message,
                        percent,
                    },
                );
            }
            Some("report") => {
                if let Some(w) = live.work.get_mut(&token) {
                    w.message = message.or(w.message.take());
                    w.percent = percent.or(w.percent);
                }
            }
            Some("end") => {
                live.work.remove(&token);
                live.saw_work_end = true;
            }
            _ => {}
        });
    }
}

impl Handler for Shared {
    fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)> {
        match method {
            "workspace/configuration" => Ok(self.configuration(&params)),
            "client/registerCapability" => {
                self.register(&params);
                Ok(Value::Null)
            }
            "client/unregisterCapability" => {
                for u in params["unregisterations"].as_array().into_iter().flatten() {
                    if let Some(id) = u["id"].as_str() {
                        self.watchers.lock().unwrap().remove(id);
                    }
                }
                Ok(Value::Null)
            }
            "window/workDoneProgress/create" | "window/showMessageRequest" => Ok(Value::Null),
            "workspace/workspaceFolders" => Ok(json!([{
                "uri": path_to_uri(&self.root).as_str(),
                "name": self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            }])),
            // Edits reach files only through our guarded writers.
            "workspace/applyEdit" => {
                Ok(json!({ "applied": false, "failureReason": "lean-ctx applies edits itself" }))
            }
            "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh"
            | "workspace/diagnostic/refresh"
            | "workspace/inlineValue/refresh" => Ok(Value::Null),
            other => Err((
                METHOD_NOT_FOUND,
                format!("lean-ctx does not handle {other}"),
            )),
        }
    }

    fn notification(&self, method: &str, params: Value) {
        match method {
            "$/progress" => self.progress(&params),
            "experimental/serverStatus" => self.update(|live| {
                live.quiescent = params["quiescent"].as_bool();
                live.health = params["health"].as_str().map(str::to_string);
                live.status_message = params["message"].as_str().map(str::to_string);
            }),
            "textDocument/publishDiagnostics" => {
                let Some(path) = params["uri"]
                    .as_str()
                    .and_then(|u| u.parse().ok())
                    .and_then(|u| uri_to_path(&u))
                else {
                    return;
                };
                let diagnostics =
                    serde_json::from_value(params["diagnostics"].clone()).unwrap_or_default();
                let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
                self.diagnostics
                    .lock()
                    .unwrap()
                    .insert(path, Published { diagnostics, seq });
                self.changed.send_modify(|n| *n += 1);
            }
            "window/logMessage" | "window/showMessage" => {
                tracing::debug!(target: "lsp_log", root = %self.root.display(), "{}", params["message"].as_str().unwrap_or(""));
            }
            _ => {}
        }
    }

    fn closed(&self, reason: &str) {
        self.fail(format!("connection closed ({reason})"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(program: &str) -> Shared {
        let spec = ServerSpec {
            language: "go",
            language_id: "go",
            command: vec![program.into()],
            rust_analyzer: false,
            settings: "{}".into(),
        };
        Shared::new(PathBuf::from("/p"), Value::Null, Readiness::of(&spec))
    }

    fn progress(s: &Shared, kind: &str) {
        let value = json!({"kind": kind, "title": "Setting up workspace", "message": "Loading packages..."});
        s.notification("$/progress", json!({"token": "t", "value": value}));
    }

    fn phase(s: &Shared) -> ServerState {
        s.live.lock().unwrap().phase()
    }

    /// Issue 16: gopls starts its initial workspace load only after `initialized`, so
    /// the moment between the two, with no progress running, is not "loaded".
    #[test]
    fn gopls_is_ready_only_after_its_initial_workspace_load_ended() {
        let s = shared("/opt/go/bin/gopls");
        s.update(|live| live.initialized = true);
        assert_eq!(phase(&s), ServerState::Indexing);
        progress(&s, "begin");
        assert_eq!(phase(&s), ServerState::Indexing);
        assert!(
            s.live
                .lock()
                .unwrap()
                .progress(Duration::ZERO)
                .message
                .starts_with("Setting up workspace Loading packages")
        );
        progress(&s, "end");
        assert_eq!(phase(&s), ServerState::Ready);
        // Any other server: initialised and idle is ready.
        let other = shared("pylsp");
        other.update(|live| live.initialized = true);
        assert_eq!(phase(&other), ServerState::Ready);
    }
}
