//! The harness for lean-ctx's integration tests (ripgrep's `tests/util.rs` in spirit):
//! a [`TestEnv`] is an isolated world in a temp dir, with every `LEAN_CTX_*` directory
//! and `HOME` pointing into it, that runs the real binaries and, when dropped (also
//! when a test panics), kills every daemon started in it and everything they spawned.
//!
//! Also here: the real servers ([`rust_analyzer`], [`gopls`], [`pylsp`] and [`python`]
//! from the pinned venv of `tests/ensure-python.sh`, never a `pylsp` on `PATH`),
//! [`TestEnv::language_servers`] (the servers a test's daemons started, found by the
//! test's `HOME`: the one variable of its own the neutral environment keeps), the
//! corpora tests read as real code ([`corpus`], [`corpus_crate`], pinned by the
//! checkout), and [`ContractIde`], the plugin core's standalone contract server (the
//! plugin's real HTTP server and port file with scripted answers; the IntelliJ Platform
//! cannot run here). Its scripts match every field the daemon sends (a subset match);
//! the published plugin's double ([`plugin_double`]) also catches extra fields, so
//! every route is checked both ways.
//!
//! No sleep stands for an event: a rename asked right after a write behind the daemon's
//! back is tested where nothing watches the root (the server's view is then stale for
//! certain), and the MCP front door's promise that `initialize` never waits for the
//! daemon is tested against a daemon that cannot start (the plugin core's process
//! runner likewise: against a script gated on a file, and one that would run an hour,
//! JUnit's timeout only bounding failure).

use std::{
    ffi::OsString,
    fs,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Output, Stdio},
    time::{Duration, Instant},
};

use lean_ctx_shared::{Paths, process::pid_alive};
use rustix::process::{Pid, Signal, kill_process, kill_process_group};
use tempfile::TempDir;

pub mod plugin_double;
pub use plugin_double::{PluginDouble, Reply};

#[derive(Debug)]
pub struct TestEnv {
    dir: TempDir,
    pub paths: Paths,
    shim: Option<PathBuf>,
    daemon: PathBuf,
}

impl TestEnv {
    /// For the shim's tests: `shim` is `env!("CARGO_BIN_EXE_lean-ctx")`; the daemon is
    /// the `lean-ctxd` built beside it (cargo builds every binary of the workspace before
    /// running any integration test).
    pub fn with_shim(shim: &str) -> TestEnv {
        let shim = PathBuf::from(shim);
        let daemon = shim.with_file_name("lean-ctxd");
        assert!(
            daemon.is_file(),
            "{} is missing: build the workspace (`cargo test --workspace` does)",
            daemon.display()
        );
        // `cargo test -p lean-ctx-client` does not rebuild the daemon: refuse to test
        // against one older than its sources.
        let built = fs::metadata(&daemon).and_then(|m| m.modified()).unwrap();
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let newest = ["daemon/src", "shared/src"]
            .iter()
            .flat_map(|d| newest_mtime(&workspace.join(d)))
            .max();
        assert!(
            newest.is_none_or(|n| n <= built),
            "{} is older than its sources: run `cargo build --workspace` first",
            daemon.display()
        );
        TestEnv::new(Some(shim), daemon)
    }

    /// For the daemon's tests: `daemon` is `env!("CARGO_BIN_EXE_lean-ctxd")`.
    pub fn with_daemon(daemon: &str) -> TestEnv {
        TestEnv::new(None, PathBuf::from(daemon))
    }

    fn new(shim: Option<PathBuf>, daemon: PathBuf) -> TestEnv {
        // Short and in /tmp: the socket path must fit in `sun_path`.
        let dir = tempfile::Builder::new()
            .prefix("lc")
            .tempdir_in("/tmp")
            .unwrap();
        let root = dir.path();
        let paths = Paths {
            data_dir: root.join("data"),
            runtime_dir: root.join("run"),
            state_dir: root.join("state"),
            config_dir: root.join("config"),
        };
        fs::create_dir(root.join("home")).unwrap();
        fs::create_dir(root.join("bin")).unwrap();
        TestEnv {
            dir,
            paths,
            shim,
            daemon,
        }
    }

