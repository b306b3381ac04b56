//! The shim proves its daemon on every connect, not only when it spawns one: without
//! `XDG_RUNTIME_DIR` the runtime dir is `$TMPDIR/lean-ctx-<uid>`, which another user
//! can make first and listen in. Each attack runs for real: the other user is another
//! uid (`as_another_user`), her listener a real process that counts every byte it is
//! sent.

use std::{
    fs,
    os::unix::fs::{DirBuilderExt, PermissionsExt},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

use lean_ctx_shared::Paths;
use lean_ctx_testkit::{TestEnv, as_another_user, wait_until};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// A listener run as another uid: accepts on `socket` and appends to `log` how many
/// bytes each connection sent before it went quiet.
const LISTENER: &str = r#"
import os, socket, sys
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
os.chmod(path, 0o777)
s.listen(8)
open(log + ".ready", "w").close()
while True:
    c, _ = s.accept()
    c.settimeout(2)
    n = 0
    try:
        while True:
            b = c.recv(65536)
            if not b:
                break
            n += len(b)
    except OSError:
        pass
    open(log, "a").write(f"{n}\n")
    c.close()
"#;

/// The other user's listener, stopped when dropped (even when the test fails).
struct Listener {
    child: Child,
    log: PathBuf,
}

impl Listener {
    fn start(socket: &Path, log: &Path) -> Listener {
        let child = as_another_user()
            .args(["/usr/bin/python3", "-c", LISTENER])
            .arg(socket)
            .arg(log)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut listener = Listener {
            child,
            log: log.to_path_buf(),
        };
        let ready = PathBuf::from(format!("{}.ready", log.display()));
        let started = wait_until(Duration::from_secs(10), || {
            ready.exists() || listener.child.try_wait().unwrap().is_some()
        });
        if !(started && ready.exists()) {
            let _ = listener.child.kill();
            let mut said = String::new();
            let _ =
                std::io::Read::read_to_string(listener.child.stderr.as_mut().unwrap(), &mut said);
            panic!(
                "the other uid's listener did not start (as root: setpriv; otherwise: a user \
                 namespace mapping /etc/subuid, which needs newuidmap): {said}"
            );
        }
        listener
    }

    /// Bytes each of the first `connections` connections sent her, once she logged
    /// that many (she logs a connection when it closes, after the shim is gone), or
    /// all she logged within her receive timeout and a margin.
    fn received(&self, connections: usize) -> Vec<usize> {
        let logged = || -> Vec<usize> {
            fs::read_to_string(&self.log)
                .unwrap_or_default()
                .lines()
                .map(|n| n.parse().unwrap())
                .collect()
        };
        wait_until(Duration::from_secs(4), || {
            logged().len() >= connections.max(1)
        });
        logged()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A shared temp dir (mode 1777, like `/tmp`) that the other uid can reach, and the
/// runtime dir the shim picks in it when no runtime dir is set.
fn shared_tmp(env: &TestEnv, name: &str) -> (PathBuf, PathBuf) {
    fs::set_permissions(env.dir(), fs::Permissions::from_mode(0o711)).unwrap();
    let tmp = env.dir().join(name);
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o1777)).unwrap();
    let runtime = tmp.join(format!("lean-ctx-{}", rustix::process::getuid().as_raw()));
    (tmp, runtime)
}

/// The shim as a session without `XDG_RUNTIME_DIR` or an override runs it (su, cron,
/// a container): the runtime dir is derived from `TMPDIR`.
fn shim_without_runtime_dir(env: &TestEnv, tmp: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new(SHIM)
        .env_clear()
        .envs(env.envs())
        .env_remove("LEAN_CTX_RUNTIME_DIR")
        .env("TMPDIR", tmp)
        .current_dir(env.dir())
        .args(args)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "{args:?} succeeded against another user's socket: {out:?}"
    );
    out
}

fn socket_in(runtime: &Path) -> PathBuf {
    Paths {
        runtime_dir: runtime.to_path_buf(),
        data_dir: PathBuf::new(),
        state_dir: PathBuf::new(),
        config_dir: PathBuf::new(),
    }
    .socket()
}

#[test]
fn a_runtime_dir_another_user_made_first_is_refused_before_a_byte_is_sent() {
    let env = TestEnv::with_shim(SHIM);
    let (tmp, runtime) = shared_tmp(&env, "tmp");
    let mkdir = as_another_user()
        .args(["mkdir", "-m", "0755"])
        .arg(&runtime)
        .status()
        .unwrap();
    assert!(mkdir.success(), "the other uid could not make {runtime:?}");
    let listener = Listener::start(&socket_in(&runtime), &tmp.join("her.log"));
    for args in [&["daemon", "status"][..], &["daemon", "stop"], &["tree"]] {
        let out = shim_without_runtime_dir(&env, &tmp, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("UNAUTHORIZED")
                && err.contains(&runtime.display().to_string())
                && err.contains("owned by uid"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        listener.received(0),
        Vec::<usize>::new(),
        "she was sent something"
    );
}

#[test]
fn a_socket_of_another_uid_in_our_own_runtime_dir_is_refused_before_a_byte_is_sent() {
    let env = TestEnv::with_shim(SHIM);
    let (tmp, runtime) = shared_tmp(&env, "tmp");
    fs::DirBuilder::new().mode(0o700).create(&runtime).unwrap();
    // Her listener, bound where she may write, then moved into our private dir: what
    // a socket we did not make looks like there (a root-owned leftover, a bind mount).
    let hers = tmp.join("hers.sock");
    let listener = Listener::start(&hers, &tmp.join("her.log"));
    fs::rename(&hers, socket_in(&runtime)).unwrap();
    let out = shim_without_runtime_dir(&env, &tmp, &["daemon", "status"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("UNAUTHORIZED") && err.contains("runs as uid"),
        "{err}"
    );
    assert_eq!(listener.received(1), vec![0], "she was sent something");
}
