//! `lean-ctx daemon start|stop|restart|status|logs|ping`.
//!
//! Each build (wire schema) has its own daemon (`shared::daemons`): these commands act
//! on the daemon of this build, and `status` and `stop` list the others, which are
//! left to their sessions.
//!
//! `status` and `stop` never spawn a daemon, and both work on a wedged one: status
//! answers within [`STATUS_TIMEOUT`] whatever happens, and stop escalates from the
//! shutdown call to SIGTERM to SIGKILL, using the pid recorded in the lock file.

use std::{
    io::{Read, Seek, SeekFrom, Write},
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::Subcommand;
use lean_ctx_shared::{
    ErrorCode, LeanError, Paths,
    daemons::{self, Record},
    hello::{ClientHello, Intent},
    index_store,
    process::pid_alive,
    protocol::{PingRequest, SCHEMA, ShutdownRequest, StatusRequest, build_id},
    transport::{self, ConnectError},
};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

use crate::{
    connect::{self, wait_for_exit},
    output::{Output, render_other_builds, rpc_error},
};

/// `daemon status` answers within this, even when the daemon is wedged.
pub const STATUS_TIMEOUT: Duration = Duration::from_secs(2);

/// How long `stop` lets in-flight calls finish (the daemon's own drain cap is 30 s).
const STOP_GRACE: Duration = Duration::from_secs(35);

#[derive(Debug, Subcommand)]
pub enum DaemonCommand {
    /// Start the daemon if it is not running.
    Start {
        /// Run lean-ctxd attached to this terminal instead (what service units do).
        #[arg(long)]
        foreground: bool,
    },
    /// Stop this build's daemon gracefully (in-flight calls finish); a wedged one is
    /// killed. Daemons of other builds are left to their sessions.
    Stop,
    /// Stop this build's daemon, then start it.
    Restart,
    /// Show pid, version, uptime, socket, how it was started, memory, clients and
    /// projects, and the daemons of other builds still running.
    Status,
    /// Remove the persisted symbol index (`<state dir>/index`); a running daemon
    /// starts a new one, the next first index refills it.
    ClearCache,
    /// Show the daemon's log.
    Logs {
        /// Number of trailing lines.
        #[arg(short = 'n', long, default_value_t = 50)]
        lines: usize,
        /// Keep printing new lines as they are written.
        #[arg(short, long)]
        follow: bool,
        /// Print only the log file's path.
        #[arg(long)]
        path: bool,
    },
    /// Run the daemon as a background service (systemd socket activation or launchd).
    Install(crate::install::ServiceArgs),
    /// Remove what `install` wrote, stopping the service.
    Uninstall(crate::install::ServiceArgs),
    /// Measure round trips to the daemon (starting it if needed).
    Ping {
        #[arg(long, default_value_t = 1)]
        count: u32,
        /// Hold each call in the daemon this long (diagnostics).
        #[arg(long, default_value_t = 0)]
        delay_ms: u32,
    },
}

pub async fn run(cmd: DaemonCommand, paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    match cmd {
        DaemonCommand::Start { foreground: true } => exec_foreground(),
        DaemonCommand::Start { foreground: false } => start(paths, out).await,
        DaemonCommand::Stop => stop(paths, out).await,
        DaemonCommand::Restart => {
            stop(
                paths,
                &Output {
                    json: false,
                    quiet: true,
                },
            )
            .await?;
            start(paths, out).await
        }
        DaemonCommand::Status => status(paths, out).await,
        DaemonCommand::ClearCache => clear_cache(paths, out),
        DaemonCommand::Logs {
            lines,
            follow,
            path,
        } => logs(paths, out, lines, follow, path),
        DaemonCommand::Ping { count, delay_ms } => ping(paths, out, count, delay_ms).await,
        DaemonCommand::Install(args) => crate::install::install(args, paths, out).await,
        DaemonCommand::Uninstall(args) => crate::install::uninstall(args, out).await,
    }
}

/// Removes every build's index store: no daemon needed. A running one holds its file
/// open, notices it gone on its next write or status, and starts a new, empty one.
/// Only what lean-ctx wrote goes (`shared::index_store`): stores' directories by
/// their names, and in them only a store's files; anything else is kept and named.
///
/// Each store's directory is renamed away first (unless it holds what lean-ctx did
/// not write, which a rename would move) and emptied under its new name. A
/// running daemon's writer makes a new store by name the moment it finds its file
/// gone, so emptying in place could meet a directory refilled between the listing
/// and the `rmdir` (`ENOTEMPTY`, seen in CI). After the rename the writer's new store
/// goes into a new directory; what it still writes through a descriptor it opened
/// before lands in the renamed one, which is emptied again until it is empty.
/// Leftovers of an interrupted clear are swept with it.
fn clear_cache(paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let dir = paths.index_store_dir();
    let cant = |what: &std::path::Path, e: std::io::Error| {
        LeanError::internal(format!("cannot remove {}: {e}", what.display()))
            .with_remedy(format!("remove {} by hand", what.display()))
    };
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) => {
            if let Some(reason) = lean_ctx_shared::paths::not_private(&meta) {
                return Err(LeanError::new(
                    ErrorCode::Unauthorized,
                    format!("not clearing {}: it is {reason}", dir.display()),
                )
                .with_remedy("set LEAN_CTX_STATE_DIR to a private directory you own"));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(cant(&dir, e)),
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let stamp = format!("{}{}-{nanos}", index_store::CLEARED, std::process::id());
    let stores = |is: fn(&str) -> bool| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| e.file_name().to_str().is_some_and(is))
            .map(|e| e.path())
            .collect()
    };
    let (mut freed, mut kept) = (0, Vec::new());
    for store in stores(index_store::is_build_dir) {
        let only_ours = std::fs::read_dir(&store)
            .map_err(|e| cant(&store, e))?
            .flatten()
            .all(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(index_store::is_store_file)
            });
        if only_ours {
            let mut away = store.clone().into_os_string();
            away.push(&stamp);
            std::fs::rename(&store, away).map_err(|e| cant(&store, e))?;
        } else {
            // Renamed, what is not ours would move: emptied of ours where it is.
            let removed = index_store::remove_build_dir(&store).map_err(|e| cant(&store, e))?;
            freed += removed.freed;
            kept.extend(removed.kept);
        }
    }
    for cleared in stores(index_store::is_cleared_dir) {
        let removed = index_store::remove_build_dir(&cleared).map_err(|e| cant(&cleared, e))?;
        freed += removed.freed;
        kept.extend(removed.kept);
    }
    out.emit(
        &json!({"removed": dir, "freed_bytes": freed, "kept": kept}),
        || {
            let mut text = format!(
                "removed the index stores in {} ({} KiB)",
                dir.display(),
                freed / 1024
            );
            if !kept.is_empty() {
                let names: Vec<_> = kept.iter().map(|p| p.display().to_string()).collect();
                text.push_str(&format!(
                    "; kept what lean-ctx did not write: {}",
                    names.join(", ")
                ));
            }
            text
        },
    );
    Ok(ExitCode::SUCCESS)
}

