//! Upgrades with sessions of two builds open (issue 22): two real builds whose wire
//! schemas differ, this checkout's (the new build, "B") and a copy of it with one
//! comment added in `shared/src/wire` (the old build, "A", from
//! `tests/ensure-other-schema-build.sh`, cached outside the checkout). Each build's
//! shim reaches the daemon of its own schema; an old session keeps answering while new
//! ones start; the old daemon exits once its last session is gone; socket activation
//! (`systemd-socket-activate`, which holds the socket and passes it as systemd does)
//! follows the documented upgrade path; and a shim meeting only the other build's
//! daemon gets the typed error. Every daemon of either build runs with the test's
//! environment, so `TestEnv`'s drop kills them all, also when a test fails.

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use lean_ctx_shared::{
    daemons::{self, Record},
    process::pid_alive,
    protocol::SCHEMA,
};
use lean_ctx_testkit::{TestEnv, git, other_schema_build, wait_until};
use serde_json::{Value, json};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// Generous bounds that only limit a failure.
const LONG: Duration = Duration::from_secs(60);

const LIB_RS: &str = "pub struct Point { pub x: i32 }\n\npub fn helper() -> i32 { 1 }\n";

/// The old build's binaries.
struct Old {
    shim: PathBuf,
    daemon: PathBuf,
}

fn old_build() -> Old {
    let dir = other_schema_build();
    Old {
        shim: dir.join("lean-ctx"),
        daemon: dir.join("lean-ctxd"),
    }
}

impl Old {
    /// The old build's shim in `env`, starting the old build's daemon when it spawns.
    fn shim(&self, env: &TestEnv, cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.shim);
        cmd.env_clear()
            .envs(env.envs())
            .env("LEAN_CTX_DAEMON_BIN", &self.daemon)
            .current_dir(cwd);
        cmd
    }

    /// The old build's socket in `env` (its status names it even when not running).
    fn socket(&self, env: &TestEnv) -> PathBuf {
        let out = self
            .shim(env, env.dir())
            .args(["--json", "daemon", "status"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        PathBuf::from(v["socket"].as_str().unwrap())
    }
}

/// A git project with one Rust file.
fn project(env: &TestEnv) -> PathBuf {
    let root = env.dir().join("proj");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/lib.rs"), LIB_RS).unwrap();
    git(&root, &["init", "-q"]);
    fs::canonicalize(root).unwrap()
}

/// An agent's MCP session (`lean-ctx mcp` over stdio, newline-delimited JSON-RPC),
/// killed when dropped.
struct McpSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl McpSession {
    fn start(mut cmd: Command) -> McpSession {
        let mut child = cmd
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = McpSession {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        };
        session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "upgrade-test", "version": "1"}}),
        );
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(LONG)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// A tool call's text; panics on an error answer.
    fn call(&mut self, tool: &str, args: Value) -> String {
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{v}"))
            .to_string();
        assert_ne!(v["result"]["isError"], true, "{text}");
        text
    }

    /// Ends the session as an agent does: its stdin closes.
    fn end(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The live daemons' records in `env`, ours (this build's schema) and the others.
fn records(env: &TestEnv) -> (Vec<Record>, Vec<Record>) {
    daemons::list(&env.paths.runtime_dir)
        .into_iter()
        .partition(|r| r.schema == SCHEMA)
}

/// The one record of the old build; panics unless exactly one is there.
fn old_record(env: &TestEnv) -> Record {
    let (_, others) = records(env);
    assert_eq!(others.len(), 1, "{others:?}");
    others.into_iter().next().unwrap()
}

