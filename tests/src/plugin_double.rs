//! A strict double of the PUBLISHED JetBrains plugin (v3.9.18, docs/ide-wire.md), for
//! the daemon's IDE tests besides our own core's contract server
//! ([`crate::ContractIde`]): where our core forgives (it is ours, and it evolves with
//! the daemon), this double answers as the plugin users already have installed, so a
//! daemon that drifts from the published wire fails CI.
//!
//! It lives in the test process: a `std::net` listener on 127.0.0.1 with a thread per
//! connection and a minimal HTTP/1.1 parser, and a port file naming this process's pid,
//! so the daemon's proof of the listener (`shared::ide::verify_listener`) holds. What
//! it does, in the published plugin's order:
//!
//! 1. the token, on every request, `GET /health` included: missing or wrong is 401
//!    `UNAUTHORIZED` before the route is looked at (a missing one is also a deviation:
//!    the daemon must always send it; a wrong one can be a rotated port file);
//! 2. `GET /health` answers `{status, ideVersion, project}`; any other method and path
//!    without a route is 404 `NOT_FOUND`, and a deviation unless it is a route only
//!    our plugin has ([`beyond_published`]): the daemon sends those on purpose and
//!    passes the call on when the published plugin answers 404;
//! 3. the body is checked against the route's fields in docs/ide-wire.md's request
//!    table (`REQUESTS` below).
//!    A missing required field, a wrong JSON type, a value outside an enum, a `null`,
//!    a position off the file or inside a UTF-16 surrogate pair: answered HTTP 500
//!    with an `INTERNAL` envelope naming the deviation, and recorded. A field the
//!    published plugin does not read for that route is answered as the plugin answers
//!    (Gson drops unknown fields) but recorded too: the call works, yet whatever the
//!    daemon meant by it silently does not happen (`force` on an inline,
//!    `search_comments` on a `renameApply`), and a casing slip (`newName`) is exactly
//!    such a field. A missing boolean option is fine (Gson's `false` is the documented
//!    default); a missing `scope` or `direction` is not: Gson does not run Kotlin's
//!    default arguments, so the published plugin's default for a string is not
//!    guaranteed, and the daemon always sends them;
//! 4. a window in dumb mode ([`PluginDouble::set_indexing`]) answers `INDEXING`;
//! 5. the test's handler for the route ([`PluginDouble::on`]) answers: JSON in the
//!    published shapes, a domain error as HTTP 200 with the envelope, or a hang until
//!    the double is dropped. Handlers write files themselves where the published
//!    plugin would write through the IDE ([`Call::write`], [`replace_symbol_body`],
//!    [`insert_symbol`]). A scripted route no request reached fails the double too.
//!
//! Every request is logged ([`PluginDouble::requests`]). Deviations fail the test:
//! [`PluginDouble::assert_clean`], and on drop (unless the test already panics), after
//! the server is stopped and the port file removed.

use std::{
    collections::HashMap,
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::{Shutdown, TcpListener, TcpStream},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt},
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{SystemTime, UNIX_EPOCH},
};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::TestEnv;

/// What a handler answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// HTTP 200 with this body (the route's response DTO).
    Json(Value),
    /// HTTP 200 with `{"error":{"code","message"}}` (domain errors: docs/errors.md).
    Error(&'static str, String),
    /// Accept, read, never answer until the double is dropped.
    Hang,
}

impl Reply {
    pub fn error(code: &'static str, message: impl Into<String>) -> Reply {
        Reply::Error(code, message.into())
    }
}

/// A request the handler is asked to answer: its body passed the route's checks.
#[derive(Debug)]
pub struct Call {
    pub route: String,
    pub body: Value,
    root: PathBuf,
}

impl Call {
    /// Writes `edits` (`(range, text)`, 0-based lines and UTF-16 columns, each range
    /// counted against the file as it was before) into `path` under the root, as the
    /// IDE saves a document.
    pub fn write(&self, path: &str, edits: &[(Value, &str)]) -> Result<(), String> {
        let file = self.root.join(path);
        let text = fs::read_to_string(&file).map_err(|e| format!("{path}: {e}"))?;
        let mut spans = Vec::new();
        for (range, new) in edits {
            let at = |p: &Value| offset(&text, p["line"].as_u64(), p["character"].as_u64());
            spans.push((at(&range["start"])?, at(&range["end"])?, *new));
        }
        spans.sort_by_key(|s| std::cmp::Reverse(s.0));
        let mut out = text.clone();
        for (start, end, new) in spans {
            out.replace_range(start..end, new);
        }
        fs::write(&file, out).map_err(|e| format!("{path}: {e}"))
    }
}

/// The published plugin's `/replaceSymbolBody`: the body's range replaced by its text,
/// answered `{applied, newRange, editedText}` (camelCase).
pub fn replace_symbol_body(call: &Call) -> Reply {
    let (path, range, text) = (&call.body["path"], &call.body["range"], &call.body["text"]);
    let text = text.as_str().unwrap_or_default();
    match call.write(path.as_str().unwrap_or_default(), &[(range.clone(), text)]) {
        Ok(()) => {
            let start = &range["start"];
            let (line, character) = (start["line"].as_u64(), start["character"].as_u64());
            let (line, character) = (line.unwrap_or(0), character.unwrap_or(0));
            let end = match text.rfind('\n') {
                None => json!({"line": line, "character": character + utf16(text)}),
                Some(i) => json!({
                    "line": line + text.matches('\n').count() as u64,
                    "character": utf16(&text[i + 1..]),
                }),
            };
            Reply::Json(json!({
                "applied": true,
                "newRange": {"start": start, "end": end},
                "editedText": text,
            }))
        }
        Err(e) => Reply::error("POSITION_OUT_OF_RANGE", e),
    }
}

