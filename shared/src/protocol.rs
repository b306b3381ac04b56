//! The tarpc service and its request/response pairs: the only things that cross the
//! daemon socket after the hello (DESIGN invariant 1).
//!
//! Every operation takes one `*Request` and answers `Result<*Response, LeanError>`, so
//! a catalog error is an answer, never a transport failure.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{LeanError, Range};

/// Bumped on any intentional wire change; the schema fingerprint catches the rest.
pub const PROTOCOL_VERSION: u32 = 1;

/// BLAKE3 (first 16 hex) of this crate's sources, computed by `build.rs`: two builds
/// speak tarpc to each other only if this matches, because bincode is not
/// self-describing.
pub const SCHEMA: &str = env!("LEAN_CTX_SCHEMA");

/// The package version of this build.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Identifies this build in hellos, status and the log's first line.
pub fn build_id() -> String {
    format!("{VERSION}+{SCHEMA}")
}

/// Longest artificial delay a `ping` may ask for.
pub const MAX_PING_DELAY_MS: u32 = 60_000;

#[tarpc::service]
pub trait LeanCtx {
    /// A round trip; `delay_ms` holds the call in flight (diagnostics, shutdown tests).
    async fn ping(req: PingRequest) -> Result<PingResponse, LeanError>;
    /// Everything the daemon knows about itself and its projects.
    async fn status(req: StatusRequest) -> Result<StatusResponse, LeanError>;
    /// Registers a project root (so later work can warm it) and describes it.
    async fn open_project(req: OpenProjectRequest) -> Result<ProjectStatus, LeanError>;
    /// Graceful stop: stop accepting, finish in-flight calls, remove the socket.
    async fn shutdown(req: ShutdownRequest) -> Result<ShutdownResponse, LeanError>;
    /// The symbols of one file (spec §2.2), from the headless index.
    async fn symbols_overview(
        req: SymbolsOverviewRequest,
    ) -> Result<SymbolsOverviewResponse, LeanError>;
    /// The symbols of a file or of every indexed file under a directory.
    async fn outline(req: OutlineRequest) -> Result<OutlineResponse, LeanError>;
    /// Symbols across the project by name, qualified name or substring.
    async fn search_symbol(req: SearchSymbolRequest) -> Result<SearchSymbolResponse, LeanError>;
    /// `replace_symbol_body`, `insert_before_symbol`, `insert_after_symbol` (spec §2.4).
    async fn edit_symbol(req: EditRequest) -> Result<EditResponse, LeanError>;
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
    /// Files of a supported language found by the walk.
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
    /// The declaration itself; attributes, decorators and doc comments above it lie
    /// outside, so a replace keeps them.
    pub range: Range,
    pub name_range: Range,
    /// The declaration's head on one line, e.g. `pub fn run(&self) -> Result<()>`.
    pub signature: String,
    pub children: Vec<SymbolInfo>,
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
    pub wait_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolHit {
    pub path: String,
    pub name: String,
    pub kind: SymbolKind,
    pub name_path: String,
    pub range: Range,
    pub signature: String,
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
}

impl EditAction {
    pub fn as_str(self) -> &'static str {
        match self {
            EditAction::ReplaceSymbolBody => "replace_symbol_body",
            EditAction::InsertBeforeSymbol => "insert_before_symbol",
            EditAction::InsertAfterSymbol => "insert_after_symbol",
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
    /// whole lines `line..=end_line`.
    Lines {
        path: String,
        line: u32,
        end_line: Option<u32>,
    },
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
}
