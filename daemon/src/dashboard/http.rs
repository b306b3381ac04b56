//! The dashboard's HTTP side (axum, on 127.0.0.1 only): the page and its assets,
//! compiled into the daemon so the page never loads anything from elsewhere; JSON
//! endpoints; and `/api/events`, server-sent events pushing the status every second
//! and the gain report whenever it changed. Every route, the fallback included, sits
//! behind [`guard::enforce`].
//!
//! | route | answer |
//! |---|---|
//! | `GET /login?code=`, `POST /login` (`code=`) | spends a one-time code: the session cookie, then the page |
//! | `GET /` | the page |
//! | `GET /app.js`, `GET /style.css` | its assets |
//! | `GET /api/status` | `daemon status`'s JSON plus `calls_per_second` and `recent_calls` (newest first) |
//! | `GET /api/gain` | exactly `lean-ctx gain --json` |
//! | `GET /api/gain/daily` | tokens saved per day, for the chart |
//! | `GET /api/events` | SSE: `status` (as `/api/status`) every second, `gain` (`{report, daily}`) on change |
//! | `POST /api/servers/evict`, `/api/servers/restart` | `{root, language?}` → `lean-ctx servers`' JSON |

use std::{convert::Infallible, path::PathBuf, sync::Arc, time::Duration};

use axum::{
    Json, Router,
    extract::{Path, RawQuery, State},
    http::{StatusCode, header},
    middleware::from_fn_with_state,
    response::{
        IntoResponse, Response,
        sse::{Event, KeepAlive, Sse},
    },
    routing::{get, post},
};
use futures::{Stream, StreamExt};
use lean_ctx_shared::{
    LeanError,
    gain::{self, Price},
    protocol::{LanguageServerOp, LanguageServersRequest},
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::{
    guard::{self, Guard},
    handover::{Codes, LOGIN},
};
use crate::{state::Daemon, status, sys};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// How often the page gets a fresh status.
const PUSH_EVERY: Duration = Duration::from_secs(1);

#[derive(Clone, Debug)]
struct App {
    daemon: Arc<Daemon>,
    guard: Arc<Guard>,
    codes: Arc<Codes>,
}

/// Serves until the daemon's shutdown token fires. Open event streams end then too,
/// so the graceful shutdown does not wait on a browser tab; unused one-time pages
/// are removed then.
pub fn spawn(daemon: Arc<Daemon>, listener: TcpListener, guard: Guard, codes: Arc<Codes>) {
    let stop = daemon.shutdown_token().clone();
    let guard = Arc::new(guard);
    let app = router(
        App {
            daemon,
            guard: guard.clone(),
            codes: codes.clone(),
        },
        guard,
    );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(OwnUserOnly(listener), app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
        {
            tracing::warn!(error = %e, "dashboard server failed");
        }
        codes.expire(true);
        tracing::info!("dashboard stopped");
    });
}

/// The dashboard's listener: on Linux a connection whose other end is not a socket
/// of our own uid is closed before a byte is read (`loopback_peer_uid`), so the
/// guard's session is not the only thing between another local user and the
/// dashboard: a cookie is per host, not per port, and any other user's server on
/// 127.0.0.1 that the browser visits could learn it. Elsewhere every connection
/// goes on to the guard.
struct OwnUserOnly(TcpListener);

impl axum::serve::Listener for OwnUserOnly {
    type Io = tokio::net::TcpStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let ours = rustix::process::geteuid().as_raw();
        loop {
            let (io, peer) = axum::serve::Listener::accept(&mut self.0).await;
            if !cfg!(target_os = "linux") {
                return (io, peer);
            }
            let owner = io
                .local_addr()
                .ok()
                .and_then(|local| lean_ctx_shared::ide::loopback_peer_uid(local, peer));
            if owner == Some(ours) {
                return (io, peer);
            }
            tracing::warn!(%peer, ?owner, "dashboard connection from another user closed");
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

fn router(app: App, guard: Arc<Guard>) -> Router {
    Router::new()
        .route(LOGIN, get(login_link).post(login_form))
        .route("/", get(index))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", APP_JS) }),
        )
        .route("/style.css", get(|| async { asset("text/css", STYLE_CSS) }))
        .route("/api/status", get(status))
        .route("/api/gain", get(gain_report))
        .route("/api/gain/daily", get(gain_daily))
        .route("/api/events", get(events))
        .route("/api/servers/{op}", post(servers))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        // After the routes and the fallback, so it guards every one of them.
        .layer(from_fn_with_state(guard, guard::enforce))
        .with_state(app)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

/// The `code` field of a query string or a form body (hex: nothing to decode).
fn code_in(fields: &str) -> Option<&str> {
    fields
        .split('&')
        .find_map(|pair| pair.strip_prefix("code="))
}

async fn login_link(State(app): State<App>, RawQuery(query): RawQuery) -> Response {
    login(&app, query.as_deref().and_then(code_in))
}

async fn login_form(State(app): State<App>, body: String) -> Response {
    login(&app, code_in(body.trim()))
}

/// Spends a one-time code: the session cookie and a page that moves on to `/`. Not a
/// redirect: a `SameSite=Strict` cookie is not sent along a redirect chain that a
/// `file://` page started, while a navigation the dashboard's own page starts
/// (`meta refresh`) is same-site.
fn login(app: &App, code: Option<&str>) -> Response {
    if !code.is_some_and(|c| app.codes.redeem(c)) {
        tracing::info!("a dashboard login with a used, expired or unknown code was refused");
        return (
            StatusCode::UNAUTHORIZED,
            "this one-time dashboard link was used already or has expired: run `lean-ctx dashboard` again",
        )
            .into_response();
    }
    let page = "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=/\">\
                <link rel=\"icon\" href=\"data:,\"><title>lean-ctx dashboard</title><p><a href=\"/\">Open the dashboard</a></p>\n";
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_string()),
            (header::SET_COOKIE, app.guard.session_cookie()),
        ],
        page,
    )
        .into_response()
}

