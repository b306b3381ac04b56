//! `lean-ctx dashboard` end to end (issue 9): the real shim and daemon with a real
//! python-lsp-server, the guard probed with raw HTTP, and the page driven in Debian's
//! chromium by `tests/dashboard/dashboard.mjs` (playwright-core), which also leaves a
//! screenshot of every page in `target/dashboard-screenshots/`. The browser gets its
//! session the way a user's does (issue 15): a fake `xdg-open` records what the shim
//! hands it (no credential), and chromium opens that one-time page.

use std::{
    fs,
    io::{Read, Write},
    net::TcpStream,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use lean_ctx_testkit::{TestEnv, pylsp, python_fixture, wait_until};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// A Python project with a non-ASCII function used twice (as in `lsp.rs`) and a file
/// worth outlining.
fn python_project(env: &TestEnv) -> PathBuf {
    let root = python_fixture(&env.dir().join("py"));
    env.trust(&root);
    // Long bodies: its outline (the browser scenario asks for it) saves tokens, so
    // the gain chart has a bar to draw.
    let shapes: String = (0..20)
        .map(|i| {
            format!(
                "def area_{i}(w, h):\n    \"\"\"The area of shape {i}.\"\"\"\n    total = 0\n    \
                 for row in range(h):\n        for col in range(w):\n            total += {i}\n    \
                 return total\n\n"
            )
        })
        .collect();
    fs::write(root.join("shapes.py"), shapes).unwrap();
    root
}

/// One raw HTTP/1.1 request (so `Host` and `Origin` are exactly what we say); the
/// status code and the body.
fn http(port: u16, head: &str, body: &str) -> (u16, String) {
    let (status, _, body) = http_full(port, head, body);
    (status, body)
}

/// [`http`], with the answer's header block too.
fn http_full(port: u16, head: &str, body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not HTTP: {answer:?}"));
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (status, head.to_string(), body.to_string())
}

/// The status line and headers of the answer to `head`, read up to the blank line
/// (for answers that stream on, like the event stream).
fn head_of(port: u16, head: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "{head}\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the answer ended early");
        got.push(byte[0]);
    }
    String::from_utf8(got).unwrap()
}

/// The first run of 64 hex digits after `marker` in `text`.
fn hex64_after<'a>(text: &'a str, marker: &str) -> &'a str {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in {text:?}"))
        + marker.len();
    let hex = &text[at..at + 64];
    assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{hex:?}");
    hex
}

/// `tests/dashboard`, with playwright-core installed (`tests/run.sh` runs `npm ci`
/// first; a bare `cargo test` does it here).
fn browser_driver() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/dashboard");
    if !dir.join("node_modules/playwright-core").is_dir() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    dir
}