/// The published plugin's `/insertBeforeSymbol` and `/insertAfterSymbol` (by
/// `call.route`): the text, without its trailing line breaks, on lines of its own
/// before the range's first line or after its last (a range ending at column 0 of a
/// later line ends on the line before), answered like [`replace_symbol_body`].
pub fn insert_symbol(call: &Call) -> Reply {
    let path = call.body["path"].as_str().unwrap_or_default();
    let range = &call.body["range"];
    let line = |p: &str| range[p]["line"].as_u64().unwrap_or(0) as usize;
    let written = call.body["text"]
        .as_str()
        .unwrap_or_default()
        .trim_end_matches(['\n', '\r']);
    let file = call.root.join(path);
    let Ok(text) = fs::read_to_string(&file) else {
        return Reply::error("FILE_NOT_FOUND", path);
    };
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let (at, first, insert) = if call.route == "/insertBeforeSymbol" {
        let first = line("start");
        (
            starts[first.min(starts.len() - 1)],
            first,
            format!("{written}\n"),
        )
    } else {
        let ends_at_column_0 = range["end"]["character"] == 0 && line("end") > line("start");
        let last = line("end") - usize::from(ends_at_column_0);
        match starts.get(last + 1) {
            Some(&at) => (at, last + 1, format!("{written}\n")),
            // The symbol ends the file without a line break: a new line for the text.
            None => (text.len(), last + 1, format!("\n{written}")),
        }
    };
    let mut out = text.clone();
    out.insert_str(at, &insert);
    if let Err(e) = fs::write(&file, out) {
        return Reply::error("INTERNAL", format!("{path}: {e}"));
    }
    let lines = written.matches('\n').count();
    let last = written.rsplit('\n').next().unwrap_or_default();
    Reply::Json(json!({
        "applied": true,
        "newRange": {"start": {"line": first, "character": 0},
                     "end": {"line": first + lines, "character": utf16(last)}},
        "editedText": written,
    }))
}

/// How a request presented the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Missing,
    Wrong,
    Right,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub route: String,
    /// Names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub token: Token,
    /// `Null` for an empty body or one that is not JSON.
    pub body: Value,
}

type Handler = Arc<dyn Fn(&Call) -> Reply + Send + Sync>;

/// An unknown field the test knows today's daemon sends (a bug for the lead, written
/// down in the test); it must be seen, so the tolerance goes once the daemon is fixed.
#[derive(Debug)]
struct Tolerated {
    route: String,
    field: String,
    seen: bool,
}

struct Shared {
    root: PathBuf,
    token: Mutex<String>,
    data_dir: PathBuf,
    port: u16,
    stopped: Mutex<bool>,
    wake: Condvar,
    indexing: AtomicBool,
    /// Each route's handler, and whether it answered a request yet.
    routes: Mutex<HashMap<String, (Handler, bool)>>,
    log: Mutex<Vec<Recorded>>,
    deviations: Mutex<Vec<String>>,
    tolerated: Mutex<Vec<Tolerated>>,
    conns: Mutex<Vec<(TcpStream, JoinHandle<()>)>>,
}

/// A published-plugin window serving one root; stopped, its connections closed and
/// its port file removed when dropped.
pub struct PluginDouble {
    shared: Arc<Shared>,
    pub port: u16,
    pub port_file: PathBuf,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for PluginDouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginDouble")
            .field("port", &self.port)
            .field("port_file", &self.port_file)
            .finish_non_exhaustive()
    }
}

/// What the port file says the IDE is.
pub const IDE_VERSION: &str = "IU-2026.1 (published plugin 3.9.18, double)";

