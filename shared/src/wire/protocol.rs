//! The tarpc service and its request/response pairs: the only things that cross the
//! daemon socket after the hello (ARCHITECTURE.md, `shared/`).
//!
//! Every operation takes one `*Request` and answers `Result<*Response, LeanError>`, so
//! a catalog error is an answer, never a transport failure.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    error::{LeanError, Progress},
    position::{Position, Range},
};

/// Bumped on any intentional wire change, and on an upgrade of tarpc or bincode that
/// changes their encoding (the fingerprint sees only our own sources); the schema
/// fingerprint catches the rest.
pub const PROTOCOL_VERSION: u32 = 1;

/// BLAKE3 (first 16 hex) of the wire modules' sources (`shared/src/wire/`), computed
/// by `build.rs`: two builds speak tarpc to each other only if this matches, because
/// bincode is not self-describing.
pub const SCHEMA: &str = env!("LEAN_CTX_SCHEMA");

/// The package version of this build.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Identifies this build in hellos, status and the log's first line.
pub fn build_id() -> String {
    format!("{VERSION}+{SCHEMA}")
}

/// Longest artificial delay a `ping` may ask for.
pub const MAX_PING_DELAY_MS: u32 = 60_000;

/// Every operation, once: its method, request and response, and for an agent's
/// operation the shim's name for it (`client/src/calls.rs`'s `Call`) and whether an
/// index or a backing answers it (the shim's deadline). The tarpc service below,
/// [`OPERATIONS`], the shim's `Call` and the daemon's service (`daemon/src/service.rs`)
/// are each generated from this list by handing it a macro: adding an operation is a
/// line here, its [`Operation`] impl, its route (`daemon/src/route.rs`) and its
/// rendering.
#[macro_export]
macro_rules! operations {
    ($then:path) => {
        $then! {
            daemon {
                /// A round trip; `delay_ms` holds the call in flight (diagnostics, shutdown tests).
                ping(PingRequest) -> PingResponse;
                /// Everything the daemon knows about itself and its projects.
                status(StatusRequest) -> StatusResponse;
                /// Registers a project root (so later work can warm it) and describes it.
                open_project(OpenProjectRequest) -> ProjectStatus;
                /// Graceful stop: stop accepting, finish in-flight calls, remove the socket.
                shutdown(ShutdownRequest) -> ShutdownResponse;
                /// Evicts or restarts language servers (the dashboard's buttons, the CLI).
                language_servers(LanguageServersRequest) -> LanguageServersResponse;
                /// Starts the local web dashboard (once; later calls answer the same URL).
                dashboard(DashboardRequest) -> DashboardResponse;
            }
            agent {
                /// The symbols of one file, from the headless index.
                symbols_overview(SymbolsOverviewRequest) -> SymbolsOverviewResponse as SymbolsOverview, index;
                /// The symbols of a file or of every indexed file under a directory.
                outline(OutlineRequest) -> OutlineResponse as Outline, index;
                /// Symbols across the project by name, qualified name or substring.
                search_symbol(SearchSymbolRequest) -> SearchSymbolResponse as Search, index;
                /// `replace_symbol_body`, `insert_before_symbol`, `insert_after_symbol`.
                edit_symbol(EditRequest) -> EditResponse as Edit, backing;
                /// `references`, `definition`, `implementations`, `declaration`.
                navigate(NavigateRequest) -> NavigateResponse as Navigate, backing;
                /// Supertypes or subtypes of the type at a position.
                type_hierarchy(TypeHierarchyRequest) -> TypeHierarchyResponse as TypeHierarchy, backing;
                /// Who calls a function or method (incoming), or what it calls (outgoing),
                /// to a depth.
                call_hierarchy(CallHierarchyRequest) -> CallHierarchyResponse as Callgraph, backing;
                /// A file's diagnostics (`mode=run`) or the diagnostic sources (`mode=list`).
                inspections(InspectionsRequest) -> InspectionsResponse as Inspections, backing;
                /// Formats one file in place, atomically.
                reformat(ReformatRequest) -> ReformatResponse as Reformat, backing;
                /// Two-phase refactorings: preview (usages, conflicts, `plan_hash`), then apply.
                refactor(RefactorRequest) -> RefactorResponse as Refactor, backing;
                /// The project's indexed files as a tree: per-directory file counts and
                /// languages, levels past `depth` summarized.
                tree(TreeRequest) -> TreeResponse as Tree, index;
                /// The lines of the project's indexed files that match a text or a regex,
                /// each with the symbol that encloses it.
                search_text(SearchTextRequest) -> SearchTextResponse as SearchText, index;
                /// Reads files (whole, a window of lines, one symbol, their declarations or
                /// their map), each answer hashed; within a session an unchanged re-read is
                /// one line and a changed one its diff.
                read(ReadRequest) -> ReadResponse as Read, index;
            }
        }
    };
}

