//! Bounded everything, against the real daemon: answers that would outgrow the frame,
//! huge files, connections that go quiet or pile up, more roots than inotify allows
//! instances, roots that cannot be watched, projects nobody uses any more. Kernel
//! limits are lowered for the daemon alone, in a user namespace of its own
//! ([`TestEnv::start_foreground_with_inotify_limits`]), never for the machine.

use std::{
    fs,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use lean_ctx_daemon::accept::HELLO_TIMEOUT;
use lean_ctx_shared::{
    ErrorCode, LeanError,
    hello::{ClientHello, Intent, Outcome, RefuseReason, ServerHello, read_hello, write_hello},
    protocol::{
        EditAction, EditRequest, EditTarget, OpenProjectRequest, OutlineRequest, OutlineResponse,
        PingRequest, ProjectStatus, SearchSymbolRequest, StatusRequest, StatusResponse,
    },
    transport::{self, Connection, MAX_FRAME_LEN},
};
use lean_ctx_testkit::{TestEnv, wait_until};
use std::io::{Read, Write};

use tokio::net::UnixStream;

const DAEMON: &str = env!("CARGO_BIN_EXE_lean-ctxd");
const T: Duration = Duration::from_secs(5);
/// Bounds failures only: every wait ends as soon as what it waits for happened.
const LONG: Duration = Duration::from_secs(60);

async fn connect(env: &TestEnv) -> Connection {
    transport::connect(
        &env.paths.socket(),
        &ClientHello::new(Intent::Call, "test"),
        T,
    )
    .await
    .unwrap()
}

fn ctx() -> tarpc::context::Context {
    let mut ctx = tarpc::context::current();
    ctx.deadline = Instant::now() + LONG;
    ctx
}

async fn ping(conn: &Connection) -> u32 {
    conn.client
        .ping(ctx(), PingRequest { delay_ms: 0 })
        .await
        .expect("the connection works")
        .unwrap()
        .pid
}

async fn outline(conn: &Connection, root: &Path, path: &str) -> Result<OutlineResponse, LeanError> {
    conn.client
        .outline(
            ctx(),
            OutlineRequest {
                root: root.to_path_buf(),
                path: path.into(),
                depth: 1,
                limit: 0,
                wait_ms: 50_000,
            },
        )
        .await
        .expect("the connection survives the answer")
}

async fn status(conn: &Connection) -> StatusResponse {
    conn.client
        .status(ctx(), StatusRequest {})
        .await
        .unwrap()
        .unwrap()
}

/// Whether a search of `root` for `name` finds it.
async fn finds(conn: &Connection, root: &Path, name: &str) -> bool {
    let resp = conn
        .client
        .search_symbol(
            ctx(),
            SearchSymbolRequest {
                root: root.to_path_buf(),
                query: name.into(),
                kind: None,
                path: None,
                limit: 5,
                skip: 0,
                wait_ms: 50_000,
            },
        )
        .await
        .unwrap()
        .unwrap();
    resp.hits.iter().any(|h| h.name == name)
}

/// Polls `finds` until it holds or [`LONG`] passes.
async fn eventually_finds(conn: &Connection, root: &Path, name: &str) -> bool {
    let deadline = Instant::now() + LONG;
    while Instant::now() < deadline {
        if finds(conn, root, name).await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn vm_rss_kib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

fn inotify_fds(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter(|e| {
            fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy() == "anon_inode:inotify")
        })
        .count()
}

/// The daemon's inotify watches, from the kernel's list of each instance's watches.
fn inotify_watches(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter(|e| {
            fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy() == "anon_inode:inotify")
        })
        .map(|e| {
            let info = fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                e.file_name().to_string_lossy()
            ))
            .unwrap();
            info.lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count()
        })
        .sum()
}

