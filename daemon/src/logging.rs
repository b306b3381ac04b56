//! The daemon's log: a 0600 file in the state dir whose first line says which build
//! started how, then tracing events filtered by `LEAN_CTX_LOG` (or `RUST_LOG`),
//! `RUST_LOG` syntax, default `info`. In the foreground the same events also go to
//! stderr (a terminal, or the service manager's journal).

use std::{
    fs::{self, OpenOptions},
    io::{self, IsTerminal, Write},
    os::unix::fs::{OpenOptionsExt, PermissionsExt},
    path::Path,
    sync::Mutex,
    time::SystemTime,
};

use lean_ctx_shared::protocol::build_id;
use tracing_subscriber::{EnvFilter, Layer, layer::SubscriberExt, util::SubscriberInitExt};

/// A log file past this size is moved to `*.log.1` at start.
const ROTATE_BYTES: u64 = 10 * 1024 * 1024;

/// Opens the log, writes the first line and installs the subscriber.
pub fn init(log_file: &Path, also_stderr: bool) -> io::Result<()> {
    if let Some(dir) = log_file.parent() {
        fs::create_dir_all(dir)?;
    }
    if fs::metadata(log_file).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        fs::rename(log_file, log_file.with_extension("log.1"))?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log_file)?;
    // `mode` applies only on creation; an older file may have looser permissions.
    fs::set_permissions(log_file, fs::Permissions::from_mode(0o600))?;
    let args: Vec<String> = std::env::args().collect();
    writeln!(
        file,
        "lean-ctxd {} build {} pid {} started {} cmdline: {}",
        env!("CARGO_PKG_VERSION"),
        build_id(),
        std::process::id(),
        humantime::format_rfc3339_seconds(SystemTime::now()),
        args.join(" ")
    )?;

    let filter = || {
        std::env::var("LEAN_CTX_LOG")
            .or_else(|_| std::env::var("RUST_LOG"))
            .map(EnvFilter::new)
            .unwrap_or_else(|_| EnvFilter::new("info"))
    };
    let to_file = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .with_filter(filter());
    let to_stderr = also_stderr.then(|| {
        tracing_subscriber::fmt::layer()
            .with_ansi(io::stderr().is_terminal())
            .with_writer(io::stderr)
            .with_filter(filter())
    });
    tracing_subscriber::registry()
        .with(to_file)
        .with(to_stderr)
        .init();

    // Panics are caught per request; still, say so in the log, not only on stderr.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tracing::error!(%info, "panic");
        default_hook(info);
    }));
    Ok(())
}
