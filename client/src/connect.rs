//! Reaching the daemon: connect, and if nobody answers, spawn exactly one.
//!
//! The spawn race (sccache, gopls, watchman): connect → take `spawn-<schema>.lock` → connect
//! again (another shim may have won) → remove the socket only if it is a socket that
//! refuses connections → spawn `lean-ctxd --auto-spawned` detached (its own session,
//! output to a file) → wait for its `READY` line, at most [`READY_TIMEOUT`].
//!
//! Each wire schema has its own daemon and socket (`shared::daemons`, `Paths::socket`):
//! a shim only ever connects to, and spawns, the daemon of its own schema, so after an
//! upgrade a new session never waits on the old build's daemon. Version skew within
//! one schema is settled by the hello (equal schemas talk whatever their versions); a
//! daemon stepping down is waited for and succeeded. Builds that truly
//! cannot talk (a socket or unit pointing this shim at another schema's daemon, or a
//! lean-ctxd of another build installed beside it) are `BACKEND_REQUIRED`, naming
//! both builds and saying to restart the agent session.
//!
//! The spawned daemon gets the root the call is about on its stdin (an older build
//! ignores it) and answers `READY <pid> <schema>`, or `RUNNING <pid> <schema>` when one
//! of its schema was already there. The hello's intent is `Call`: a daemon of another
//! build is reported, never replaced.

use std::{
    fs::{self, OpenOptions},
    io,
    os::unix::{
        ffi::OsStrExt,
        fs::{FileTypeExt, OpenOptionsExt},
    },
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    ErrorCode, LeanError, Paths,
    hello::{ClientHello, Intent, Outcome, RefuseReason, ServerHello},
    process::pid_alive,
    protocol::SCHEMA,
    transport::{self, ConnectError, Connection},
};
use rustix::fs::{FlockOperation, flock};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Longest wait for a spawned daemon's readiness line.
pub const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest wait for the hello answer of a running daemon.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// Exit code of `lean-ctxd` when another daemon holds its lock.
const DAEMON_ALREADY_RUNNING: i32 = 3;

/// Connects to a running daemon without spawning one. `Ok(None)`: nobody is listening.
pub async fn connect_running(paths: &Paths, client: &str) -> Result<Option<Connection>, LeanError> {
    match transport::connect(
        &paths.socket(),
        &ClientHello::new(Intent::Call, client),
        HELLO_TIMEOUT,
    )
    .await
    {
        Ok(conn) => Ok(Some(conn)),
        Err(ConnectError::NotRunning(_)) => Ok(None),
        Err(ConnectError::NotAccepted(server)) => Err(refused(&server)),
        Err(e) => Err(connect_failed(paths, e)),
    }
}

/// Connects, spawning a daemon of this build's schema if none runs.
///
/// The hello's intent is `Call`, never `CallOrReplace`: the socket is this schema's,
/// so a daemon of another schema found there was put there on purpose (a service unit
/// or an activation socket pointing at another build); replacing it would fight
/// whatever started it, so it is reported instead (`refused`).
///
/// `root` is the root the caller is about to ask about, if it knows: a daemon spawned
/// here is told it on stdin and checks it while this shim connects.
pub async fn connect_or_spawn(
    paths: &Paths,
    client: &str,
    root: Option<&Path>,
) -> Result<Connection, LeanError> {
    let hello = ClientHello::new(Intent::Call, client);
    if let Some(conn) = try_connect(paths, &hello).await? {
        return Ok(conn);
    }
    paths.ensure_runtime_dir().map_err(paths_error)?;
    let _spawn_lock = SpawnLock::acquire(paths).await?;
    // Another shim may have spawned one while we waited for the lock.
    if let Some(conn) = try_connect(paths, &hello).await? {
        return Ok(conn);
    }
    remove_dead_socket(&paths.socket())?;
    spawn_daemon(paths, root).await?;
    match try_connect(paths, &hello).await? {
        Some(conn) => Ok(conn),
        None => Err(LeanError::internal(format!(
            "lean-ctxd reported ready but {} refuses connections",
            paths.socket().display()
        ))
        .with_remedy(debug_hint(paths))),
    }
}

