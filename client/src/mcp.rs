//! `lean-ctx mcp`: the MCP server agents run, one per session, over stdio (rmcp).
//!
//! It stays thin (DESIGN invariant 8): it answers `initialize` itself at once, warms
//! the daemon in the background, and forwards every tool call to `lean-ctxd`,
//! reconnecting (and respawning it) if the daemon went away. The project root is where
//! the session runs, never a tool parameter; paths are relative to it, and the daemon
//! refuses any that leave it. Answers are compact text; errors are
//! `ERROR: CODE: message` plus the remedy, flagged `isError`.

use std::{future::Future, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use lean_ctx_shared::{
    ErrorCode, LeanError, Paths,
    protocol::{
        Direction, EditAction, EditRequest, EditTarget, FilePosition, InspectionsMode,
        InspectionsRequest, LeanCtxClient, NavigateAction, NavigateRequest, OpenProjectRequest,
        OutlineRequest, RefactorKind, RefactorOptions, RefactorPhase, RefactorRequest,
        ReformatRequest, ReformatScope, Scope, SearchSymbolRequest, SymbolKind,
        SymbolsOverviewRequest, TypeHierarchyRequest,
    },
    transport::Connection,
};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars::{self, JsonSchema},
    service::NotificationContext,
    tool, tool_handler, tool_router,
    transport::stdio,
};
use serde::Deserialize;
use tarpc::client::RpcError;
use tokio::sync::Mutex;

use lean_ctx_shared::render;

use crate::{calls::Call, connect, output::rpc_error};

/// How long a tool call waits for the project's first index before it answers
/// `INDEXING` with progress (`LEAN_CTX_MCP_WAIT_MS` overrides): well inside the time
/// clients give a tool call, long enough that most first calls simply succeed.
const DEFAULT_INDEX_WAIT_MS: u32 = 20_000;

const INSTRUCTIONS: &str = "lean-ctx: code intelligence for this project, served by a warm per-user daemon. \
Paths are relative to the project root (the directory this session runs in); lines are 1-based, columns 0-based. \
ctx_outline lists the symbols of a file or directory; ctx_search finds symbols by name, substring or Type/member; \
ctx_refactor reads one file's symbols (symbols_overview), edits symbol bodies by name_path or line \
guarded by expected_hash (the BLAKE3 every edit answers with), finds references/definitions/implementations \
at a path+line+column, reports diagnostics, reformats, and renames across files (preview, then apply).";

struct State {
    paths: Paths,
    /// The project: where the session runs, or the client's MCP root when it offers
    /// roots (chosen once the client has initialized).
    root: std::sync::RwLock<PathBuf>,
    /// Set once the root is final; tool calls wait for it (briefly).
    settled: tokio::sync::watch::Sender<bool>,
    conn: Mutex<Option<Connection>>,
    wait_ms: u32,
}

/// Longest a tool call waits for the client's roots to arrive.
const ROOTS_WAIT: Duration = Duration::from_secs(2);

impl State {
    /// The project root, once settled.
    async fn root(&self) -> PathBuf {
        let mut rx = self.settled.subscribe();
        let _ = tokio::time::timeout(ROOTS_WAIT, rx.wait_for(|s| *s)).await;
        self.root.read().unwrap().clone()
    }

    /// Adopts the client's roots: the innermost one holding the working directory,
    /// else the first; only `file://` roots that are existing directories count.
    /// (rmcp marks roots deprecated by SEP-2577; the agents in use still offer them.)
    #[allow(deprecated)]
    /// else the first; only `file://` roots that are existing directories count.
    fn apply_roots(&self, roots: &[rmcp::model::Root]) {
        let cwd = std::env::current_dir().unwrap_or_default();
        let dirs: Vec<PathBuf> = roots
            .iter()
            .filter_map(|r| file_uri_path(&r.uri))
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .collect();
        let chosen = dirs
            .iter()
            .filter(|d| cwd.starts_with(d))
            .max_by_key(|d| d.as_os_str().len())
            .or(dirs.first());
        if let Some(root) = chosen {
            *self.root.write().unwrap() = root.clone();
        }
    }