impl PluginDouble {
    /// Listens on 127.0.0.1:0 for `root` and writes its port file into `env`'s data
    /// dir, as the published plugin does when a project window opens.
    pub fn start(env: &TestEnv, root: &Path) -> PluginDouble {
        let root = fs::canonicalize(root).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut random = [0u8; 32];
        fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut random))
            .unwrap();
        let shared = Arc::new(Shared {
            root: root.clone(),
            token: Mutex::new(hex(&random)),
            data_dir: env.paths.data_dir.clone(),
            port,
            stopped: Mutex::new(false),
            wake: Condvar::new(),
            indexing: AtomicBool::new(false),
            routes: Mutex::new(HashMap::new()),
            log: Mutex::new(Vec::new()),
            deviations: Mutex::new(Vec::new()),
            tolerated: Mutex::new(Vec::new()),
            conns: Mutex::new(Vec::new()),
        });
        let s = shared.clone();
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if *s.stopped.lock().unwrap() {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (s2, clone) = (s.clone(), stream.try_clone().unwrap());
                let thread = std::thread::spawn(move || serve(&s2, stream));
                s.conns.lock().unwrap().push((clone, thread));
            }
        });
        let port_file = write_port_file(&shared);
        PluginDouble {
            shared,
            port,
            port_file,
            accept: Some(accept),
        }
    }

    pub fn token(&self) -> String {
        self.shared.token.lock().unwrap().clone()
    }

    /// A new token, as a restarted window has: with `port_file`, written into the port
    /// file as the plugin does; without, the file keeps the old one (a window whose
    /// file someone else rewrote, or a plugin that lost it). Returns the new token.
    pub fn new_token(&self, port_file: bool) -> String {
        let mut random = [0u8; 32];
        fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut random))
            .unwrap();
        *self.shared.token.lock().unwrap() = hex(&random);
        if port_file {
            write_port_file(&self.shared);
        }
        self.token()
    }

    /// Answers `route` (e.g. `"/references"`) with `handler` from now on.
    pub fn on(
        &self,
        route: &str,
        handler: impl Fn(&Call) -> Reply + Send + Sync + 'static,
    ) -> &Self {
        let routes = &mut self.shared.routes.lock().unwrap();
        routes.insert(route.to_string(), (Arc::new(handler), false));
        self
    }

    /// Dumb mode: every route but `/health` answers `INDEXING` (docs/ide-wire.md,
    /// Dumb mode).
    pub fn set_indexing(&self, on: bool) {
        self.shared.indexing.store(on, Ordering::SeqCst);
    }

    /// Today's daemon sends `field` on `route`, which the published plugin ignores:
    /// not a failure while this lasts, but it must happen (remove it once fixed).
    pub fn tolerate(&self, route: &str, field: &str) {
        self.shared.tolerated.lock().unwrap().push(Tolerated {
            route: route.into(),
            field: field.into(),
            seen: false,
        });
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().unwrap().clone()
    }

    /// The bodies of the POSTs to `route` that carried the right token.
    pub fn bodies(&self, route: &str) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.route == route && r.token == Token::Right)
            .map(|r| r.body)
            .collect()
    }

    pub fn deviations(&self) -> Vec<String> {
        self.shared.deviations.lock().unwrap().clone()
    }

    /// The deviations so far, forgotten (for tests that provoke them on purpose).
    pub fn take_deviations(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.deviations.lock().unwrap())
    }

    /// Panics listing every deviation, every tolerance that never happened, and every
    /// route the test scripted an answer for that no request reached (a call the
    /// daemon no longer sends there, or a test that asserts less than it sets up).
    pub fn assert_clean(&self) {
        let mut problems = self.deviations();
        let mut unused: Vec<_> = (self.shared.routes.lock().unwrap().iter())
            .filter(|(_, (_, used))| !used)
            .map(|(route, _)| format!("{route} was scripted but never asked"))
            .collect();
        unused.sort();
        problems.extend(unused);
        for t in self.shared.tolerated.lock().unwrap().iter() {
            if !t.seen {
                problems.push(format!(
                    "{}: `{}` was tolerated but never sent: the daemon is fixed, remove the tolerance",
                    t.route, t.field
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "the daemon deviated from the published plugin's wire (docs/ide-wire.md):\n  {}",
            problems.join("\n  ")
        );
    }
}

impl Drop for PluginDouble {
    fn drop(&mut self) {
        *self.shared.stopped.lock().unwrap() = true;
        self.shared.wake.notify_all();
        // Wakes the accept loop, which then sees `stopped`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let conns = std::mem::take(&mut *self.shared.conns.lock().unwrap());
        for (stream, thread) in conns {
            let _ = stream.shutdown(Shutdown::Both);
            let _ = thread.join();
        }
        let _ = fs::remove_file(&self.port_file);
        if !std::thread::panicking() {
            self.assert_clean();
        }
    }
}

/// `<data dir>/jetbrains-<first 8 bytes of SHA-256 of the canonical root, hex>.port`
/// (docs/ide-wire.md, Project hash; computed here on its own rather than through
/// `shared::ide`, so a drift there shows), written as the plugin writes it: the data
/// dir created 0700 if missing, a 0600 temp file beside the target, filled and synced,
/// atomically renamed.
fn write_port_file(s: &Shared) -> PathBuf {
    let (data_dir, root) = (&s.data_dir, &s.root);
    let (port, token) = (s.port, s.token.lock().unwrap().clone());
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)
        .unwrap();
    let hash = hex(&Sha256::digest(root.to_str().unwrap().as_bytes())[..8]);
    let target = data_dir.join(format!("jetbrains-{hash}.port"));
    let pid = std::process::id();
    let started_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    // Gson's key order (the Kotlin data class's), which no reader may depend on.
    let text = format!(
        r#"{{"port":{port},"token":"{token}","pid":{pid},"project_root":{},"ide_version":{},"started_at":{started_at}}}"#,
        Value::from(root.to_str().unwrap()),
        Value::from(IDE_VERSION),
    );
    let tmp = data_dir.join(format!(".jetbrains-{hash}.port.{pid}.0.tmp"));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.sync_all().unwrap();
    fs::rename(&tmp, &target).unwrap();
    target
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One connection: requests answered in turn while the peer keeps it open; then
/// closed (the drop holds a clone of the stream, so dropping ours would not close it).
fn serve(s: &Shared, stream: TcpStream) {
    let mut reader = BufReader::new(stream);
    serve_requests(s, &mut reader);
    let _ = reader.get_ref().shutdown(Shutdown::Both);
}

fn serve_requests(s: &Shared, reader: &mut BufReader<TcpStream>) {
    loop {
        let request = match read_request(reader) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(why) => {
                deviation(s, format!("malformed HTTP request: {why}"));
                let _ = respond(reader.get_mut(), 400, &envelope("INTERNAL", &why), true);
                return;
            }
        };
        let close = request.header("connection") == Some("close");
        let Some((status, body)) = answer(s, request) else {
            // A hang: released (and the connection closed) only by the drop.
            let mut stopped = s.stopped.lock().unwrap();
            while !*stopped {
                stopped = s.wake.wait(stopped).unwrap();
            }
            return;
        };
        if respond(reader.get_mut(), status, &body, close).is_err() || close {
            return;
        }
    }
}

struct Request {
    method: String,
    route: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        let found = self.headers.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.as_str())
    }
}

