//! `lean-ctxd`: parse arguments, take the single-instance lock, bind the socket, log,
//! serve until told to stop. Everything else lives in the library.

use std::{io::Write, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use anyhow::Context as _;
use clap::Parser;
use lean_ctx_daemon::{
    accept,
    config::Config,
    idle,
    index::{root::IndexConfig, store::persist::Store},
    instance::{InstanceError, InstanceLock, SocketFile},
    logging, service_manager,
    state::{Daemon, DaemonConfig, Limits},
    sys, upgrade,
};
use lean_ctx_shared::{Paths, protocol::StartMode};

/// The per-user lean-ctx daemon. Usually started by `lean-ctx` on demand or by a
/// service manager; see `lean-ctx daemon --help`.
#[derive(Debug, Parser)]
#[command(name = "lean-ctxd", version = lean_ctx_shared::protocol::VERSION)]
struct Args {
    /// Run attached, logging to stderr too; never idle-exit unless --idle-timeout is given.
    /// Service units use this.
    #[arg(long)]
    foreground: bool,
    /// Started by a shim: print `READY <pid>` on stdout once listening, and exit after
    /// the idle timeout.
    #[arg(long, conflicts_with = "foreground")]
    auto_spawned: bool,
    /// Idle timeout (e.g. `30m`, `90s`); default from config.toml, else 30m. Applies to
    /// an auto-spawned daemon, or to a foreground one when given explicitly.
    #[arg(long, env = "LEAN_CTX_IDLE_TIMEOUT", value_parser = humantime::parse_duration)]
    idle_timeout: Option<Duration>,
}

/// The root the spawning shim is about to call for: the bytes on our stdin, which
/// the shim writes and closes right after the spawn (`client/src/connect.rs`).
/// Nothing, as from an older shim (stdin `/dev/null`, not a pipe), a terminal, or a
/// pipe not closed within a second, means no root; so does anything over 4 KiB.
async fn first_root_from_stdin() -> Option<PathBuf> {
    use std::os::{fd::AsFd, unix::ffi::OsStringExt};
    use tokio::io::AsyncReadExt;
    let stdin = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    let mut pipe = tokio::net::unix::pipe::Receiver::from_file(stdin)
        .ok()?
        .take(4097);
    let mut bytes = Vec::new();
    let read = pipe.read_to_end(&mut bytes);
    tokio::time::timeout(Duration::from_secs(1), read)
        .await
        .ok()?
        .ok()?;
    (!bytes.is_empty() && bytes.len() <= 4096)
        .then(|| PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// Exit code when another daemon holds the lock: the spawning shim just connects.
const EXIT_ALREADY_RUNNING: u8 = 3;

/// How long an auto-spawned daemon waits for a predecessor that is still draining.
/// Started by hand or by a service manager it fails at once instead: a person wants
/// to hear that one is already running.
const SPAWNED_LOCK_WAIT: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("lean-ctxd: error: {e:#}");
            tracing::error!("fatal: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Before any thread starts.
    sys::tune_allocator();
    if args.auto_spawned {
        // Our own session: no controlling terminal, no signals meant for the shim's
        // process group. Fails only if we already lead a group, which a fresh child
        // does not.
        let _ = rustix::process::setsid();
    }
    let paths = Paths::from_env()?.absolute()?;
    // The working directory of the shim that spawned us is some project: nothing we
    // start later (language servers of other projects) may inherit it.
    std::env::set_current_dir("/").context("leaving the working directory")?;
    paths.ensure_runtime_dir()?;
    let (config, refused) = Config::load_user(&paths.config_file())?;
    // Taken before anything else touches fds, so fd 3 is still the passed socket.
    let activated =
        service_manager::listen_socket().context("adopting the socket passed by systemd")?;
    let start_mode = start_mode(&args, activated.is_some());
    // An idle exit is fine where something starts us again on demand: the shim
    // (auto-spawn) or the socket held by systemd (socket activation). A daemon started
    // any other way would not come back, so it idles out only if asked to.
    let idle_timeout = if args.auto_spawned || activated.is_some() {
        Some(args.idle_timeout.unwrap_or(config.daemon.idle_timeout))
    } else {
        args.idle_timeout
    };

    let lock_wait = if args.auto_spawned {
        SPAWNED_LOCK_WAIT
    } else {
        Duration::ZERO
    };
    let lock = match InstanceLock::acquire(&paths, lock_wait) {
        Ok(lock) => lock,
        Err(e @ InstanceError::AlreadyRunning { .. }) => {
            eprintln!("lean-ctxd: {e}");
            if let (true, InstanceError::AlreadyRunning { pid }) = (args.auto_spawned, &e) {
                // Which build runs: a shim of another build that started us learns it is
                // not its own (see `announce_ready`).
                println!("RUNNING {pid} {}", lean_ctx_shared::protocol::SCHEMA);
            }
            return Ok(ExitCode::from(EXIT_ALREADY_RUNNING));
        }
        Err(e) => return Err(e.into()),
    };
    logging::init(&paths.log_file(), args.foreground)
        .with_context(|| format!("cannot open log {}", paths.log_file().display()))?;
    if let Some(why) = refused {
        tracing::warn!(file = %paths.config_file().display(), why, "config.toml is ignored: defaults apply, nothing is trusted");
    }
    // The store loads on its own thread from here, while the runtime starts and the
    // socket is bound: the first call of an auto-spawned daemon waits for that load.
    // Only after the instance lock: one daemon of a build owns its store.
    let store = (config.index.store_max_bytes > 0)
        .then(|| Store::open(&paths.index_store_dir(), config.index.store_max_bytes));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("lean-ctxd")
        .build()?;
    let early_exit = runtime.block_on(async {
        let (listener, socket) = match activated {
            Some(std_listener) => {
                let path = std_listener
                    .local_addr()?
                    .as_pathname()
                    .map(|p| p.to_path_buf())
                    .unwrap_or_else(|| paths.socket());
                (tokio::net::UnixListener::from_std(std_listener)?, SocketFile::adopted(path))
            }
            None => match SocketFile::bind(&paths) {
                Ok(bound) => bound,
                Err(e @ InstanceError::SocketInUse { .. }) => {
                    eprintln!("lean-ctxd: {e}");
                    return anyhow::Ok(Some(ExitCode::from(EXIT_ALREADY_RUNNING)));
                }
                Err(e) => return Err(e.into()),
            },
        };
        tracing::info!(socket = %socket.path().display(), mode = start_mode.as_str(), ?idle_timeout, "listening");
        let daemon = Arc::new(Daemon::new(DaemonConfig {
            socket: socket.path().to_path_buf(),
            paths: paths.clone(),
            start_mode,
            idle_timeout,
            index: IndexConfig {
                max_file_bytes: config.index.max_file_bytes,
                rescan_interval: config.index.rescan_interval,
                ..IndexConfig::default()
            },
            symbol_cache_bytes: config.index.symbol_cache_bytes,
            text_index: config.index.text_index,
            text_index_cap: config.index.text_index_cap(),
            lsp: config.lsp.clone(),
            ide: config.ide.clone(),
            limits: Limits::from(&config.daemon),
            answer_max_bytes: config.answers.max_bytes,
        }));
        // Recorded once listening, so a record always names a socket that answers; a
        // daemon that cannot write it still serves (only `daemon status` of other
        // builds and the step-down of older ones miss it), so that is logged, not fatal.
        let record = lean_ctx_shared::daemons::Record::ours(
            socket.path(),
            sys::unix_ms(daemon.started_at()),
            start_mode.as_str(),
        );
        let recorded = upgrade::Recorded::write(&paths, record.clone())
            .inspect_err(|e| tracing::warn!(error = %e, "cannot record this daemon in the runtime dir"))
            .ok();
        tokio::spawn(upgrade::step_down_when_superseded(daemon.clone(), record));
        if let Some(store) = store {
            daemon.caches.persist(store);
            let caches = daemon.caches.clone();
            tokio::task::spawn_blocking(move || caches.restore_text());
        }
        if args.auto_spawned {
            let daemon = daemon.clone();
            tokio::spawn(async move {
                if let Some(root) = first_root_from_stdin().await {
                    daemon.start_first_root(root).await;
                }
            });
        }
        // It waits for a pause in calls before each root (`Daemon::lull`): the shim
        // that spawned us is about to ask about a root of its own.
        tokio::spawn(
            daemon
                .clone()
                .prewarm(config.index.prewarm_roots, daemon.shutdown_token().clone()),
        );
        spawn_stop_triggers(&daemon);
        tokio::spawn(daemon.lsp.clone().run_lifecycle(daemon.shutdown_token().clone()));
        tokio::spawn(daemon.clone().run_project_eviction(daemon.shutdown_token().clone()));
        if args.auto_spawned {
            announce_ready()?;
        }
        service_manager::notify(&format!(
            "READY=1\nSTATUS=serving on {} (lean-ctxd {})",
            socket.path().display(),
            lean_ctx_shared::protocol::VERSION
        ));
        accept::run(listener, daemon.clone()).await;
        // After the drain: no call uses a language server any more.
        daemon.lsp.evict(None, None).await;
        // Counting a burst's last records loads the tokenizer; on a loaded machine that
        // took over 2 s and a stop lost them (agents.rs' gain test flaked).
        daemon.gain.flush_at_exit(Duration::from_secs(10)).await;
        // What the index learned last is still on its way to disk.
        let caches = daemon.caches.clone();
        let _ = tokio::task::spawn_blocking(move || caches.close_store(Duration::from_secs(10)))
            .await;
        drop(recorded);
        drop(socket);
        anyhow::Ok(None)
    })?;
    if let Some(code) = early_exit {
        return Ok(code);
    }
    // Connections may hold blocking work; do not let it delay the exit.
    runtime.shutdown_timeout(Duration::from_secs(1));
    tracing::info!("stopped");
    drop(lock);
    Ok(ExitCode::SUCCESS)
}

fn start_mode(args: &Args, socket_activated: bool) -> StartMode {
    if args.auto_spawned {
        StartMode::AutoSpawn
    } else if socket_activated
        || std::env::var_os("INVOCATION_ID").is_some()
        || std::env::var_os("NOTIFY_SOCKET").is_some()
    {
        StartMode::Systemd
    } else if std::env::var("XPC_SERVICE_NAME").is_ok_and(|n| n.contains("leanctx")) {
        StartMode::Launchd
    } else {
        StartMode::Foreground
    }
}

/// SIGTERM, SIGINT and the idle timeout all end in the same graceful shutdown.
fn spawn_stop_triggers(daemon: &Arc<Daemon>) {
    let d = daemon.clone();
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::error!("cannot install signal handlers");
            return;
        };
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        tracing::info!(signal = name, "stopping");
        d.shutdown();
    });
    let d = daemon.clone();
    tokio::spawn(async move {
        d.shutdown_token().cancelled().await;
        service_manager::notify("STOPPING=1\nSTATUS=draining in-flight calls");
    });
    if let Some(timeout) = daemon.config.idle_timeout {
        let d = daemon.clone();
        tokio::spawn(async move {
            idle::wait_for_idle(d.subscribe_connections(), timeout).await;
            tracing::info!(?timeout, "idle: no connections, stopping");
            d.shutdown();
        });
    }
}

/// Tells the spawning shim we are listening (`READY <pid> <schema>`), then detaches stdout from its pipe so a
/// shim that went away can never make a later write fail.
fn announce_ready() -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    // The schema after the pid tells a shim of another build that the lean-ctxd it
    // found is not its own (its installation changed under a running session); shims
    // that predate it read only `READY `.
    writeln!(
        out,
        "READY {} {}",
        std::process::id(),
        lean_ctx_shared::protocol::SCHEMA
    )?;
    out.flush()?;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    rustix::stdio::dup2_stdout(&null)?;
    Ok(())
}