/// `daemon status` plus the live numbers only the dashboard shows.
fn live_status(d: &Daemon) -> Value {
    let mut value = serde_json::to_value(status::status(d)).expect("status serializes");
    let now = sys::unix_ms(std::time::SystemTime::now());
    value["calls_per_second"] = json!(d.calls.per_second(now));
    value["recent_calls"] = json!(d.calls.recent());
    value
}

async fn status(State(app): State<App>) -> Json<Value> {
    Json(live_status(&app.daemon))
}

/// The price the daemon values tokens at: the environment it was started with, as
/// `lean-ctx gain` reads it, else the defaults.
fn price() -> Price {
    let mut price = Price::default();
    if let Ok(model) = std::env::var("LEAN_CTX_MODEL") {
        price.model = model;
    }
    if let Some(usd) = std::env::var("LEAN_CTX_USD_PER_MTOK")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        price.usd_per_mtok = usd;
    }
    price
}

async fn gain_report(State(app): State<App>) -> Json<gain::Report> {
    Json(gain::report(&app.daemon.gain.snapshot(), &price()))
}

async fn gain_daily(State(app): State<App>) -> Json<Vec<gain::Day>> {
    Json(gain::daily(&app.daemon.gain.snapshot()))
}

fn gain_event(d: &Daemon) -> (u64, Event) {
    let stats = d.gain.snapshot();
    let data = json!({"report": gain::report(&stats, &price()), "daily": gain::daily(&stats)});
    (
        stats.total_commands,
        Event::default().event("gain").data(data.to_string()),
    )
}

async fn events(State(app): State<App>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stop = app.daemon.shutdown_token().clone();
    let mut tick = tokio::time::interval(PUSH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let stream = futures::stream::unfold(
        (app.daemon, None::<u64>, tick),
        |(d, gain_seen, mut tick)| async move {
            tick.tick().await;
            let mut batch = vec![
                Event::default()
                    .event("status")
                    .data(live_status(&d).to_string()),
            ];
            // The gain report only changes when a call was counted.
            let (commands, gain) = gain_event(&d);
            if gain_seen != Some(commands) {
                batch.push(gain);
            }
            let batch = futures::stream::iter(batch.into_iter().map(Ok));
            Some((batch, (d, Some(commands), tick)))
        },
    )
    .flatten()
    .take_until(stop.cancelled_owned());
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// Which servers a button means.
#[derive(Debug, Deserialize)]
struct ServerTarget {
    root: PathBuf,
    language: Option<String>,
}

async fn servers(
    State(app): State<App>,
    Path(op): Path<String>,
    Json(target): Json<ServerTarget>,
) -> Response {
    let op = match op.as_str() {
        "evict" => LanguageServerOp::Evict,
        "restart" => LanguageServerOp::Restart,
        _ => return (StatusCode::NOT_FOUND, "not found").into_response(),
    };
    let d = &app.daemon;
    let req = LanguageServersRequest {
        op,
        root: Some(target.root),
        language: target.language,
    };
    // Through the choke point like any call: refused while stopping, panics caught,
    // and shown in the recent calls.
    match d
        .call("language_servers", status::language_servers(d, req))
        .await
    {
        Ok(resp) => Json(resp).into_response(),
        Err(e) => error_response(&e),
    }
}

fn error_response(e: &LeanError) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        Json(
            json!({"error": {"code": e.code.as_str(), "message": e.message, "remedy": e.remedy()}}),
        ),
    )
        .into_response()
}