#[test]
fn an_old_session_keeps_answering_while_new_ones_start_and_its_daemon_exits_after_it() {
    let env = TestEnv::with_shim(SHIM);
    let old = old_build();
    let root = project(&env);

    // An agent session of the old build, mid-conversation.
    let mut session = McpSession::start(old.shim(&env, &root));
    let text = session.call("ctx_outline", json!({"path": "src/lib.rs"}));
    assert!(text.contains("helper"), "{text}");
    let a = old_record(&env);
    assert_ne!(
        a.schema, SCHEMA,
        "the old build must have another wire schema"
    );
    assert_eq!(a.socket, old.socket(&env));
    assert_ne!(a.socket, env.paths.socket());

    // The new build: a new session starts and answers at once, from a daemon of its
    // own, without a manual step.
    let v = env.ok(&root, &["outline", "src/lib.rs"]);
    assert!(v.to_string().contains("helper"), "{v}");
    let (ours, _) = records(&env);
    assert_eq!(ours.len(), 1, "{ours:?}");
    let b = ours[0].clone();
    assert_ne!(b.pid, a.pid);

    // `daemon status` of the new build lists the old build's daemon.
    let st = env.ok(&root, &["daemon", "status"]);
    assert_eq!(st["pid"], b.pid, "{st}");
    let listed = st["other_builds"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{st}");
    assert_eq!(listed[0]["pid"], a.pid);
    assert_eq!(listed[0]["build"], a.build.as_str());
    let text = String::from_utf8(
        env.shim()
            .current_dir(&root)
            .args(["daemon", "status"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains("other builds' daemons") && text.contains(&format!("pid {}", a.pid)),
        "{text}"
    );

    // The old daemon learns it is superseded, and still serves its session.
    assert!(
        wait_until(LONG, || env.log().contains("superseded by a newer build")),
        "{}",
        env.log()
    );
    for _ in 0..3 {
        let text = session.call("ctx_search", json!({"query": "helper"}));
        assert!(text.contains("src/lib.rs"), "{text}");
        let v = env.ok(&root, &["search", "Point"]);
        assert!(v.to_string().contains("src/lib.rs"), "{v}");
    }
    assert!(pid_alive(a.pid));

    // The old session ends: its daemon exits within seconds (not after the 30-minute
    // idle timeout) and removes its record; the new daemon stays.
    session.end();
    assert!(
        wait_until(LONG, || !pid_alive(a.pid)),
        "the old daemon outlived its last session: {}",
        env.log()
    );
    let (ours, others) = records(&env);
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(ours.iter().map(|r| r.pid).collect::<Vec<_>>(), [b.pid]);
    assert_eq!(env.daemons(), [b.pid]);
    assert!(
        !old.socket(&env).exists(),
        "the old daemon left its socket behind"
    );
    env.ok(&root, &["outline", "src/lib.rs"]);
}

/// `systemd-socket-activate` holds a socket and passes it to the daemon it starts on
/// the first connection, as systemd's `lean-ctx@<schema>.socket` does.
fn activate(env: &TestEnv, socket: &Path, daemon: &Path) -> Child {
    fs::create_dir_all(&env.paths.runtime_dir).unwrap();
    fs::set_permissions(
        &env.paths.runtime_dir,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let mut cmd = Command::new("systemd-socket-activate");
    cmd.arg("-l").arg(socket);
    for (key, value) in env.envs() {
        cmd.arg("-E")
            .arg(format!("{key}={}", value.to_string_lossy()));
    }
    let child = cmd
        .arg(daemon)
        .arg("--foreground")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(LONG, || std::os::unix::net::UnixStream::connect(socket)
            .is_ok()),
        "systemd-socket-activate did not listen on {}",
        socket.display()
    );
    child
}

/// README's systemd upgrade path: the old schema's socket unit serves an old session;
/// after the upgrade the new schema's socket unit activates the new daemon for new
/// sessions (the shim never auto-spawns beside it), the old daemon keeps serving its
/// session (disabling and stopping its socket unit does not stop it: it holds its
/// listening socket itself, which `systemd-socket-activate` models by exec'ing into
/// the daemon) and exits once that session ends.
#[test]
fn under_socket_activation_the_upgrade_keeps_the_old_session_and_activates_the_new_build() {
    let env = TestEnv::with_shim(SHIM);
    let old = old_build();
    let root = project(&env);

    let mut old_unit = activate(&env, &old.socket(&env), &old.daemon);
    let mut session = McpSession::start(old.shim(&env, &root));
    session.call("ctx_outline", json!({"path": "src/lib.rs"}));
    let a = old_record(&env);
    assert_eq!(a.pid, old_unit.id(), "the activated daemon answered");
    assert_eq!(a.started_by, "systemd");

    // The upgrade: `lean-ctx daemon install` enables the new schema's socket.
    let mut new_unit = activate(&env, &env.paths.socket(), env.daemon_bin());
    let st = env.ok(&root, &["daemon", "status"]);
    assert_eq!(st["started_by"], "systemd", "{st}");
    assert_eq!(st["pid"], new_unit.id(), "{st}");
    assert_eq!(st["other_builds"][0]["pid"], a.pid, "{st}");
    env.ok(&root, &["outline", "src/lib.rs"]);
    // No daemon was auto-spawned beside the activated ones.
    let mut running = env.daemons();
    running.sort();
    let mut activated = vec![old_unit.id(), new_unit.id()];
    activated.sort();
    assert_eq!(running, activated);

    assert!(
        wait_until(LONG, || env.log().contains("superseded by a newer build")),
        "{}",
        env.log()
    );
    let text = session.call("ctx_search", json!({"query": "Point"}));
    assert!(text.contains("src/lib.rs"), "{text}");
    session.end();
    let status = wait_child(&mut old_unit);
    assert!(status.success(), "the old daemon's exit: {status}");
    assert!(pid_alive(new_unit.id()));
    env.ok(&root, &["search", "helper"]);

    let (out, v) = env.shim_json(&["daemon", "stop"]);
    assert!(out.status.success(), "{v}");
    assert!(wait_child(&mut new_unit).success());
}

/// Waits (bounded) for a child to exit.
fn wait_child(child: &mut Child) -> std::process::ExitStatus {
    let mut status = None;
    assert!(
        wait_until(LONG, || {
            status = child.try_wait().unwrap();
            status.is_some()
        }),
        "pid {} did not exit",
        child.id()
    );
    status.unwrap()
}

/// Builds that truly cannot talk say so in clear words, a typed `BACKEND_REQUIRED`
/// naming both builds and telling to restart the agent session, nothing about logs:
/// an old shim whose socket unit was pointed at the new build's daemon, and an old
/// shim whose `lean-ctxd` beside it was replaced by the new build's (`cargo install`
/// while its session ran).
#[test]
fn an_old_shim_meeting_only_the_new_daemon_gets_the_typed_error() {
    let env = TestEnv::with_shim(SHIM);
    let old = old_build();
    let root = project(&env);
    let old_socket = old.socket(&env);
    let old_short = old_socket
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .trim_start_matches("lean-ctxd-")
        .trim_end_matches(".sock")
        .to_string();
    let check = |out: std::process::Output, what: &str| {
        assert!(!out.status.success(), "{what}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let err = &v["error"];
        assert_eq!(err["code"], "BACKEND_REQUIRED", "{what}: {v}");
        let message = err["message"].as_str().unwrap();
        // Both builds named: the new one by its schema, the old one by its build.
        assert!(
            message.contains(SCHEMA) && message.contains(&old_short),
            "{what}: {message}"
        );
        let remedy = err["remedy"].as_str().unwrap();
        assert!(
            remedy.contains("restart this agent session") && !remedy.contains("log"),
            "{what}: {remedy}"
        );
    };

    // A unit pointing the old build's socket at the new build's daemon.
    let mut unit = activate(&env, &old_socket, env.daemon_bin());
    let out = old
        .shim(&env, &root)
        .args(["--json", "outline", "src/lib.rs"])
        .output()
        .unwrap();
    check(out, "activation socket of the old schema, new daemon");
    // The daemon of the other build was not replaced or stopped by the old shim.
    assert!(unit.try_wait().unwrap().is_none());
    unit.kill().unwrap();
    unit.wait().unwrap();

    // The old shim spawning the lean-ctxd now installed beside it: the new build's
    // (copies in a directory of their own, as `cargo install` leaves them).
    let installed = env.dir().join("installed");
    fs::create_dir_all(&installed).unwrap();
    fs::copy(&old.shim, installed.join("lean-ctx")).unwrap();
    fs::copy(env.daemon_bin(), installed.join("lean-ctxd")).unwrap();
    let out = Command::new(installed.join("lean-ctx"))
        .env_clear()
        .envs(env.envs())
        .env_remove("LEAN_CTX_DAEMON_BIN")
        .current_dir(&root)
        .args(["--json", "outline", "src/lib.rs"])
        .output()
        .unwrap();
    check(out, "the new build's lean-ctxd spawned by the old shim");
}