    /// The daemon client, connecting (and spawning the daemon) on first use.
    async fn client(&self) -> Result<LeanCtxClient, LeanError> {
        let mut conn = self.conn.lock().await;
        if let Some(c) = conn.as_ref() {
            return Ok(c.client.clone());
        }
        let fresh = connect::connect_or_spawn(&self.paths, "lean-ctx mcp").await?;
        let client = fresh.client.clone();
        *conn = Some(fresh);
        Ok(client)
    }

    /// Runs `call` against the daemon; if the connection broke (the daemon was
    /// restarted or killed), reconnects once and retries.
    async fn call<T, F, Fut>(&self, call: F) -> Result<T, LeanError>
    where
        F: Fn(LeanCtxClient) -> Fut,
        Fut: Future<Output = Result<Result<T, LeanError>, RpcError>>,
    {
        match call(self.client().await?).await {
            Ok(answer) => answer,
            Err(RpcError::Shutdown | RpcError::Send(_) | RpcError::Channel(_)) => {
                *self.conn.lock().await = None;
                call(self.client().await?).await.map_err(rpc_error)?
            }
            Err(e) => Err(rpc_error(e)),
        }
    }
}

fn context(timeout: Duration) -> tarpc::context::Context {
    let mut ctx = tarpc::context::current();
    ctx.deadline = std::time::Instant::now() + timeout;
    ctx
}

/// A tool answer: text, or the rendered error flagged as one.
fn answer<T>(
    result: Result<T, LeanError>,
    text: impl FnOnce(&T) -> String,
) -> Result<CallToolResult, McpError> {
    Ok(match result {
        Ok(value) => CallToolResult::success(vec![ContentBlock::text(text(&value))]),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(render::error(&e))]),
    })
}

fn missing(param: &str, action: &str) -> LeanError {
    LeanError::new(
        ErrorCode::InvalidTarget,
        format!("{action} needs `{param}`"),
    )
    .with_remedy(format!("pass `{param}` (see the tool's input schema)"))
}

/// Numbers and booleans as some clients send them: as strings (`"2"`, `"true"`).
mod lenient {
    use serde::{Deserialize, Deserializer, de::Error};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Loose<T> {
        Exact(T),
        Text(String),
    }

