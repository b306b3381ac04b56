//! The `lean-ctx` shim end to end: real shims, the real `lean-ctxd` they spawn, real
//! git worktrees, `kill -9`, `SIGSTOP`. Each test lives in its own [`TestEnv`].

use std::{
    fs,
    io::{Read, Write},
    os::unix::net::UnixListener,
    path::Path,
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    hello::{HELLO_MAGIC, Outcome, RefuseReason, ServerHello},
    process::pid_alive,
    protocol::{PROTOCOL_VERSION, VERSION},
};
use lean_ctx_testkit::{TestEnv, git, wait_until};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

fn env() -> TestEnv {
    TestEnv::with_shim(SHIM)
}

/// `lean-ctx --json daemon ping`, which auto-spawns; returns the answering pid.
fn ping(env: &TestEnv) -> u32 {
    let (out, v) = env.shim_json(&["daemon", "ping"]);
    assert!(
        out.status.success(),
        "{v}\n{}\ndaemon log:\n{}\ndaemon stdout/stderr:\n{}",
        String::from_utf8_lossy(&out.stderr),
        env.log(),
        fs::read_to_string(env.paths.state_dir.join("lean-ctxd.out")).unwrap_or_default()
    );
    v["pid"].as_u64().unwrap() as u32
}

fn signal(pid: u32, sig: Signal) {
    kill_process(Pid::from_raw(pid as i32).unwrap(), sig).unwrap();
}

#[test]
fn eight_shims_at_once_start_exactly_one_daemon() {
    let env = env();
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.shim()
                .args(["--json", "daemon", "ping"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: Vec<u64> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            v["pid"].as_u64().unwrap()
        })
        .collect();
    assert!(
        pids.iter().all(|p| *p == pids[0]),
        "answered by several daemons: {pids:?}"
    );
    assert_eq!(env.daemons(), vec![pids[0] as u32]);
    assert_eq!(env.daemon_pid(), Some(pids[0] as u32));
}

#[test]
fn after_kill_dash_9_the_next_call_respawns_over_the_stale_socket_and_lock() {
    let env = env();
    let first = ping(&env);
    env.kill9(first);
    // What a crash leaves behind: the socket file and the lock file with a dead pid.
    assert!(env.paths.socket().exists());
    assert_eq!(
        fs::read_to_string(env.paths.daemon_lock()).unwrap().trim(),
        first.to_string()
    );

    let second = ping(&env);
    assert_ne!(first, second);
    assert_eq!(env.daemons(), vec![second]);
}

#[test]
fn status_json_has_every_field() {
    let env = env();
    let (out, project) = env.shim_json(&["project"]);
    assert!(out.status.success(), "{project}");
    let (out, st) = env.shim_json(&["daemon", "status"]);
    assert!(out.status.success(), "{st}");
    for key in [
        "pid",
        "version",
        "build",
        "protocol",
        "started_at_unix_ms",
        "uptime_ms",
        "socket",
        "log_file",
        "started_by",
        "idle_exit_after_ms",
        "rss_bytes",
        "connected_clients",
        "in_flight_calls",
        "calls_served",
        "projects",
        "running",
        "responsive",
    ] {
        assert!(st.get(key).is_some(), "status lacks {key}: {st}");
    }
    assert_eq!(st["version"], VERSION);
    assert_eq!(st["protocol"], PROTOCOL_VERSION);
    assert_eq!(st["started_by"], "auto_spawn");
    assert_eq!(st["idle_exit_after_ms"], 30 * 60 * 1000);
    assert_eq!(st["socket"], env.paths.socket().display().to_string());
    assert!(st["rss_bytes"].as_u64().unwrap() > 0);
    assert!(st["connected_clients"].as_u64().unwrap() >= 1);
    assert!(st["calls_served"].as_u64().unwrap() >= 1);
    let row = &st["projects"][0];
    for key in [
        "root",
        "worktree_group",
        "branch",
        "registered_at_unix_ms",
        "last_used_unix_ms",
        "calls",
        "index",
        "backings",
    ] {
        assert!(row.get(key).is_some(), "project row lacks {key}: {row}");
    }
    assert_eq!(row["root"], project["root"]);

    let human = env.shim().args(["daemon", "status"]).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    for needle in [
        "running, pid",
        "started by   auto-spawn",
        "socket",
        "rss",
        "clients",
        "ROOT",
        "GROUP",
    ] {
        assert!(
            text.contains(needle),
            "human status lacks {needle:?}:\n{text}"
        );
    }
}

