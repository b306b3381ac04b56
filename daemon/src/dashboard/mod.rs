//! `lean-ctx dashboard`: a live local web view of this daemon (spec §6.2), served over
//! loopback HTTP by the daemon itself, started by the first `dashboard` call and
//! stopped with the daemon.
//!
//! - [`guard`] decides whether a request may be answered: the per-run token, a
//!   loopback `Host` (DNS rebinding) and, for anything that changes state, the served
//!   origin (cross-site requests).
//! - [`server`] is the axum router: the page and its assets (embedded at build time:
//!   no external network), JSON endpoints, and server-sent events that push the status
//!   every second.
//!
//! Nothing here has state of its own worth keeping: the page shows what
//! [`service::status`](crate::service::status), the call log and the gain report say.

pub mod guard;
pub mod server;

use std::{fs::File, io::Read, sync::Arc};

use lean_ctx_shared::LeanError;
use tokio::sync::OnceCell;

use crate::state::Daemon;

/// Why the dashboard could not start.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    #[error("cannot read randomness for the dashboard token from /dev/urandom: {0}")]
    Random(#[source] std::io::Error),
    #[error("cannot listen on 127.0.0.1 for the dashboard: {0}")]
    Bind(#[source] std::io::Error),
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
    url: OnceCell<String>,
}

impl Dashboard {
    /// The URL, if the dashboard runs.
    pub fn url(&self) -> Option<&str> {
        self.url.get().map(String::as_str)
    }
}

/// Starts the dashboard on the first call and answers its URL; later calls answer the
/// same URL (concurrent first calls start one server). It stops when the daemon's
/// shutdown token fires.
pub async fn start(daemon: &Arc<Daemon>) -> Result<String, DashboardError> {
    daemon
        .dashboard
        .url
        .get_or_try_init(|| async {
            let token = random_token()?;
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(DashboardError::Bind)?;
            let port = listener.local_addr().map_err(DashboardError::Bind)?.port();
            let url = format!("http://127.0.0.1:{port}/?token={token}");
            server::spawn(
                daemon.clone(),
                listener,
                guard::Guard::new(token.clone(), port),
                &token,
            );
            tracing::info!(port, "dashboard started");
            Ok(url)
        })
        .await
        .cloned()
}

/// 32 bytes from the kernel's CSPRNG as 64 hex digits. `/dev/urandom` never blocks
/// once the system has booted, and saves a dependency for one read.
fn random_token() -> Result<String, DashboardError> {
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
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[tokio::test]
    async fn the_second_start_answers_the_same_server_which_stops_with_the_daemon() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Arc::new(crate::state::tests::daemon_in(tmp.path()));
        let first = start(&d).await.unwrap();
        assert!(first.starts_with("http://127.0.0.1:"), "{first}");
        assert_eq!(start(&d).await.unwrap(), first);
        assert_eq!(d.dashboard.url(), Some(first.as_str()));
        let port: u16 = first["http://127.0.0.1:".len()..]
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
        );
        d.shutdown();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            assert!(std::time::Instant::now() < deadline, "still listening");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}