    /// The temp dir everything lives in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn daemon_bin(&self) -> &Path {
        &self.daemon
    }

    /// Puts `program` on the `PATH` of this environment's processes as `name` (a
    /// symlink in a directory of the temp dir, first on `PATH`): what a user has
    /// installed, for the servers found with no configuration. Never a directory of
    /// the checkout itself: a git repository's directories never reach a server's
    /// `PATH` (`shared/src/tool_env.rs`).
    pub fn put_on_path(&self, name: &str, program: &Path) {
        std::os::unix::fs::symlink(program, self.dir().join("bin").join(name)).unwrap();
    }

    /// The environment every process of this test runs with: nothing of the real
    /// user's besides `PATH` (after the directory of [`TestEnv::put_on_path`]) and the
    /// Rust toolchain's homes (rust-analyzer runs `cargo metadata`, which needs
    /// rustup's toolchain; a fake `HOME` would hide it).
    pub fn envs(&self) -> Vec<(&'static str, OsString)> {
        let real_home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let toolchain = |var: &str, default: &str| {
            std::env::var_os(var).unwrap_or_else(|| real_home.join(default).into())
        };
        let mut envs = vec![
            ("PATH", self.path()),
            ("RUSTUP_HOME", toolchain("RUSTUP_HOME", ".rustup")),
            ("CARGO_HOME", toolchain("CARGO_HOME", ".cargo")),
            ("HOME", self.dir().join("home").into()),
            ("LEAN_CTX_DATA_DIR", self.paths.data_dir.clone().into()),
            (
                "LEAN_CTX_RUNTIME_DIR",
                self.paths.runtime_dir.clone().into(),
            ),
            ("LEAN_CTX_STATE_DIR", self.paths.state_dir.clone().into()),
            ("LEAN_CTX_CONFIG_DIR", self.paths.config_dir.clone().into()),
            ("LEAN_CTX_DAEMON_BIN", self.daemon.clone().into()),
            ("LEAN_CTX_LOG", "debug".into()),
        ];
        // The test command's marker: its final check finds whatever a test left.
        if let Some(run) = std::env::var_os("LEAN_CTX_TEST_RUN").filter(|r| !r.is_empty()) {
            envs.push(("LEAN_CTX_TEST_RUN", run));
        }
        envs
    }

    fn path(&self) -> OsString {
        let real = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(self.dir().join("bin")).chain(std::env::split_paths(&real));
        std::env::join_paths(dirs).unwrap()
    }

    fn command(&self, bin: &Path) -> Command {
        let mut cmd = Command::new(bin);
        cmd.env_clear().envs(self.envs()).current_dir(self.dir());
        cmd
    }

    /// `lean-ctx` in this environment, working directory = the temp dir.
    pub fn shim(&self) -> Command {
        self.command(self.shim.as_deref().expect("TestEnv::with_shim"))
    }

    /// `lean-ctxd` in this environment.
    pub fn daemon(&self) -> Command {
        self.command(&self.daemon)
    }

    /// Starts `lean-ctxd --foreground` and waits until it accepts connections.
    pub fn start_foreground(&self) -> DaemonProcess {
        let mut cmd = self.daemon();
        cmd.arg("--foreground");
        self.started(cmd)
    }

    /// Starts `lean-ctxd --foreground` in a user namespace of its own whose inotify
    /// limits (`/proc/sys/user/max_inotify_watches` and `max_inotify_instances`, per
    /// namespace since Linux 4.9) are lowered: real kernel limits for this daemon
    /// alone, nothing of the machine's changed. Our uid is mapped to itself, so the
    /// daemon's peer check still passes.
    pub fn start_foreground_with_inotify_limits(
        &self,
        watches: u64,
        instances: u64,
    ) -> DaemonProcess {
        let mut cmd = self.command(Path::new("unshare"));
        cmd.args(["--user", "--map-root-user", "sh", "-c"])
            .arg(format!(
                "echo {watches} > /proc/sys/user/max_inotify_watches && echo {instances} > /proc/sys/user/max_inotify_instances && exec \"$0\" --foreground"
            ))
            .arg(&self.daemon);
        self.started(cmd)
    }

    fn started(&self, mut cmd: Command) -> DaemonProcess {
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let process = DaemonProcess { child: Some(child) };
        assert!(
            wait_until(Duration::from_secs(10), || {
                std::os::unix::net::UnixStream::connect(self.paths.socket()).is_ok()
            }),
            "lean-ctxd did not start: {}",
            self.log()
        );
        process
    }

    /// Runs the shim with `--json` in the temp dir and parses its stdout.
    pub fn shim_json(&self, args: &[&str]) -> (Output, serde_json::Value) {
        self.shim_json_in(self.dir(), args)
    }

    /// Runs the shim with `--json` in `cwd` and parses its stdout.
    pub fn shim_json_in(&self, cwd: &Path, args: &[&str]) -> (Output, serde_json::Value) {
        let out = self
            .shim()
            .current_dir(cwd)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "lean-ctx {args:?}: stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out, value)
    }

    /// `lean-ctx --json ARGS` in `cwd`, which must succeed: its answer.
    /// The MCP Inspector's CLI (`tests/mcp`, a real MCP client) running `lean-ctx mcp`
    /// in `cwd` with `extra_env`, and its JSON answer to `method_args`
    /// (`--method tools/call --tool-name …`).
    pub fn mcp_inspector(
        &self,
        cwd: &Path,
        extra_env: &[(&str, &str)],
        method_args: &[&str],
    ) -> serde_json::Value {
        let inspector =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/node_modules/.bin/mcp-inspector");
        assert!(
            inspector.exists(),
            "the MCP Inspector is missing: `npm ci` in tests/mcp (tests/run.sh does it)"
        );
        let mut cmd = Command::new(&inspector);
        cmd.current_dir(cwd)
            .env_clear()
            .envs(self.envs())
            .arg("--cli");
        // The Inspector starts the server with a minimal environment: hand it ours.
        let ours = self.envs();
        let all = ours
            .iter()
            .map(|(k, v)| (*k, v.to_string_lossy().into_owned()))
            .chain(extra_env.iter().map(|(k, v)| (*k, v.to_string())));
        for (key, value) in all {
            cmd.arg("-e").arg(format!("{key}={value}"));
        }
        let shim = self.shim.as_ref().expect("a TestEnv made with_shim");
        let out = cmd.arg(shim).arg("mcp").args(method_args).output().unwrap();
        assert!(
            out.status.success(),
            "inspector {method_args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub fn ok(&self, cwd: &Path, args: &[&str]) -> serde_json::Value {
        let (out, v) = self.shim_json_in(cwd, args);
        assert!(
            out.status.success(),
            "{args:?}: {v}\n{}\nlog:\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        v
    }

    /// The rows `daemon status` lists under `key` (`language_servers`, `ides`,
    /// `projects`), asked from `cwd`.
    pub fn status_rows(&self, cwd: &Path, key: &str) -> Vec<serde_json::Value> {
        let status = self.ok(cwd, &["daemon", "status"]);
        status[key]
            .as_array()
            .unwrap_or_else(|| panic!("no {key:?} in {status}"))
            .clone()
    }

    /// `lean-ctx --json ARGS` in `cwd`, which must fail: its `error` object.
    pub fn err(&self, cwd: &Path, args: &[&str]) -> serde_json::Value {
        let (out, v) = self.shim_json_in(cwd, args);
        assert!(!out.status.success(), "{args:?} succeeded: {v}");
        v["error"].clone()
    }

    /// The pid holding the daemon lock.
    pub fn daemon_pid(&self) -> Option<u32> {
        self.paths.daemon_pid()
    }

    /// Every live `lean-ctxd` process started with this environment (found through
    /// `/proc/*/environ`), so no test can leak or miscount one.
    pub fn daemons(&self) -> Vec<u32> {
        self.processes(|argv0| argv0.ends_with(b"lean-ctxd"))
    }

    /// Every live process a daemon of this environment spawned that is not itself a
    /// lean-ctx binary: the language servers and their helpers. They get the neutral
    /// environment (`shared::tool_env`), which keeps this environment's `HOME` but no
    /// `LEAN_CTX_*` directory, so `HOME` is what finds them.
    pub fn language_servers(&self) -> Vec<u32> {
        self.processes(|argv0| !argv0.ends_with(b"lean-ctxd") && !argv0.ends_with(b"lean-ctx"))
    }

    fn processes(&self, argv0_matches: impl Fn(&[u8]) -> bool) -> Vec<u32> {
        let runtime = format!("LEAN_CTX_RUNTIME_DIR={}", self.paths.runtime_dir.display());
        let home = format!("HOME={}", self.dir().join("home").display());
        let me = std::process::id();
        let mut pids = Vec::new();
        for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
            if pid == me || !argv0_matches(argv0) || !pid_alive(pid) {
                continue;
            }
            let Ok(environ) = fs::read(entry.path().join("environ")) else {
                continue;
            };
            if environ
                .split(|b| *b == 0)
                .any(|kv| kv == runtime.as_bytes() || kv == home.as_bytes())
            {
                pids.push(pid);
            }
        }
        pids
    }

    /// Writes `config.toml` in this environment's config dir.
    pub fn write_config(&self, toml: &str) {
        fs::create_dir_all(&self.paths.config_dir).unwrap();
        fs::write(self.paths.config_dir.join("config.toml"), toml).unwrap();
    }

    /// Trusts `dir` the way a user does: the real `lean-ctx trust DIR` (language
    /// servers start only in trusted roots). After `write_config`, which replaces the
    /// file.
    pub fn trust(&self, dir: &Path) {
        let out = self.shim().args(["trust"]).arg(dir).output().unwrap();
        assert!(
            out.status.success(),
            "lean-ctx trust {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `kill -9` of a daemon and the process group it leads; waits until it is gone.
    pub fn kill9(&self, pid: u32) {
        let target = Pid::from_raw(pid as i32).unwrap();
        if rustix::process::getpgid(Some(target)).is_ok_and(|g| g == target) {
            let _ = kill_process_group(target, Signal::KILL);
        }
        let _ = kill_process(target, Signal::KILL);
        assert!(
            wait_until(Duration::from_secs(10), || !pid_alive(pid)),
            "pid {pid} survived SIGKILL"
        );
    }

    /// The daemon's log so far, for assertion messages.
    pub fn log(&self) -> String {
        fs::read_to_string(self.paths.log_file()).unwrap_or_default()
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        for pid in self.daemons() {
            self.kill9(pid);
        }
        // A daemon killed with -9 cannot stop its language servers; they exit on
        // their own when their stdin closes, but a test must not rely on that to
        // leave nothing behind.
        for pid in self.language_servers() {
            self.kill9(pid);
        }
    }
}

/// `path line:col` of every location of a navigation answer, in answer order.
pub fn spots(v: &serde_json::Value) -> Vec<String> {
    v["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} {}:{}",
                l["path"].as_str().unwrap(),
                l["range"]["start"]["line"],
                l["range"]["start"]["column"]
            )
        })
        .collect()
}

