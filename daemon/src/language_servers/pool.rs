//! The warm language servers: one per (worktree root, language, server command),
//! shared by every session, started lazily and shut down when idle, over the instance
//! cap or over the memory budget (least recently used first).
//!
//! Never a global lock across a slow step (ARCHITECTURE.md, `daemon/`): the map's entry
//! lock covers only finding a slot; a slot's own lock covers only `fork`+`exec` (the
//! handshake runs in the background), so one root's cold start never blocks another
//! root's calls.
//!
//! Each server starts with the settings that make its answers whole without running
//! a project's code: rust-analyzer with its experimental diagnostics on and never
//! `cargo check` (which would run build scripts); pylsp with pyflakes as its lowest
//! settings layer. A server that crashed is started again by the next call; the memory
//! budget is checked again whenever a server starts, and every server hears of the
//! files lean-ctx wrote.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use dashmap::DashMap;
use lean_ctx_shared::{
    ErrorCode, LeanError,
    protocol::{LanguageServerStatus, LanguageUse, ServerState},
    servers,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use lean_ctx_syntax::Lang;

use super::server::{Server, ServerSpec, program_name};
use crate::{
    config::{LspSection, ServerSetting},
    index::root::RootIndex,
    sys::unix_ms,
    trust::Trust,
};

/// A server that failed before finishing `initialize` is not restarted for this long:
/// a missing binary or a broken command line must not turn every call into a spawn.
/// (A server that crashes later is restarted by the next call.)
const START_FAILURE_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    root: PathBuf,
    spec: ServerSpec,
}

#[derive(Debug, Default)]
struct Slot {
    server: Mutex<Option<Arc<Server>>>,
}

/// Which server a language gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Server(ServerSpec),
    /// `lsp.<lang> = "jetbrains"`: the IDE or nothing.
    JetBrainsOnly,
    /// No server is known for the language.
    None,
    /// The configured server cannot be started safely (the error says why).
    Refused(LeanError),
}

/// How long a prewarm waits for the root's first index before giving up (the
/// first call then starts the servers it needs).
const PREWARM_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug)]
pub struct Pool {
    config: LspSection,
    /// Which roots servers may start in.
    trust: Trust,
    slots: DashMap<Key, Arc<Slot>>,
    /// Wakes the lifecycle task when a server starts, so the instance cap and the
    /// memory budget hold at once, not at the next tick.
    started: tokio::sync::Notify,
    /// `tsserver.js` found per typescript-language-server program: `choice` runs on
    /// every call, and the lookup walks `PATH` and the install's directories.
    tsservers: Mutex<std::collections::HashMap<String, PathBuf>>,
    /// Set once a daemon of a newer build is recorded (`upgrade.rs`): the roots this
    /// daemon was working in then, and the build that superseded it.
    superseded: std::sync::OnceLock<Superseded>,
}

#[derive(Debug)]
struct Superseded {
    roots: std::collections::HashSet<PathBuf>,
    by: String,
}

impl Pool {
    pub fn new(config: LspSection, trust: Trust) -> Pool {
        Pool {
            config,
            trust,
            slots: DashMap::new(),
            started: tokio::sync::Notify::new(),
            tsservers: Mutex::default(),
            superseded: std::sync::OnceLock::new(),
        }
    }

    /// From now on a server starts only in `roots` (the roots this daemon's sessions
    /// were working in when the daemon of build `by` was recorded); a call for any
    /// other root gets `BACKEND_REQUIRED` naming the new build. Servers already running
    /// keep serving, and crashed ones in `roots` restart as before. So during an
    /// upgrade only the two daemons' current roots can have a server each, never a
    /// root the old daemon's sessions reach for later.
    pub fn supersede(&self, roots: std::collections::HashSet<PathBuf>, by: String) {
        let _ = self.superseded.set(Superseded { roots, by });
    }

    pub fn config(&self) -> &LspSection {
        &self.config
    }