#[test]
fn the_dashboard_shows_the_daemon_live_in_a_real_browser_behind_its_guard() {
    let started = Instant::now();
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\n",
        pylsp().display().to_string()
    ));
    let root = python_project(&env);
    let root_str = root.to_str().unwrap();
    // A warm language server for the servers page (and a call for the overview).
    env.ok(&root, &["refactor", "definition", "main.py:3:26"]);

    // `--no-open`: a one-time link to paste, for the same dashboard each time.
    let linked = env.ok(&root, &["dashboard", "--no-open"]);
    let url = linked["url"].as_str().unwrap().to_string();
    let again = env.ok(&root, &["dashboard", "--no-open"]);
    assert_eq!(
        again["url"],
        url.as_str(),
        "a second call answers the same dashboard"
    );
    assert_ne!(
        again["login"], linked["login"],
        "each call mints its own code"
    );
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix('/'))
        .unwrap()
        .parse()
        .unwrap();
    let login = linked["login"].as_str().unwrap();
    let code = hex64_after(login, "/login?code=");
    assert_eq!(login, format!("{url}login?code={code}"));
    let host = format!("Host: 127.0.0.1:{port}");

    // Nothing without a session: no cookie or token, a foreign Host (DNS rebinding).
    for path in [
        "/",
        "/app.js",
        "/api/status",
        "/api/events",
        "/no-such-page",
        "/login",
    ] {
        let (status, _) = http(port, &format!("GET {path} HTTP/1.1\r\n{host}"), "");
        assert_eq!(status, 401, "{path} without a session");
    }
    // The link opens one session: the cookie, HttpOnly and SameSite=Strict.
    let (status, head, _) = http_full(
        port,
        &format!("GET /login?code={code} HTTP/1.1\r\nHost: evil.example"),
        "",
    );
    assert_eq!(status, 403, "a foreign Host cannot spend a code");
    let (status, head_ok, page) = http_full(
        port,
        &format!("GET /login?code={code} HTTP/1.1\r\n{host}"),
        "",
    );
    assert_eq!(status, 200, "{head}\n{head_ok}\n{page}");
    let cookie_name = format!("lean-ctx-{port}=");
    let token = hex64_after(&head_ok, &format!("set-cookie: {cookie_name}")).to_string();
    assert!(
        head_ok.contains(&format!(
            "{cookie_name}{token}; HttpOnly; SameSite=Strict; Path=/"
        )),
        "{head_ok}"
    );
    assert!(page.contains("http-equiv=\"refresh\""), "{page}");
    let (status, _) = http(
        port,
        &format!("GET /login?code={code} HTTP/1.1\r\n{host}"),
        "",
    );
    assert_eq!(status, 401, "a second use of the one-time code");
    let (status, _) = http(
        port,
        &format!(
            "POST /login HTTP/1.1\r\n{host}\r\nContent-Type: application/x-www-form-urlencoded"
        ),
        &format!("code={code}"),
    );
    assert_eq!(status, 401, "a second use of the one-time code, posted");
    let cookie = format!("Cookie: {cookie_name}{token}");

    // Another local user who learnt the session (cookies are per host, not per port)
    // is closed at accept: the same request from us is answered.
    let status_as = |other_user: bool| {
        let mut cmd = if other_user {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
            ]);
            c
        } else {
            Command::new("/usr/bin/python3")
        };
        let out = cmd
            .args([
                "-c",
                RAW_GET_STATUS,
                &port.to_string(),
                &format!("{cookie_name}{token}"),
            ])
            .current_dir("/")
            .env_clear()
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(status_as(false), "HTTP/1.1 200 OK");
    assert_eq!(status_as(true), "closed");
    assert!(
        env.log()
            .contains("dashboard connection from another user closed"),
        "{}",
        env.log()
    );

    let (status, _) = http(
        port,
        &format!(
            "GET /api/status HTTP/1.1\r\n{host}\r\nCookie: {cookie_name}{}0",
            &token[1..]
        ),
        "",
    );
    assert_eq!(status, 401, "a wrong cookie");
    let (status, _) = http(
        port,
        &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n{cookie}"),
        "",
    );
    assert_eq!(status, 403, "no port in Host");
    let (status, _) = http(
        port,
        &format!("GET /api/status HTTP/1.1\r\nHost: evil.example\r\n{cookie}"),
        "",
    );
    assert_eq!(status, 403, "a foreign Host, even with the session");
    let evict =
        format!("POST /api/servers/evict HTTP/1.1\r\n{host}\r\nContent-Type: application/json");
    let target = serde_json::json!({"root": root, "language": "python"}).to_string();
    // A forged Origin is trivial outside a browser: without the session it is nothing.
    let (status, _) = http(
        port,
        &format!("{evict}\r\nOrigin: http://127.0.0.1:{port}"),
        &target,
    );
    assert_eq!(status, 401, "a POST with only a forged Origin");
    for origin in ["\r\nOrigin: http://evil.example", ""] {
        let (status, _) = http(port, &format!("{evict}\r\n{cookie}{origin}"), &target);
        assert_eq!(status, 403, "a POST with origin {origin:?}");
    }
    let servers = env.ok(&root, &["daemon", "status"])["language_servers"].clone();
    assert_eq!(
        servers.as_array().unwrap().len(),
        1,
        "refused posts evicted nothing: {servers}"
    );

    // Every answer carries the security headers: each route, a refusal, the 404 and
    // the event stream (whose head is all there is to read before it ends).
    let origin = format!("Origin: http://127.0.0.1:{port}");
    let requests = [
        format!("GET / HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /app.js HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /style.css HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /api/status HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /api/gain HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /api/gain/daily HTTP/1.1\r\n{host}\r\n{cookie}"),
        format!("GET /login HTTP/1.1\r\n{host}"),
        format!("POST /api/servers/none HTTP/1.1\r\n{host}\r\n{cookie}\r\n{origin}"),
        format!("GET /api/status HTTP/1.1\r\n{host}"),
        format!("GET /nothing-here HTTP/1.1\r\n{host}\r\n{cookie}"),
    ];
    let mut heads: Vec<(String, String)> = requests
        .iter()
        .map(|r| (r.clone(), http_full(port, r, "").1))
        .collect();
    let events = format!("GET /api/events HTTP/1.1\r\n{host}\r\n{cookie}");
    heads.push((events.clone(), head_of(port, &events)));
    for (request, head) in &heads {
        let head = head.to_ascii_lowercase();
        for header in [
            "content-security-policy: default-src 'none'",
            "referrer-policy: no-referrer",
            "x-frame-options: deny",
            "x-content-type-options: nosniff",
            "cache-control: no-store",
        ] {
            assert!(
                head.contains(header),
                "{request:?} lacks {header:?}:\n{head}"
            );
        }
    }

    // What the page reads: the status with the calls, and exactly `gain --json`.
    let (status, body) = http(
        port,
        &format!("GET /api/status HTTP/1.1\r\n{host}\r\n{cookie}"),
        "",
    );
    assert_eq!(status, 200, "{body}");
    let live: Value = serde_json::from_str(&body).unwrap();
    assert!(
        live["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["root"] == root_str),
        "{live}"
    );
    let definition = live["recent_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["action"] == "definition")
        .unwrap_or_else(|| panic!("no definition call: {live}"));
    assert_eq!(definition["root"], root_str);
    assert_eq!(definition["backing"], "pylsp");
    assert!(definition["error"].is_null());
    assert!(live["calls_per_second"].as_f64().unwrap() > 0.0);
    // stats.json (what `gain` reads) is written at most once a second after a call.
    let mut last = (Value::Null, Value::Null);
    assert!(
        wait_until(Duration::from_secs(5), || {
            let (_, served) = http(
                port,
                &format!("GET /api/gain HTTP/1.1\r\n{host}\r\nX-LeanCtx-Token: {token}"),
                "",
            );
            last = (
                serde_json::from_str(&served).unwrap(),
                env.ok(&root, &["gain"]),
            );
            last.0 == last.1
        }),
        "/api/gain {} != gain --json {}",
        last.0,
        last.1
    );

    // An IDE window's port file (this test's pid, a port nobody listens on): listed
    // on the IDE page, not yet checked (only a call for its root would check it).
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    fs::create_dir_all(&env.paths.data_dir).unwrap();
    let port_file = lean_ctx_shared::ide::port_file(&env.paths.data_dir, &root);
    // As the plugin writes it (docs/ide-wire.md, Port file): 0600 in a temp file, then
    // an atomic move. A file written first and tightened after could be read between
    // the two, listed as ignored ("no" on the IDE page): this test's flake until it
    // wrote the file the plugin's way.
    let tmp = port_file.with_extension("tmp");
    fs::write(
        &tmp,
        serde_json::json!({
            "port": closed_port, "token": "t", "pid": std::process::id(),
            "project_root": root, "ide_version": "IU-253 (test port file)", "started_at": 0
        })
        .to_string(),
    )
    .unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600)).unwrap();
    fs::rename(&tmp, &port_file).unwrap();
    let mut rows = Vec::new();
    assert!(
        wait_until(Duration::from_secs(5), || {
            rows = env.status_rows(&root, "ides");
            rows.len() == 1
        }),
        "the port file was not discovered"
    );
    assert!(
        rows[0]["reachable"].is_null() && rows[0]["ignored"].is_null(),
        "{rows:?}"
    );

    // `lean-ctx dashboard` as a user runs it: the opener (a fake `xdg-open`, first on
    // PATH, recording its argv) gets a `file://` path, and nothing in its argv is a
    // credential: neither the session token nor the page's one-time code.
    let bin = env.dir().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let argv_file = env.dir().join("xdg-open.argv");
    fs::write(
        bin.join("xdg-open"),
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > {}.tmp && mv {0}.tmp {0}\n",
            argv_file.display()
        ),
    )
    .unwrap();
    fs::set_permissions(bin.join("xdg-open"), fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = env
        .shim()
        .current_dir(&root)
        .env("PATH", &path)
        .args(["--json", "dashboard"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let opened: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(opened["url"], url.as_str(), "{opened}");
    let handover_page = PathBuf::from(opened["page"].as_str().unwrap());
    assert!(
        wait_until(Duration::from_secs(10), || argv_file.exists()),
        "xdg-open was not run"
    );
    let argv = fs::read_to_string(&argv_file).unwrap();
    let page_url = format!("file://{}", handover_page.display());
    assert_eq!(argv.lines().nth(1), Some(page_url.as_str()), "{argv}");
    assert_eq!(argv.lines().count(), 2, "{argv}");
    let page_html = fs::read_to_string(&handover_page).unwrap();
    let page_code = hex64_after(&page_html, "value=\"");
    assert!(
        !argv.contains(&token) && !argv.contains(page_code) && !stdout_has(&out, &token),
        "a credential in the opener's argv or the output: {argv}"
    );
    assert_ne!(page_code, token);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&handover_page), 0o600);
    assert_eq!(mode(handover_page.parent().unwrap()), 0o700);
    assert_eq!(
        handover_page.parent(),
        Some(env.paths.runtime_dir.as_path())
    );

    // The browser, from the one-time page.
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dashboard-screenshots");
    let _ = fs::remove_dir_all(&shots);
    let driver = browser_driver();
    let mut node = Command::new("node")
        .arg(driver.join("dashboard.mjs"))
        .arg(&page_url)
        .arg(&url)
        .arg(&shots)
        .current_dir(&driver)
        .env_clear()
        .envs(env.envs())
        .env("DASHBOARD_SHIM", SHIM)
        .env("DASHBOARD_PROJECT", &root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while node.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            // SIGTERM: playwright closes its chromium on the way out.
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_raw(node.id() as i32).unwrap(),
                rustix::process::Signal::TERM,
            );
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = node.wait_with_output().unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "ok",
        "the browser scenario failed:\n{}\n{}\ndaemon log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        env.log()
    );

    // The page was spent: the dashboard removed it.
    assert!(!handover_page.exists(), "the one-time page is left");

    // The evict button evicted: the daemon says so, and the process is gone (as is
    // chromium: everything the test spawned inherits its environment).
    let servers = env.ok(&root, &["daemon", "status"])["language_servers"].clone();
    assert_eq!(servers, serde_json::json!([]));
    assert!(
        wait_until(Duration::from_secs(10), || env
            .language_servers()
            .is_empty()),
        "left running: {:?}",
        env.language_servers()
    );
    for page in [
        "overview",
        "overview-live",
        "projects",
        "servers",
        "servers-evicted",
        "ides",
        "gain",
    ] {
        let png = fs::read(shots.join(format!("{page}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{page}.png");
    }
    eprintln!("dashboard test took {:?}", started.elapsed());
}

fn stdout_has(out: &std::process::Output, needle: &str) -> bool {
    String::from_utf8_lossy(&out.stdout).contains(needle)
}

/// `python3 -c RAW_GET_STATUS <port> <cookie>`: `GET /api/status` with that cookie;
/// prints the status line, or `closed` when the connection ends without an answer.
const RAW_GET_STATUS: &str = r#"
import socket, sys
port, cookie = sys.argv[1], sys.argv[2]
s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
s.sendall(("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nCookie: %s\r\nConnection: close\r\n\r\n" % (port, cookie)).encode())
data = b""
try:
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
print(data.split(b"\r\n")[0].decode() if data else "closed")
"#;