/// A Python project in `root`: `fläche` (non-ASCII) defined in geo.py and used twice
/// in main.py; returns the canonical root.
pub fn python_fixture(root: &Path) -> PathBuf {
    fs::create_dir_all(root).unwrap();
    fs::write(root.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    fs::write(
        root.join("geo.py"),
        "# Größe — non-ASCII first\ndef fläche(a, b):\n    return a * b\n",
    )
    .unwrap();
    fs::write(
        root.join("main.py"),
        // `𝔘` is two UTF-16 units (pylsp's encoding): every column after it differs
        // between characters, UTF-16 and bytes.
        "from geo import fläche\n\nprint(\"𝔘\", fläche(2, 3), fläche(4, 5))\n",
    )
    .unwrap();
    fs::canonicalize(root).unwrap()
}

/// An environment (its shim `shim`) whose Go server is the real gopls.
pub fn gopls_env(shim: &str) -> TestEnv {
    let env = TestEnv::with_shim(shim);
    env.write_config(&format!(
        "[lsp]\ngo = [{:?}]\n",
        gopls().display().to_string()
    ));
    env
}

/// A Go module in `root`, a git repository, whose calls chain: `leaf` is called
/// twice by `mid` (line 5, columns 24 and 33), `mid` once by `top` (line 7, column
/// 24); returns the canonical root.
pub fn go_calls_fixture(root: &Path) -> PathBuf {
    fs::create_dir_all(root).unwrap();
    fs::write(root.join("go.mod"), "module example.com/calls\n\ngo 1.21\n").unwrap();
    fs::write(
        root.join("calls.go"),
        "package calls\n\nfunc leaf() int { return 1 }\n\nfunc mid() int { return leaf() + leaf() }\n\nfunc top() int { return mid() }\n",
    )
    .unwrap();
    git(root, &["init", "-q"]);
    fs::canonicalize(root).unwrap()
}

/// A working rust-analyzer: `LEAN_CTX_TEST_RUST_ANALYZER`, else what
/// `tests/ensure-rust-analyzer.sh` finds or builds (and caches outside the checkout).
pub fn rust_analyzer() -> PathBuf {
    static FOUND: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| ensured("LEAN_CTX_TEST_RUST_ANALYZER", "ensure-rust-analyzer.sh"))
        .clone()
}

