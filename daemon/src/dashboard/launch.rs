//! Starting the dashboard: the first `dashboard` call binds it and spawns its server
//! (concurrent first calls start one); every call mints a one-time code and hands it
//! over as asked.

use std::sync::Arc;

use lean_ctx_shared::protocol::{DashboardResponse, Handover};

use super::{Dashboard, DashboardError, Running, guard, handover, http, random_hex};
use crate::state::Daemon;

/// Starts the dashboard on the first call (concurrent first calls start one server;
/// it stops when the daemon's shutdown token fires) and mints a one-time code for
/// this call, handed over as `handover` asks.
pub async fn start(
    daemon: &Arc<Daemon>,
    dashboard: &Dashboard,
    handover: Handover,
) -> Result<DashboardResponse, DashboardError> {
    let running = dashboard
        .running
        .get_or_try_init(|| async {
            let token = random_hex()?;
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(DashboardError::Bind)?;
            let port = listener.local_addr().map_err(DashboardError::Bind)?.port();
            let codes = Arc::new(handover::Codes::default());
            http::spawn(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_second_start_answers_the_same_server_which_stops_with_the_daemon() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Arc::new(crate::state::tests::daemon_in(tmp.path()));
        d.config.paths.ensure_runtime_dir().unwrap();
        let dashboard = Dashboard::default();
        let first = start(&d, &dashboard, Handover::Link).await.unwrap();
        assert!(first.url.starts_with("http://127.0.0.1:"), "{first:?}");
        assert!(
            first
                .handover
                .starts_with(&format!("{}login?code=", first.url))
        );
        let second = start(&d, &dashboard, Handover::File).await.unwrap();
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
