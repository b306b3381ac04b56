//! Who may talk to the dashboard. Loopback alone is no protection: every local process
//! and every web page the user's browser opens can reach 127.0.0.1. So every request
//! must pass three checks, in this order:
//!
//! 1. `Host` is `127.0.0.1:<port>` or `localhost:<port>` (else 403): a page on
//!    `evil.example` whose DNS name is rebound to 127.0.0.1 sends its own name here,
//!    and is refused before anything else is looked at.
//! 2. The per-run session token, as this dashboard's cookie (`lean-ctx-<port>`,
//!    `HttpOnly`, `SameSite=Strict`, set by the one-time handover, see
//!    [`handover`](super::handover)) or the `X-LeanCtx-Token` header, equals ours
//!    (else 401). Compared in constant time. The token is never in a URL or a command
//!    line. Only [`LOGIN`] goes without it: it takes a one-time code instead, which
//!    its handler checks.
//! 3. A request that can change state (anything but GET and HEAD) carries an `Origin`
//!    equal to the origin it was sent to, `http://<Host>` (else 403): a form or fetch
//!    from another site cannot press a button.
//!
//! The checks are a pure function ([`Guard::check`]) so they are tested without a
//! server; [`enforce`] applies them to every route and adds headers that keep the page
//! from being framed, cached or leaking its URL.

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    http::{HeaderValue, Method, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};

use super::handover::LOGIN;

/// The header a script may send the token in (the page itself uses the cookie).
pub const TOKEN_HEADER: &str = "x-leanctx-token";

/// The content security policy of every answer: only our own scripts, styles and
/// connections; no frames, no forms elsewhere (the "no external network" rule, enforced
/// by the browser).
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

#[derive(Debug)]
pub struct Guard {
    token: String,
    port: u16,
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    ForeignHost,
    BadToken,
    ForeignOrigin,
}

impl Refusal {
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::BadToken => StatusCode::UNAUTHORIZED,
            Refusal::ForeignHost | Refusal::ForeignOrigin => StatusCode::FORBIDDEN,
        }
    }

    fn message(self) -> &'static str {
        match self {
            Refusal::ForeignHost => "Host must be 127.0.0.1 or localhost with the dashboard's port",
            Refusal::BadToken => {
                "no dashboard session: run `lean-ctx dashboard` (or `--no-open` and paste its one-time link)"
            }
            Refusal::ForeignOrigin => {
                "state-changing requests must come from the dashboard's own page"
            }
        }
    }
}

/// What of a request the checks look at.
#[derive(Clone, Copy, Debug)]
pub struct Seen<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub host: Option<&'a str>,
    /// From this dashboard's cookie or the header.
    pub token: Option<&'a str>,
    pub origin: Option<&'a str>,
}

impl Guard {
    pub fn new(token: String, port: u16) -> Guard {
        Guard { token, port }
    }

    pub fn check(&self, seen: Seen<'_>) -> Result<(), Refusal> {
        let host = seen
            .host
            .filter(|h| self.loopback_host(h))
            .ok_or(Refusal::ForeignHost)?;
        // The one-time page posts from `file://` (`Origin: null`) and has no session
        // yet: its code is its credential, checked by the login handler.
        if seen.path == LOGIN {
            return Ok(());
        }
        if !seen.token.is_some_and(|t| constant_time_eq(t, &self.token)) {
            return Err(Refusal::BadToken);
        }
        let safe = *seen.method == Method::GET || *seen.method == Method::HEAD;
        if !safe && seen.origin != Some(format!("http://{host}").as_str()) {
            return Err(Refusal::ForeignOrigin);
        }
        Ok(())
    }

    /// This dashboard's cookie name: cookies are per host, not per port, so two
    /// daemons' dashboards (or runs) on 127.0.0.1 must not overwrite each other's.
    pub fn cookie_name(&self) -> String {
        format!("lean-ctx-{}", self.port)
    }

    /// The `Set-Cookie` value that carries the session: out of scripts' reach
    /// (`HttpOnly`) and never sent along with a request another site started
    /// (`SameSite=Strict`).
    pub fn session_cookie(&self) -> String {
        format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            self.cookie_name(),
            self.token
        )
    }

    fn loopback_host(&self, host: &str) -> bool {
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        port.parse() == Ok(self.port)
            && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }
}

/// Equal strings, in time that depends on the length only: the token must not leak
/// through how fast a wrong guess is refused.
fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The value of cookie `name` in a `Cookie` header.
fn cookie<'a>(header: Option<&'a str>, name: &str) -> Option<&'a str> {
    header?.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

