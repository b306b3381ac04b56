//! The tarpc service and its request/response pairs: the only things that cross the
//! daemon socket after the hello (DESIGN invariant 1).
//!
//! Every operation takes one `*Request` and answers `Result<*Response, LeanError>`, so
//! a catalog error is an answer, never a transport failure.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::LeanError;

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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStatus {
    pub files_indexed: u64,
    pub cache_entries: u64,
    pub cache_bytes: u64,
    pub cache_hits: u64,
    pub cache_misses: u64,
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