    /// The configured (or default) server of `lang`.
    pub fn choice(&self, lang: Lang) -> Choice {
        let c = &self.config;
        // TSX is TypeScript's; JavaScript and C take TypeScript's and C++'s setting
        // when they have none of their own.
        let key = match lang {
            Lang::Text => return Choice::None,
            Lang::Tsx => "typescript",
            other => other.name(),
        };
        let fallback = match lang {
            Lang::JavaScript => "typescript",
            Lang::C => "cpp",
            _ => key,
        };
        let setting = c.server(key).or_else(|| c.server(fallback));
        // No setting: the first known server on the PATH servers run with.
        let default = || {
            let path = lean_ctx_shared::tool_env::neutral_path();
            servers::detect(key, path.as_deref()).map(|known| known.command)
        };
        let command: Vec<String> = match setting {
            Some(ServerSetting::Line(line)) if line.trim() == "jetbrains" => {
                return Choice::JetBrainsOnly;
            }
            Some(ServerSetting::Line(line)) => line.split_whitespace().map(String::from).collect(),
            Some(ServerSetting::Argv(argv)) => argv.clone(),
            None => match default() {
                Some(d) => d.split_whitespace().map(String::from).collect(),
                None => return Choice::None,
            },
        };
        if command.is_empty() {
            return Choice::None;
        }
        let program_name = program_name(&command[0]);
        let rust_analyzer = program_name.starts_with("rust-analyzer");
        let settings = if rust_analyzer {
            self.rust_analyzer_settings()
        } else if program_name.starts_with("typescript-language-server") {
            match self.tsserver(&command[0]) {
                // tsserver's semantic server alone: with the default "auto", requests
                // made while the project loads go to the partial-semantic syntax
                // server, which knows only the open files (`references` answered 1
                // of 7 on a cold server; issue 16). The semantic server queues them
                // behind the project load, so its answer is complete.
                Ok(tsserver) => {
                    json!({ "tsserver": { "path": tsserver, "useSyntaxServer": "never" } })
                }
                Err(e) => return Choice::Refused(e),
            }
        } else if program_name.starts_with("pylsp") {
            // A checker by default (issue 16: diagnostics must find undefined names):
            // pyflakes, as the lowest layer of pylsp's settings, so a user's or a
            // project's pylsp configuration still wins. It needs the `pyflakes`
            // extra (`python-lsp-server[pyflakes]`).
            json!({ "pylsp": { "plugins": { "pyflakes": { "enabled": true } } } })
        } else {
            json!({})
        };
        // One instance per root for TSX and TypeScript, and for C and C++ (clangd
        // serves both) unless C has a server of its own: the same spec, so the same
        // pool key (each document still opens with its own file's `languageId`).
        let shared = match lang {
            Lang::C if c.c.is_some() => Lang::C,
            other => other.shares_server_with(),
        };
        Choice::Server(ServerSpec {
            language: shared.name(),
            language_id: shared.lsp_language_id(),
            command,
            rust_analyzer,
            settings: settings.to_string(),
        })
    }

    /// The server `lang` gets and whether it is on the PATH servers run with
    /// (`lean-ctx servers`): chosen as a call would choose it, nothing started.
    pub fn uses(&self, lang: Lang) -> LanguageUse {
        let language = lang.name().to_string();
        match self.choice(lang) {
            Choice::Server(spec) => {
                let path = lean_ctx_shared::tool_env::neutral_path();
                let found = servers::on_path(spec.program(), path.as_deref()).is_some();
                let get = (!found)
                    .then(|| {
                        servers::known_for(spec.language)
                            .iter()
                            .find(|k| servers::program(k.command) == spec.program())
                            .map(|k| k.get.to_string())
                    })
                    .flatten();
                LanguageUse {
                    language,
                    server: spec.command.join(" "),
                    found,
                    get,
                }
            }
            Choice::JetBrainsOnly => LanguageUse {
                language,
                server: "jetbrains".into(),
                found: true,
                get: None,
            },
            Choice::None => LanguageUse {
                language,
                server: String::new(),
                found: false,
                get: None,
            },
            Choice::Refused(e) => LanguageUse {
                language,
                server: String::new(),
                found: false,
                get: Some(e.message),
            },
        }
    }

    /// rust-analyzer's settings: its own target dir (never block the agent's cargo),
    /// no check on save (we ask for its native diagnostics, experimental ones
    /// included, instead: `cargo check` would run build scripts), build scripts and proc macros only
    /// when configured, since they execute the project's code.
    fn rust_analyzer_settings(&self) -> serde_json::Value {
        let ra = &self.config.rust_analyzer;
        json!({
            "cargo": {
                "targetDir": true,
                "buildScripts": { "enable": ra.build_scripts },
            },
            "procMacro": { "enable": ra.proc_macros },
            "checkOnSave": false,
            "check": { "workspace": false },
            // Its own analysis finds unresolved names only among the experimental
            // diagnostics (issue 16: two undefined names answered "no diagnostics");
            // no cargo check runs, so nothing of the project is built or executed.
            "diagnostics": { "enable": true, "experimental": { "enable": true } },
            "cachePriming": { "enable": true },
            "files": { "watcher": "client" },
        })
    }

