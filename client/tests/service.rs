//! The daemon as a background service: units that `systemd-analyze verify` accepts,
//! real socket activation through `systemd-socket-activate` (which holds the socket and
//! passes the fd, as systemd does) with `READY=1` observed on a notify socket, the
//! launchd plist read back by Python's plistlib, install/uninstall round trips.

use std::{
    fs,
    os::unix::net::UnixDatagram,
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

use lean_ctx_shared::daemons::schema_short;
use lean_ctx_testkit::{TestEnv, wait_until};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

fn unit_dir(env: &TestEnv) -> std::path::PathBuf {
    env.dir().join("home/.config/systemd/user")
}

/// This build's instance of the template unit `lean-ctx@.KIND`.
fn instance(kind: &str) -> String {
    format!("lean-ctx@{}.{kind}", schema_short())
}

#[test]
fn install_dry_run_shows_units_with_the_real_daemon_path_and_writes_nothing() {
    let env = TestEnv::with_shim(SHIM);
    let (out, v) = env.shim_json(&["daemon", "install", "--systemd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["manager"], "systemd");
    assert_eq!(v["dry_run"], true);
    let daemon = fs::canonicalize(env.daemon_bin()).unwrap();
    let files = v["write"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(
        files[0]["path"],
        unit_dir(&env)
            .join("lean-ctx@.socket")
            .display()
            .to_string()
    );
    let socket = files[0]["content"].as_str().unwrap();
    for line in [
        "ListenStream=%t/lean-ctx/lean-ctxd-%i.sock",
        "SocketMode=0600",
        "DirectoryMode=0700",
        "Installed by lean-ctx",
    ] {
        assert!(socket.contains(line), "{line} missing:\n{socket}");
    }
    let service = files[1]["content"].as_str().unwrap();
    for line in [
        format!("ExecStart={} --foreground", daemon.display()),
        "Type=notify".into(),
        "Restart=on-failure".into(),
        "NoNewPrivileges=yes".into(),
    ] {
        assert!(service.contains(&line), "{line} missing:\n{service}");
    }
    assert!(
        !service.lines().any(|l| l.starts_with("Requires=")),
        "stopping an old schema's socket must not stop its daemon:\n{service}"
    );
    assert_eq!(
        v["commands"][1],
        serde_json::json!(["systemctl", "--user", "enable", "--now", instance("socket")])
    );
    assert!(!unit_dir(&env).exists(), "a dry run wrote files");

    let text = env
        .shim()
        .args(["daemon", "install", "--systemd", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("would write")
            && text.contains(&format!(
                "would run systemctl --user enable --now {}",
                instance("socket")
            )),
        "{text}"
    );
}

#[test]
fn installed_units_verify_clean_and_uninstall_removes_exactly_what_install_wrote() {
    let env = TestEnv::with_shim(SHIM);
    let dir = unit_dir(&env);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("mine.service"), "[Service]\nExecStart=/bin/true\n").unwrap();
    let (out, v) = env.shim_json(&["daemon", "install", "--systemd", "--no-start"]);
    assert!(out.status.success(), "{v}");

    let runtime = env.dir().join("xdg-runtime");
    fs::create_dir_all(&runtime).unwrap();
    let verify = Command::new("systemd-analyze")
        .args(["verify", "--user"])
        // An instance's path: verify loads the template `lean-ctx@.KIND` beside it.
        .arg(dir.join(instance("socket")))
        .arg(dir.join(instance("service")))
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("HOME", env.dir().join("home"))
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&verify.stderr).trim(),
        "",
        "systemd-analyze verify complained"
    );

    // Without a user manager (this sandbox) a full install says what failed and how
    // to finish by hand; the files are in place.
    let out = env
        .shim()
        .args(["daemon", "install", "--systemd"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("systemctl --user") && err.contains("lean-ctx daemon uninstall"),
        "{err}"
    );

    let (out, v) = env.shim_json(&["daemon", "uninstall", "--systemd"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["remove"].as_array().unwrap().len(), 2, "{v}");
    let left: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["mine.service"]);

    // A unit of the user's own at our path is never overwritten.
    fs::write(
        dir.join("lean-ctx@.socket"),
        "[Socket]\nListenStream=/tmp/theirs\n",
    )
    .unwrap();
    let out = env
        .shim()
        .args(["daemon", "install", "--systemd", "--no-start"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not written by lean-ctx"));
    assert_eq!(
        fs::read_to_string(dir.join("lean-ctx@.socket")).unwrap(),
        "[Socket]\nListenStream=/tmp/theirs\n"
    );
}

#[test]
fn socket_activation_passes_the_socket_and_the_daemon_reports_ready() {
    let env = TestEnv::with_shim(SHIM);
    fs::create_dir_all(&env.paths.runtime_dir).unwrap();
    fs::set_permissions(
        &env.paths.runtime_dir,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let notify_path = env.dir().join("notify.sock");
    let notify = UnixDatagram::bind(&notify_path).unwrap();
    notify
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();

    let mut activate = Command::new("systemd-socket-activate");
    activate.arg("-l").arg(env.paths.socket());
    for (key, value) in env.envs() {
        activate
            .arg("-E")
            .arg(format!("{key}={}", value.to_string_lossy()));
    }
    activate
        .arg("-E")
        .arg(format!("NOTIFY_SOCKET={}", notify_path.display()));
    let mut holder = activate
        .arg(env.daemon_bin())
        .arg("--foreground")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || env.paths.socket().exists()),
        "systemd-socket-activate did not listen"
    );
    // Nothing runs yet: the socket is held, the daemon starts on the first connection.
    assert!(env.daemons().is_empty());

    let (out, v) = env.shim_json(&["daemon", "status"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let st = v;
    assert_eq!(st["started_by"], "systemd");
    assert_eq!(st["socket"], env.paths.socket().display().to_string());
    // Socket activation brings it back on demand, so it may idle out.
    assert_eq!(st["idle_exit_after_ms"], 30 * 60 * 1000);
    let pid = st["pid"].as_u64().unwrap();
    // systemd-socket-activate execs the daemon in its own place.
    assert_eq!(pid, u64::from(holder.id()));

    let mut buf = [0u8; 512];
    let n = notify.recv(&mut buf).unwrap();
    let msg = String::from_utf8_lossy(&buf[..n]);
    assert!(
        msg.starts_with("READY=1\n") && msg.contains("STATUS=serving on"),
        "{msg}"
    );

    let (out, v) = env.shim_json(&["daemon", "stop"]);
    assert!(out.status.success(), "{v}");
    let n = notify.recv(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("STOPPING=1"));
    assert!(holder.wait().unwrap().success());
    // The socket belongs to the service manager: the daemon left it in place.
    assert!(env.paths.socket().exists());
}

#[test]
fn the_launchd_plist_parses_and_has_the_keys_launchd_needs() {
    let env = TestEnv::with_shim(SHIM);
    let (out, v) = env.shim_json(&["daemon", "install", "--launchd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    let file = &v["write"][0];
    assert_eq!(
        file["path"],
        env.dir()
            .join(format!(
                "home/Library/LaunchAgents/com.leanctx.daemon.{}.plist",
                schema_short()
            ))
            .display()
            .to_string()
    );
    assert!(
        v["commands"][0][0] == "launchctl" && v["commands"][0][1] == "bootstrap",
        "{v}"
    );
    let daemon = fs::canonicalize(env.daemon_bin()).unwrap();
    let checked = plist(file["content"].as_str().unwrap());
    // A label per wire schema: an upgrade loads the new build's agent beside the old.
    assert_eq!(
        checked["Label"],
        format!("com.leanctx.daemon.{}", schema_short())
    );
    assert_eq!(
        checked["ProgramArguments"],
        serde_json::json!([daemon.display().to_string(), "--foreground"])
    );
    assert_eq!(checked["RunAtLoad"], true);
    assert_eq!(checked["KeepAlive"], serde_json::json!({"Crashed": true}));
    assert_eq!(
        checked["StandardErrorPath"],
        env.paths
            .state_dir
            .join("launchd.err.log")
            .display()
            .to_string()
    );
    // The template in the repository parses too.
    let template = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../launchd/com.leanctx.daemon.plist"),
    )
    .unwrap();
    assert_eq!(
        plist(&template)["KeepAlive"],
        serde_json::json!({"Crashed": true})
    );
}

/// Installing after an upgrade, as README describes: the new schema's socket instance
/// is enabled, every other schema's socket is disabled and stopped (its daemon keeps
/// serving its sessions: the service does not require the socket), a unit of the
/// single-socket layout only disabled (its service requires its socket); uninstall
/// disables every instance and removes the templates and the old layout's files.
#[test]
fn systemd_install_after_an_upgrade_repoints_the_units_without_stopping_old_daemons() {
    let env = TestEnv::with_shim(SHIM);
    let dir = unit_dir(&env);
    let wants = dir.join("sockets.target.wants");
    fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        dir.join("lean-ctx@.socket"),
        wants.join("lean-ctx@0ld5c4e3.socket"),
    )
    .unwrap();
    fs::write(
        dir.join("lean-ctx.socket"),
        "# Installed by lean-ctx 0.0.9; `lean-ctx daemon uninstall` removes it.\n[Socket]\n",
    )
    .unwrap();
    let (out, v) = env.shim_json(&["daemon", "install", "--systemd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    let ours = instance("socket");
    assert_eq!(
        v["commands"],
        serde_json::json!([
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", "--now", ours],
            [
                "systemctl",
                "--user",
                "disable",
                "--now",
                "lean-ctx@0ld5c4e3.socket"
            ],
            ["systemctl", "--user", "disable", "lean-ctx.socket"],
        ])
    );

    let (out, v) = env.shim_json(&["daemon", "uninstall", "--systemd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(
        v["commands"],
        serde_json::json!([
            [
                "systemctl",
                "--user",
                "disable",
                "--now",
                "lean-ctx@0ld5c4e3.socket",
                "lean-ctx@0ld5c4e3.service",
                ours,
                instance("service")
            ],
            [
                "systemctl",
                "--user",
                "disable",
                "--now",
                "lean-ctx.socket",
                "lean-ctx.service"
            ],
        ])
    );
    assert_eq!(
        v["remove"],
        serde_json::json!([dir.join("lean-ctx.socket").display().to_string()]),
        "only files install wrote, and only those that exist"
    );
}

/// launchd after an upgrade: the new schema's agent is bootstrapped, the other
/// schemas' plists install wrote are removed (not loaded at the next login) without
/// `bootout`, so their daemons finish their sessions; a plist of the user's is kept.
#[test]
fn launchd_install_after_an_upgrade_replaces_old_plists_without_stopping_their_daemons() {
    let env = TestEnv::with_shim(SHIM);
    let agents = env.dir().join("home/Library/LaunchAgents");
    fs::create_dir_all(&agents).unwrap();
    let marked =
        "<!-- Installed by lean-ctx 0.0.9; `lean-ctx daemon uninstall` removes it. -->\n<plist/>\n";
    fs::write(agents.join("com.leanctx.daemon.0ld5c4e3.plist"), marked).unwrap();
    fs::write(agents.join("com.leanctx.daemon.plist"), marked).unwrap();
    fs::write(agents.join("com.leanctx.daemon.mine.plist"), "<plist/>\n").unwrap();
    let (out, v) = env.shim_json(&["daemon", "install", "--launchd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    let commands = v["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 1, "{v}");
    assert_eq!(commands[0][1], "bootstrap");
    let path = |label: &str| agents.join(format!("{label}.plist")).display().to_string();
    assert_eq!(
        v["remove"],
        serde_json::json!([
            path("com.leanctx.daemon"),
            path("com.leanctx.daemon.0ld5c4e3")
        ])
    );

    let (out, v) = env.shim_json(&["daemon", "uninstall", "--launchd", "--dry-run"]);
    assert!(out.status.success(), "{v}");
    let booted_out: Vec<&str> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[2].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    let ours = format!("com.leanctx.daemon.{}", schema_short());
    assert!(
        booted_out.contains(&ours.as_str())
            && booted_out.contains(&"com.leanctx.daemon.0ld5c4e3")
            && booted_out.contains(&"com.leanctx.daemon"),
        "{v}"
    );
}

/// Parses a plist with Python's plistlib and returns it as JSON.
fn plist(xml: &str) -> Value {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import plistlib,json,sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "plistlib refused the plist");
    serde_json::from_slice(&out.stdout).unwrap()
}