/// Strict HTTP/1.1: `METHOD SP target SP HTTP/1.1`, CRLF line ends, `Name: value`
/// headers, a body only by `Content-Length` (what the daemon's client sends).
/// `Ok(None)`: the connection closed or failed (the drop shuts it down, a peer may
/// reset it): that is no deviation of the request.
fn read_request(r: &mut BufReader<TcpStream>) -> Result<Option<Request>, String> {
    let mut line = String::new();
    let line_of = |r: &mut BufReader<TcpStream>, line: &mut String| {
        line.clear();
        match r.by_ref().take(8192).read_line(line) {
            Ok(0) => Ok(false),
            Ok(_) if line.ends_with("\r\n") => {
                line.truncate(line.len() - 2);
                Ok(true)
            }
            Ok(_) => Err(format!("line {line:?} does not end with CRLF")),
            Err(_) => Ok(false),
        }
    };
    if !line_of(r, &mut line)? {
        return Ok(None);
    }
    let parts: Vec<&str> = line.split(' ').collect();
    let [method, route, "HTTP/1.1"] = parts[..] else {
        return Err(format!("request line {line:?}"));
    };
    let (method, route) = (method.to_string(), route.to_string());
    let mut headers = Vec::new();
    loop {
        if !line_of(r, &mut line)? {
            return Ok(None);
        }
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("header line {line:?}"))?;
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method,
        route,
        headers,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Err("a Transfer-Encoding body (the daemon sends Content-Length)".into());
    }
    if let Some(len) = request.header("content-length") {
        let len: usize = len.parse().map_err(|_| format!("Content-Length {len:?}"))?;
        if len > 16 << 20 {
            return Err(format!("a {len}-byte body"));
        }
        request.body = vec![0; len];
        if r.read_exact(&mut request.body).is_err() {
            return Ok(None);
        }
    }
    Ok(Some(request))
}

fn respond(stream: &mut TcpStream, status: u16, body: &Value, close: bool) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        _ => "Internal Server Error",
    };
    let body = body.to_string();
    let connection = if close { "Connection: close\r\n" } else { "" };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n{connection}\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn envelope(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

fn deviation(s: &Shared, what: String) {
    s.deviations.lock().unwrap().push(what);
}

/// The status and body for one request, in the published plugin's order; `None`
/// for a hang.
fn answer(s: &Shared, request: Request) -> Option<(u16, Value)> {
    let token = match request.header("x-leanctx-token") {
        None => Token::Missing,
        Some(t) if t == *s.token.lock().unwrap() => Token::Right,
        Some(_) => Token::Wrong,
    };
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let (method, route) = (request.method.clone(), request.route.clone());
    s.log.lock().unwrap().push(Recorded {
        method: method.clone(),
        route: route.clone(),
        headers: request.headers,
        token,
        body: body.clone(),
    });
    if token != Token::Right {
        if token == Token::Missing {
            deviation(s, format!("{method} {route} without X-LeanCtx-Token"));
        }
        let why = format!("{token:?} X-LeanCtx-Token").to_lowercase();
        return Some((401, envelope("UNAUTHORIZED", &why)));
    }
    if method == "GET" && route == "/health" {
        let project = s.root.file_name().unwrap_or_default().to_string_lossy();
        return Some((
            200,
            json!({"status": "ok", "ideVersion": IDE_VERSION, "project": project}),
        ));
    }
    let Some(fields) = (method == "POST").then(|| fields(&route)).flatten() else {
        if method != "POST" || !BEYOND_PUBLISHED.contains(&route.as_str()) {
            deviation(s, format!("{method} {route}: no such route"));
        }
        return Some((
            404,
            envelope("NOT_FOUND", &format!("no route for {method} {route}")),
        ));
    };
    let mut rejected = Vec::new();
    let mut ignored = Vec::new();
    check(fields, &body, "", &mut rejected, &mut ignored);
    if rejected.is_empty() {
        rejected.extend(positions_off_the_file(&s.root, &body));
    }
    // One deviation per request: what the plugin would fail on, and what it drops.
    let mut problems = rejected.clone();
    let mut tolerated = s.tolerated.lock().unwrap();
    for field in ignored {
        match tolerated
            .iter_mut()
            .find(|t| t.route == route && t.field == field)
        {
            Some(t) => t.seen = true,
            None => problems.push(format!(
                "`{field}` is not read by the published plugin (Gson drops it){}",
                hint(fields, &field)
            )),
        }
    }
    drop(tolerated);
    if !problems.is_empty() {
        deviation(s, format!("{route}: {}; body {body}", problems.join("; ")));
    }
    if !rejected.is_empty() {
        let why = format!("plugin double: {route}: {}", rejected.join("; "));
        return Some((500, envelope("INTERNAL", &why)));
    }
    if s.indexing.load(Ordering::SeqCst) {
        let why = "the IDE is indexing (dumb mode); retry when it is done";
        return Some((200, envelope("INDEXING", why)));
    }
    let handler = s
        .routes
        .lock()
        .unwrap()
        .get_mut(&route)
        .map(|(handler, used)| {
            *used = true;
            handler.clone()
        });
    let Some(handler) = handler else {
        let why = format!("the test scripted no answer for {route}");
        return Some((200, envelope("INTERNAL", &why)));
    };
    let call = Call {
        route: route.clone(),
        body,
        root: s.root.clone(),
    };
    let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(&call)));
    match reply {
        Ok(Reply::Json(v)) => Some((200, v)),
        Ok(Reply::Error(code, message)) => Some((200, envelope(code, &message))),
        Ok(Reply::Hang) => None,
        Err(_) => {
            deviation(s, format!("{route}: the test's handler panicked"));
            Some((500, envelope("INTERNAL", "the test's handler panicked")))
        }
    }
}