/// `n` Rust functions with long names: about 47 bytes of source, and some 200 bytes
/// of outline each.
fn functions(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("fn {prefix}_function_with_a_long_name_{i:07}() {{}}\n"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_over_the_frame_are_refused_or_cut_before_they_are_built_and_the_connection_stays()
{
    let env = TestEnv::with_daemon(DAEMON);
    // The frame is what is tested here, not the answer's cap (`answers.max_bytes`,
    // client/tests/text_files.rs): the cap raised to the frame.
    env.write_config("[answers]\nmax_bytes = 1000000000\n");
    let daemon = env.start_foreground();
    let root = fs::canonicalize(env.dir()).unwrap().join("proj");
    fs::create_dir_all(root.join("big")).unwrap();
    fs::write(root.join("small.rs"), "fn small() {}\n").unwrap();
    // 50 MB: over index.max_file_bytes (1 MiB), as generated code is.
    fs::write(root.join("huge.rs"), functions("huge", 50_000_000 / 55)).unwrap();
    // Eight files under the limit whose outlines together are some 30 MB.
    for i in 0..8 {
        fs::write(
            root.join(format!("big/f{i}.rs")),
            functions(&format!("f{i}"), 1_000_000 / 55),
        )
        .unwrap();
    }
    let conn = connect(&env).await;
    let pid = ping(&conn).await;
    assert_eq!(pid, daemon.id());
    conn.client
        .open_project(ctx(), OpenProjectRequest { root: root.clone() })
        .await
        .unwrap()
        .unwrap();
    // Indexed (the huge file skipped) before memory is measured.
    assert!(finds(&conn, &root, "small").await);
    let rss_before = vm_rss_kib(pid);

    let err = outline(&conn, &root, "huge.rs").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err:?}");
    assert!(
        err.message.contains("index.max_file_bytes"),
        "{}",
        err.message
    );
    assert!(err.remedy().contains("max_file_bytes"), "{}", err.remedy());
    assert_eq!(
        ping(&conn).await,
        pid,
        "the same connection answers the next call"
    );
    // An edit would parse it too: refused alike, the file untouched.
    let before = fs::metadata(root.join("huge.rs"))
        .unwrap()
        .modified()
        .unwrap();
    let err = conn
        .client
        .edit_symbol(
            ctx(),
            EditRequest {
                root: root.clone(),
                action: EditAction::ReplaceSymbolBody,
                target: EditTarget::NamePath {
                    name_path: "huge_function_with_a_long_name_0000001".into(),
                    path: Some("huge.rs".into()),
                },
                text: "fn huge_function_with_a_long_name_0000001() { 1; }".into(),
                expected_hash: None,
                force: false,
                wait_ms: 0,
                session: None,
            },
        )
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err:?}");
    assert!(
        err.message.contains("index.max_file_bytes"),
        "{}",
        err.message
    );
    assert_eq!(
        fs::metadata(root.join("huge.rs"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
    let rss_refused = vm_rss_kib(pid);
    assert!(
        rss_refused < rss_before + 16 * 1024,
        "the refused 50 MB file took VmRSS from {rss_before} KiB to {rss_refused} KiB"
    );

    let dir = outline(&conn, &root, "big").await.unwrap();
    assert!(dir.truncated, "cut off, and says so");
    assert_eq!(dir.total_files, 8);
    assert!(
        (1..8).contains(&dir.files.len()),
        "{} files shown",
        dir.files.len()
    );
    let shown: usize = dir.files.iter().map(|f| f.symbols.len()).sum();
    // What was shown fits one frame with room to spare (some 200 bytes a symbol).
    assert!(shown * 200 < MAX_FRAME_LEN, "{shown} symbols");
    assert_eq!(ping(&conn).await, pid);
    assert_eq!(
        outline(&conn, &root, "small.rs").await.unwrap().files[0].symbols[0].name,
        "small"
    );

    let rss_after = vm_rss_kib(pid);
    eprintln!(
        "daemon VmRSS: {rss_before} KiB indexed, {rss_refused} KiB after the 50 MB file, {rss_after} KiB after the directory outline"
    );
    // Building a directory outline of a full frame costs a few times the frame.
    assert!(
        rss_after < rss_before + 200 * 1024,
        "VmRSS grew from {rss_before} KiB to {rss_after} KiB"
    );
}

/// Writes a hello and reads the answer on a raw socket, which is then left alone
/// (non-blocking, for [`closed`]).
async fn raw_hello(env: &TestEnv) -> (std::os::unix::net::UnixStream, ServerHello) {
    let mut s = UnixStream::connect(env.paths.socket()).await.unwrap();
    write_hello(&mut s, &ClientHello::new(Intent::Call, "quiet"))
        .await
        .unwrap();
    let reply: ServerHello = read_hello(&mut s).await.unwrap();
    (s.into_std().unwrap(), reply)
}

/// Whether the daemon closed `s` (EOF or reset), without waiting.
fn closed(s: &std::os::unix::net::UnixStream) -> bool {
    let mut buf = [0u8; 1];
    match (&*s).read(&mut buf) {
        Ok(0) => true,
        Ok(_) => panic!("the daemon sent bytes on an idle connection"),
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn quiet_connections_are_closed_after_the_timeout_and_the_cap_refuses_more() {
    const QUIET: usize = 200;
    let timeout = Duration::from_secs(3);
    let env = TestEnv::with_daemon(DAEMON);
    env.write_config(&format!(
        "[daemon]\nconnection_idle_timeout = \"3s\"\nmax_connections = {}\n",
        QUIET + 1
    ));
    let _daemon = env.start_foreground();
    let mut quiet = Vec::new();
    let first_hello = Instant::now();
    for _ in 0..QUIET {
        let (s, reply) = raw_hello(&env).await;
        assert_eq!(reply.outcome, Outcome::Accepted);
        quiet.push(s);
    }
    let busy = connect(&env).await;
    let pid = ping(&busy).await;

    // One over the cap: refused in its hello, with the reason.
    let (over, reply) = raw_hello(&env).await;
    let Outcome::Refused { reason, message } = reply.outcome else {
        panic!("{reply:?}")
    };
    assert_eq!(reason, RefuseReason::TooManyConnections);
    assert!(message.contains("max_connections"), "{message}");
    assert!(
        wait_until(T, || closed(&over)),
        "a refused connection is closed"
    );

    // The busy connection keeps calling (more often than the timeout) while the
    // quiet ones are closed.
    // Closing is observed before each round's exit check: all 200 may close within
    // one 200 ms sleep.
    let mut first_closed = None;
    let deadline = Instant::now() + LONG;
    loop {
        if first_closed.is_none() && quiet.iter().any(closed) {
            first_closed = Some(first_hello.elapsed());
        }
        if quiet.iter().all(closed) || Instant::now() >= deadline {
            break;
        }
        assert_eq!(ping(&busy).await, pid);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let open = quiet.iter().filter(|s| !closed(s)).count();
    assert_eq!(
        open,
        0,
        "{open} quiet connections still open\n{}",
        env.log()
    );
    // None closed before the timeout since the first hello.
    let first = first_closed.expect("closed while the loop watched");
    assert!(first >= timeout, "closed after {first:?}");
    assert_eq!(ping(&busy).await, pid, "the busy connection was kept");
    // Room again under the cap.
    assert_eq!(ping(&connect(&env).await).await, pid);
    assert!(
        env.log().contains("closing connection: no call for"),
        "{}",
        env.log()
    );
}

/// `n` roots, each with one Rust file, under `dir`.
fn roots(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let root = dir.join(format!("r{i:03}"));
            fs::create_dir_all(root.join("src")).unwrap();
            fs::write(root.join("src/lib.rs"), "fn old() {}\n").unwrap();
            root
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn more_roots_than_inotify_instances_all_see_their_changes_through_one_instance() {
    const ROOTS: usize = 135;
    let env = TestEnv::with_daemon(DAEMON);
    // Eight instances for the daemon's user namespace: one per root ran out at the
    // eighth root (the IDE discovery once took one of its own as well).
    let daemon = env.start_foreground_with_inotify_limits(100_000, 8);
    let base = fs::canonicalize(env.dir()).unwrap();
    let roots = roots(&base, ROOTS);
    let conn = connect(&env).await;
    assert!(finds(&conn, &roots[0], "old").await);
    let fds_one_root = inotify_fds(daemon.id());
    for root in &roots[1..] {
        assert!(finds(&conn, root, "old").await, "{}", root.display());
    }
    let fds_all_roots = inotify_fds(daemon.id());
    assert_eq!(fds_one_root, fds_all_roots, "one instance for every root");
    // The port files' watch (IDE discovery) shares it too.
    assert_eq!(fds_all_roots, 1, "{fds_all_roots} inotify instances");
    for (i, root) in roots.iter().enumerate() {
        fs::write(
            root.join("src/lib.rs"),
            format!("fn old() {{}}\nfn fresh_{i}() {{}}\n"),
        )
        .unwrap();
    }
    for (i, root) in roots.iter().enumerate() {
        assert!(
            eventually_finds(&conn, root, &format!("fresh_{i}")).await,
            "{} never saw its change\n{}",
            root.display(),
            env.log()
        );
    }
    let st = status(&conn).await;
    assert_eq!(st.projects.len(), ROOTS);
    let unwatched: Vec<&ProjectStatus> = st
        .projects
        .iter()
        .filter(|p| p.index.as_ref().is_some_and(|ix| ix.unwatched.is_some()))
        .collect();
    assert!(unwatched.is_empty(), "{unwatched:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_root_that_cannot_be_watched_says_so_and_is_rescanned() {
    let env = TestEnv::with_daemon(DAEMON);
    env.write_config("[index]\nrescan_interval = \"1s\"\n");
    // Two watches for the whole daemon: the root and one of its directories.
    let _daemon = env.start_foreground_with_inotify_limits(2, 128);
    let root = fs::canonicalize(env.dir()).unwrap().join("proj");
    for dir in ["a", "b", "c"] {
        fs::create_dir_all(root.join(dir)).unwrap();
        fs::write(root.join(dir).join("m.rs"), format!("fn in_{dir}() {{}}\n")).unwrap();
    }
    let conn = connect(&env).await;
    assert!(finds(&conn, &root, "in_c").await);
    let st = status(&conn).await;
    let ix = st.projects[0].index.clone().unwrap();
    let why = ix.unwatched.expect("shown as unwatched");
    assert!(why.contains("No space left on device"), "{why}");
    assert_eq!(ix.rescan_interval_ms, 1000);
    assert!(
        env.log().contains("rescanning periodically"),
        "{}",
        env.log()
    );

    // A change in every directory, watched or not, is seen within a rescan or two.
    for dir in ["a", "b", "c"] {
        fs::write(
            root.join(dir).join("m.rs"),
            format!("fn changed_{dir}() {{}}\n"),
        )
        .unwrap();
    }
    let changed = Instant::now();
    for dir in ["a", "b", "c"] {
        assert!(
            eventually_finds(&conn, &root, &format!("changed_{dir}")).await,
            "{dir}: stale\n{}",
            env.log()
        );
    }
    assert!(
        changed.elapsed() < Duration::from_secs(10),
        "{:?}",
        changed.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_project_is_evicted_and_comes_back_on_its_next_call() {
    let env = TestEnv::with_daemon(DAEMON);
    env.write_config("[daemon]\nproject_idle_timeout = \"1s\"\n");
    let daemon = env.start_foreground();
    let base = fs::canonicalize(env.dir()).unwrap();
    let roots = roots(&base, 2);
    let conn = connect(&env).await;
    assert!(finds(&conn, &roots[0], "old").await);
    assert!(finds(&conn, &roots[1], "old").await);
    let watches_before = inotify_watches(daemon.id());
    // The other root stays in use: a call every 200 ms.
    let deadline = Instant::now() + LONG;
    let mut evicted = false;
    while !evicted && Instant::now() < deadline {
        assert!(finds(&conn, &roots[1], "old").await);
        let st = status(&conn).await;
        evicted = !st.projects.iter().any(|p| p.root == roots[0]);
        assert!(
            st.projects.iter().any(|p| p.root == roots[1]),
            "the used root was evicted"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(evicted, "never evicted\n{}", env.log());
    assert!(env.log().contains("evicted idle project"), "{}", env.log());
    // Its two directories' watches are released.
    let watches_after = inotify_watches(daemon.id());
    assert_eq!(
        watches_after + 2,
        watches_before,
        "{watches_before} → {watches_after}"
    );
    // It comes back, fresh.
    fs::write(roots[0].join("src/lib.rs"), "fn back() {}\n").unwrap();
    assert!(finds(&conn, &roots[0], "back").await);
    assert!(
        status(&conn)
            .await
            .projects
            .iter()
            .any(|p| p.root == roots[0])
    );
}

/// `lean-ctxd --auto-spawned` with `vars` set, once it said it is ready.
fn auto_spawned(env: &TestEnv, vars: &[(&str, &str)]) -> std::process::Child {
    use std::io::BufRead;

    let mut child = env
        .daemon()
        .arg("--auto-spawned")
        .envs(vars.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert!(ready.starts_with("READY "), "{ready:?}");
    child
}

/// Waits (bounded) for `child` to exit; whether it did. Killed if it did not.
fn exits(child: &mut std::process::Child) -> bool {
    let exited = wait_until(LONG, || child.try_wait().unwrap().is_some());
    if !exited {
        let _ = child.kill();
    }
    let _ = child.wait();
    exited
}

#[tokio::test(flavor = "multi_thread")]
async fn the_idle_timeout_stops_auto_spawned_daemons_from_config_or_environment_never_a_foreground_one()
 {
    // Configured: an auto-spawned daemon exits after a second without connections.
    let configured = TestEnv::with_daemon(DAEMON);
    configured.write_config("[daemon]\nidle_timeout = \"1s\"\n");
    // The same configuration in the foreground: it never exits on its own.
    let foreground_env = TestEnv::with_daemon(DAEMON);
    foreground_env.write_config("[daemon]\nidle_timeout = \"1s\"\n");
    let foreground = foreground_env.start_foreground();
    let mut child = auto_spawned(&configured, &[]);
    assert!(exits(&mut child), "{}", configured.log());
    assert!(configured.log().contains("idle: no connections, stopping"));
    // The idle second has passed (the other daemon saw it): this one still answers
    // and says it has no idle exit.
    let st = status(&connect(&foreground_env).await).await;
    assert_eq!(st.pid, foreground.id());
    assert_eq!(st.idle_exit_after_ms, None);

    // The environment beats the configuration: an hour configured, a second asked.
    let env = TestEnv::with_daemon(DAEMON);
    env.write_config("[daemon]\nidle_timeout = \"1h\"\n");
    let mut child = auto_spawned(&env, &[("LEAN_CTX_IDLE_TIMEOUT", "1s")]);
    assert!(exits(&mut child), "{}", env.log());
    assert!(env.log().contains("idle: no connections, stopping"));
}

/// A peer that says hello and then nothing used to keep an auto-spawned daemon alive
/// for ever; now its connection is closed and the daemon's idle exit still comes.
#[tokio::test(flavor = "multi_thread")]
async fn a_quiet_connection_does_not_keep_an_auto_spawned_daemon_alive() {
    let env = TestEnv::with_daemon(DAEMON);
    env.write_config("[daemon]\nidle_timeout = \"1s\"\nconnection_idle_timeout = \"1s\"\n");
    let mut child = auto_spawned(&env, &[]);
    let (quiet, reply) = raw_hello(&env).await;
    assert_eq!(reply.outcome, Outcome::Accepted);
    let exited = exits(&mut child);
    assert!(
        exited,
        "still running with a quiet connection\n{}",
        env.log()
    );
    assert!(closed(&quiet));
    let log = env.log();
    let closed_at = log
        .find("closing connection: no call for")
        .expect("closed for idleness");
    let idle_at = log
        .find("idle: no connections, stopping")
        .expect("idle exit");
    assert!(closed_at < idle_at, "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn peers_that_never_say_hello_are_dropped_after_the_hello_timeout_and_block_nobody() {
    let env = TestEnv::with_daemon(DAEMON);
    let _daemon = env.start_foreground();
    let pid = ping(&connect(&env).await).await;
    // Silent peers, and ones that stop halfway through the hello's magic.
    let mut mute = Vec::new();
    for i in 0..20 {
        let mut s = std::os::unix::net::UnixStream::connect(env.paths.socket()).unwrap();
        if i % 2 == 1 {
            s.write_all(b"LCT").unwrap();
        }
        s.set_nonblocking(true).unwrap();
        mute.push(s);
    }
    // While they hang, other sessions connect and call as usual.
    for _ in 0..5 {
        assert_eq!(ping(&connect(&env).await).await, pid);
    }
    assert!(
        wait_until(HELLO_TIMEOUT + T, || mute.iter().all(closed)),
        "{}",
        env.log()
    );
    assert!(
        env.log().contains("closing connection: no hello within"),
        "{}",
        env.log()
    );
    assert_eq!(ping(&connect(&env).await).await, pid);
}
