//! The JetBrains backend: POSTs to an IDE window's plugin over loopback HTTP with its
//! token, and maps the answer to the catalog (docs/ide-wire.md). Plain HTTP: the server binds
//! 127.0.0.1 only, so no TLS stack is linked (reqwest without its TLS features).
//!
//! Outcomes: the answer's JSON; a domain error from the envelope
//! `{"error":{"code","message"}}` as that catalog code; a 401 re-reads the port file
//! once (the IDE restarted with a new token) and retries, then is `UNAUTHORIZED`; a
//! connection that fails, or an answer that does not come within the timeout, makes
//! the IDE [`Unreachable`](CallError::Unreachable) so the caller falls back to the
//! next backing within the same call (and a window that hung is held off,
//! [`Discovery::hold`]). Before every POST the
//! listener on the port is proven the IDE's again ([`Discovery::verify`]). Every POST
//! says its timeout in [`TIMEOUT_HEADER`], so our plugin gives up (answering `INDEXING`
//! for work a busy IDE never started) before we do.

use std::time::Duration;

use lean_ctx_shared::{ErrorCode, LeanError};
use serde_json::Value;

use super::discovery::{Discovery, Ide};

/// The header that tells the plugin this request's timeout, in milliseconds.
pub const TIMEOUT_HEADER: &str = "X-LeanCtx-Timeout-Ms";

#[derive(Debug)]
pub enum CallError {
    /// The IDE did not answer at all: fall back.
    Unreachable(String),
    /// It answered with an error.
    Answered(LeanError),
}

impl From<CallError> for LeanError {
    fn from(e: CallError) -> LeanError {
        match e {
            CallError::Unreachable(why) => LeanError::new(
                ErrorCode::BackendRequired,
                format!("the JetBrains IDE stopped answering: {why}"),
            ),
            CallError::Answered(e) => e,
        }
    }
}

/// POST `body` to `route` of `ide`.
pub async fn call(
    discovery: &Discovery,
    ide: &Ide,
    route: &str,
    body: &Value,
    timeout: Duration,
) -> Result<Value, CallError> {
    match post(discovery, ide, route, body, timeout).await? {
        Posted::Unauthorized => {
            let fresh = discovery
                .reread(ide)
                .filter(|f| f.token != ide.token)
                .ok_or_else(unauthorized)?;
            match post(discovery, &fresh, route, body, timeout).await? {
                Posted::Unauthorized => Err(unauthorized()),
                Posted::Answer(v) => Ok(v),
            }
        }
        Posted::Answer(v) => Ok(v),
    }
}

fn unauthorized() -> CallError {
    CallError::Answered(LeanError::new(
        ErrorCode::Unauthorized,
        "the JetBrains plugin refused our token, also after re-reading its port file",
    ))
}

enum Posted {
    Answer(Value),
    Unauthorized,
}

async fn post(
    discovery: &Discovery,
    ide: &Ide,
    route: &str,
    body: &Value,
    timeout: Duration,
) -> Result<Posted, CallError> {
    // The port may have changed hands since the window was found: neither the token
    // nor the body leaves before the listener is proven the IDE's again.
    if let Err(why) = discovery.verify(ide).await {
        tracing::warn!(port = ide.port, %why, "not sending to the IDE's port");
        discovery.mark_unreachable(&ide.hash);
        return Err(CallError::Unreachable(why));
    }
    let sent = discovery
        .http()
        .post(format!("http://127.0.0.1:{}{route}", ide.port))
        .header("X-LeanCtx-Token", &ide.token)
        // Our plugin answers within this, less a margin (a busy IDE's INDEXING arrives
        // before we give up); the published plugin ignores the header (docs/ide-wire.md,
        // Timeouts and retries).
        .header(TIMEOUT_HEADER, timeout.as_millis().to_string())
        .json(body)
        .timeout(timeout)
        .send()
        .await;
    let response = match sent {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            let why = format!("no answer to {route} within {timeout:?}");
            discovery.hold(&ide.hash, why.clone());
            return Err(CallError::Unreachable(why));
        }
        Err(e) => {
            discovery.mark_unreachable(&ide.hash);
            return Err(CallError::Unreachable(e.to_string()));
        }
    };
    let status = response.status();
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return Ok(Posted::Unauthorized);
    }
    let text = response.text().await.map_err(|e| {
        discovery.mark_unreachable(&ide.hash);
        CallError::Unreachable(e.to_string())
    })?;
    let answered =
        |code: ErrorCode, message: String| Err(CallError::Answered(LeanError::new(code, message)));
    if status == reqwest::StatusCode::NOT_FOUND {
        return answered(
            ErrorCode::NotFound,
            format!("the JetBrains plugin has no route {route} (an older plugin?)"),
        );
    }
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return answered(
                ErrorCode::Internal,
                format!(
                    "the JetBrains plugin answered {route} with HTTP {status} and no JSON: {e}"
                ),
            );
        }
    };
    if let Some(err) = value.get("error") {
        let code = err["code"].as_str().unwrap_or("INTERNAL");
        let message = err["message"].as_str().unwrap_or("").to_string();
        return answered(
            ErrorCode::parse(code).unwrap_or(ErrorCode::Internal),
            format!("JetBrains IDE: {message}"),
        );
    }
    if !status.is_success() {
        return answered(
            ErrorCode::Internal,
            format!("the JetBrains plugin answered {route} with HTTP {status}"),
        );
    }
    Ok(Posted::Answer(value))
}
