//! The operations: the [`LeanCtx`] tarpc service implemented over the shared
//! [`Daemon`]. Every method goes through [`Daemon::call`], the one choke point that
//! counts calls, refuses new work during shutdown, catches panics and logs the call;
//! what answers each operation is the router's business ([`crate::route`]), what the
//! daemon knows about itself is [`crate::status`]'s.

use std::{sync::Arc, time::Duration};

use lean_ctx_shared::{
    LeanError,
    protocol::{
        DashboardRequest, DashboardResponse, EditRequest, EditResponse, InspectionsRequest,
        InspectionsResponse, LanguageServersRequest, LanguageServersResponse, LeanCtx,
        MAX_PING_DELAY_MS, NavigateRequest, NavigateResponse, OpenProjectRequest, OutlineRequest,
        OutlineResponse, PingRequest, PingResponse, ProjectStatus, ReadRequest, ReadResponse,
        RefactorRequest, RefactorResponse, ReformatRequest, ReformatResponse, SearchSymbolRequest,
        SearchSymbolResponse, SearchTextRequest, SearchTextResponse, ShutdownRequest,
        ShutdownResponse, StatusRequest, StatusResponse, SymbolsOverviewRequest,
        SymbolsOverviewResponse, TreeRequest, TreeResponse, TypeHierarchyRequest,
        TypeHierarchyResponse,
    },
};
use tarpc::context::Context;

use crate::{call_log::note_root, dashboard, route, state::Daemon, status};

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
    "navigate",
    "type_hierarchy",
    "inspections",
    "reformat",
    "refactor",
    "language_servers",
    "dashboard",
    "tree",
    "search_text",
    "read",
];

/// One per connection; cheap to clone (tarpc clones it per request).
#[derive(Clone, Debug)]
pub struct Handler {
    pub daemon: Arc<Daemon>,
    /// The daemon's one dashboard (every connection's handler holds the same).
    pub dashboard: Arc<dashboard::Dashboard>,
    /// The read sessions this connection named that end with it.
    pub sessions: Arc<crate::reads::Bound>,
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
            Ok(d.registry.enter(&req.root)?.status())
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
        d.call("symbols_overview", async {
            route::symbols_overview(d, req).await
        })
        .await
    }

    async fn outline(self, _: Context, req: OutlineRequest) -> Result<OutlineResponse, LeanError> {
        let d = &self.daemon;
        d.call("outline", async { route::outline(d, req).await })
            .await
    }

    async fn tree(self, _: Context, req: TreeRequest) -> Result<TreeResponse, LeanError> {
        let d = &self.daemon;
        d.call("tree", async { route::tree(d, req).await }).await
    }

    async fn search_text(
        self,
        _: Context,
        req: SearchTextRequest,
    ) -> Result<SearchTextResponse, LeanError> {
        let d = &self.daemon;
        let action = if req.regex {
            "search_regex"
        } else {
            "search_text"
        };
        d.call(action, async { route::search_text(d, req).await })
            .await
    }

    async fn read(self, _: Context, req: ReadRequest) -> Result<ReadResponse, LeanError> {
        self.sessions.note(req.session.as_ref());
        let d = &self.daemon;
        d.call("read", async { route::read(d, req).await }).await
    }

    async fn search_symbol(
        self,
        _: Context,
        req: SearchSymbolRequest,
    ) -> Result<SearchSymbolResponse, LeanError> {
        let d = &self.daemon;
        d.call("search_symbol", async {
            route::search_symbol(d, req).await
        })
        .await
    }

    async fn edit_symbol(self, _: Context, req: EditRequest) -> Result<EditResponse, LeanError> {
        self.sessions.note(req.session.as_ref());
        let d = &self.daemon;
        d.call("edit_symbol", async { route::edit_symbol(d, req).await })
            .await
    }

    async fn navigate(
        self,
        _: Context,
        req: NavigateRequest,
    ) -> Result<NavigateResponse, LeanError> {
        let d = &self.daemon;
        d.call(req.action.as_str(), async { route::navigate(d, req).await })
            .await
    }

    async fn type_hierarchy(
        self,
        _: Context,
        req: TypeHierarchyRequest,
    ) -> Result<TypeHierarchyResponse, LeanError> {
        let d = &self.daemon;
        d.call("type_hierarchy", async {
            route::type_hierarchy(d, req).await
        })
        .await
    }

    async fn inspections(
        self,
        _: Context,
        req: InspectionsRequest,
    ) -> Result<InspectionsResponse, LeanError> {
        let d = &self.daemon;
        d.call("inspections", async { route::inspections(d, req).await })
            .await
    }

    async fn reformat(
        self,
        _: Context,
        req: ReformatRequest,
    ) -> Result<ReformatResponse, LeanError> {
        let d = &self.daemon;
        d.call("reformat", async { route::reformat(d, req).await })
            .await
    }

    async fn refactor(
        self,
        _: Context,
        req: RefactorRequest,
    ) -> Result<RefactorResponse, LeanError> {
        let d = &self.daemon;
        d.call(req.kind.as_str(), async { route::refactor(d, req).await })
            .await
    }

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