fn exec_foreground() -> Result<ExitCode, LeanError> {
    use std::os::unix::process::CommandExt;
    let bin = connect::daemon_binary()?;
    let err = std::process::Command::new(&bin).arg("--foreground").exec();
    Err(LeanError::internal(format!(
        "cannot run {}: {err}",
        bin.display()
    )))
}

async fn start(paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let was_running = connect::connect_running(paths, "lean-ctx daemon start")
        .await
        .ok()
        .flatten()
        .is_some();
    let conn = connect::connect_or_spawn(paths, "lean-ctx daemon start", None).await?;
    let pid = conn.server.pid;
    out.emit(
        &json!({"pid": pid, "started": !was_running, "socket": paths.socket()}),
        || {
            if was_running {
                format!(
                    "lean-ctxd of build {} already running, pid {pid}",
                    build_id()
                )
            } else {
                format!(
                    "lean-ctxd of build {} started, pid {pid}, socket {}",
                    build_id(),
                    paths.socket().display()
                )
            }
        },
    );
    Ok(ExitCode::SUCCESS)
}

/// How a stop went.
enum Stopped {
    NotRunning,
    Graceful(u32),
    Killed(u32, &'static str),
}

async fn stop(paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let recorded = paths.daemon_pid();
    let asked = tokio::time::timeout(STATUS_TIMEOUT, request_shutdown(paths)).await;
    let stopped = match asked {
        Ok(Ok(None)) if recorded.is_none_or(|p| !pid_alive(p)) => Stopped::NotRunning,
        Ok(Ok(Some(pid))) if wait_for_exit(pid, STOP_GRACE).await => Stopped::Graceful(pid),
        // Asked but still there, not answering, or holding the lock without a socket.
        Ok(Ok(pid)) => escalate(pid.or(recorded), paths).await?,
        // Not ours: neither its hello's pid nor its lock file's may name what we kill.
        Ok(Err(e)) if e.code == ErrorCode::Unauthorized => return Err(e),
        Ok(Err(_)) | Err(_) => escalate(recorded, paths).await?,
    };
    // Only this build's daemon (the one at this build's socket): the other builds'
    // serve their own sessions, and a superseded one exits once they end.
    let what = format!(
        "lean-ctxd of build {} (socket {})",
        build_id(),
        paths.socket().display()
    );
    let others = other_builds(paths);
    let (mut value, text) = match stopped {
        Stopped::NotRunning => (
            json!({"stopped": false, "running": false}),
            format!("{what} is not running"),
        ),
        Stopped::Graceful(pid) => (
            json!({"stopped": true, "pid": pid, "how": "shutdown"}),
            format!("{what} stopped (pid {pid})"),
        ),
        Stopped::Killed(pid, how) => (
            json!({"stopped": true, "pid": pid, "how": how}),
            format!("{what} (pid {pid}) did not stop when asked; ended it with {how}"),
        ),
    };
    value["build"] = build_id().into();
    value["socket"] = json!(paths.socket());
    value["other_builds"] = json!(others);
    let left = if others.is_empty() {
        String::new()
    } else {
        format!(
            "\nleft running (other builds, each exits once its sessions end): {}",
            others
                .iter()
                .map(|r| format!("pid {} build {}", r.pid, r.build))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    out.emit(&value, || format!("{text}{left}"));
    Ok(ExitCode::SUCCESS)
}

/// Asks for a graceful stop: the `shutdown` call when the builds match, the hello's
/// shutdown intent when they do not (that works across every build). Returns the pid.
async fn request_shutdown(paths: &Paths) -> Result<Option<u32>, LeanError> {
    match connect::connect_running(paths, "lean-ctx daemon stop").await {
        Ok(None) => Ok(None),
        Ok(Some(conn)) => {
            conn.client
                .shutdown(
                    tarpc::context::current(),
                    ShutdownRequest {
                        reason: "lean-ctx daemon stop".into(),
                    },
                )
                .await
                .map_err(rpc_error)??;
            Ok(Some(conn.server.pid))
        }
        Err(_) => {
            let hello = ClientHello::new(Intent::Shutdown, "lean-ctx daemon stop");
            match transport::handshake(&paths.socket(), &hello, Duration::from_secs(5)).await {
                Ok((_, server)) => Ok(Some(server.pid)),
                Err(ConnectError::NotRunning(_)) => Ok(None),
                Err(e) => Err(connect::connect_failed(paths, e)),
            }
        }
    }
}

/// SIGTERM, then SIGKILL: for a daemon that does not answer or does not exit.
async fn escalate(pid: Option<u32>, paths: &Paths) -> Result<Stopped, LeanError> {
    let Some(pid) = pid.filter(|p| pid_alive(*p)) else {
        return Ok(Stopped::NotRunning);
    };
    let target = Pid::from_raw(pid as i32).expect("live pid is positive");
    let _ = kill_process(target, Signal::TERM);
    if wait_for_exit(pid, Duration::from_secs(3)).await {
        return Ok(Stopped::Killed(pid, "SIGTERM"));
    }
    let _ = kill_process(target, Signal::KILL);
    if wait_for_exit(pid, Duration::from_secs(5)).await {
        return Ok(Stopped::Killed(pid, "SIGKILL"));
    }
    Err(
        LeanError::internal(format!("lean-ctxd (pid {pid}) survived SIGKILL"))
            .with_remedy(connect::debug_hint(paths)),
    )
}

async fn status(paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let others = other_builds(paths);
    let ask = async {
        let Some(conn) = connect::connect_running(paths, "lean-ctx daemon status").await? else {
            return Ok(None);
        };
        let mut ctx = tarpc::context::current();
        ctx.deadline = Instant::now() + STATUS_TIMEOUT;
        let st = conn
            .client
            .status(ctx, StatusRequest {})
            .await
            .map_err(rpc_error)??;
        Ok::<_, LeanError>(Some(st))
    };
    match tokio::time::timeout(STATUS_TIMEOUT, ask).await {
        Ok(Ok(Some(st))) => {
            out.status(&st, &others);
            Ok(ExitCode::SUCCESS)
        }
        Ok(Ok(None)) => {
            out.emit(
                &json!({"running": false, "socket": paths.socket(), "build": build_id(),
                        "other_builds": others}),
                || {
                    format!(
                        "lean-ctxd of this build ({}) is not running (socket {}){}",
                        build_id(),
                        paths.socket().display(),
                        render_other_builds(&others)
                    )
                },
            );
            // `systemctl status` convention: 3 = not running.
            Ok(ExitCode::from(3))
        }
        Ok(Err(e)) => Err(e),
        Err(_) => {
            let pid = paths.daemon_pid();
            out.emit(
                &json!({"running": pid.is_some(), "responsive": false, "pid": pid,
                        "socket": paths.socket(), "log_file": paths.log_file(),
                        "other_builds": others}),
                || {
                    format!(
                        "lean-ctxd (pid {}) did not answer within {STATUS_TIMEOUT:?}: it is wedged or overloaded.\n  \
                         see `lean-ctx daemon logs`; `lean-ctx daemon restart` replaces it{}",
                        pid.map(|p| p.to_string()).unwrap_or_else(|| "unknown".into()),
                        render_other_builds(&others)
                    )
                },
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The live daemons of other builds (other wire schemas), from their records: each
/// serves the sessions of its own build, and `stop`/`restart` leave them alone.
fn other_builds(paths: &Paths) -> Vec<Record> {
    daemons::list(&paths.runtime_dir)
        .into_iter()
        .filter(|r| r.schema != SCHEMA)
        .collect()
}

fn logs(
    paths: &Paths,
    out: &Output,
    lines: usize,
    follow: bool,
    path_only: bool,
) -> Result<ExitCode, LeanError> {
    let path = paths.log_file();
    if path_only {
        out.emit(&json!({"path": path}), || path.display().to_string());
        return Ok(ExitCode::SUCCESS);
    }
    let mut file = std::fs::File::open(&path).map_err(|e| {
        LeanError::internal(format!("cannot read {}: {e}", path.display()))
            .with_remedy("the daemon has not run yet with these settings: `lean-ctx daemon start`")
    })?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| LeanError::internal(format!("cannot read {}: {e}", path.display())))?;
    let all: Vec<&str> = text.lines().collect();
    let tail = &all[all.len().saturating_sub(lines)..];
    out.emit(&json!({"path": path, "lines": tail}), || tail.join("\n"));
    if !follow || out.json {
        return Ok(ExitCode::SUCCESS);
    }
    let mut pos = file.stream_position().unwrap_or(0);
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len < pos {
            // Rotated or truncated: start over.
            pos = 0;
        }
        if len > pos {
            let mut f =
                std::fs::File::open(&path).map_err(|e| LeanError::internal(e.to_string()))?;
            let _ = f.seek(SeekFrom::Start(pos));
            let mut chunk = String::new();
            let _ = f.read_to_string(&mut chunk);
            pos += chunk.len() as u64;
            let _ = std::io::stdout().write_all(chunk.as_bytes());
        }
    }
}

async fn ping(
    paths: &Paths,
    out: &Output,
    count: u32,
    delay_ms: u32,
) -> Result<ExitCode, LeanError> {
    let conn = connect::connect_or_spawn(paths, "lean-ctx daemon ping", None).await?;
    let mut micros = Vec::with_capacity(count as usize);
    let mut pid = conn.server.pid;
    for _ in 0..count.max(1) {
        let started = Instant::now();
        let mut ctx = tarpc::context::current();
        ctx.deadline = Instant::now() + Duration::from_millis(u64::from(delay_ms) + 10_000);
        pid = conn
            .client
            .ping(ctx, PingRequest { delay_ms })
            .await
            .map_err(rpc_error)??
            .pid;
        micros.push(started.elapsed().as_micros() as u64);
    }
    micros.sort_unstable();
    let p50 = micros[micros.len() / 2];
    let (min, max) = (micros[0], micros[micros.len() - 1]);
    out.emit(
        &json!({"pid": pid, "count": micros.len(), "min_us": min, "p50_us": p50, "max_us": max}),
        || {
            format!(
                "pong from pid {pid}: {} calls, min {min} µs, p50 {p50} µs, max {max} µs",
                micros.len()
            )
        },
    );
    Ok(ExitCode::SUCCESS)
}