    fn parse<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        match Option::<Loose<T>>::deserialize(d)? {
            None => Ok(None),
            Some(Loose::Exact(v)) => Ok(Some(v)),
            Some(Loose::Text(s)) => s.trim().parse().map(Some).map_err(D::Error::custom),
        }
    }

    pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        parse(d)
    }

    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        parse(d)
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineParams {
    /// A file or directory relative to the project root; omit for the whole project.
    pub path: Option<String>,
    /// Levels of children to include under each top-level symbol (default 1).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Most files to list (default 200).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// What to search; only `symbol` (the default).
    pub action: Option<String>,
    /// A name (`run`), a substring (`Handl`), or a qualified `Type/member` (`Point/new`).
    pub query: String,
    /// Only this kind: module, class, struct, enum, interface, trait, impl, function,
    /// method, constructor, field, property, constant, static, variable, type_alias, macro, ...
    pub kind: Option<String>,
    /// Only under this file or directory (relative to the project root).
    pub path: Option<String>,
    /// Most hits (default 50).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefactorAction {
    /// The symbols of one file (`path`; `depth` levels of children).
    SymbolsOverview,
    /// Replace a symbol's whole declaration with `new_body`.
    ReplaceSymbolBody,
    /// Insert `text` on the lines before a symbol.
    InsertBeforeSymbol,
    /// Insert `text` on the lines after a symbol.
    InsertAfterSymbol,
    /// Every reference to the symbol at `path`+`line`+`column` (declaration included).
    References,
    /// Where the symbol at the position is defined.
    Definition,
    /// Implementations of the trait/interface/method at the position.
    Implementations,
    /// Where the symbol at the position is declared.
    Declaration,
    /// Supertypes or subtypes (`direction`) of the type at the position.
    TypeHierarchy,
    /// `mode=run`: the file's diagnostics; `mode=list`: the diagnostic sources.
    Inspections,
    /// Format the file at `path` in place.
    Reformat,
    /// Rename the symbol at the position to `new_name` in every file; `preview=true`
    /// only shows usages, conflicts and the plan_hash.
    Rename,
    /// Move the symbol at the position to `destination` (needs the IDE).
    Move,
    /// Delete the symbol at the position if unused (needs the IDE).
    SafeDelete,
    /// Inline the symbol at the position into its usages (needs the IDE).
    Inline,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefactorParams {
    pub action: RefactorAction,
    /// File relative to the project root. Required for symbols_overview and with
    /// `line`; optional with `name_path` (narrows the search to that file).
    pub path: Option<String>,
    /// The symbol to edit, e.g. `Point/new` or `helper`; qualify to disambiguate
    /// (AMBIGUOUS_SYMBOL lists the candidates).
    pub name_path: Option<String>,
    /// 1-based line of the symbol to edit (instead of `name_path`).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub line: Option<u32>,
    /// With `line`: edit exactly the whole lines `line..=end_line`.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub end_line: Option<u32>,
    /// replace_symbol_body: the complete new declaration.
    pub new_body: Option<String>,
    /// insert_before_symbol / insert_after_symbol: the text to insert.
    pub text: Option<String>,
    /// BLAKE3 hex of the target's current bytes (from a previous edit's answer); if
    /// the file changed, the answer is CONFLICT and nothing is written.
    pub expected_hash: Option<String>,
    /// Write even if the result no longer parses.
    #[serde(default, deserialize_with = "lenient::bool")]
    pub force: Option<bool>,
    /// symbols_overview: levels of children (default 1).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Navigation, type_hierarchy and refactorings: 0-based column, in characters, of
    /// the symbol's name on `line`.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub column: Option<u32>,
    /// `project` (default) or `all` (libraries and the standard library too).
    pub scope: Option<String>,
    /// type_hierarchy: `supertypes` (default) or `subtypes`.
    pub direction: Option<String>,
    /// inspections: `run` (default) or `list`.
    pub mode: Option<String>,
    /// rename: the new name.
    pub new_name: Option<String>,
    /// move: the destination file, directory or package.
    pub destination: Option<String>,
    /// Refactorings: show usages, conflicts and plan_hash without writing.
    #[serde(default, deserialize_with = "lenient::bool")]
    pub preview: Option<bool>,
    /// Refactorings: apply only if the plan still hashes to this (from a preview).
    pub plan_hash: Option<String>,
    /// Most results (locations, usages, diagnostics); default 100.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

impl RefactorParams {
    fn position(&self, action: &str) -> Result<FilePosition, LeanError> {
        Ok(FilePosition {
            path: self.path.clone().ok_or_else(|| missing("path", action))?,
            line: self.line.ok_or_else(|| missing("line", action))?,
            column: self.column.ok_or_else(|| missing("column", action))?,
        })
    }

    fn scope(&self) -> Result<Scope, LeanError> {
        choose(
            self.scope.as_deref(),
            "scope",
            &[("project", Scope::Project), ("all", Scope::All)],
        )
    }
}

/// One of the allowed spellings of an enumerated parameter (the first is the default).
fn choose<T: Copy>(
    given: Option<&str>,
    param: &str,
    allowed: &[(&str, T)],
) -> Result<T, LeanError> {
    let Some(given) = given else {
        return Ok(allowed[0].1);
    };
    allowed
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(given.trim()))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
            LeanError::new(
                ErrorCode::InvalidTarget,
                format!("{param} {given:?} is not one of {}", names.join(", ")),
            )
        })
}