/// What a request's position names: a file, a place in it, and how far to look.
const AT: &str = "path:str line:int character:int scope:project|all";

/// docs/ide-wire.md's request table, route by route (what the daemon may POST) and
/// field by field: `name:type`, `name?:type` for a boolean option Gson leaves at its
/// `false` default; a type is `str`, `int` (a JSON integer that fits Java's `int`, not
/// negative), `bool`, `a|b` (one of those strings), or an object of [`object`].
const REQUESTS: &[(&str, &str)] = &[
    ("/references", AT),
    ("/definition", AT),
    ("/implementations", AT),
    ("/declaration", AT),
    (
        "/type_hierarchy",
        "path:str line:int character:int direction:supertypes|subtypes scope:project|all",
    ),
    ("/symbols_overview", "path:str"),
    ("/inspections", "path:str"),
    ("/list_inspections", "path:str"),
    ("/replaceSymbolBody", "path:str range:range text:str"),
    ("/insertBeforeSymbol", "path:str range:range text:str"),
    ("/insertAfterSymbol", "path:str range:range text:str"),
    (
        "/renamePreview",
        "path:str range:range new_name:str search_comments?:bool search_text_occurrences?:bool",
    ),
    (
        "/renameApply",
        "path:str range:range new_name:str force?:bool",
    ),
    ("/movePreview", "path:str range:range target:target"),
    (
        "/moveApply",
        "path:str range:range target:target force?:bool",
    ),
    ("/safeDeletePreview", "path:str range:range"),
    (
        "/safeDeleteApply",
        "path:str range:range force?:bool propagate?:bool",
    ),
    (
        "/inlinePreview",
        "path:str range:range keep_definition?:bool",
    ),
    ("/inlineApply", "path:str range:range keep_definition?:bool"),
    (
        "/reformat",
        "path:str scope:reformat_scope optimize_imports?:bool",
    ),
];

/// Every route of the request table.
pub fn routes() -> impl Iterator<Item = &'static str> {
    REQUESTS.iter().map(|(route, _)| *route)
}

/// Routes the daemon sends that only our plugin has (docs/ide-wire.md, Beyond the
/// published wire): the published plugin answers them 404.
const BEYOND_PUBLISHED: &[&str] = &["/call_hierarchy"];

/// The routes of [`BEYOND_PUBLISHED`].
pub fn beyond_published() -> impl Iterator<Item = &'static str> {
    BEYOND_PUBLISHED.iter().copied()
}

/// The fields of `route`'s body, `None` for a route the table lacks.
fn fields(route: &str) -> Option<&'static str> {
    REQUESTS.iter().find(|(r, _)| *r == route).map(|(_, f)| *f)
}

/// The objects inside request bodies.
fn object(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "position" => "line:int character:int",
        "range" => "start:position end:position",
        "target" => "kind:path|parent path:str range?:range",
        "reformat_scope" => "kind:file|region|symbol range?:range",
        _ => return None,
    })
}

/// `(name, optional, type)` of each field of a [`fields`] or [`object`] line.
fn parse(spec: &'static str) -> impl Iterator<Item = (&'static str, bool, &'static str)> {
    spec.split(' ').map(|f| {
        let (name, ty) = f.split_once(':').expect("name:type");
        match name.strip_suffix('?') {
            Some(name) => (name, true, ty),
            None => (name, false, ty),
        }
    })
}

/// Checks `v` against `spec`: what the plugin would fail on into `rejected`, the
/// keys it would drop (dotted paths) into `ignored`.
fn check(
    spec: &'static str,
    v: &Value,
    at: &str,
    rejected: &mut Vec<String>,
    ignored: &mut Vec<String>,
) {
    let Some(obj) = v.as_object() else {
        rejected.push(format!("`{at}` is {v}, not a JSON object"));
        return;
    };
    for key in obj.keys().filter(|k| !parse(spec).any(|f| f.0 == *k)) {
        ignored.push(format!("{at}{key}"));
    }
    for (name, optional, ty) in parse(spec) {
        let path = format!("{at}{name}");
        let Some(value) = obj.get(name) else {
            if !optional {
                rejected.push(format!("`{path}` is missing"));
            }
            continue;
        };
        if let Some(inner) = object(ty) {
            check(inner, value, &format!("{path}."), rejected, ignored);
            continue;
        }
        let fits = match ty {
            "str" => value.is_string(),
            "int" => value.as_u64().is_some_and(|n| n <= i32::MAX as u64),
            "bool" => value.is_boolean(),
            one_of => value
                .as_str()
                .is_some_and(|s| one_of.split('|').any(|o| o == s)),
        };
        if !fits {
            rejected.push(format!("`{path}` is {value}, not {ty}"));
        }
    }
}