/// A second build of this checkout whose wire schema differs (one comment added in
/// `shared/src/wire`), as a user has after `cargo install` of an upgrade: the directory
/// holding its `lean-ctx` and `lean-ctxd`. `LEAN_CTX_TEST_OTHER_BUILD`, else what
/// `tests/ensure-other-schema-build.sh` finds or builds (cached outside the checkout,
/// keyed by the sources' hash).
pub fn other_schema_build() -> PathBuf {
    static FOUND: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| ensured("LEAN_CTX_TEST_OTHER_BUILD", "ensure-other-schema-build.sh"))
        .clone()
}

/// The tool `var` names, else the path the ensure script `script` (in `tests/`) prints
/// after finding or building it.
fn ensured(var: &str, script: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(var) {
        return PathBuf::from(path);
    }
    let script = workspace().join("tests").join(script);
    let out = Command::new("bash").arg(&script).output().unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// gopls at the pinned version: `LEAN_CTX_TEST_GOPLS`, else what
/// `tests/ensure-gopls.sh` finds or builds (and caches outside the checkout).
pub fn gopls() -> PathBuf {
    static FOUND: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| ensured("LEAN_CTX_TEST_GOPLS", "ensure-gopls.sh"))
        .clone()
}

/// The Python virtual environment holding exactly `tests/requirements.txt`'s pins:
/// `LEAN_CTX_TEST_VENV` (the test command exports it), else what
/// `tests/ensure-python.sh` finds or creates (cached outside the checkout). Never the
/// `pylsp` or `mcp` on `PATH`: a green run must have used the pinned versions.
pub fn test_venv() -> PathBuf {
    static FOUND: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("LEAN_CTX_TEST_VENV") {
                return PathBuf::from(path);
            }
            let script = workspace().join("tests/ensure-python.sh");
            let out = Command::new("bash").arg(&script).output().unwrap();
            assert!(
                out.status.success(),
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        })
        .clone()
}