#[derive(Clone)]
pub struct LeanCtxMcp {
    state: Arc<State>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl LeanCtxMcp {
    fn new(state: Arc<State>) -> LeanCtxMcp {
        LeanCtxMcp {
            state,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Outline: the symbols (line and signature, as a tree) of a file, or of every indexed file under a directory of this project."
    )]
    async fn ctx_outline(
        &self,
        Parameters(p): Parameters<OutlineParams>,
    ) -> Result<CallToolResult, McpError> {
        let s = &self.state;
        let req = OutlineRequest {
            root: s.root().await,
            path: p.path.unwrap_or_default(),
            depth: p.depth.unwrap_or(1),
            limit: p.limit.unwrap_or(0),
            wait_ms: s.wait_ms,
        };
        let timeout = Duration::from_millis(u64::from(s.wait_ms) + 10_000);
        answer(
            s.call(|c| {
                let req = req.clone();
                async move { c.outline(context(timeout), req).await }
            })
            .await,
            render::outline,
        )
    }

    #[tool(
        description = "Search this project's symbols by exact name, substring or qualified Type/member; best matches first, one line each: path:line:col kind name_path signature."
    )]
    async fn ctx_search(
        &self,
        Parameters(p): Parameters<SearchParams>,
    ) -> Result<CallToolResult, McpError> {
        let s = &self.state;
        let query = p.query.clone();
        let root = s.root().await;
        let request = (|| {
            if p.action.as_deref().is_some_and(|a| a != "symbol") {
                return Err(LeanError::new(
                    ErrorCode::Unsupported,
                    format!("ctx_search action {:?}", p.action.as_deref().unwrap_or("")),
                )
                .with_remedy("use action=symbol"));
            }
            let kind = match p.kind.as_deref() {
                Some(k) => Some(SymbolKind::parse(k).ok_or_else(|| {
                    LeanError::new(ErrorCode::InvalidTarget, format!("unknown kind {k:?}"))
                        .with_remedy(format!(
                            "one of: {}",
                            SymbolKind::ALL
                                .iter()
                                .map(|k| k.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                })?),
                None => None,
            };
            Ok(SearchSymbolRequest {
                root,
                query: p.query,
                kind,
                path: p.path,
                limit: p.limit.unwrap_or(0),
                wait_ms: s.wait_ms,
            })
        })();
        let req = match request {
            Ok(req) => req,
            Err(e) => return answer::<()>(Err(e), |_| String::new()),
        };
        let timeout = Duration::from_millis(u64::from(s.wait_ms) + 10_000);
        answer(
            s.call(|c| {
                let req = req.clone();
                async move { c.search_symbol(context(timeout), req).await }
            })
            .await,
            |r| render::search(r, &query),
        )
    }

    #[tool(
        description = "Semantic code operations in this project (path relative to the project root, line 1-based, column 0-based in characters). symbols_overview: one file's symbols. replace_symbol_body / insert_before_symbol / insert_after_symbol: edit by name_path (or path+line), atomically, refusing with CONFLICT if expected_hash no longer matches; every edit answers with the written range and its BLAKE3 hash. references / definition / implementations / declaration / type_hierarchy at path+line+column: from the IDE or a warm language server. inspections: a file's diagnostics (mode=run) or sources (mode=list). reformat: format a file. rename (new_name): preview=true shows usages and plan_hash; otherwise applies to all files or none (pass plan_hash to apply exactly the previewed plan). move / safe_delete / inline need the JetBrains IDE."
    )]
    async fn ctx_refactor(
        &self,
        Parameters(p): Parameters<RefactorParams>,
    ) -> Result<CallToolResult, McpError> {
        let s = &self.state;
        if let RefactorAction::SymbolsOverview = p.action {
            let Some(path) = p.path else {
                return answer::<()>(Err(missing("path", "symbols_overview")), |_| String::new());
            };
            let req = SymbolsOverviewRequest {
                root: s.root().await,
                path,
                depth: p.depth.unwrap_or(1),
            };
            return answer(
                s.call(|c| {
                    let req = req.clone();
                    async move {
                        c.symbols_overview(context(Duration::from_secs(30)), req)
                            .await
                    }
                })
                .await,
                render::symbols_overview,
            );
        }
        if !matches!(
            p.action,
            RefactorAction::ReplaceSymbolBody
                | RefactorAction::InsertBeforeSymbol
                | RefactorAction::InsertAfterSymbol
        ) {
            return self.language_server_action(p).await;
        }
        let (action, text, text_param) = match p.action {
            RefactorAction::ReplaceSymbolBody => {
                (EditAction::ReplaceSymbolBody, p.new_body, "new_body")
            }
            RefactorAction::InsertBeforeSymbol => (EditAction::InsertBeforeSymbol, p.text, "text"),
            RefactorAction::InsertAfterSymbol => (EditAction::InsertAfterSymbol, p.text, "text"),
            _ => unreachable!("answered above"),
        };
        let Some(text) = text else {
            return answer::<()>(Err(missing(text_param, action.as_str())), |_| String::new());
        };
        let target = match (p.name_path, p.path, p.line) {
            (Some(name_path), path, None) => EditTarget::NamePath { name_path, path },
            (None, Some(path), Some(line)) => EditTarget::Lines {
                path,
                line,
                end_line: p.end_line,
            },
            _ => {
                return answer::<()>(
                    Err(missing("name_path (or path and line)", action.as_str())),
                    |_| String::new(),
                );
            }
        };
        let req = EditRequest {
            root: s.root().await,
            action,
            target,
            text,
            expected_hash: p.expected_hash,
            force: p.force.unwrap_or(false),
            wait_ms: s.wait_ms,
        };
        let timeout = Duration::from_millis(u64::from(s.wait_ms) + 60_000);
        answer(
            s.call(|c| {
                let req = req.clone();
                async move { c.edit_symbol(context(timeout), req).await }
            })
            .await,
            |r| render::edit(action, r),
        )
    }
}

