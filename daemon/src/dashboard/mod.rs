//! `lean-ctx dashboard`: a live local web view of this daemon (spec §6.2), served over
//! loopback HTTP by the daemon itself, started by the first `dashboard` call and
//! stopped with the daemon.
//!
//! - [`guard`] decides whether a request may be answered: the session (cookie or
//!   header), a loopback `Host` (DNS rebinding) and, for anything that changes state,
//!   the served origin (cross-site requests).
//! - [`handover`] gives a browser its session through a one-time code that never
//!   appears in a command line or URL others can read.
//! - [`server`] is the axum router: the page and its assets (embedded at build time:
//!   no external network), JSON endpoints, and server-sent events that push the status
//!   every second.
//!
//! Nothing here has state of its own worth keeping: the page shows what
//! [`service::status`](crate::service::status), the call log and the gain report say.

pub mod guard;
pub mod handover;
pub mod server;

use std::{fs::File, io::Read, sync::Arc};

use lean_ctx_shared::{
    LeanError,
    protocol::{DashboardResponse, Handover},
};
use tokio::sync::OnceCell;

use crate::state::Daemon;

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

/// Starts the dashboard on the first call (concurrent first calls start one server;
/// it stops when the daemon's shutdown token fires) and mints a one-time code for
/// this call, handed over as `handover` asks.
pub async fn start(
    daemon: &Arc<Daemon>,
    handover: Handover,
) -> Result<DashboardResponse, DashboardError> {
    let running = daemon
        .dashboard
        .running
        .get_or_try_init(|| async {
            let token = random_hex()?;
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(DashboardError::Bind)?;
            let port = listener.local_addr().map_err(DashboardError::Bind)?.port();
            let codes = Arc::new(handover::Codes::default());
            server::spawn(
                daemon.clone(),
                listener,
                guard::Guard::new(token, port),
                codes.clone(),
            );
            tracing::info!(port, "dashboard started");
            Ok(Running { port, codes })
        })
        .await?;
    let origin = format!("http://127.0.0.1:{}", running.port);
    let code = random_hex()?;
    let handover = match handover {
        Handover::Link => {
            running.codes.add(&code, None);
            format!("{origin}{}?code={code}", handover::LOGIN)
        }
        Handover::File => {
            let page = handover::write_page(&daemon.config.paths.runtime_dir, &origin, &code)
                .map_err(DashboardError::Page)?;
            running.codes.add(&code, Some(page.clone()));
            page.display().to_string()
        }
    };
    let codes = running.codes.clone();
    tokio::spawn(async move {
        tokio::time::sleep(handover::CODE_TTL).await;
        codes.expire(false);
    });
    Ok(DashboardResponse {
        url: format!("{origin}/"),
        handover,
    })
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

    #[tokio::test]
    async fn the_second_start_answers_the_same_server_which_stops_with_the_daemon() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Arc::new(crate::state::tests::daemon_in(tmp.path()));
        d.config.paths.ensure_runtime_dir().unwrap();
        let first = start(&d, Handover::Link).await.unwrap();
        assert!(first.url.starts_with("http://127.0.0.1:"), "{first:?}");
        assert!(
            first
                .handover
                .starts_with(&format!("{}login?code=", first.url))
        );
        let second = start(&d, Handover::File).await.unwrap();
        assert_eq!(second.url, first.url);
        let page = std::path::Path::new(&second.handover);
        assert_eq!(page.parent(), Some(d.config.paths.runtime_dir.as_path()));
        assert!(page.is_file());
        let port: u16 = first.url["http://127.0.0.1:".len()..]
            .trim_end_matches('/')
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
            || page.exists()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "still listening, or the unused page is left"
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}