/// One connection attempt; `Ok(None)` means "nobody is serving: spawn one". A
/// connection dropped before the hello (a daemon dying as we connected) is tried again
/// a moment later, a few times, until its socket refuses connections.
async fn try_connect(paths: &Paths, hello: &ClientHello) -> Result<Option<Connection>, LeanError> {
    let mut tries = 0;
    let attempt = loop {
        match connect_once(paths, hello).await {
            Err(e) if e.peer_vanished() && tries < 5 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => break other,
        }
    };
    attempt.or_else(|e| match e {
        ConnectError::NotRunning(_) => Ok(None),
        ConnectError::NotAccepted(server) => Err(refused(&server)),
        e => Err(connect_failed(paths, e)),
    })
}

async fn connect_once(
    paths: &Paths,
    hello: &ClientHello,
) -> Result<Option<Connection>, ConnectError> {
    match transport::connect(&paths.socket(), hello, HELLO_TIMEOUT).await {
        Ok(conn) => Ok(Some(conn)),
        Err(ConnectError::NotAccepted(server)) => match &server.outcome {
            Outcome::ShuttingDown { message } => {
                // It is stepping down (replaced, or stopping anyway): once it is gone,
                // the caller spawns our build. Said on stderr: the wait can take up to
                // the old daemon's drain (30 s), and a person should know why.
                eprintln!(
                    "lean-ctx: lean-ctxd (pid {}) is stepping down ({message}); waiting for it to exit",
                    server.pid
                );
                wait_for_exit(server.pid, Duration::from_secs(35)).await;
                Ok(None)
            }
            _ => Err(ConnectError::NotAccepted(server)),
        },
        Err(e) => Err(e),
    }
}

/// The daemon binary this shim would start is of another wire schema: only a new agent
/// session, running the lean-ctx installed with it, can use it.
fn other_build_installed(bin: &Path, schema: &str) -> LeanError {
    LeanError::new(
        ErrorCode::BackendRequired,
        format!(
            "{} is lean-ctxd of another build (wire schema {schema}) than this lean-ctx (build {}): lean-ctx was upgraded while this session ran, and the two builds cannot talk",
            bin.display(),
            lean_ctx_shared::protocol::build_id()
        ),
    )
    .with_remedy(UPGRADED_REMEDY)
}

/// [`UPGRADED_REMEDY`], and for a session that already runs the installed build, how
/// to replace a daemon of another build found at its socket.
const REFUSED_REMEDY: &str = "restart this agent session so it runs the lean-ctx installed now; if it already does, `lean-ctx daemon restart` replaces the daemon of another build found at this build's socket";

/// What to do when the lean-ctxd beside this shim is of another build: only a new
/// session of the installed build can use it; no daemon restart would help.
const UPGRADED_REMEDY: &str = "restart this agent session so it runs the lean-ctx installed now (a session of the old build keeps working only while the old build's daemon runs)";

/// Turns a refused hello into a catalog error that says what to do. Builds that cannot
/// talk are `BACKEND_REQUIRED` naming both builds (the session needs a daemon of its
/// own build: nothing in a log would help); a daemon at its connection cap is a
/// passing condition, `INTERNAL` with what to wait for.
pub fn refused(server: &ServerHello) -> LeanError {
    let message = match &server.outcome {
        Outcome::Refused { message, .. } | Outcome::ShuttingDown { message } => message.clone(),
        Outcome::Accepted => "accepted".into(),
    };
    let said = format!(
        "lean-ctxd (pid {}) refused this client: {message}",
        server.pid
    );
    match &server.outcome {
        Outcome::Refused {
            reason: RefuseReason::TooManyConnections,
            ..
        } => LeanError::internal(said).with_remedy(
            "retry once other sessions have ended (idle ones are closed after daemon.connection_idle_timeout), or raise daemon.max_connections in config.toml",
        ),
        _ => LeanError::new(
            ErrorCode::BackendRequired,
            format!(
                "{said} (the daemon is lean-ctx {} build {}, this client lean-ctx {} build {})",
                server.version,
                server.build,
                lean_ctx_shared::protocol::VERSION,
                lean_ctx_shared::protocol::build_id()
            ),
        )
        .with_remedy(REFUSED_REMEDY),
    }
}