#[test]
fn status_of_a_wedged_daemon_answers_without_it_and_stop_kills_it() {
    let env = env();
    let pid = ping(&env);
    signal(pid, Signal::STOP);

    let started = Instant::now();
    let (out, st) = env.shim_json(&["daemon", "status"]);
    let took = started.elapsed();
    assert!(!out.status.success());
    assert_eq!(st["responsive"], false, "{st}");
    assert_eq!(st["pid"], pid);
    // The daemon is stopped for good: a status that waited for it would never return.
    // That it gave up (the 2 s timeout) is proven by its answer; this generous bound
    // only keeps a broken timeout from hanging the run, it measures nothing.
    assert!(took < Duration::from_secs(60), "status took {took:?}");

    let (out, v) = env.shim_json(&["daemon", "stop"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["how"], "SIGKILL", "{v}");
    assert!(!pid_alive(pid));
    // And the next call simply starts a new one.
    assert_ne!(ping(&env), pid);
}

#[test]
fn stop_is_graceful_and_status_then_says_not_running() {
    let env = env();
    let pid = ping(&env);
    let (out, v) = env.shim_json(&["daemon", "stop"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["how"], "shutdown");
    assert_eq!(v["pid"], pid);
    assert!(!pid_alive(pid));
    assert!(!env.paths.socket().exists());

    let (out, st) = env.shim_json(&["daemon", "status"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(st["running"], false);
    let (out, v) = env.shim_json(&["daemon", "stop"]);
    assert!(out.status.success());
    assert_eq!(v["running"], false);
}

#[test]
fn start_and_restart_report_the_daemon() {
    let env = env();
    let (_, v) = env.shim_json(&["daemon", "start"]);
    assert_eq!(v["started"], true, "{v}");
    let first = v["pid"].as_u64().unwrap();
    let (_, v) = env.shim_json(&["daemon", "start"]);
    assert_eq!(v["started"], false);
    assert_eq!(v["pid"], first);
    let (out, v) = env.shim_json(&["daemon", "restart"]);
    assert!(out.status.success(), "{v}");
    assert_ne!(v["pid"], first);
    assert_eq!(env.daemons().len(), 1);
}

#[test]
fn logs_show_the_first_line_and_the_path() {
    let env = env();
    ping(&env);
    let (_, v) = env.shim_json(&["daemon", "logs", "--path"]);
    assert_eq!(v["path"], env.paths.log_file().display().to_string());
    let out = env
        .shim()
        .args(["daemon", "logs", "-n", "1000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("lean-ctxd "), "{text}");
    assert!(text.contains("--auto-spawned"), "{text}");
}

#[test]
fn a_daemon_that_cannot_start_gets_a_message_that_says_how_to_debug() {
    let env = env();
    let out = env
        .shim()
        .env("LEAN_CTX_DAEMON_BIN", "/bin/false")
        .args(["daemon", "ping"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("ERROR: INTERNAL: lean-ctxd exited before it was ready"),
        "{err}"
    );
    assert!(err.contains("lean-ctxd --foreground"), "{err}");
    assert!(err.contains("lean-ctx daemon logs"), "{err}");
}

#[test]
fn the_project_is_the_innermost_git_worktree_and_worktrees_share_a_group() {
    let env = env();
    let main = env.dir().join("repo");
    fs::create_dir_all(main.join("crates/a/src")).unwrap();
    fs::write(main.join("crates/a/Cargo.toml"), "[package]\n").unwrap();
    git(&main, &["init", "-q"]);
    git(&main, &["add", "."]);
    git(&main, &["commit", "-qm", "init"]);
    git(&main, &["worktree", "add", "-q", "-b", "feature", "../wt"]);
    let main = fs::canonicalize(&main).unwrap();
    let wt = fs::canonicalize(env.dir().join("wt")).unwrap();

    let project = |cwd: &Path, extra: &[&str]| -> Value {
        let out = env
            .shim()
            .current_dir(cwd)
            .arg("--json")
            .args(extra)
            .arg("project")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let a = project(&main.join("crates/a/src"), &[]);
    assert_eq!(a["root"], main.display().to_string());
    assert_eq!(a["branch"], "main");
    let b = project(&wt.join("crates/a"), &[]);
    assert_eq!(b["root"], wt.display().to_string());
    assert_eq!(b["branch"], "feature");
    assert_eq!(a["worktree_group"], b["worktree_group"]);
    let c = project(&main, &["--root", "crates/a"]);
    assert_eq!(c["root"], main.join("crates/a").display().to_string());

    let (_, st) = env.shim_json(&["daemon", "status"]);
    assert_eq!(st["projects"].as_array().unwrap().len(), 3, "{st}");
}

/// A stand-in for a daemon of another build (we cannot build an old release here): it
/// answers one hello with `outcome`, then stops listening and removes its socket.
fn mock_old_daemon(env: &TestEnv, outcome: Outcome, pid: u32) -> thread::JoinHandle<()> {
    fs::create_dir_all(&env.paths.runtime_dir).unwrap();
    let listener = UnixListener::bind(env.paths.socket()).unwrap();
    let socket = env.paths.socket();
    thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut head = [0u8; 8];
        s.read_exact(&mut head).unwrap();
        assert_eq!(head[..4], HELLO_MAGIC);
        let mut body = vec![0u8; u32::from_be_bytes(head[4..].try_into().unwrap()) as usize];
        s.read_exact(&mut body).unwrap();
        let reply = serde_json::to_vec(&ServerHello {
            protocol: 0,
            schema: "old".into(),
            version: "0.0.1".into(),
            build: "0.0.1+old".into(),
            pid,
            capabilities: vec![],
            outcome,
        })
        .unwrap();
        s.write_all(&HELLO_MAGIC).unwrap();
        s.write_all(&(reply.len() as u32).to_be_bytes()).unwrap();
        s.write_all(&reply).unwrap();
        drop(s);
        // Like a daemon stepping down: stop listening, remove the socket.
        drop(listener);
        let _ = fs::remove_file(socket);
    })
}

#[test]
fn an_older_idle_daemon_steps_down_and_is_replaced() {
    let env = env();
    // The "old daemon" process: alive until the mock says it stepped down.
    let mut old = Command::new("sleep").arg("30").spawn().unwrap();
    let old_pid = old.id();
    let mock = mock_old_daemon(
        &env,
        Outcome::ShuttingDown {
            message: "replaced".into(),
        },
        old_pid,
    );
    let mut shim = env
        .shim()
        .args(["--json", "daemon", "ping"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    mock.join().unwrap();
    // The shim says it waits for the old process; from then until that process is
    // gone, no daemon of ours may start.
    let mut said = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(shim.stderr.take().unwrap()),
        &mut said,
    )
    .unwrap();
    assert!(
        said.contains(&format!("(pid {old_pid}) is stepping down")),
        "{said:?}"
    );
    assert!(
        env.daemons().is_empty(),
        "spawned while the old daemon still ran"
    );
    old.kill().unwrap();
    old.wait().unwrap();
    let out = shim.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env.daemons(), vec![v["pid"].as_u64().unwrap() as u32]);
}

#[test]
fn a_newer_daemon_is_reported_not_replaced() {
    let env = env();
    let mock = mock_old_daemon(
        &env,
        Outcome::Refused {
            reason: RefuseReason::DaemonNewer,
            message: "the running daemon is newer than this client; upgrade lean-ctx".into(),
        },
        4242,
    );
    let (out, v) = env.shim_json(&["daemon", "ping"]);
    mock.join().unwrap();
    assert!(!out.status.success());
    // Builds that cannot talk: a typed error naming both builds and what to restart,
    // nothing about logs.
    assert_eq!(v["error"]["code"], "BACKEND_REQUIRED");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("pid 4242")
            && message.contains("upgrade lean-ctx")
            && message.contains(&format!("this client lean-ctx {} build", VERSION)),
        "{message}"
    );
    let remedy = v["error"]["remedy"].as_str().unwrap();
    assert!(
        remedy.contains("restart this agent session")
            && remedy.contains("lean-ctx daemon restart")
            && !remedy.contains("logs"),
        "{v}"
    );
    assert!(env.daemons().is_empty());
    assert!(wait_until(Duration::from_secs(1), || !env
        .paths
        .socket()
        .exists()));
}

/// Without `LEAN_CTX_DATA_DIR` the shim takes the data dir the published plugin takes
/// (`Paths::from_env`, docs/ide-wire.md, Data dir): the XDG one while only it holds
/// data, although `~/.lean-ctx` exists, then `~/.lean-ctx` once that holds
/// `stats.json`. `gain` reads whichever it chose, without a daemon.
#[test]
fn without_an_override_the_data_dir_is_the_one_the_published_plugin_takes() {
    let env = env();
    let home = env.dir().join("home");
    let xdg = env.dir().join("xdg");
    let write_stats = |dir: &Path, input: u64, output: u64| {
        fs::create_dir_all(dir).unwrap();
        let stats = serde_json::json!({
            "total_input_tokens": input,
            "total_output_tokens": output,
            "total_commands": 1,
        });
        fs::write(dir.join("stats.json"), stats.to_string()).unwrap();
    };
    let tokens_saved = || {
        let out = env
            .shim()
            .env_remove("LEAN_CTX_DATA_DIR")
            .env("XDG_CONFIG_HOME", &xdg)
            .args(["--json", "gain"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["summary"]["tokens_saved"].as_u64().unwrap()
    };
    fs::create_dir_all(home.join(".lean-ctx")).unwrap();
    write_stats(&xdg.join("lean-ctx"), 1000, 400);
    assert_eq!(tokens_saved(), 600);
    write_stats(&home.join(".lean-ctx"), 3000, 1000);
    assert_eq!(tokens_saved(), 2000);
}

/// What people expect of a command-line tool: a closed pipe is no panic, a manual
/// page, a dashboard that says when no browser opened (and prints the link to paste),
/// a `servers` listing that says what it lists, and a `doctor` that checks the
/// agents' configurations and this project's trust, each with its fix.
#[test]
fn the_cli_keeps_the_habits_of_a_unix_tool() {
    let env = env();
    env.put_on_path("pylsp", &lean_ctx_testkit::pylsp());
    env.put_on_path(
        "bash-language-server",
        &lean_ctx_testkit::bash_language_server(),
    );
    let project = env.dir().join("proj");
    fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q"]);

    // `lean-ctx completions bash | head -1`: the reader goes away mid-write.
    let mut child = env
        .shim()
        .args(["completions", "bash"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");

    let man = env.shim().arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(
        man.status.success() && page.contains(".TH lean-ctx 1"),
        "{page}"
    );
    assert!(page.contains("dashboard"), "every verb listed: {page}");

    // No opener on PATH (a server, an SSH session): said, and the link to paste.
    let no_opener = env.dir().join("no-opener");
    fs::create_dir_all(&no_opener).unwrap();
    let out = env
        .shim()
        .current_dir(&project)
        .env("PATH", &no_opener)
        .arg("dashboard")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        said.starts_with("no browser opened (xdg-open") && said.contains("/login?code="),
        "{said}"
    );

    let servers = || {
        let out = env
            .shim()
            .current_dir(&project)
            .args(["servers"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(servers(), "no language server runs");
    // Once the project holds code: the server each of its languages gets, found on
    // PATH (clangd, installed by the test command) or what to install (no Ruby server
    // is installed here). Nothing is started for the listing. The daemon the
    // dashboard call above started has its PATH (no clangd there): a new one has ours.
    let stop = env.shim().args(["daemon", "stop"]).output().unwrap();
    assert!(stop.status.success(), "{stop:?}");
    fs::write(project.join("a.rb"), "def a; end\n").unwrap();
    fs::write(project.join("b.c"), "int b(void) { return 0; }\n").unwrap();
    let outline = env.ok(&project, &["outline", "a.rb"]);
    assert_eq!(outline["files"][0]["symbols"][0]["name"], "a", "{outline}");
    // The listing names the languages the index found: once its walk is done (an
    // outline of one file parses that file alone; under load the listing came first).
    env.ok(&project, &["tree", "--depth", "0"]);
    assert_eq!(
        servers(),
        "no language server runs\nc: clangd\nruby: ruby-lsp (not found: gem install ruby-lsp)"
    );

    // An agent configured with a program that is gone: a failure, with its fix; the
    // project not trusted: a warning, with the command only a user may run.
    fs::write(
        project.join(".mcp.json"),
        r#"{"mcpServers": {"lean-ctx": {"command": "/gone/lean-ctx", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    let (out, v) = env.shim_json_in(&project, &["doctor"]);
    assert!(!out.status.success(), "{v}");
    let finding = |check: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["check"] == check)
            .unwrap_or_else(|| panic!("no {check} finding: {v}"))
            .clone()
    };
    let claude = finding("claude code");
    assert_eq!(claude["level"], "fail", "{claude}");
    assert!(
        claude["fix"]
            .as_str()
            .unwrap()
            .contains("lean-ctx setup --write")
    );
    let trust = finding("trust");
    assert_eq!(trust["level"], "warn", "{trust}");
    assert!(trust["fix"].as_str().unwrap().contains("lean-ctx trust"));
    // Servers on PATH are found each on its own (clangd as Debian installs it; pylsp
    // and bash-language-server from the test command's pinned installs, put on PATH
    // as a user would); the rest are named together with what to install (jdtls is
    // not installed here).
    for server in ["python", "c", "cpp", "bash"] {
        assert_eq!(finding(server)["level"], "ok", "{server}");
    }
    assert!(
        finding("bash")["detail"]
            .as_str()
            .unwrap()
            .starts_with("bash-language-server start: "),
        "{v}"
    );
    let missing = finding("language servers");
    assert!(
        missing["detail"].as_str().unwrap().contains("java (jdtls)")
            && missing["fix"].as_str().unwrap().contains("java: "),
        "{missing}"
    );
    // Trusted and configured: both fine.
    env.trust(&project);
    let lean_ctx = fs::canonicalize(SHIM).unwrap();
    fs::write(
        project.join(".mcp.json"),
        format!(
            r#"{{"mcpServers": {{"lean-ctx": {{"command": {:?}, "args": ["mcp"]}}}}}}"#,
            lean_ctx
        ),
    )
    .unwrap();
    let (_, v) = env.shim_json_in(&project, &["doctor"]);
    let find = |check: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["check"] == check)
            .cloned()
            .unwrap()
    };
    assert_eq!(find("claude code")["level"], "ok", "{v}");
    assert_eq!(find("trust")["level"], "ok", "{v}");
}