/// ` (did you mean `x`?)` when `field` is a field of `spec` (or of its objects)
/// spelled in another case.
fn hint(spec: &'static str, field: &str) -> String {
    let fold = |s: &str| s.replace('_', "").to_lowercase();
    let last = field.rsplit('.').next().unwrap_or(field);
    let nested = parse(spec).filter_map(|f| object(f.2)).flat_map(parse);
    match parse(spec).chain(nested).find(|f| fold(f.0) == fold(last)) {
        Some((name, ..)) => format!(" (did you mean `{name}`?)"),
        None => String::new(),
    }
}

/// Positions that do not exist in the file they name: past the last line, past the
/// line's end in UTF-16 units, inside a surrogate pair, or a range ending before it
/// starts. The published plugin answers those `POSITION_OUT_OF_RANGE`; the daemon
/// converts from the file's current text and should never send one.
fn positions_off_the_file(root: &Path, body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut check_in = |path: &Value, what: &str, spots: Vec<&Value>| {
        let Some(text) = path
            .as_str()
            .and_then(|p| fs::read_to_string(root.join(p)).ok())
        else {
            return;
        };
        let at = |p: &Value| offset(&text, p["line"].as_u64(), p["character"].as_u64());
        let found: Vec<Result<usize, String>> = spots.iter().map(|p| at(p)).collect();
        for f in &found {
            if let Err(e) = f {
                out.push(format!("{what}: {e}"));
            }
        }
        if let [Ok(start), Ok(end)] = found[..]
            && end < start
        {
            out.push(format!("{what}: ends before it starts"));
        }
    };
    if body.get("line").is_some() {
        check_in(&body["path"], "position", vec![body]);
    }
    for (path, what, range) in [
        (&body["path"], "range", &body["range"]),
        (&body["path"], "scope.range", &body["scope"]["range"]),
        (
            &body["target"]["path"],
            "target.range",
            &body["target"]["range"],
        ),
    ] {
        if range.is_object() {
            check_in(path, what, vec![&range["start"], &range["end"]]);
        }
    }
    out
}

