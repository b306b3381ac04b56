//! The operations: the [`LeanCtx`] tarpc service implemented over the shared
//! [`Daemon`]. Every method goes through [`Daemon::call`], the one choke point that
//! counts calls, refuses new work during shutdown, catches panics and logs the call;
//! each notes its root and the backing that answered for that log
//! ([`note_root`], [`note_backing`]). [`status`] and [`language_servers`] are also what
//! the dashboard serves, so the two can never differ.

use std::{sync::Arc, time::Duration};

use lean_ctx_shared::{
    LeanError,
    protocol::{
        BackingStatus, DashboardRequest, DashboardResponse, EditRequest, EditResponse,
        InspectionsRequest, InspectionsResponse, LanguageServerOp, LanguageServersRequest,
        LanguageServersResponse, LeanCtx, MAX_PING_DELAY_MS, NavigateRequest, NavigateResponse,
        OpenProjectRequest, OutlineRequest, OutlineResponse, PROTOCOL_VERSION, PingRequest,
        PingResponse, ProjectStatus, RefactorRequest, RefactorResponse, ReformatRequest,
        ReformatResponse, SearchSymbolRequest, SearchSymbolResponse, ShutdownRequest,
        ShutdownResponse, StatusRequest, StatusResponse, SymbolsOverviewRequest,
        SymbolsOverviewResponse, TypeHierarchyRequest, TypeHierarchyResponse, VERSION, build_id,
    },
    render,
};
use tarpc::context::Context;

use crate::{
    call_log::{note_backing, note_root},
    dashboard,
    gain::{Baseline, Call},
    headless,
    lsp::actions,
    state::Daemon,
    sys,
};

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
];