/// python-lsp-server's `pylsp` from [`test_venv`] (the pinned version).
pub fn pylsp() -> PathBuf {
    let bin = test_venv().join("bin/pylsp");
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}

/// The Python of [`test_venv`], with the pinned `mcp` SDK.
pub fn python() -> PathBuf {
    test_venv().join("bin/python")
}

/// typescript-language-server with its own pinned TypeScript (`tests/lsp`).
pub fn typescript_language_server() -> PathBuf {
    npm_server("typescript-language-server")
}

/// bash-language-server at its pinned version (`tests/lsp`).
pub fn bash_language_server() -> PathBuf {
    npm_server("bash-language-server")
}

/// The program `name` of `tests/lsp`'s pinned npm packages, installed with `npm ci`
/// if the test command has not installed them yet.
fn npm_server(name: &str) -> PathBuf {
    static INSTALLED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let dir = workspace().join("tests/lsp");
    let bin = dir.join("node_modules/.bin").join(name);
    let _one_at_a_time = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    if !bin.is_file() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    bin
}

/// The plugin core's standalone contract server (`plugin-kotlin/core`, NOT the IDE: the
/// real HTTP server and port file of the plugin, with scripted answers), built with
/// Maven if the test command has not built it yet.
pub fn contract_server_jar() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let core = workspace().join("plugin-kotlin/core");
            let jar = core.join("target/leanctx-core-standalone.jar");
            if !jar.is_file() {
                let status = Command::new("mvn")
                    .args([
                        "-B",
                        "-q",
                        "-DskipTests",
                        "-Dkotlin.compiler.daemon=false",
                        "-f",
                    ])
                    .arg(core.join("pom.xml"))
                    .arg("package")
                    .status()
                    .unwrap();
                assert!(status.success(), "building {} failed", jar.display());
            }
            jar
        })
        .clone()
}