/// The byte offset of a wire position (0-based line, UTF-16 column) in `text`.
fn offset(text: &str, line: Option<u64>, character: Option<u64>) -> Result<usize, String> {
    let (Some(line), Some(character)) = (line, character) else {
        return Err("not a position".into());
    };
    let mut start = 0;
    for _ in 0..line {
        let next = text[start..].find('\n');
        start += next.ok_or_else(|| format!("line {line} is past the end of the file"))? + 1;
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0;
    for (i, c) in text[start..end].char_indices() {
        if units == character {
            return Ok(start + i);
        }
        units += c.len_utf16() as u64;
        if units > character {
            return Err(format!(
                "character {character} of line {line} is inside a UTF-16 surrogate pair"
            ));
        }
    }
    match units == character {
        true => Ok(end),
        false => Err(format!(
            "character {character} is past the end of line {line} ({units} UTF-16 units)"
        )),
    }
}

fn utf16(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

#[cfg(test)]
mod tests {
    //! The double against a raw HTTP client: what it must refuse, record and write.

    use std::{net::TcpStream, os::unix::fs::MetadataExt, time::Duration};

    use super::*;

    fn world() -> (TestEnv, PathBuf, PluginDouble) {
        // Only the directories are used: no daemon runs in these tests.
        let env = TestEnv::with_daemon("lean-ctxd");
        let root = env.dir().join("proj");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("Main.kt"), "// 𝔘\nfun run() = 1\n").unwrap();
        let double = PluginDouble::start(&env, &root);
        (env, root, double)
    }

    /// One request on its own connection (`Connection: close`): status and JSON.
    fn http(port: u16, method: &str, route: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let token = token
            .map(|t| format!("X-LeanCtx-Token: {t}\r\n"))
            .unwrap_or_default();
        write!(
            s,
            "{method} {route} HTTP/1.1\r\nHost: 127.0.0.1\r\n{token}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, serde_json::from_str(body).unwrap())
    }

    #[test]
    fn the_token_is_checked_on_every_request_before_the_route() {
        let (_env, _root, d) = world();
        let (status, v) = http(d.port, "GET", "/health", None, "");
        assert_eq!(
            (status, &v["error"]["code"]),
            (401, &json!("UNAUTHORIZED")),
            "{v}"
        );
        let at = r#"{"path":"Main.kt","line":1,"character":4,"scope":"project"}"#;
        let (status, v) = http(d.port, "POST", "/references", None, at);
        assert_eq!(
            (status, &v["error"]["code"]),
            (401, &json!("UNAUTHORIZED")),
            "{v}"
        );
        let (status, _) = http(d.port, "POST", "/nowhere", Some(&"0".repeat(64)), at);
        assert_eq!(status, 401, "a wrong token is refused before the route");
        // A wrong token can be a rotated port file; a missing one is always ours.
        let missing = d.take_deviations();
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(
            missing[0].contains("GET /health without X-LeanCtx-Token"),
            "{missing:?}"
        );

        let (status, v) = http(d.port, "GET", "/health", Some(&d.token()), "");
        assert_eq!(status, 200);
        assert_eq!(
            v,
            json!({"status": "ok", "ideVersion": IDE_VERSION, "project": "proj"})
        );
        let log = d.requests();
        let tokens: Vec<Token> = log.iter().map(|r| r.token).collect();
        assert_eq!(
            tokens,
            [Token::Missing, Token::Missing, Token::Wrong, Token::Right]
        );
        assert!(
            log[3]
                .headers
                .contains(&("x-leanctx-token".into(), d.token()))
        );
    }

    #[test]
    fn unknown_routes_are_404_and_a_deviation() {
        let (_env, _root, d) = world();
        for (method, route) in [("POST", "/list-inspections"), ("GET", "/references")] {
            let (status, v) = http(d.port, method, route, Some(&d.token()), "{}");
            assert_eq!(
                (status, &v["error"]["code"]),
                (404, &json!("NOT_FOUND")),
                "{v}"
            );
        }
        assert_eq!(d.take_deviations().len(), 2);
        // Not HTTP/1.1: 400, and a deviation.
        let mut s = TcpStream::connect(("127.0.0.1", d.port)).unwrap();
        write!(s, "GET /health HTTP/1.0\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 400 "), "{out}");
        assert!(d.take_deviations()[0].contains("request line"));
    }

    #[test]
    fn routes_only_our_plugin_has_are_404_without_a_deviation() {
        let (_env, _root, d) = world();
        for route in beyond_published() {
            let (status, v) = http(d.port, "POST", route, Some(&d.token()), "{}");
            assert_eq!((status, &v["error"]["code"]), (404, &json!("NOT_FOUND")));
            // A GET of it is no request the daemon makes.
            assert_eq!(http(d.port, "GET", route, Some(&d.token()), "").0, 404);
        }
        assert_eq!(d.take_deviations().len(), BEYOND_PUBLISHED.len());
    }

    #[test]
    fn bodies_are_held_to_the_published_fields_types_and_positions() {
        let (_env, _root, d) = world();
        d.on("/references", |_| {
            Reply::Json(json!({"locations": [], "truncated": false, "total": 0}))
        });
        d.on("/inlineApply", |_| {
            Reply::Json(json!({"applied": true, "changed_paths": []}))
        });
        let post = |route: &str, body: Value| {
            http(d.port, "POST", route, Some(&d.token()), &body.to_string())
        };
        let range =
            json!({"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 7}});

        // Right: line 0 holds `𝔘` (two UTF-16 units), so its end is character 5.
        let (status, _) = post(
            "/references",
            json!({"path": "Main.kt", "line": 0, "character": 5, "scope": "all"}),
        );
        assert_eq!(status, 200);
        // Missing boolean options are Gson's `false`, the documented default.
        let (status, _) = post("/inlineApply", json!({"path": "Main.kt", "range": range}));
        assert_eq!(status, 200);
        assert_eq!(d.take_deviations(), Vec::<String>::new());

        for (route, body, says) in [
            (
                "/renamePreview",
                json!({"path": "Main.kt", "range": range, "newName": "go"}),
                "`new_name` is missing",
            ),
            (
                "/references",
                json!({"path": "Main.kt", "line": "1", "character": 4, "scope": "project"}),
                "`line` is \"1\", not int",
            ),
            (
                "/references",
                json!({"path": "Main.kt", "line": 1, "character": 4}),
                "`scope` is missing",
            ),
            (
                "/references",
                json!({"path": "Main.kt", "line": 1, "character": 4, "scope": "module"}),
                "`scope` is \"module\", not project|all",
            ),
            (
                "/reformat",
                json!({"path": "Main.kt", "scope": {"kind": "file", "range": {"start": {"line": 0}}}}),
                "`scope.range.end` is missing",
            ),
            (
                "/references",
                json!({"path": "Main.kt", "line": 0, "character": 4, "scope": "all"}),
                "inside a UTF-16 surrogate pair",
            ),
            (
                "/references",
                json!({"path": "Main.kt", "line": 0, "character": 6, "scope": "all"}),
                "past the end of line 0 (5 UTF-16 units)",
            ),
            (
                "/safeDeletePreview",
                json!({"path": "Main.kt", "range": {"start": range["end"], "end": range["start"]}}),
                "ends before it starts",
            ),
        ] {
            let (status, v) = post(route, body);
            let message = v["error"]["message"].as_str().unwrap_or_default();
            assert_eq!(
                (status, &v["error"]["code"]),
                (500, &json!("INTERNAL")),
                "{v}"
            );
            assert!(message.contains(says), "{route}: {message}");
            let recorded = d.take_deviations();
            assert!(
                recorded.len() == 1 && recorded[0].contains(says),
                "{recorded:?}"
            );
        }

        // Fields the published plugin does not read: answered, and still a failure.
        let (status, _) = post(
            "/inlineApply",
            json!({"path": "Main.kt", "range": range, "force": true}),
        );
        assert_eq!(status, 200);
        let (_, v) = post(
            "/renamePreview",
            json!({"path": "Main.kt", "range": range, "new_name": "go", "searchComments": true}),
        );
        assert_eq!(v["error"]["code"], "INTERNAL", "unscripted: {v}");
        let recorded = d.take_deviations();
        assert!(
            recorded[0].contains("/inlineApply: `force` is not read"),
            "{recorded:?}"
        );
        assert!(
            recorded[1].contains("(did you mean `search_comments`?)"),
            "{recorded:?}"
        );
    }

    #[test]
    fn the_port_file_is_the_published_plugins_and_goes_with_the_double() {
        let (env, root, d) = world();
        let path = d.port_file.clone();
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_file());
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(
            fs::metadata(&env.paths.data_dir).unwrap().mode() & 0o777,
            0o700
        );
        // The name is the daemon's for this root, and the daemon believes the file.
        let canonical = fs::canonicalize(&root).unwrap();
        assert_eq!(
            path,
            lean_ctx_shared::ide::port_file(&env.paths.data_dir, &canonical)
        );
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "ide_version",
                "pid",
                "port",
                "project_root",
                "started_at",
                "token"
            ]
        );
        let token = v["token"].as_str().unwrap();
        assert!(
            token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "{token}"
        );
        assert_eq!(v["pid"], std::process::id());
        assert_eq!(v["port"], d.port);
        assert_eq!(v["project_root"], canonical.to_str().unwrap());
        assert!(v["started_at"].as_u64().unwrap() > 1_700_000_000_000);
        let read = lean_ctx_shared::ide::read_port_file(&path).unwrap();
        lean_ctx_shared::ide::verify_listener(read.port, read.pid, &[]).unwrap();
        // Only the port file is left in the data dir (the temp file was renamed).
        assert_eq!(fs::read_dir(&env.paths.data_dir).unwrap().count(), 1);

        let port = d.port;
        drop(d);
        assert!(!path.exists());
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[test]
    fn indexing_refusals_hangs_and_real_edits_as_scripted() {
        let (_env, root, d) = world();
        let at = r#"{"path":"Main.kt","line":1,"character":4,"scope":"project"}"#;
        d.on("/definition", |_| {
            Reply::error("UNSUPPORTED_LANGUAGE", "no PSI for this file")
        });
        d.on("/references", |_| Reply::Hang);
        d.on("/replaceSymbolBody", replace_symbol_body);
        let (status, v) = http(d.port, "POST", "/definition", Some(&d.token()), at);
        assert_eq!(
            (status, &v["error"]["code"]),
            (200, &json!("UNSUPPORTED_LANGUAGE"))
        );
        d.set_indexing(true);
        let (status, v) = http(d.port, "POST", "/definition", Some(&d.token()), at);
        assert_eq!((status, &v["error"]["code"]), (200, &json!("INDEXING")));
        let (status, _) = http(d.port, "GET", "/health", Some(&d.token()), "");
        assert_eq!(status, 200, "/health answers in dumb mode");
        d.set_indexing(false);

        let edit = json!({"path": "Main.kt", "text": "fun run() =\n  \"ü𝔘\"",
            "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 13}}});
        let (status, v) = http(
            d.port,
            "POST",
            "/replaceSymbolBody",
            Some(&d.token()),
            &edit.to_string(),
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            fs::read_to_string(root.join("Main.kt")).unwrap(),
            "// 𝔘\nfun run() =\n  \"ü𝔘\"\n"
        );
        assert_eq!(
            v["newRange"]["end"],
            json!({"line": 2, "character": 7}),
            "{v}"
        );
        assert_eq!(v["editedText"], edit["text"]);
        assert_eq!(v["applied"], true);

        // A hang answers nothing until the double goes.
        let mut s = TcpStream::connect(("127.0.0.1", d.port)).unwrap();
        write!(
            s,
            "POST /references HTTP/1.1\r\nX-LeanCtx-Token: {}\r\nContent-Length: {}\r\n\r\n{at}",
            d.token(),
            at.len()
        )
        .unwrap();
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut buf = [0u8; 1];
        let waited = s.read(&mut buf).unwrap_err().kind();
        assert!(matches!(
            waited,
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ));
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        drop(d);
        assert_eq!(s.read(&mut buf).unwrap_or(0), 0, "closed unanswered");
    }

    #[test]
    fn deviations_unused_tolerances_and_unasked_routes_fail_the_drop() {
        let (_env, _root, d) = world();
        d.tolerate("/renameApply", "search_comments");
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(d)));
        assert!(dropped.is_err(), "a tolerance that never happened passed");

        let (_env, _root, d) = world();
        d.on("/references", |_| Reply::Json(json!({})));
        d.on("/definition", |_| Reply::Json(json!({})));
        let at = json!({"path": "Main.kt", "line": 1, "character": 4, "scope": "project"});
        http(
            d.port,
            "POST",
            "/references",
            Some(&d.token()),
            &at.to_string(),
        );
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(d)));
        let why = dropped.unwrap_err();
        let why = why.downcast_ref::<String>().unwrap();
        assert!(
            why.contains("/definition was scripted but never asked"),
            "{why}"
        );
        assert!(!why.contains("/references"), "{why}");

        let (_env, _root, d) = world();
        d.tolerate("/renameApply", "search_comments");
        let body = json!({"path": "Main.kt", "new_name": "go", "search_comments": false,
            "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 7}}});
        http(
            d.port,
            "POST",
            "/renameApply",
            Some(&d.token()),
            &body.to_string(),
        );
        d.assert_clean();
        http(d.port, "GET", "/health", None, "");
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(d)));
        assert!(dropped.is_err(), "a request without the token passed");
    }

    #[test]
    fn each_route_is_in_the_request_table_once() {
        let mut unique: Vec<_> = routes().collect();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), REQUESTS.len());
        assert!(REQUESTS.iter().all(|(_, f)| parse(f).count() > 0));
    }
}