impl LeanCtxMcp {
    /// The actions a language server or the IDE answers.
    async fn language_server_action(&self, p: RefactorParams) -> Result<CallToolResult, McpError> {
        let s = &self.state;
        let root = s.root().await;
        let limit = p.limit.unwrap_or(0);
        let wait_ms = s.wait_ms;
        // Refactorings and formatting may take a while on a big workspace.
        let timeout = Duration::from_millis(u64::from(wait_ms) + 150_000);
        let request = (|| -> Result<Call, LeanError> {
            let navigate = |a: NavigateAction| -> Result<Call, LeanError> {
                Ok(Call::Navigate(NavigateRequest {
                    root: root.clone(),
                    action: a,
                    at: p.position(a.as_str())?,
                    scope: p.scope()?,
                    limit,
                    wait_ms,
                }))
            };
            let refactor = |kind: RefactorKind| -> Result<Call, LeanError> {
                Ok(Call::Refactor(RefactorRequest {
                    root: root.clone(),
                    at: p.position(kind.as_str())?,
                    kind,
                    phase: if p.preview.unwrap_or(false) {
                        RefactorPhase::Preview
                    } else {
                        RefactorPhase::Apply {
                            plan_hash: p.plan_hash.clone(),
                            force: p.force.unwrap_or(false),
                        }
                    },
                    limit,
                    wait_ms,
                    options: RefactorOptions::default(),
                }))
            };
            match p.action {
                RefactorAction::References => navigate(NavigateAction::References),
                RefactorAction::Definition => navigate(NavigateAction::Definition),
                RefactorAction::Implementations => navigate(NavigateAction::Implementations),
                RefactorAction::Declaration => navigate(NavigateAction::Declaration),
                RefactorAction::TypeHierarchy => Ok(Call::TypeHierarchy(TypeHierarchyRequest {
                    root: root.clone(),
                    at: p.position("type_hierarchy")?,
                    direction: choose(
                        p.direction.as_deref(),
                        "direction",
                        &[
                            ("supertypes", Direction::Supertypes),
                            ("subtypes", Direction::Subtypes),
                        ],
                    )?,
                    scope: p.scope()?,
                    limit,
                    wait_ms,
                })),
                RefactorAction::Inspections => Ok(Call::Inspections(InspectionsRequest {
                    root: root.clone(),
                    path: p
                        .path
                        .clone()
                        .ok_or_else(|| missing("path", "inspections"))?,
                    mode: choose(
                        p.mode.as_deref(),
                        "mode",
                        &[
                            ("run", InspectionsMode::Run),
                            ("list", InspectionsMode::List),
                        ],
                    )?,
                    limit,
                    wait_ms,
                })),
                RefactorAction::Reformat => Ok(Call::Reformat(ReformatRequest {
                    root: root.clone(),
                    path: p.path.clone().ok_or_else(|| missing("path", "reformat"))?,
                    expected_hash: p.expected_hash.clone(),
                    wait_ms,
                    scope: ReformatScope::File,
                    optimize_imports: false,
                })),
                RefactorAction::Rename => refactor(RefactorKind::Rename {
                    new_name: p
                        .new_name
                        .clone()
                        .ok_or_else(|| missing("new_name", "rename"))?,
                }),
                RefactorAction::Move => refactor(RefactorKind::Move {
                    destination: p
                        .destination
                        .clone()
                        .ok_or_else(|| missing("destination", "move"))?,
                }),
                RefactorAction::SafeDelete => refactor(RefactorKind::SafeDelete),
                RefactorAction::Inline => refactor(RefactorKind::Inline),
                RefactorAction::SymbolsOverview
                | RefactorAction::ReplaceSymbolBody
                | RefactorAction::InsertBeforeSymbol
                | RefactorAction::InsertAfterSymbol => unreachable!("answered by ctx_refactor"),
            }
        })();
        let call = match request {
            Ok(call) => call,
            Err(e) => return answer::<()>(Err(e), |_| String::new()),
        };
        answer(
            s.call(|c| {
                let call = call.clone();
                async move { call.send(&c, context(timeout)).await }
            })
            .await,
            |a| a.text.clone(),
        )
    }
}

