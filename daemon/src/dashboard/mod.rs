//! `lean-ctx dashboard`: a live local web view of this daemon (the JetBrains plugin's
//! Tools menu opens it too), served over loopback HTTP by the daemon itself, started by
//! the first `dashboard` call and stopped with the daemon.
//!
//! - [`guard`] decides whether a request may be answered: the session (cookie or
//!   header), a loopback `Host` (DNS rebinding) and, for anything that changes state,
//!   the served origin (cross-site requests).
//! - [`handover`] gives a browser its session through a one-time code that never
//!   appears in a command line or URL others can read.
//! - [`launch`] starts it on the first `dashboard` call and mints each call's code.
//! - [`http`] is the axum router: the page and its assets (embedded at build time:
//!   no external network), JSON endpoints, and server-sent events that push the status
//!   every second.
//!
//! Nothing here has state of its own worth keeping: the page shows what
//! [`status::status`](crate::status::status), the call log and the gain report say.
//!
//! The one [`Dashboard`] of a daemon is held by the connections' handlers
//! (`service::Handler`), not by `Daemon`: the state knows nothing of what shows it.
//!
//! **Invariant:** the dashboard answers nothing before its guard passed: `Host` is
//! `127.0.0.1:<port>` or `localhost:<port>` (403), the request carries the per-run
//! session (its `HttpOnly`, `SameSite=Strict` cookie, or the `X-LeanCtx-Token` header;
//! only `/login` takes a one-time code instead) (401), and anything but GET/HEAD
//! carries `Origin: http://<Host>` (403); the guard wraps every route and the fallback.
//! It listens on loopback only and serves only what is compiled into the daemon. The
//! session never appears in a URL or a command line; on Linux connections from another
//! uid are closed before a byte is read.

pub mod guard;
pub mod handover;
pub mod http;
pub mod launch;

use std::{fs::File, io::Read, sync::Arc};

use lean_ctx_shared::LeanError;
use tokio::sync::OnceCell;

/// Why the dashboard could not start or hand a session over.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    #[error("cannot read randomness for the dashboard from /dev/urandom: {0}")]
    Random(#[source] std::io::Error),
    #[error("cannot listen on 127.0.0.1 for the dashboard: {0}")]
    Bind(#[source] std::io::Error),
    #[error("cannot write the dashboard's one-time page into the runtime dir: {0}")]
    Page(#[source] std::io::Error),
}

impl From<DashboardError> for LeanError {
    fn from(e: DashboardError) -> LeanError {
        LeanError::internal(e.to_string())
            .with_remedy("see `lean-ctx daemon logs`; `lean-ctx daemon restart` starts afresh")
    }
}

/// The running dashboard, once started.
#[derive(Debug, Default)]
pub struct Dashboard {
    running: OnceCell<Running>,
}

#[derive(Debug)]
struct Running {
    port: u16,
    codes: Arc<handover::Codes>,
}

/// 32 bytes from the kernel's CSPRNG as 64 hex digits (the session token, and each
/// one-time code). `/dev/urandom` never blocks once the system has booted, and saves
/// a dependency for one read.
fn random_hex() -> Result<String, DashboardError> {
    let mut bytes = [0u8; 32];
    File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(DashboardError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_64_hex_digits_and_differ() {
        let (a, b) = (random_hex().unwrap(), random_hex().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