pub fn connect_failed(paths: &Paths, e: ConnectError) -> LeanError {
    if let ConnectError::UntrustedDir { .. } | ConnectError::ForeignPeer { .. } = e {
        // Not ours to remove (another user may own it): point away from it.
        return LeanError::new(ErrorCode::Unauthorized, format!("{e}; nothing was sent"))
            .with_remedy(format!(
                "set XDG_RUNTIME_DIR or LEAN_CTX_RUNTIME_DIR to a private directory you own; {} is not yours alone (its owner or an administrator can remove it)",
                paths.runtime_dir.display()
            ));
    }
    LeanError::internal(format!(
        "cannot talk to lean-ctxd at {}: {e}",
        paths.socket().display()
    ))
    .with_remedy(debug_hint(paths))
}

pub fn paths_error(e: lean_ctx_shared::paths::PathsError) -> LeanError {
    LeanError::internal(e.to_string())
        .with_remedy("set LEAN_CTX_RUNTIME_DIR to a private directory you own")
}

/// How to find out more when the daemon misbehaves.
pub fn debug_hint(paths: &Paths) -> String {
    format!(
        "see `lean-ctx daemon logs` ({}) and {}; run `LEAN_CTX_LOG=debug lean-ctxd --foreground` to watch it start",
        paths.log_file().display(),
        paths.spawn_output().display()
    )
}

/// `flock` on `spawn-<schema>.lock`, held while this shim spawns; released on drop.
struct SpawnLock {
    _file: fs::File,
}

impl SpawnLock {
    async fn acquire(paths: &Paths) -> Result<SpawnLock, LeanError> {
        let path = paths.spawn_lock();
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| io_error(&path, e))?;
        // Waiting shims poll: flock has no async form, and a blocking thread per shim
        // would outlive a timeout.
        let deadline = Instant::now() + READY_TIMEOUT + Duration::from_secs(5);
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(SpawnLock { _file: file }),
                Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(e) => {
                    return Err(LeanError::internal(format!(
                        "cannot take {}: {e}",
                        path.display()
                    ))
                    .with_remedy("another lean-ctx is stuck spawning the daemon; `lean-ctx daemon status` tells more"));
                }
            }
        }
    }
}

/// Removes `socket` only if it is a socket nobody accepts on: never a regular file,
/// never a live daemon's socket.
fn remove_dead_socket(socket: &Path) -> Result<(), LeanError> {
    let Ok(meta) = fs::symlink_metadata(socket) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        return Ok(());
    }
    match std::os::unix::net::UnixStream::connect(socket) {
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            fs::remove_file(socket).or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(io_error(socket, e))
                }
            })
        }
        _ => Ok(()),
    }
}

