//! What the daemon knows about itself and its language servers: `daemon status`,
//! `lean-ctx servers`, and the dashboard, which serves exactly these so the two can
//! never differ.

use lean_ctx_shared::{
    LeanError,
    protocol::{
        BackingStatus, LanguageServerOp, LanguageServersRequest, LanguageServersResponse,
        PROTOCOL_VERSION, StatusResponse, StoreStatus, VERSION, build_id,
    },
};

use crate::{call_log::note_root, state::Daemon, sys};

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
                p.trusted = d.lsp.trusts(&p.root);
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
        store: d.caches.store_summary().map(|s| StoreStatus {
            path: s.path,
            bytes: s.bytes,
            entries: s.entries,
            cap_bytes: s.cap_bytes,
            hits: s.hits,
            misses: s.misses,
            note: s.note,
        }),
        // The rule alone: no read or parse of the file on every status.
        config_ignored: lean_ctx_shared::paths::not_the_users_own(
            &d.config.paths.config_file(),
            lean_ctx_shared::paths::canonical_home().as_deref(),
        ),
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
    // What each language of the root gets, found or not: listed, not started.
    let languages = match (req.op, root.and_then(|r| d.registry.get(r))) {
        (LanguageServerOp::List, Some(project)) => {
            let mut langs = project.index.code_languages();
            langs.sort_by_key(|l| l.name());
            langs
                .into_iter()
                .filter(|l| language.is_none_or(|name| l.name() == name))
                .map(|l| d.lsp.uses(l))
                .collect()
        }
        _ => Vec::new(),
    };
    Ok(LanguageServersResponse {
        affected: affected as u32,
        servers: d.lsp.status(),
        languages,
    })
}