    /// The `tsserver.js` typescript-language-server is told to run: `lsp.tsserver`,
    /// else the TypeScript installed beside the server itself (its own
    /// `node_modules`). Never the project's: left to itself the server prefers
    /// `<project>/node_modules/typescript`, which a repository can commit.
    fn tsserver(&self, program: &str) -> Result<PathBuf, LeanError> {
        if let Some(path) = &self.config.tsserver {
            return Ok(PathBuf::from(path));
        }
        if let Some(found) = self.tsservers.lock().unwrap().get(program) {
            return Ok(found.clone());
        }
        let path = lean_ctx_shared::tool_env::clean_path(
            std::env::var_os("PATH").as_deref(),
            std::env::var_os("HOME").as_deref().map(Path::new),
        );
        let found = if program.contains('/') {
            Some(PathBuf::from(program))
        } else {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        };
        found
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|real| {
                real.ancestors()
                    .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                    .map(|nm| nm.join("typescript/lib/tsserver.js"))
                    .find(|t| t.is_file())
            })
            // Only a find is kept: a TypeScript installed later is found then.
            .inspect(|found| {
                self.tsservers
                    .lock()
                    .unwrap()
                    .insert(program.to_string(), found.clone());
            })
            .ok_or_else(|| {
                LeanError::new(
                    ErrorCode::BackendRequired,
                    format!(
                        "no TypeScript found beside `{program}`, and lean-ctx never lets it run the project's own node_modules/typescript"
                    ),
                )
                .with_remedy(
                    "install typescript next to typescript-language-server (npm install -g typescript), or set lsp.tsserver in config.toml to a tsserver.js you trust",
                )
            })
    }

    /// The server of `lang` already running for `root` and ready, if there is one:
    /// none is started here (an edit's check asks only a server that is up).
    pub fn warm(&self, root: &Path, lang: Lang) -> Option<Arc<Server>> {
        let Choice::Server(spec) = self.choice(lang) else {
            return None;
        };
        if !self.trusts(root) {
            return None;
        }
        let key = Key {
            root: root.to_path_buf(),
            spec,
        };
        let slot = self.slots.get(&key)?.clone();
        let server = slot.server.lock().unwrap().clone()?;
        (server.state() == ServerState::Ready).then_some(server)
    }

    /// Starts, in the background, the server of each language `index`'s root holds
    /// files of (once the index is ready), so the first navigation of a session that
    /// just started waits for no cold server: only in a trusted root, and a server
    /// warm already is only touched. A session's start (`open_project`) calls this.
    pub fn prewarm(self: &Arc<Self>, index: Arc<RootIndex>) {
        if !self.trusts(index.root()) {
            return;
        }
        let pool = self.clone();
        tokio::spawn(async move {
            if index.wait_ready(PREWARM_WAIT).await.is_err() {
                return;
            }
            for lang in index.code_languages() {
                let Choice::Server(spec) = pool.choice(lang) else {
                    continue;
                };
                match pool.server(index.root(), spec, &index) {
                    // A server whose load starts with its first file (clangd) is given
                    // one of the language's, so it indexes before the first call.
                    Ok(server) if server.loads_on_open() => {
                        let first = index
                            .identified_under("")
                            .into_iter()
                            .map(|(rel, ..)| rel)
                            .find(|rel| Lang::from_path(Path::new(rel)) == Some(lang));
                        let read = first.and_then(|rel| {
                            let bytes = crate::jail::read_beneath(index.root(), &rel).ok()?;
                            Some((index.root().join(rel), bytes))
                        });
                        if let Some((abs, bytes)) = read
                            && server.wait_started(PREWARM_WAIT).await.is_ok()
                        {
                            server.sync(&abs, &bytes).await;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::debug!(root = %index.root().display(), lang = lang.name(), "not prewarmed: {}", e.message);
                    }
                }
            }
        });
    }

    /// The warm server for (root, spec), started if there is none or it died. Its
    /// documents follow `index`'s file events. Only in a trusted root (`trust.rs`):
    /// checked on every call, so a root whose trust was withdrawn gets no answer from
    /// a server started before.
    pub fn server(
        &self,
        root: &Path,
        spec: ServerSpec,
        index: &Arc<RootIndex>,
    ) -> Result<Arc<Server>, LeanError> {
        self.trust.require(
            root,
            &format!(
                "the {} language server ({})",
                spec.language,
                spec.program_name()
            ),
        )?;
        let key = Key {
            root: root.to_path_buf(),
            spec: spec.clone(),
        };
        let slot = self.slots.entry(key).or_default().clone();
        let mut current = slot.server.lock().unwrap();
        if let Some(server) = current.as_ref() {
            if !server.is_dead() {
                server.touch();
                return Ok(server.clone());
            }
            if server
                .failed_starting()
                .is_some_and(|at| at.elapsed() < START_FAILURE_BACKOFF)
            {
                return Err(LeanError::new(
                    ErrorCode::BackendRequired,
                    format!(
                        "the {} language server `{}` failed to start: {}",
                        spec.language,
                        spec.command.join(" "),
                        server.failure().unwrap_or_default()
                    ),
                )
                .with_remedy(format!(
                    "install it or fix lsp.{} in config.toml; lean-ctx retries {}s after the failure",
                    spec.language,
                    START_FAILURE_BACKOFF.as_secs()
                )));
            }
            tracing::info!(root = %root.display(), failure = ?server.failure(), "restarting a failed language server");
        }
        if let Some(sup) = self.superseded.get()
            && !sup.roots.contains(root)
        {
            return Err(LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "this lean-ctxd (build {}) is being replaced by build {} and starts no language server for {}, a root it was not working in",
                    lean_ctx_shared::protocol::build_id(),
                    sup.by,
                    root.display()
                ),
            )
            .with_remedy(
                "restart this agent session so it runs the lean-ctx installed now; its daemon serves this root",
            ));
        }
        // Checked when the toolchain is about to read it: here, and before a live
        // server is told of a change (`Server::files_changed`, `Server::sync`).
        super::ancestry::check(
            root,
            spec.rust_analyzer,
            spec.language,
            &spec.program_name(),
        )?;
        let server = Server::spawn(spec, root)?;
        server.touch();
        tokio::spawn(follow_files(
            index.subscribe_changes(),
            Arc::downgrade(&server),
        ));
        *current = Some(server.clone());
        self.started.notify_one();
        Ok(server)
    }

    /// The live servers of `root`.
    /// Whether the user trusted `root` (a canonical worktree root).
    pub fn trusts(&self, root: &Path) -> bool {
        self.trust.is_trusted(root)
    }

    pub fn servers_of(&self, root: &Path) -> Vec<Arc<Server>> {
        self.all().into_iter().filter(|s| s.root == root).collect()
    }

    fn all(&self) -> Vec<Arc<Server>> {
        self.slots
            .iter()
            .filter_map(|slot| slot.server.lock().unwrap().clone())
            .collect()
    }

    pub fn status(&self) -> Vec<LanguageServerStatus> {
        let mut v: Vec<_> = self.all().iter().map(|s| s.status()).collect();
        v.sort_by(|a, b| (&a.root, &a.language).cmp(&(&b.root, &b.language)));
        v
    }

    /// Shuts down the servers matching the filters; returns them (stopped).
    pub async fn evict(&self, root: Option<&Path>, language: Option<&str>) -> Vec<Arc<Server>> {
        let mut taken = Vec::new();
        for slot in self.slots.iter() {
            let mut current = slot.server.lock().unwrap();
            let matches = current.as_ref().is_some_and(|s| {
                root.is_none_or(|r| s.root == r) && language.is_none_or(|l| s.spec.language == l)
            });
            if matches {
                taken.extend(current.take());
            }
        }
        futures::future::join_all(taken.iter().map(|s| s.shutdown())).await;
        taken
    }

    /// Starts again the servers `evict` took (the same root and spec each).
    pub fn restart(
        &self,
        evicted: &[Arc<Server>],
        index_of: impl Fn(&Path) -> Option<Arc<RootIndex>>,
    ) -> Vec<Arc<Server>> {
        evicted
            .iter()
            .filter_map(|old| {
                let index = index_of(&old.root)?;
                self.server(&old.root, old.spec.clone(), &index).ok()
            })
            .collect()
    }

    /// One pass of the lifecycle rules: idle past the TTL, then the least recently
    /// used beyond the instance cap or the memory budget. Failed servers are
    /// forgotten once idle too.
    pub async fn reap(&self) {
        let now = unix_ms(SystemTime::now());
        let ttl = self.config.idle_ttl.as_millis() as u64;
        let mut servers = self.all();
        servers.sort_by_key(|s| std::cmp::Reverse(s.last_used_ms()));
        let mut keep_rss = 0u64;
        let budget = self.config.rss_budget_mb.saturating_mul(1 << 20);
        let mut victims = Vec::new();
        let mut kept = 0;
        for s in servers {
            let idle = now.saturating_sub(s.last_used_ms()) >= ttl;
            let rss = s.rss_bytes().unwrap_or(0);
            let over = kept >= self.config.max_servers || keep_rss + rss > budget && kept > 0;
            if idle || over {
                victims.push(s);
            } else {
                kept += 1;
                keep_rss += rss;
            }
        }
        for victim in victims {
            tracing::info!(root = %victim.root.display(), language = victim.spec.language, "evicting a language server");
            for slot in self.slots.iter() {
                let mut current = slot.server.lock().unwrap();
                if current.as_ref().is_some_and(|s| Arc::ptr_eq(s, &victim)) {
                    current.take();
                }
            }
            victim.shutdown().await;
        }
        self.slots
            .retain(|_, slot| slot.server.lock().unwrap().is_some());
    }

    /// Runs [`Pool::reap`] until `stop` fires. (The daemon shuts the servers down
    /// itself once in-flight calls have drained.)
    pub async fn run_lifecycle(self: Arc<Self>, stop: CancellationToken) {
        let every =
            (self.config.idle_ttl / 4).clamp(Duration::from_millis(200), Duration::from_secs(30));
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.started.notified() => self.reap().await,
                () = tokio::time::sleep(every) => self.reap().await,
            }
        }
    }

    /// Our own writes: every server of `root` hears of them before the call answers,
    /// its own language's files as open documents, so the next answer never reads
    /// the old text.
    pub async fn wrote(&self, root: &Path, paths: &[PathBuf]) {
        for server in self.servers_of(root) {
            server.files_changed(paths, true).await;
        }
    }
}