/// Middleware: refuses what [`Guard::check`] refuses, and hardens every answer.
pub async fn enforce(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let verdict = {
        let header_str = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
        let name = guard.cookie_name();
        guard.check(Seen {
            method: req.method(),
            path: req.uri().path(),
            host: header_str(header::HOST.as_str()),
            token: cookie(header_str(header::COOKIE.as_str()), &name)
                .or_else(|| header_str(TOKEN_HEADER)),
            origin: header_str(header::ORIGIN.as_str()),
        })
    };
    let mut resp = match verdict {
        Ok(()) => next.run(req).await,
        Err(refusal) => {
            tracing::debug!(?refusal, "dashboard request refused");
            (refusal.status(), refusal.message()).into_response()
        }
    };
    let headers = resp.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ab12";

    fn check(
        method: Method,
        host: &str,
        token: Option<&str>,
        origin: Option<&str>,
    ) -> Result<(), Refusal> {
        Guard::new(TOKEN.into(), 4242).check(Seen {
            method: &method,
            path: "/api/status",
            host: Some(host),
            token,
            origin,
        })
    }

    #[test]
    fn a_read_needs_a_loopback_host_and_the_token() {
        assert_eq!(
            check(Method::GET, "127.0.0.1:4242", Some(TOKEN), None),
            Ok(())
        );
        assert_eq!(
            check(Method::GET, "LOCALHOST:4242", Some(TOKEN), None),
            Ok(())
        );
        assert_eq!(
            check(Method::GET, "127.0.0.1:4242", None, None),
            Err(Refusal::BadToken)
        );
        assert_eq!(
            check(Method::GET, "127.0.0.1:4242", Some("ab13"), None),
            Err(Refusal::BadToken)
        );
        assert_eq!(
            check(Method::GET, "127.0.0.1:4242", Some("ab1"), None),
            Err(Refusal::BadToken)
        );
        // DNS rebinding: the right token cannot help a foreign name.
        for host in [
            "evil.example",
            "evil.example:4242",
            "127.0.0.1:80",
            "127.0.0.1",
            "[::1]:4242",
        ] {
            assert_eq!(
                check(Method::GET, host, Some(TOKEN), None),
                Err(Refusal::ForeignHost),
                "{host}"
            );
        }
        let no_host = Guard::new(TOKEN.into(), 4242).check(Seen {
            method: &Method::GET,
            path: "/",
            host: None,
            token: Some(TOKEN),
            origin: None,
        });
        assert_eq!(no_host, Err(Refusal::ForeignHost));
    }

    #[test]
    fn a_write_needs_the_served_origin_too() {
        assert_eq!(
            check(
                Method::POST,
                "127.0.0.1:4242",
                Some(TOKEN),
                Some("http://127.0.0.1:4242")
            ),
            Ok(())
        );
        assert_eq!(
            check(
                Method::POST,
                "localhost:4242",
                Some(TOKEN),
                Some("http://localhost:4242")
            ),
            Ok(())
        );
        for origin in [
            None,
            Some("http://evil.example"),
            Some("http://localhost:4242"),
            Some("null"),
        ] {
            assert_eq!(
                check(Method::POST, "127.0.0.1:4242", Some(TOKEN), origin),
                Err(Refusal::ForeignOrigin),
                "{origin:?}"
            );
        }
        assert_eq!(Refusal::BadToken.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(Refusal::ForeignOrigin.status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn the_token_is_found_in_our_cookie_only() {
        let header = Some("a=1; lean-ctx-4242=ff; lean-ctx-4243=ee");
        assert_eq!(cookie(header, "lean-ctx-4242"), Some("ff"));
        assert_eq!(cookie(header, "lean-ctx-4243"), Some("ee"));
        assert_eq!(cookie(header, "lean-ctx-42"), None);
        assert_eq!(cookie(None, "lean-ctx-4242"), None);
        let guard = Guard::new(TOKEN.into(), 4242);
        assert_eq!(
            guard.session_cookie(),
            "lean-ctx-4242=ab12; HttpOnly; SameSite=Strict; Path=/"
        );
    }

    #[test]
    fn only_login_goes_without_a_session_and_only_on_a_loopback_host() {
        let login = |host, origin| {
            Guard::new(TOKEN.into(), 4242).check(Seen {
                method: &Method::POST,
                path: LOGIN,
                host: Some(host),
                token: None,
                origin,
            })
        };
        assert_eq!(login("127.0.0.1:4242", Some("null")), Ok(()));
        assert_eq!(
            login("evil.example", Some("null")),
            Err(Refusal::ForeignHost)
        );
        let other = Guard::new(TOKEN.into(), 4242).check(Seen {
            method: &Method::GET,
            path: "/login/x",
            host: Some("127.0.0.1:4242"),
            token: None,
            origin: None,
        });
        assert_eq!(other, Err(Refusal::BadToken));
    }
}