/// Accounts an answer that stands in for nothing an agent would otherwise read
/// (diagnostics, hierarchies, formatting): counted, no saving claimed.
fn no_claim(d: &Daemon, action: &'static str, output: String) {
    d.gain.record(Call {
        action,
        file: None,
        baseline: Baseline::NoClaim,
        output,
    });
}

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
        d.call("status", async { Ok(status(d)) }).await
    }

    async fn open_project(
        self,
        _: Context,
        req: OpenProjectRequest,
    ) -> Result<ProjectStatus, LeanError> {
        let d = &self.daemon;
        d.call("open_project", async {
            note_root(&req.root);
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
        d.call("symbols_overview", async {
            note_root(&req.root);
            backed(headless::symbols_overview(d, req).await, |r| &r.backing)
        })
        .await
    }

    async fn outline(self, _: Context, req: OutlineRequest) -> Result<OutlineResponse, LeanError> {
        let d = &self.daemon;
        d.call("outline", async {
            note_root(&req.root);
            backed(headless::outline(d, req).await, |_| "headless")
        })
        .await
    }

    async fn search_symbol(
        self,
        _: Context,
        req: SearchSymbolRequest,
    ) -> Result<SearchSymbolResponse, LeanError> {
        let d = &self.daemon;
        d.call("search_symbol", async {
            note_root(&req.root);
            backed(headless::search_symbol(d, req).await, |_| "headless")
        })
        .await
    }

    async fn edit_symbol(self, _: Context, req: EditRequest) -> Result<EditResponse, LeanError> {
        let d = &self.daemon;
        d.call("edit_symbol", async {
            note_root(&req.root);
            backed(headless::edit_symbol(d, req).await, |r| &r.backing)
        })
        .await
    }

    async fn navigate(
        self,
        _: Context,
        req: NavigateRequest,
    ) -> Result<NavigateResponse, LeanError> {
        let d = &self.daemon;
        d.call(req.action.as_str(), async {
            note_root(&req.root);
            backed(actions::navigate(d, req).await, |r| &r.backing)
        })
        .await
    }

    async fn type_hierarchy(
        self,
        _: Context,
        req: TypeHierarchyRequest,
    ) -> Result<TypeHierarchyResponse, LeanError> {
        let d = &self.daemon;
        d.call("type_hierarchy", async {
            note_root(&req.root);
            backed(actions::type_hierarchy(d, req).await, |r| &r.backing)
        })
        .await
    }

    async fn inspections(
        self,
        _: Context,
        req: InspectionsRequest,
    ) -> Result<InspectionsResponse, LeanError> {
        let d = &self.daemon;
        d.call("inspections", async {
            note_root(&req.root);
            let resp = backed(actions::inspections(d, req).await, |r| &r.backing)?;
            no_claim(d, "inspections", render::inspections(&resp));
            Ok(resp)
        })
        .await
    }

    async fn reformat(
        self,
        _: Context,
        req: ReformatRequest,
    ) -> Result<ReformatResponse, LeanError> {
        let d = &self.daemon;
        d.call("reformat", async {
            note_root(&req.root);
            let resp = backed(actions::reformat(d, req).await, |r| &r.backing)?;
            no_claim(d, "reformat", render::reformat(&resp));
            Ok(resp)
        })
        .await
    }

    async fn refactor(
        self,
        _: Context,
        req: RefactorRequest,
    ) -> Result<RefactorResponse, LeanError> {
        let d = &self.daemon;
        d.call(req.kind.as_str(), async {
            note_root(&req.root);
            backed(actions::refactor(d, req).await, |r| &r.backing)
        })
        .await
    }

    async fn language_servers(
        self,
        _: Context,
        req: LanguageServersRequest,
    ) -> Result<LanguageServersResponse, LeanError> {
        let d = &self.daemon;
        d.call("language_servers", language_servers(d, req)).await
    }

    async fn dashboard(
        self,
        _: Context,
        req: DashboardRequest,
    ) -> Result<DashboardResponse, LeanError> {
        let d = &self.daemon;
        d.call("dashboard", async {
            Ok(dashboard::start(d, req.handover).await?)
        })
        .await
    }
}

/// Notes the backing of a successful answer for the call log.
fn backed<T>(
    result: Result<T, LeanError>,
    backing: impl FnOnce(&T) -> &str,
) -> Result<T, LeanError> {
    if let Ok(resp) = &result {
        note_backing(backing(resp));
    }
    result
}

/// Everything the daemon knows about itself: `daemon status`, and the dashboard.
pub fn status(d: &Daemon) -> StatusResponse {
    StatusResponse {
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
        // A `status` call is itself in flight.
        in_flight_calls: d.in_flight() as u32,
        calls_served: d.calls_served(),
        caches: d.caches.status(),
        projects: d
            .registry
            .list()
            .into_iter()
            .map(|mut p| {
                p.backings
                    .extend(d.lsp.servers_of(&p.root).iter().map(|s| BackingStatus {
                        name: s.name(),
                        state: s.state().as_str().into(),
                    }));
                p
            })
            .collect(),
        language_servers: d.lsp.status(),
        ides: d.ides.status(),
    }
}

/// Lists, evicts or restarts language servers: `lean-ctx servers`, and the dashboard's
/// buttons (both through [`Daemon::call`]).
pub async fn language_servers(
    d: &Daemon,
    req: LanguageServersRequest,
) -> Result<LanguageServersResponse, LeanError> {
    if let Some(root) = &req.root {
        note_root(root);
    }
    let root = req.root.as_deref();
    let language = req.language.as_deref();
    let affected = match req.op {
        LanguageServerOp::List => d
            .lsp
            .status()
            .iter()
            .filter(|s| {
                root.is_none_or(|r| s.root == r) && language.is_none_or(|l| s.language == l)
            })
            .count(),
        LanguageServerOp::Evict => d.lsp.evict(root, language).await.len(),
        LanguageServerOp::Restart => {
            let evicted = d.lsp.evict(root, language).await;
            d.lsp
                .restart(&evicted, |r| d.registry.get(r).map(|p| p.index.clone()))
                .len()
        }
    };
    Ok(LanguageServersResponse {
        affected: affected as u32,
        servers: d.lsp.status(),
    })
}