/// Feeds a server the root's file events until either goes away.
async fn follow_files(
    mut events: tokio::sync::broadcast::Receiver<Arc<[PathBuf]>>,
    server: std::sync::Weak<Server>,
) {
    loop {
        let paths = match events.recv().await {
            Ok(paths) => paths,
            // Missed some: nothing to replay; documents re-sync on their next use.
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        let Some(server) = server.upgrade() else {
            return;
        };
        if server.is_dead() {
            return;
        }
        server.files_changed(&paths, false).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{root::IndexConfig, store::Caches};

    /// A superseded daemon (`upgrade.rs`) starts a server only in a root it was
    /// working in; anywhere else the call says which build took over.
    #[tokio::test]
    async fn a_superseded_pool_starts_servers_only_in_the_roots_it_had() {
        let tmp = tempfile::tempdir().unwrap();
        let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&new).unwrap();
        let config = tmp.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[trust]\nroots = [{:?}]\n",
                tmp.path().display().to_string()
            ),
        )
        .unwrap();
        let pool = Pool::new(LspSection::default(), Trust::new(&config, None));
        let spec = ServerSpec {
            language: "python",
            language_id: "python",
            command: vec![tmp.path().join("no-such-server").display().to_string()],
            rust_analyzer: false,
            settings: "{}".into(),
        };
        let index = |root: &Path| {
            Arc::new(RootIndex::new(
                root.to_path_buf(),
                Arc::new(Caches::new(1 << 20)),
                IndexConfig::default(),
            ))
        };
        let replaced = |r: &Result<Arc<Server>, LeanError>| {
            r.as_ref()
                .err()
                .is_some_and(|e| e.message.contains("is being replaced by build 9.9.9+new"))
        };
        pool.supersede([old.clone()].into(), "9.9.9+new".into());
        let refused = pool.server(&new, spec.clone(), &index(&new));
        assert!(replaced(&refused), "{:?}", refused.err());
        assert_eq!(refused.err().unwrap().code, ErrorCode::BackendRequired);
        // In its own root it goes on as before (here: the program is missing).
        assert!(!replaced(&pool.server(&old, spec, &index(&old))));
    }
}