/// A running contract server for one project root; stopped (and its port file
/// removed) when dropped: it exits when its stdin closes, and is killed besides.
#[derive(Debug)]
pub struct ContractIde {
    child: Child,
    pub port: u16,
    pub port_file: PathBuf,
}

impl ContractIde {
    /// Serves `root` with the routes of `script` (plugin-kotlin/README.md, "Script
    /// format"), writing its port file into this environment's data dir.
    pub fn start(env: &TestEnv, root: &Path, script: &serde_json::Value) -> ContractIde {
        let script_path = env
            .dir()
            .join(format!("ide-script-{}.json", std::process::id()));
        fs::write(&script_path, script.to_string()).unwrap();
        let mut child = Command::new("java")
            .arg("-jar")
            .arg(contract_server_jar())
            .arg("--root")
            .arg(root)
            .arg("--script")
            .arg(&script_path)
            .arg("--data-dir")
            .arg(&env.paths.data_dir)
            .env("HOME", env.dir().join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
            &mut line,
        )
        .unwrap();
        let mut parts = line.split_whitespace();
        assert_eq!(parts.next(), Some("READY"), "contract server said {line:?}");
        let port = parts.next().unwrap().parse().unwrap();
        let port_file = PathBuf::from(parts.next().unwrap());
        ContractIde {
            child,
            port,
            port_file,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`: the IDE dies, its port file stays behind (stale).
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ContractIde {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_file(&self.port_file);
    }
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// A daemon this test started directly; killed and reaped when dropped.
#[derive(Debug)]
pub struct DaemonProcess {
    child: Option<Child>,
}

impl DaemonProcess {
    pub fn id(&self) -> u32 {
        self.child.as_ref().expect("not yet waited").id()
    }

    /// Waits for the daemon to exit by itself.
    pub fn wait(mut self) -> ExitStatus {
        self.child.take().expect("not yet waited").wait().unwrap()
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn newest_mtime(dir: &Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() {
            newest_mtime(&path)
        } else {
            entry.metadata().ok()?.modified().ok()
        };
        newest = newest.max(t);
    }
    newest
}

/// Runs `git` in `dir` with a throwaway identity and `main` as the first branch;
/// panics with git's message if it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Polls `cond` every 10 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The pinned corpora of code nobody here wrote (`daemon/benches/fetch-conformance.sh`
/// fetches them once into `target/conformance-corpus`): one directory per language.
pub fn corpus() -> PathBuf {
    fetched(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../daemon/benches/fetch-conformance.sh"))
}

/// The one `<name>-<version>` crate of the pinned Rust corpus
/// (`daemon/benches/rust-corpus/Cargo.lock`), never cargo's registry, whose contents
/// depend on what the machine built before. Fails if the pins hold no such crate,
/// or more than one version of it.
pub fn corpus_crate(name: &str) -> PathBuf {
    let rust = corpus().join("rust");
    let found: Vec<_> = fs::read_dir(&rust)
        .unwrap_or_else(|e| panic!("{}: {e}", rust.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(name)?.strip_prefix('-'))
                .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    match &found[..] {
        [one] => one.clone(),
        _ => panic!(
            "expected one {name}-<version> in {}, found {found:?}: pin it in daemon/benches/rust-corpus/Cargo.toml",
            rust.display()
        ),
    }
}

/// Copies the tree `from` to `to` (files and directories).
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs a fetch script (`bash SCRIPT`) and answers the directory it printed: where it
/// put (or already had) the corpora it fetches from the registries.
fn fetched(script: &Path) -> PathBuf {
    let out = Command::new("bash")
        .arg(script)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// A command prefix that runs what follows under a uid other than ours, for real: as
/// root, `setpriv` to nobody (65534); otherwise a user namespace whose root is the
/// first block of our `/etc/subuid` range (`unshare --map-auto`, through newuidmap),
/// the only way an unprivileged user gets a second uid. Where neither works the probe
/// fails and so does the test, saying why: it never passes without having tried.
pub fn as_another_user() -> Command {
    let mut cmd;
    if rustix::process::getuid().as_raw() == 0 {
        cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
    } else {
        cmd = Command::new("unshare");
        cmd.args(["--user", "--map-auto", "--setuid=0", "--setgid=0", "--"]);
    }
    cmd
}
