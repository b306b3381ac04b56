//! The operations: the [`LeanCtx`] tarpc service implemented over the shared
//! [`Daemon`]. Every method goes through [`Daemon::call`], the one choke point that
//! counts calls, refuses new work during shutdown, catches panics and logs the call;
//! what answers each operation is the router's business ([`crate::route`]), what the
//! daemon knows about itself is [`crate::status`]'s.

use std::{sync::Arc, time::Duration};

use lean_ctx_shared::{
    LeanError,
    protocol::{
        CallHierarchyRequest, CallHierarchyResponse, DashboardRequest, DashboardResponse,
        EditRequest, EditResponse, InspectionsRequest, InspectionsResponse, LanguageServersRequest,
        LanguageServersResponse, LeanCtx, MAX_PING_DELAY_MS, NavigateRequest, NavigateResponse,
        OpenProjectRequest, Operation, OutlineRequest, OutlineResponse, PingRequest, PingResponse,
        ProjectStatus, ReadRequest, ReadResponse, RefactorRequest, RefactorResponse,
        ReformatRequest, ReformatResponse, SearchSymbolRequest, SearchSymbolResponse,
        SearchTextRequest, SearchTextResponse, ShutdownRequest, ShutdownResponse, StatusRequest,
        StatusResponse, SymbolsOverviewRequest, SymbolsOverviewResponse, TreeRequest, TreeResponse,
        TypeHierarchyRequest, TypeHierarchyResponse,
    },
};
use tarpc::context::Context;

use crate::{call_log::note_root, dashboard, route, state::Daemon, status};

/// One per connection; cheap to clone (tarpc clones it per request).
#[derive(Clone, Debug)]
pub struct Handler {
    pub daemon: Arc<Daemon>,
    /// The daemon's one dashboard (every connection's handler holds the same).
    pub dashboard: Arc<dashboard::Dashboard>,
    /// The read sessions this connection named that end with it.
    pub sessions: Arc<crate::reads::Bound>,
}

/// The agent's operations (`protocol::operations!`'s `agent` list), each answered by
/// `route::<op>` under its action's name, noting the read session it names first.
macro_rules! routed {
    (
        daemon { $($(#[$dm:meta])* $dop:ident($dreq:ty) -> $dresp:ty;)* }
        agent { $($(#[$am:meta])* $op:ident($req:ty) -> $resp:ty as $variant:ident, $answered_by:ident;)* }
    ) => {
        $(async fn $op(self, _: Context, req: $req) -> Result<$resp, LeanError> {
            self.sessions.note(req.session());
            let d = &self.daemon;
            let action = req.action();
            // An agent's answer fits the answer cap, not only the frame: those that
            // grow with their input are built within it; this is the net for the rest.
            d.call(action, async {
                route::$op(d, req)
                    .await
                    .and_then(|answer| crate::budget::within_cap(action, answer))
            })
            .await
        })*
    };
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
        d.call("status", async { Ok(status::status(d)) }).await
    }

    async fn open_project(
        self,
        _: Context,
        req: OpenProjectRequest,
    ) -> Result<ProjectStatus, LeanError> {
        let d = &self.daemon;
        d.call("open_project", async {
            note_root(&req.root);
            let project = d.registry.enter(&req.root)?;
            let mut status = project.status();
            status.trusted = d.lsp.trusts(&status.root);
            // A session starts here: its language servers warm while it reads.
            d.lsp.prewarm(project.index.clone());
            Ok(status)
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

    lean_ctx_shared::operations!(routed);

    async fn language_servers(
        self,
        _: Context,
        req: LanguageServersRequest,
    ) -> Result<LanguageServersResponse, LeanError> {
        let d = &self.daemon;
        d.call("language_servers", status::language_servers(d, req))
            .await
    }

    async fn dashboard(
        self,
        _: Context,
        req: DashboardRequest,
    ) -> Result<DashboardResponse, LeanError> {
        let d = &self.daemon;
        d.call("dashboard", async {
            Ok(dashboard::launch::start(d, &self.dashboard, req.handover).await?)
        })
        .await
    }
}