/// The path of a `file://` URI (percent-decoded); `None` for other schemes.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LeanCtxMcp {
    /// Once the client is initialized: take its roots, if it offers them.
    #[allow(deprecated)]
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let offers_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if offers_roots {
            match context.peer.list_roots().await {
                Ok(result) => self.state.apply_roots(&result.roots),
                Err(e) => {
                    eprintln!("lean-ctx mcp: the client offered roots but did not list them: {e}")
                }
            }
        }
        self.state.settled.send_replace(true);
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "lean-ctx",
                lean_ctx_shared::protocol::VERSION,
            ))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serves MCP on stdin/stdout until the client goes away.
pub async fn serve(paths: Paths, root: PathBuf) -> Result<ExitCode, LeanError> {
    let wait_ms = std::env::var("LEAN_CTX_MCP_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_INDEX_WAIT_MS);
    let state = Arc::new(State {
        paths,
        root: std::sync::RwLock::new(root),
        settled: tokio::sync::watch::Sender::new(false),
        conn: Mutex::new(None),
        wait_ms,
    });
    // Warm the daemon and start the project's index while the client initializes;
    // failures surface on the first tool call instead.
    let warm = state.clone();
    tokio::spawn(async move {
        let root = warm.root().await;
        if let Err(e) = warm
            .call(|c| {
                let root = root.clone();
                async move {
                    c.open_project(
                        context(Duration::from_secs(10)),
                        OpenProjectRequest { root },
                    )
                    .await
                }
            })
            .await
        {
            eprintln!("lean-ctx mcp: {}", render::error(&e));
        }
    });
    let running = LeanCtxMcp::new(state)
        .serve(stdio())
        .await
        .map_err(|e| LeanError::internal(format!("MCP initialization failed: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| LeanError::internal(format!("MCP session failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/a/my%20proj"),
            Some(PathBuf::from("/home/a/my proj"))
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some(PathBuf::from("/srv/x"))
        );
        assert_eq!(
            file_uri_path("file:///t/%C3%A4%zz"),
            Some(PathBuf::from("/t/ä%zz"))
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
    }
}
