//! The operations: the [`LeanCtx`] tarpc service implemented over the shared
//! [`Daemon`]. Every method goes through [`Daemon::call`], the one choke point that
//! counts calls, refuses new work during shutdown and catches panics.

use std::{sync::Arc, time::Duration};

use lean_ctx_shared::{
    LeanError,
    protocol::{
        EditRequest, EditResponse, LeanCtx, MAX_PING_DELAY_MS, OpenProjectRequest, OutlineRequest,
        OutlineResponse, PROTOCOL_VERSION, PingRequest, PingResponse, ProjectStatus,
        SearchSymbolRequest, SearchSymbolResponse, ShutdownRequest, ShutdownResponse,
        StatusRequest, StatusResponse, SymbolsOverviewRequest, SymbolsOverviewResponse, VERSION,
        build_id,
    },
};
use tarpc::context::Context;

use crate::{headless, state::Daemon, sys};

/// The operations this daemon serves, announced in the hello.
pub const CAPABILITIES: &[&str] = &[
    "ping",
    "status",
    "open_project",
    "shutdown",
    "symbols_overview",
    "outline",
    "search_symbol",
    "edit_symbol",
];

/// One per connection; cheap to clone (tarpc clones it per request).
#[derive(Clone, Debug)]
pub struct Handler {
    pub daemon: Arc<Daemon>,
}

impl LeanCtx for Handler {
    async fn ping(self, _: Context, req: PingRequest) -> Result<PingResponse, LeanError> {
        let d = &self.daemon;
        d.call("ping", async {
            let delay = req.delay_ms.min(MAX_PING_DELAY_MS);
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay.into())).await;
            }
            Ok(PingResponse {
                pid: std::process::id(),
            })
        })
        .await
    }

    async fn status(self, _: Context, _: StatusRequest) -> Result<StatusResponse, LeanError> {
        let d = &self.daemon;
        d.call("status", async {
            Ok(StatusResponse {
                pid: std::process::id(),
                version: VERSION.to_string(),
                build: build_id(),
                protocol: PROTOCOL_VERSION,
                started_at_unix_ms: sys::unix_ms(d.started_at()),
                uptime_ms: d.uptime().as_millis() as u64,
                socket: d.config.socket.clone(),
                log_file: d.config.paths.log_file(),
                started_by: d.config.start_mode,
                idle_exit_after_ms: d.config.idle_timeout.map(|t| t.as_millis() as u64),
                rss_bytes: sys::rss_bytes(),
                connected_clients: d.connections() as u32,
                // This call is itself in flight.
                in_flight_calls: d.in_flight() as u32,
                calls_served: d.calls_served(),
                caches: d.caches.status(),
                projects: d.registry.list(),
            })
        })
        .await
    }

    async fn open_project(
        self,
        _: Context,
        req: OpenProjectRequest,
    ) -> Result<ProjectStatus, LeanError> {
        let d = &self.daemon;
        d.call("open_project", async {
            let project = d.registry.open(&req.root)?;
            project.touch();
            project.index.start();
            Ok(project.status())
        })
        .await
    }

    async fn shutdown(
        self,
        _: Context,
        req: ShutdownRequest,
    ) -> Result<ShutdownResponse, LeanError> {
        let d = &self.daemon;
        d.call("shutdown", async {
            tracing::info!(reason = %req.reason, "shutdown requested");
            // Minus this call, which completes right away.
            let others = d.in_flight().saturating_sub(1) as u32;
            d.shutdown();
            Ok(ShutdownResponse {
                pid: std::process::id(),
                in_flight_calls: others,
            })
        })
        .await
    }

    async fn symbols_overview(
        self,
        _: Context,
        req: SymbolsOverviewRequest,
    ) -> Result<SymbolsOverviewResponse, LeanError> {
        let d = &self.daemon;
        d.call("symbols_overview", headless::symbols_overview(d, req))
            .await
    }

    async fn outline(self, _: Context, req: OutlineRequest) -> Result<OutlineResponse, LeanError> {
        let d = &self.daemon;
        d.call("outline", headless::outline(d, req)).await
    }

    async fn search_symbol(
        self,
        _: Context,
        req: SearchSymbolRequest,
    ) -> Result<SearchSymbolResponse, LeanError> {
        let d = &self.daemon;
        d.call("search_symbol", headless::search_symbol(d, req))
            .await
    }

    async fn edit_symbol(self, _: Context, req: EditRequest) -> Result<EditResponse, LeanError> {
        let d = &self.daemon;
        d.call("edit_symbol", headless::edit_symbol(d, req)).await
    }
}