/// Spawns `lean-ctxd --auto-spawned`, writes `root` (if any) on its stdin and closes
/// it, and waits for `READY <pid>` on its stdout. On stdin, not as an argument: a
/// daemon of an older build ignores its stdin, where it would refuse an argument it
/// does not know.
async fn spawn_daemon(paths: &Paths, root: Option<&Path>) -> Result<(), LeanError> {
    let bin = daemon_binary()?;
    Paths::ensure_dir(&paths.state_dir).map_err(paths_error)?;
    let out_path = paths.spawn_output();
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&out_path)
        .map_err(|e| io_error(&out_path, e))?;
    let mut child = tokio::process::Command::new(&bin)
        .arg("--auto-spawned")
        // It serves every session after this one: none of this shell's project
        // environment goes with it.
        .env_clear()
        .envs(lean_ctx_shared::tool_env::for_daemon(std::env::vars_os()))
        .stdin(if root.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(out)
        .spawn()
        .map_err(|e| {
            LeanError::internal(format!("cannot start {}: {e}", bin.display())).with_remedy(
                "install lean-ctxd next to lean-ctx or on PATH, or set LEAN_CTX_DAEMON_BIN",
            )
        })?;
    if let (Some(mut stdin), Some(root)) = (child.stdin.take(), root) {
        // A daemon that exited already is reported below, by its stdout.
        let _ = stdin.write_all(root.as_os_str().as_bytes()).await;
    }
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut line = String::new();
    let read =
        tokio::time::timeout(READY_TIMEOUT, BufReader::new(stdout).read_line(&mut line)).await;
    match read {
        // `READY <pid> <schema>`, or `RUNNING <pid> <schema>` from one that found a
        // daemon of its schema running: a schema not ours means the lean-ctxd beside us
        // is of another build, the installation changed under this running session
        // (`cargo install` of an upgrade). It serves its own schema's socket, never ours.
        Ok(Ok(_)) if line.split_whitespace().nth(2).is_some_and(|s| s != SCHEMA) => Err(
            other_build_installed(&bin, line.split_whitespace().nth(2).unwrap_or_default()),
        ),
        Ok(Ok(_)) if line.starts_with("READY ") => Ok(()),
        Ok(_) => {
            // stdout closed without READY: the daemon exited.
            let status = child.wait().await.ok();
            if status.and_then(|s| s.code()) == Some(DAEMON_ALREADY_RUNNING) {
                return Ok(());
            }
            Err(LeanError::internal(format!(
                "lean-ctxd exited before it was ready ({}){}",
                status
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "unknown status".into()),
                tail(&out_path)
            ))
            .with_remedy(debug_hint(paths)))
        }
        Err(_) => Err(LeanError::internal(format!(
            "lean-ctxd (pid {}) did not become ready within {READY_TIMEOUT:?}{}",
            child.id().unwrap_or(0),
            tail(&out_path)
        ))
        .with_remedy(debug_hint(paths))),
    }
    // Dropping `child` neither kills nor blocks; tokio reaps it if it ever exits
    // while we still run.
}

/// The last lines of the spawn output, for error messages.
fn tail(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let last = &lines[lines.len().saturating_sub(8)..];
    if last.is_empty() {
        String::new()
    } else {
        format!("; its last output:\n  {}", last.join("\n  "))
    }
}

/// `LEAN_CTX_DAEMON_BIN`, else `lean-ctxd` next to this executable, else on `PATH`.
/// The sibling is taken as it is: whoever can replace it replaced this shim too. The
/// others only if the user chose them (`paths::not_the_users_own`): a binary another
/// user owns or may write, or one inside a git worktree (a `.envrc` that set the
/// variable or put a repository's `bin/` on `PATH`), would run as us with every
/// request. The variable's refusal is said on stderr; naming the sibling itself (as
/// the test kit does, from a checkout) is no choice to judge.
pub fn daemon_binary() -> Result<PathBuf, LeanError> {
    use lean_ctx_shared::paths::not_the_users_own;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let chosen = |bin: &Path| not_the_users_own(bin, home.as_deref());
    let sibling = std::env::current_exe()
        .ok()
        .map(|me| me.with_file_name("lean-ctxd"))
        .filter(|s| s.is_file());
    if let Some(bin) = std::env::var_os("LEAN_CTX_DAEMON_BIN").filter(|b| !b.is_empty()) {
        let bin = PathBuf::from(bin);
        let same = |a: &Path, b: &Path| fs::canonicalize(a).ok() == fs::canonicalize(b).ok();
        if sibling.as_deref().is_some_and(|s| same(s, &bin)) {
            return Ok(bin);
        }
        match chosen(&bin) {
            None => return Ok(bin),
            Some(why) => eprintln!(
                "lean-ctx: LEAN_CTX_DAEMON_BIN={} is ignored: {why}",
                bin.display()
            ),
        }
    }
    if let Some(sibling) = sibling {
        return Ok(sibling);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("lean-ctxd"))
        .find(|p| p.is_file() && chosen(p).is_none())
        .ok_or_else(|| {
            LeanError::internal("lean-ctxd not found next to lean-ctx or on PATH")
                .with_remedy("install lean-ctxd beside lean-ctx, or set LEAN_CTX_DAEMON_BIN")
        })
}

/// Polls until `pid` is gone or `limit` passes; `true` if it is gone.
pub async fn wait_for_exit(pid: u32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while pid_alive(pid) {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

fn io_error(path: &Path, e: io::Error) -> LeanError {
    LeanError::new(ErrorCode::Internal, format!("{}: {e}", path.display()))
}
