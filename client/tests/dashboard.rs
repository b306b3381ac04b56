//! `lean-ctx dashboard` end to end (issue 9): the real shim and daemon with a real
//! python-lsp-server, the guard probed with raw HTTP, and the page driven in Debian's
//! chromium by `tests/dashboard/dashboard.mjs` (playwright-core), which also leaves a
//! screenshot of every page in `target/dashboard-screenshots/`.

use std::{
    fs,
    io::{Read, Write},
    net::TcpStream,
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
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
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

    let url = env.ok(&root, &["dashboard", "--no-open"])["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        env.ok(&root, &["dashboard", "--no-open"])["url"],
        url.as_str(),
        "a second call answers the same dashboard"
    );
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, token) = rest.split_once("/?token=").unwrap();
    let port: u16 = port.parse().unwrap();
    assert_eq!(token.len(), 64, "{url}");
    let host = format!("Host: 127.0.0.1:{port}");

    // The guard: no token, a foreign Host (DNS rebinding), a foreign Origin.
    for path in [
        "/",
        "/app.js",
        "/api/status",
        "/api/events",
        "/no-such-page",
    ] {
        let (status, _) = http(port, &format!("GET {path} HTTP/1.1\r\n{host}"), "");
        assert_eq!(status, 401, "{path} without the token");
    }
    let (status, _) = http(
        port,
        &format!("GET /api/status?token={}0 HTTP/1.1\r\n{host}", &token[1..]),
        "",
    );
    assert_eq!(status, 401, "a wrong token");
    let (status, _) = http(port, "GET /?token= HTTP/1.1\r\nHost: 127.0.0.1", "");
    assert_eq!(status, 403, "no port in Host");
    let (status, _) = http(
        port,
        &format!("GET /api/status?token={token} HTTP/1.1\r\nHost: evil.example"),
        "",
    );
    assert_eq!(status, 403, "a foreign Host, even with the token");
    let evict = format!(
        "POST /api/servers/evict HTTP/1.1\r\n{host}\r\nX-LeanCtx-Token: {token}\r\n\
         Content-Type: application/json"
    );
    let target = serde_json::json!({"root": root, "language": "python"}).to_string();
    for origin in ["\r\nOrigin: http://evil.example", ""] {
        let (status, _) = http(port, &format!("{evict}{origin}"), &target);
        assert_eq!(status, 403, "a POST with origin {origin:?}");
    }
    let servers = env.ok(&root, &["daemon", "status"])["language_servers"].clone();
    assert_eq!(
        servers.as_array().unwrap().len(),
        1,
        "refused posts evicted nothing: {servers}"
    );

    // What the page reads: the status with the calls, and exactly `gain --json`.
    let (status, body) = http(
        port,
        &format!("GET /api/status?token={token} HTTP/1.1\r\n{host}"),
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
    fs::write(
        lean_ctx_shared::ide::port_file(&env.paths.data_dir, &root),
        serde_json::json!({
            "port": closed_port, "token": "t", "pid": std::process::id(),
            "project_root": root, "ide_version": "IU-253 (test port file)", "started_at": 0
        })
        .to_string(),
    )
    .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || {
            env.status_rows(&root, "ides").len() == 1
        }),
        "the port file was not discovered"
    );

    // The browser.
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dashboard-screenshots");
    let _ = fs::remove_dir_all(&shots);
    let driver = browser_driver();
    let mut node = Command::new("node")
        .arg(driver.join("dashboard.mjs"))
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