/// The tarpc service and [`OPERATIONS`], from [`operations!`].
macro_rules! service {
    (
        daemon { $($(#[$dm:meta])* $dop:ident($dreq:ty) -> $dresp:ty;)* }
        agent { $($(#[$am:meta])* $aop:ident($areq:ty) -> $aresp:ty as $variant:ident, $answered_by:ident;)* }
    ) => {
        mod service {
            // tarpc's generated server type (`ServeLeanCtx`) derives no `Debug`.
            #![allow(missing_debug_implementations)]
            use super::*;

            #[tarpc::service]
            pub trait LeanCtx {
                $($(#[$dm])* async fn $dop(req: $dreq) -> Result<$dresp, LeanError>;)*
                $($(#[$am])* async fn $aop(req: $areq) -> Result<$aresp, LeanError>;)*
            }
        }
        pub use service::*;

        /// Every operation's name, as the hello announces them.
        pub const OPERATIONS: &[&str] = &[$(stringify!($dop),)* $(stringify!($aop),)*];
    };
}

operations!(service);

/// What the daemon and the shim ask of an agent operation's request.
pub trait Operation {
    /// Its name in the call log and the gain record: the action, where one operation
    /// serves several.
    fn action(&self) -> &'static str;
    /// How long the daemon may wait for an index or a server before it answers.
    fn wait_ms(&self) -> u32 {
        0
    }
    /// The read session it names, if any.
    fn session(&self) -> Option<&ReadSession> {
        None
    }
}

/// An [`Operation`] named by a constant, waiting as its `wait_ms` field says.
macro_rules! waiting {
    ($($req:ty => $action:literal,)*) => {
        $(impl Operation for $req {
            fn action(&self) -> &'static str {
                $action
            }
            fn wait_ms(&self) -> u32 {
                self.wait_ms
            }
        })*
    };
}

waiting! {
    OutlineRequest => "outline",
    SearchSymbolRequest => "search_symbol",
    TypeHierarchyRequest => "type_hierarchy",
    CallHierarchyRequest => "call_hierarchy",
    InspectionsRequest => "inspections",
    ReformatRequest => "reformat",
    TreeRequest => "tree",
}

/// Waits for nothing: a file tree-sitter cannot parse goes to the IDE, whose quick
/// timeout is 30 s.
impl Operation for SymbolsOverviewRequest {
    fn action(&self) -> &'static str {
        "symbols_overview"
    }
}

impl Operation for EditRequest {
    fn action(&self) -> &'static str {
        "edit_symbol"
    }
    fn wait_ms(&self) -> u32 {
        self.wait_ms
    }
    fn session(&self) -> Option<&ReadSession> {
        self.session.as_ref()
    }
}

impl Operation for NavigateRequest {
    fn action(&self) -> &'static str {
        self.action.as_str()
    }
    fn wait_ms(&self) -> u32 {
        self.wait_ms
    }
}

impl Operation for RefactorRequest {
    fn action(&self) -> &'static str {
        self.kind.as_str()
    }
    fn wait_ms(&self) -> u32 {
        self.wait_ms
    }
}

impl Operation for SearchTextRequest {
    fn action(&self) -> &'static str {
        if self.regex {
            "search_regex"
        } else {
            "search_text"
        }
    }
    fn wait_ms(&self) -> u32 {
        self.wait_ms
    }
}

/// Reads the disk (and the index for symbols); waits for the index only to find
/// the file of a symbol named without a path.
impl Operation for ReadRequest {
    fn action(&self) -> &'static str {
        "read"
    }
    fn wait_ms(&self) -> u32 {
        self.wait_ms
    }
    fn session(&self) -> Option<&ReadSession> {
        self.session.as_ref()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingRequest {
    pub delay_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingResponse {
    pub pid: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusRequest {}

/// How the running daemon was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartMode {
    /// By a shim that found no daemon; exits after the idle timeout.
    AutoSpawn,
    /// By hand in a terminal (`lean-ctxd --foreground`).
    Foreground,
    /// By a systemd user unit.
    Systemd,
    /// By a launchd agent.
    Launchd,
}

impl StartMode {
    pub fn as_str(self) -> &'static str {
        match self {
            StartMode::AutoSpawn => "auto-spawn",
            StartMode::Foreground => "foreground",
            StartMode::Systemd => "systemd",
            StartMode::Launchd => "launchd",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusResponse {
    pub pid: u32,
    pub version: String,
    pub build: String,
    pub protocol: u32,
    pub started_at_unix_ms: u64,
    pub uptime_ms: u64,
    pub socket: PathBuf,
    pub log_file: PathBuf,
    pub started_by: StartMode,
    /// `None` when the daemon never idles out (foreground, service manager).
    pub idle_exit_after_ms: Option<u64>,
    /// Resident set size, where the platform tells it.
    pub rss_bytes: Option<u64>,
    /// Open connections, the one asking included.
    pub connected_clients: u32,
    pub in_flight_calls: u32,
    pub calls_served: u64,
    /// The daemon-wide caches (file hashes, parsed symbols).
    pub caches: Vec<CacheStatus>,
    pub projects: Vec<ProjectStatus>,
    /// Every warm language server, across all roots.
    pub language_servers: Vec<LanguageServerStatus>,
    /// JetBrains IDE windows found through their port files.
    pub ides: Vec<IdeStatus>,
    /// The persisted index on disk; `None` when `index.store_max_bytes` is 0.
    #[serde(default)]
    pub store: Option<StoreStatus>,
    /// Why `config.toml` is ignored whole (defaults apply, nothing is trusted): it
    /// lies in a repository or is not the user's alone; `None` when it is read.
    #[serde(default)]
    pub config_ignored: Option<String>,
}

/// The persisted index (`<state dir>/index/index.store`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreStatus {
    pub path: PathBuf,
    pub bytes: u64,
    /// File-hash, git-blob and parsed-symbol entries.
    pub entries: u64,
    pub cap_bytes: u64,
    /// Parses served from disk, and lookups it could not answer.
    pub hits: u64,
    pub misses: u64,
    /// The last problem: a failed write, a store rebuilt and why.
    pub note: Option<String>,
}

/// One JetBrains IDE window (one project) the daemon knows of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdeStatus {
    pub project_root: PathBuf,
    pub ide_version: String,
    pub pid: u32,
    pub port: u16,
    /// `None` until a call asked for it.
    pub reachable: Option<bool>,
    pub last_check_unix_ms: Option<u64>,
    /// Why this window is never used, when it is not: a port file someone else could
    /// have written, a port held by another process, an edit it claimed and did not
    /// make. The other fields are then what the port file claims.
    #[serde(default)]
    pub ignored: Option<String>,
}

/// What a language server instance is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// Spawned; `initialize` not answered yet.
    Starting,
    /// Initialised; its first load of the workspace has not finished.
    Indexing,
    Ready,
    /// Did not start, or exited; the next call that needs it starts a new one.
    Failed,
}

impl ServerState {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Starting => "starting",
            ServerState::Indexing => "indexing",
            ServerState::Ready => "ready",
            ServerState::Failed => "failed",
        }
    }
}

/// One warm language server: one per (worktree root, language, server command).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageServerStatus {
    pub root: PathBuf,
    /// Our language name, e.g. `rust`, `python`.
    pub language: String,
    /// The server's name as it reports it, else its program.
    pub server: String,
    pub command: Vec<String>,
    pub pid: Option<u32>,
    /// Of the server's whole process group (rust-analyzer's proc-macro server too).
    pub rss_bytes: Option<u64>,
    pub state: ServerState,
    /// While starting or indexing: how far.
    pub progress: Option<Progress>,
    /// Why it failed, or the server's own status message.
    pub message: Option<String>,
    /// `utf-8`, `utf-16` or `utf-32`: the position encoding negotiated with it.
    pub position_encoding: String,
    pub open_documents: u32,
    pub started_at_unix_ms: u64,
    pub last_used_unix_ms: u64,
    pub calls_served: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenProjectRequest {
    /// Absolute path of the caller's project root (resolved by the shim, never by an agent).
    pub root: PathBuf,
}

/// One row of the per-project table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectStatus {
    /// The worktree root, canonical.
    pub root: PathBuf,
    /// The git common dir shared by all worktrees of one repository (the root itself
    /// outside git): content-addressed state is shared within a group.
    pub worktree_group: PathBuf,
    /// The checked-out branch, when the root is a git worktree on a branch.
    pub branch: Option<String>,
    pub registered_at_unix_ms: u64,
    pub last_used_unix_ms: u64,
    pub calls: u64,
    /// The symbol index; `None` until one is attached to this root.
    pub index: Option<IndexStatus>,
    /// Language servers, IDE windows and the headless backing, with their state.
    pub backings: Vec<BackingStatus>,
    /// Whether the user trusted this root, so language servers may start in it
    /// (`lean-ctx trust`).
    pub trusted: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexState {
    /// The first full walk is running.
    Indexing,
    Ready,
}

/// The headless index of one root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStatus {
    pub state: IndexState,
    /// Files of a supported language found by the walk (while the first walk runs, at
    /// least the tracked ones the git index says it will find).
    pub files_total: u64,
    pub files_indexed: u64,
    pub symbols: u64,
    pub skipped_binary: u64,
    pub skipped_too_large: u64,
    pub skipped_unreadable: u64,
    /// Bytes of parsed symbols this root references (shared with other roots where
    /// the content is identical).
    pub symbol_bytes: u64,
    /// Lookups this root made in the daemon-wide caches.
    pub hash_cache: CacheCounters,
    pub symbol_cache: CacheCounters,
    /// Wall time of the last full walk.
    pub last_full_index_ms: u64,
    /// Why the root is not (fully) watched (a watch limit, a watch error); `None`
    /// while every indexed directory is watched. An unwatched root is walked again
    /// every `rescan_interval_ms`, so its answers lag the disk by at most that.
    pub unwatched: Option<String>,
    pub rescan_interval_ms: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheCounters {
    pub hits: u64,
    pub misses: u64,
}

/// One daemon-wide cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStatus {
    pub name: String,
    pub entries: u64,
    pub bytes: u64,
    pub capacity_bytes: u64,
    pub hits: u64,
    pub misses: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackingStatus {
    /// e.g. `rust-analyzer`, `jetbrains`, `headless`.
    pub name: String,
    /// e.g. `starting`, `indexing 40%`, `ready`, `crashed`.
    pub state: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShutdownRequest {
    /// Shown in the daemon log.
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShutdownResponse {
    pub pid: u32,
    /// Calls still running; the daemon exits once they complete.
    pub in_flight_calls: u32,
}

/// What a symbol is. The wire spelling is snake_case (`type_alias`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Module,
    Class,
    Struct,
    Union,
    Enum,
    EnumMember,
    Interface,
    Trait,
    /// A Rust `impl` block; its members' name paths start with the implemented type.
    Impl,
    Object,
    Function,
    Method,
    Constructor,
    Field,
    Property,
    Constant,
    Static,
    Variable,
    TypeAlias,
    Macro,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 20] = [
        SymbolKind::Module,
        SymbolKind::Class,
        SymbolKind::Struct,
        SymbolKind::Union,
        SymbolKind::Enum,
        SymbolKind::EnumMember,
        SymbolKind::Interface,
        SymbolKind::Trait,
        SymbolKind::Impl,
        SymbolKind::Object,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Constructor,
        SymbolKind::Field,
        SymbolKind::Property,
        SymbolKind::Constant,
        SymbolKind::Static,
        SymbolKind::Variable,
        SymbolKind::TypeAlias,
        SymbolKind::Macro,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Union => "union",
            SymbolKind::Enum => "enum",
            SymbolKind::EnumMember => "enum_member",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Impl => "impl",
            SymbolKind::Object => "object",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Field => "field",
            SymbolKind::Property => "property",
            SymbolKind::Constant => "constant",
            SymbolKind::Static => "static",
            SymbolKind::Variable => "variable",
            SymbolKind::TypeAlias => "type_alias",
            SymbolKind::Macro => "macro",
        }
    }

    pub fn parse(s: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A symbol as agents see it: positions in agent units (1-based line, 0-based
/// character column).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolInfo {
    pub name: String,
    pub kind: SymbolKind,
    /// `Type/method`; a second symbol with the same path in one file is `name[1]`.
    pub name_path: String,
    /// The declaration from its first attribute, decorator or annotation (else its
    /// first keyword or modifier) to its end; the doc comment above lies outside.
    /// A replace keeps the attributes and doc comment its text does not bring.
    pub range: Range,
    pub name_range: Range,
    /// The declaration's head on one line, e.g. `pub fn run(&self) -> Result<()>`.
    pub signature: String,
    pub children: Vec<SymbolInfo>,
    /// BLAKE3 hex of the declaration's bytes (`range`) on disk when the answer was
    /// made: the `expected_hash` of its edit. `None` where the answer read no bytes.
    pub hash: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolsOverviewRequest {
    pub root: PathBuf,
    /// Relative to the root (or absolute inside it).
    pub path: String,
    /// 0: top-level symbols only; n: n levels of children.
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolsOverviewResponse {
    /// Root-relative, `/`-separated.
    pub path: String,
    pub language: String,
    pub symbols: Vec<SymbolInfo>,
    /// Symbols in the file at every depth.
    pub total: u32,
    /// `headless` (tree-sitter) or `jetbrains`.
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineRequest {
    pub root: PathBuf,
    /// A file or a directory; empty means the root.
    pub path: String,
    pub depth: u32,
    /// Most files to return.
    pub limit: u32,
    /// Wait this long for a running first index before answering `INDEXING`.
    pub wait_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOutline {
    pub path: String,
    pub language: String,
    pub symbols: Vec<SymbolInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineResponse {
    pub files: Vec<FileOutline>,
    pub total_files: u32,
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSymbolRequest {
    pub root: PathBuf,
    /// A name, a substring, or a qualified `Type/method`.
    pub query: String,
    pub kind: Option<SymbolKind>,
    /// Only under this file or directory.
    pub path: Option<String>,
    pub limit: u32,
    /// Hits skipped first: where the last answer stopped (its `skip` plus what it
    /// showed).
    pub skip: u32,
    pub wait_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolHit {
    pub path: String,
    pub name: String,
    pub kind: SymbolKind,
    pub name_path: String,
    pub range: Range,
    /// Where its name is: the position navigation takes.
    pub name_range: Range,
    pub signature: String,
    /// BLAKE3 hex of the declaration's bytes: the `expected_hash` of its edit.
    pub hash: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSymbolResponse {
    /// Best first.
    pub hits: Vec<SymbolHit>,
    pub total: u32,
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditAction {
    ReplaceSymbolBody,
    InsertBeforeSymbol,
    InsertAfterSymbol,
    /// Replaces whole lines ([`EditTarget::Lines`] with `end_line`) of any text file.
    ReplaceLines,
    /// Writes a new file ([`EditTarget::File`]); an existing one only when
    /// `expected_hash` is its whole content's.
    CreateFile,
}

impl EditAction {
    pub fn as_str(self) -> &'static str {
        match self {
            EditAction::ReplaceSymbolBody => "replace_symbol_body",
            EditAction::InsertBeforeSymbol => "insert_before_symbol",
            EditAction::InsertAfterSymbol => "insert_after_symbol",
            EditAction::ReplaceLines => "replace_lines",
            EditAction::CreateFile => "create_file",
        }
    }
}

/// Which code an edit addresses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EditTarget {
    /// A symbol by name path, optionally only in `path`.
    NamePath {
        name_path: String,
        path: Option<String>,
    },
    /// The innermost symbol starting on `line` (1-based); with `end_line`, exactly the
    /// whole lines `line..=end_line`, guarded by the hash of those lines or of any
    /// view of the file holding them that the agent was given (the whole file, a
    /// symbol, a window of lines its session read).
    Lines {
        path: String,
        line: u32,
        end_line: Option<u32>,
    },
    /// A whole file, which need not exist (`create_file`).
    File { path: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditRequest {
    pub root: PathBuf,
    pub action: EditAction,
    pub target: EditTarget,
    /// The new declaration (replace) or the text to insert.
    pub text: String,
    /// BLAKE3 hex of the target range's current bytes; a mismatch is `CONFLICT`.
    pub expected_hash: Option<String>,
    /// Apply even if the edit introduces a syntax error.
    pub force: bool,
    pub wait_ms: u32,
    /// The agent's read session: once written, the symbol counts as read by it (the
    /// agent wrote it), so its re-read is one line.
    pub session: Option<ReadSession>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditResponse {
    pub path: String,
    pub applied: bool,
    /// Where the written text now is.
    pub new_range: Range,
    /// BLAKE3 hex of the written bytes: the `expected_hash` of a follow-up edit of
    /// that range.
    pub hash: String,
    /// BLAKE3 hex of the whole file as written: the `expected_hash` of any later line
    /// edit of it (headless writes; the IDE's are not read back).
    pub file_hash: Option<String>,
    /// `headless` (our atomic write) or `jetbrains` (the IDE's write command).
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
    /// The diagnostics the edit introduced in its file (reported after it, not
    /// before), from the file's language server when one was up and ready; `None`
    /// when none checked it.
    pub introduced: Option<Vec<DiagnosticHit>>,
}

/// A point in a file as an agent names it: `line` 1-based, `column` 0-based in
/// characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePosition {
    /// Relative to the root (or absolute inside it).
    pub path: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NavigateAction {
    References,
    Definition,
    Implementations,
    Declaration,
}

impl NavigateAction {
    pub fn as_str(self) -> &'static str {
        match self {
            NavigateAction::References => "references",
            NavigateAction::Definition => "definition",
            NavigateAction::Implementations => "implementations",
            NavigateAction::Declaration => "declaration",
        }
    }
}

/// Where results may lie.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Inside the caller's root only.
    #[default]
    Project,
    /// Libraries and the standard library too (shown as absolute paths).
    All,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavigateRequest {
    pub root: PathBuf,
    pub action: NavigateAction,
    pub at: FilePosition,
    /// Point at a symbol by name instead (`Type/method`, as reads and edits take it):
    /// `at.path` is then its file, a directory holding it, or empty (the project),
    /// and `at`'s line and column are its name's, found through the index.
    pub name_path: Option<String>,
    pub scope: Scope,
    /// Most locations to return.
    pub limit: u32,
    /// Wait this long for a server still loading before answering `INDEXING`.
    pub wait_ms: u32,
}

/// One result location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationHit {
    /// Root-relative; absolute when it lies outside the root (`scope=all`).
    pub path: String,
    pub range: Range,
    /// The trimmed text of the location's first line (empty outside the root).
    pub context: String,
    /// It lies in an import (`use`, `import`, `from … import`): a reference there
    /// names the symbol rather than uses it. The text answer counts these apart.
    pub import: bool,
    /// The innermost declaration it lies in (inside the root), what an agent edits to
    /// change this use; `None` at a file's top level.
    pub symbol: Option<Enclosing>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavigateResponse {
    pub locations: Vec<LocationHit>,
    pub total: u32,
    pub truncated: bool,
    /// Which backing answered, e.g. `rust-analyzer`, `jetbrains`.
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Supertypes,
    Subtypes,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeHierarchyRequest {
    pub root: PathBuf,
    pub at: FilePosition,
    /// As [`NavigateRequest::name_path`].
    pub name_path: Option<String>,
    pub direction: Direction,
    pub scope: Scope,
    pub limit: u32,
    pub wait_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeHierarchyItem {
    pub name: String,
    pub kind: String,
    pub path: String,
    /// 1-based.
    pub line: u32,
    pub detail: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeHierarchyResponse {
    /// The type at the position.
    pub root_item: TypeHierarchyItem,
    pub items: Vec<TypeHierarchyItem>,
    pub total: u32,
    pub truncated: bool,
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

/// Calls into a function or method, or out of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallDirection {
    /// Who calls it.
    #[default]
    Incoming,
    /// What it calls.
    Outgoing,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallHierarchyRequest {
    pub root: PathBuf,
    pub at: FilePosition,
    /// As [`NavigateRequest::name_path`].
    pub name_path: Option<String>,
    pub direction: CallDirection,
    /// Levels of calls: 1 the direct callers (or callees), 2 theirs as well, and so
    /// on; 0: the daemon's default (1).
    pub depth: u32,
    pub scope: Scope,
    /// Most calls listed, over every level.
    pub limit: u32,
    pub wait_ms: u32,
}

/// One function or method of a call hierarchy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallNode {
    pub name: String,
    /// The server's kind, lowercase (`function`, `method`, `constructor`).
    pub kind: String,
    /// Root-relative; absolute outside the root (`scope=all`).
    pub path: String,
    /// Where its name is.
    pub range: Range,
    /// Its declaration as reads and edits name it, with its hash (inside the root).
    pub symbol: Option<Enclosing>,
    /// 1: calls the symbol asked about (incoming) or is called by it (outgoing); 2:
    /// calls (is called by) one of those; and so on.
    pub depth: u32,
    /// The index in [`CallHierarchyResponse::calls`] of the node one level up; `None`
    /// at depth 1 (the symbol asked about).
    pub parent: Option<u32>,
    /// The call sites, in the caller's file: this node's (incoming), the node one
    /// level up's (outgoing).
    pub sites: Vec<Position>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallHierarchyResponse {
    /// The function or method asked about (its `depth` 0, no sites).
    pub root_item: CallNode,
    pub direction: CallDirection,
    /// Level by level; a function reached twice is listed each time, expanded once.
    pub calls: Vec<CallNode>,
    pub truncated: bool,
    pub backing: String,
    /// Why the backings asked before this one did not answer.
    pub fallback: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InspectionsMode {
    #[default]
    Run,
    List,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectionsRequest {
    pub root: PathBuf,
    pub path: String,
    pub mode: InspectionsMode,
    pub limit: u32,
    pub wait_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticHit {
    pub path: String,
    pub range: Range,
    /// `ERROR`, `WARNING`, `INFO`, `HINT` (the upstream plugin's spelling).
    pub severity: String,
    pub message: String,
    pub source: Option<String>,
    pub code: Option<String>,
    /// The innermost declaration it lies in, with the hash an edit of it passes.
    pub symbol: Option<Enclosing>,
}

/// A diagnostic source (`mode=list`): a linter or checker the server runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectionSource {
    pub id: String,
    /// Diagnostics of this source seen in the files this server has open (a language
    /// server's count; an IDE lists what it can run, and says 0).
    pub seen: u32,
    /// The inspection's display name, where the backing has one (the IDE's).
    pub name: Option<String>,
    /// Its default severity, where the backing has one (the IDE's).
    pub severity: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectionsResponse {
    pub diagnostics: Vec<DiagnosticHit>,
    pub sources: Vec<InspectionSource>,
    pub total: u32,
    pub truncated: bool,
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReformatRequest {
    pub root: PathBuf,
    pub path: String,
    /// BLAKE3 hex of the whole file as the caller last read it (at least its first
    /// 16 digits, as reads show it).
    pub expected_hash: Option<String>,
    pub wait_ms: u32,
    /// What to format (the wire's `scope`); the whole file by default.
    pub scope: ReformatScope,
    /// Also optimize the file's imports (the wire's `optimize_imports`): only the
    /// JetBrains IDE does; language servers answer `UNSUPPORTED`.
    pub optimize_imports: bool,
}

/// Which part of a file `reformat` formats (docs/ide-wire.md, `/reformat` `scope.kind`). Agent
/// units: lines 1-based, columns 0-based in characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReformatScope {
    /// The whole file.
    #[default]
    File,
    /// The whole lines `line..=end_line` (`region`; language servers format it with
    /// `textDocument/rangeFormatting` where they offer it).
    Region { line: u32, end_line: u32 },
    /// The declaration whose name is at `line`:`column` (`symbol`: only the IDE
    /// resolves it).
    Symbol { line: u32, column: u32 },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReformatResponse {
    pub path: String,
    /// `false`: the file was already formatted.
    pub reformatted: bool,
    /// BLAKE3 hex of the whole file now.
    pub hash: String,
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

/// Which refactoring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefactorKind {
    Rename {
        new_name: String,
    },
    /// Into a file, directory or package (the wire's `target.kind = "path"`).
    Move {
        destination: String,
    },
    SafeDelete,
    Inline,
    /// Into the declaration (class, object, ...) whose name is at `parent` (the wire's
    /// `target.kind = "parent"`): addressed like the symbol that moves, by position,
    /// because the IDE resolves both the same way.
    MoveInto {
        parent: FilePosition,
    },
}

impl RefactorKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            RefactorKind::Rename { .. } => "rename",
            RefactorKind::Move { .. } | RefactorKind::MoveInto { .. } => "move",
            RefactorKind::SafeDelete => "safe_delete",
            RefactorKind::Inline => "inline",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefactorPhase {
    /// Usages, conflicts and the plan hash; nothing written.
    Preview,
    /// Recompute the plan; refuse with `CONFLICT` if it differs from `plan_hash` (when
    /// given) or has conflicts (unless `force`); then write every file or none.
    Apply {
        plan_hash: Option<String>,
        force: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefactorRequest {
    pub root: PathBuf,
    pub kind: RefactorKind,
    pub at: FilePosition,
    /// As [`NavigateRequest::name_path`].
    pub name_path: Option<String>,
    pub phase: RefactorPhase,
    pub limit: u32,
    pub wait_ms: u32,
    /// The options the plugin wire carries (docs/ide-wire.md, Requests); each belongs to one kind and is
    /// `false` for the others.
    pub options: RefactorOptions,
}

/// A refactoring's options, as the IDE's refactoring dialogs offer them. Language
/// servers have none of them: a rename with either search option set is
/// `UNSUPPORTED` there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefactorOptions {
    /// rename: also rename the name where it occurs in comments and string literals.
    pub search_comments: bool,
    /// rename: also rename its occurrences in plain text (non-code files).
    pub search_text_occurrences: bool,
    /// safe_delete: also delete what only the deleted symbol used (e.g. parameters
    /// that become unused).
    pub propagate: bool,
    /// inline: keep the declaration after inlining its usages.
    pub keep_definition: bool,
}

/// One place a refactoring changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub path: String,
    pub range: Range,
    /// The current text of the range.
    pub text: String,
    /// What replaces it.
    pub new_text: String,
}

/// Why applying a refactoring would be unsafe: where (when the backing says) and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// Root-relative, or absolute when outside the root.
    pub path: Option<String>,
    pub range: Option<Range>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefactorResponse {
    pub usages: Vec<Usage>,
    /// Why applying would be unsafe; apply refuses unless `force`.
    pub conflicts: Vec<Conflict>,
    /// BLAKE3 over the usages sorted by (path, range): path, range and current text.
    pub plan_hash: String,
    pub total: u32,
    pub truncated: bool,
    pub applied: bool,
    /// Root-relative paths written, sorted.
    pub changed_paths: Vec<String>,
    pub backing: String,
    /// Why the backings asked before this one did not answer (an IDE window still
    /// indexing, refusing the language, or not answering), when one was asked.
    pub fallback: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageServerOp {
    /// Just list them.
    List,
    /// Shut down and forget; the next call that needs one starts it again.
    Evict,
    /// Evict, then start again right away.
    Restart,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageServersRequest {
    pub op: LanguageServerOp,
    /// Only this root (all roots when `None`).
    pub root: Option<PathBuf>,
    /// Only this language (all when `None`).
    pub language: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageServersResponse {
    /// The servers the operation touched (for `list`, all that match).
    pub affected: u32,
    pub servers: Vec<LanguageServerStatus>,
    /// For `list` of one root: the server each code language of the root gets, found
    /// or not (empty otherwise).
    pub languages: Vec<LanguageUse>,
}

/// The server a language gets: configured, else the first known one found on PATH.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageUse {
    pub language: String,
    /// Its command line, `jetbrains` (the IDE or nothing), or empty where no server
    /// is known.
    pub server: String,
    /// Whether its program is on the PATH servers run with.
    pub found: bool,
    /// How to get it, when it is not found.
    pub get: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DashboardRequest {
    pub handover: Handover,
}

/// How a browser gets its dashboard session: once, by a one-time code that never
/// appears in a command line another user could read (`/proc/PID/cmdline`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Handover {
    /// A one-time page (0600, in the private runtime dir) for the browser to open:
    /// its path is visible to others, its content is not.
    #[default]
    File,
    /// A one-time URL to paste into a browser (printed to the user's own terminal).
    Link,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DashboardResponse {
    /// `http://127.0.0.1:<port>/`: no credential in it.
    pub url: String,
    /// The one-time page's path (`Handover::File`) or the one-time URL
    /// (`Handover::Link`); either opens one session within two minutes, once.
    pub handover: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeRequest {
    pub root: PathBuf,
    /// A directory (or file); empty means the root.
    pub path: String,
    /// Levels of directories listed below `path`: its own entries are level 1; a
    /// directory at level `depth` is shown with its counts only. 0: counts of `path`
    /// alone.
    pub depth: u32,
    /// Most entries (files and directories) listed; 0: the daemon's default.
    pub limit: u32,
    /// Wait this long for a running first index before answering `INDEXING`.
    pub wait_ms: u32,
}

/// Files of one language under a directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageCount {
    pub language: String,
    pub files: u32,
}

/// One entry of a tree, in the order a tree is drawn (a directory before what is in
/// it; within a directory, subdirectories first, then files, each by name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeEntry {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// 0: the requested path itself; 1: its entries; and so on.
    pub level: u32,
    pub kind: TreeEntryKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TreeEntryKind {
    File {
        /// Its language, or for a text file its kind (`toml`, `markdown`, …); for a
        /// file not indexed, why (`binary`, `oversized`).
        language: String,
        /// Not indexed (so not read for symbols or searched): why, in words.
        skipped: Option<String>,
    },
    Dir {
        /// Files found anywhere under it, indexed or not.
        files: u32,
        /// Most files first.
        languages: Vec<LanguageCount>,
        /// Its entries follow (`false`: past `depth`, or cut off by the limit).
        expanded: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeResponse {
    pub entries: Vec<TreeEntry>,
    /// Files found under the requested path, indexed or not.
    pub total_files: u32,
    /// Levels listed: the depth asked, or less when listing that many levels would
    /// pass the limit (the deepest directories listed then show their counts only).
    pub depth: u32,
    /// Entries were cut off even at that depth (the limit, or the answer budget).
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchTextRequest {
    pub root: PathBuf,
    pub pattern: String,
    /// `false`: `pattern` is literal text; `true`: a regular expression (Rust
    /// `regex` syntax, as ripgrep's).
    pub regex: bool,
    pub case_insensitive: bool,
    /// Only under this file or directory.
    pub path: Option<String>,
    /// Only files whose root-relative path matches one of these globs, never those
    /// matching one starting with `!` (ripgrep's `-g`: gitignore syntax, `*.toml` at
    /// any depth, `src/**/*.rs`, `!tests/**`); none: every file.
    pub globs: Vec<String>,
    /// Lines of context shown before and after each matching line.
    pub before: u32,
    pub after: u32,
    /// Only which files match, and how many lines in each, not the lines.
    pub files_only: bool,
    /// Most hits (matching lines, or files with `files_only`); 0: the daemon's
    /// default.
    pub limit: u32,
    /// Hits (or files) skipped first: where the last answer stopped.
    pub skip: u32,
    pub wait_ms: u32,
}

/// The declaration a hit or a location lies in, named as reads and edits name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enclosing {
    pub kind: SymbolKind,
    pub name_path: String,
    /// BLAKE3 hex of the declaration's bytes as a read of it is hashed: the
    /// `expected_hash` of its edit. Navigation's locations carry it (`None` when the
    /// file changed since its parse); text search's hits do not.
    pub hash: Option<String>,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextHit {
    pub path: String,
    /// 1-based.
    pub line: u32,
    /// 0-based, in characters: where the first match on the line starts.
    pub column: u32,
    /// The line without its line ending (long lines cut, marked `…`).
    pub text: String,
    /// The innermost symbol whose declaration holds the match, if any.
    pub symbol: Option<Enclosing>,
    /// Context: the lines right before the match (the last one is `line - 1`) and
    /// right after it, each line of a file given once across its hits.
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// A file with matching lines (`files_only`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMatches {
    pub path: String,
    pub lines: u32,
}

/// What a text search looked through.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Searched {
    /// Files searched (every indexed file under the path the globs let through).
    pub files: u32,
    /// Files there that were not searched: binary, or over `index.max_file_bytes`.
    pub binary: u32,
    pub oversized: u32,
    /// Of `files`, those read: the ones the text index could not rule out (all of
    /// them where it could not be trusted), and their bytes.
    pub read: u32,
    pub bytes_read: u64,
    /// Files the text index left that were not read: the files before them in the
    /// answer's order already filled it. When not 0, `total` and `files` count only
    /// what was read (there are at least that many).
    pub unread: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchTextResponse {
    /// The focused and recently focused files first (the editor signal), then by
    /// path and line.
    pub hits: Vec<TextHit>,
    /// With `files_only`: the files with a match (in the same order), not `hits`.
    pub matching_files: Vec<FileMatches>,
    /// Matching lines in all files searched.
    pub total: u32,
    /// Files with a match.
    pub files: u32,
    pub truncated: bool,
    pub searched: Searched,
}

/// What `read` answers for each file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadMode {
    /// Every line, numbered.
    #[default]
    Full,
    /// The lines `start_line..=end_line`, numbered.
    Lines,
    /// One symbol's declaration (by `name_path`), numbered.
    Symbol,
    /// The declarations' heads only, with their lines and hashes.
    Signatures,
    /// The file's structure: every symbol with its line range and hash.
    Map,
    /// What changed since this session last read the file.
    Diff,
}

impl ReadMode {
    pub const ALL: [ReadMode; 6] = [
        ReadMode::Full,
        ReadMode::Lines,
        ReadMode::Symbol,
        ReadMode::Signatures,
        ReadMode::Map,
        ReadMode::Diff,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReadMode::Full => "full",
            ReadMode::Lines => "lines",
            ReadMode::Symbol => "symbol",
            ReadMode::Signatures => "signatures",
            ReadMode::Map => "map",
            ReadMode::Diff => "diff",
        }
    }
}

/// An agent session the daemon remembers reads for (one `lean-ctx mcp` process, or
/// an id the CLI is given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSession {
    pub id: String,
    /// Forget it when the connection that named it closes (an MCP server's one
    /// connection); `false`: only when idle or evicted (the CLI connects per call).
    pub ends_with_connection: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadRequest {
    pub root: PathBuf,
    /// One or more files, relative to the root (or absolute inside it); none with
    /// `mode=symbol`: the one file of the project holding `name_path`.
    pub paths: Vec<String>,
    pub mode: ReadMode,
    /// `lines`: 1-based, inclusive; `end_line` defaults to the last line.
    pub start_line: Option<u32>,
    pub end_line: Option<u32>,
    /// `symbol`: which one.
    pub name_path: Option<String>,
    /// Send the content even if this session has it already.
    pub fresh: bool,
    pub session: Option<ReadSession>,
    /// How long a symbol read without a path waits for the first index.
    pub wait_ms: u32,
}

/// One declaration of a `map` or `signatures` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolDigest {
    pub kind: SymbolKind,
    pub name_path: String,
    pub range: Range,
    pub signature: String,
    /// BLAKE3 hex of the symbol's bytes: the `expected_hash` of an edit of it.
    pub hash: String,
    /// 0: top level.
    pub depth: u32,
}

/// What one file's read holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadContent {
    /// The lines `start_line..=end_line` (without their line endings).
    Lines {
        start_line: u32,
        end_line: u32,
        lines: Vec<String>,
        /// `symbol`: the symbol's name path.
        name_path: Option<String>,
        /// The first line left out because the answer reached its cap (the daemon's
        /// `answers.max_bytes`): the `start_line` that continues the read.
        more: Option<u32>,
    },
    /// `map` and `signatures`.
    Symbols {
        symbols: Vec<SymbolDigest>,
        /// Symbols in the file (more than listed when cut off).
        total: u32,
    },
    /// This session was given exactly this already, as its read number `since`.
    Unchanged { since: u32 },
    /// A unified diff from what this session was given as its read number `since`
    /// to what the file holds now (`hash`).
    Diff { since: u32, diff: String },
    /// This file could not be read; the others still answer.
    Failed(LeanError),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRead {
    /// Root-relative (as asked, when it could not be resolved).
    pub path: String,
    pub mode: ReadMode,
    /// BLAKE3 hex of the bytes this read covers: the whole file (`full`, `map`,
    /// `signatures`, `diff`; a reformat's `expected_hash`), the lines (`lines`) or
    /// the symbol (`symbol`): the `expected_hash` of an edit of exactly that.
    pub hash: String,
    /// Lines in the file.
    pub total_lines: u32,
    /// This session's number for this read (`None` without a session).
    pub read: Option<u32>,
    pub content: ReadContent,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadResponse {
    pub files: Vec<FileRead>,
    /// Files past what one answer holds were left out (listed as failed).
    pub truncated: bool,
}
