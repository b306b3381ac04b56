//! The daemon binary against hostile and unusual peers: garbage, wrong hellos,
//! oversized frames, other protocol versions, a foreign uid, SIGTERM mid-call, a
//! second instance. Every test runs the real `lean-ctxd` in its own [`TestEnv`].

use std::{fs, os::unix::fs::PermissionsExt, time::Duration};

use lean_ctx_shared::{
    ErrorCode,
    hello::{ClientHello, HELLO_MAGIC, Intent, Outcome, RefuseReason, ServerHello, write_hello},
    protocol::{PROTOCOL_VERSION, PingRequest, ShutdownRequest, StatusRequest},
    transport::{self, ConnectError, Connection},
};
use lean_ctx_testkit::{TestEnv, as_another_user, wait_until};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::UnixStream,
};

const DAEMON: &str = env!("CARGO_BIN_EXE_lean-ctxd");
const T: Duration = Duration::from_secs(5);

async fn connect(env: &TestEnv) -> Connection {
    transport::connect(
        &env.paths.socket(),
        &ClientHello::new(Intent::Call, "test"),
        T,
    )
    .await
    .unwrap()
}

async fn ping(conn: &Connection, delay_ms: u32) -> u32 {
    let mut ctx = tarpc::context::current();
    ctx.deadline = std::time::Instant::now() + Duration::from_secs(30);
    conn.client
        .ping(ctx, PingRequest { delay_ms })
        .await
        .unwrap()
        .unwrap()
        .pid
}

/// Writes `bytes`; the daemon may already have closed the connection on the first
/// bad byte, which is what these tests want, so a broken pipe or reset is fine.
async fn send(s: &mut UnixStream, bytes: &[u8]) {
    if let Err(e) = s.write_all(bytes).await {
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{e}"
        );
    }
}

/// Sends `bytes` on a fresh connection and expects the daemon to close it (EOF, or a
/// reset) without sending anything.
async fn closed_after(env: &TestEnv, bytes: &[u8]) {
    let mut s = UnixStream::connect(env.paths.socket()).await.unwrap();
    send(&mut s, bytes).await;
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(T, s.read(&mut buf))
        .await
        .expect("daemon kept a bad connection open");
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "daemon answered garbage: {read:?}"
    );
}

fn hello_with(protocol: u32, intent: Intent) -> ClientHello {
    ClientHello {
        protocol,
        schema: "other-schema".into(),
        version: if protocol > PROTOCOL_VERSION {
            "99.0.0".into()
        } else {
            "0.0.1".into()
        },
        build: "other".into(),
        intent,
        client: "test".into(),
        capabilities: vec![],
    }
}

async fn handshake(env: &TestEnv, hello: &ClientHello) -> ServerHello {
    transport::handshake(&env.paths.socket(), hello, T)
        .await
        .unwrap()
        .1
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_wrong_hellos_and_oversized_frames_close_only_that_connection() {
    let env = TestEnv::with_daemon(DAEMON);
    let _daemon = env.start_foreground();
    let survivor = connect(&env).await;
    let pid = ping(&survivor, 0).await;

    closed_after(&env, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await;
    let mut bad_json = HELLO_MAGIC.to_vec();
    bad_json.extend_from_slice(&12u32.to_be_bytes());
    bad_json.extend_from_slice(b"{not json!!}");
    closed_after(&env, &bad_json).await;
    let mut huge_hello = HELLO_MAGIC.to_vec();
    huge_hello.extend_from_slice(&u32::MAX.to_be_bytes());
    closed_after(&env, &huge_hello).await;

    // A good hello, then a tarpc frame claiming 4 GiB.
    let mut s = UnixStream::connect(env.paths.socket()).await.unwrap();
    write_hello(&mut s, &ClientHello::new(Intent::Call, "test"))
        .await
        .unwrap();
    let reply: ServerHello = lean_ctx_shared::hello::read_hello(&mut s).await.unwrap();
    assert_eq!(reply.outcome, Outcome::Accepted);
    let mut frame = u32::MAX.to_be_bytes().to_vec();
    frame.extend_from_slice(b"xxxxxxxx");
    send(&mut s, &frame).await;
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(T, s.read(&mut buf)).await.unwrap();
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "oversized frame not refused: {read:?}"
    );

    // The connection that behaved, and a new one, are still served by the same daemon.
    assert_eq!(ping(&survivor, 0).await, pid);
    assert_eq!(ping(&connect(&env).await, 0).await, pid);
    assert!(env.log().contains("bad hello"), "{}", env.log());
}

#[tokio::test(flavor = "multi_thread")]
async fn other_protocol_versions_get_a_hello_answer_never_garbage() {
    let env = TestEnv::with_daemon(DAEMON);
    let daemon = env.start_foreground();

    let reply = handshake(&env, &hello_with(PROTOCOL_VERSION + 1, Intent::Call)).await;
    assert!(
        matches!(
            reply.outcome,
            Outcome::Refused {
                reason: RefuseReason::Incompatible,
                ..
            }
        ),
        "{reply:?}"
    );
    assert_eq!(reply.protocol, PROTOCOL_VERSION);

    let reply = handshake(&env, &hello_with(0, Intent::CallOrReplace)).await;
    let Outcome::Refused { reason, message } = reply.outcome else {
        panic!("{reply:?}")
    };
    assert_eq!(reason, RefuseReason::DaemonNewer);
    assert!(message.contains("upgrade"), "{message}");

    // A newer client may not replace a daemon other sessions use.
    let busy = connect(&env).await;
    let reply = handshake(
        &env,
        &hello_with(PROTOCOL_VERSION + 1, Intent::CallOrReplace),
    )
    .await;
    assert!(
        matches!(
            reply.outcome,
            Outcome::Refused {
                reason: RefuseReason::Busy,
                ..
            }
        ),
        "{reply:?}"
    );
    ping(&busy, 0).await;
    drop(busy);

    // Once idle, it steps down for the newer client: exits cleanly, socket removed.
    let mut reply = None;
    assert!(
        wait_until(T, || {
            let r = tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(handshake(
                    &env,
                    &hello_with(PROTOCOL_VERSION + 1, Intent::CallOrReplace),
                ))
            });
            let done = matches!(r.outcome, Outcome::ShuttingDown { .. });
            reply = Some(r);
            done
        }),
        "never stepped down: {reply:?}"
    );
    let status = daemon.wait();
    assert!(status.success(), "{status}");
    assert!(!env.paths.socket().exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_in_flight_calls_finish_and_removes_the_socket() {
    let env = TestEnv::with_daemon(DAEMON);
    let daemon = env.start_foreground();
    let a = connect(&env).await;
    let b = connect(&env).await;
    // Slow calls: their delays only bound a failure (the daemon must outlast them).
    let slow_a = tokio::spawn(async move { ping(&a, 5000).await });
    let slow_b = tokio::spawn(async move { ping(&b, 4000).await });
    // Both are in flight (with this status call: three) before the signal.
    let watcher = connect(&env).await;
    assert!(
        wait_until_async(T, async || {
            watcher
                .client
                .status(tarpc::context::current(), StatusRequest {})
                .await
                .unwrap()
                .unwrap()
                .in_flight_calls
                == 3
        })
        .await,
        "the slow pings never started"
    );
    drop(watcher);

    rustix::process::kill_process(
        rustix::process::Pid::from_raw(daemon.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    // Draining: no new connections are accepted (from the moment the signal is
    // handled), while both calls are still running.
    let mut late = None;
    assert!(
        wait_until_async(T, async || {
            let tried = transport::connect(
                &env.paths.socket(),
                &ClientHello::new(Intent::Call, "late"),
                T,
            )
            .await;
            let refused = matches!(tried, Err(ConnectError::NotRunning(_)));
            late = Some(tried);
            refused
        })
        .await,
        "still accepting after SIGTERM: {late:?}"
    );
    assert!(
        !slow_a.is_finished() && !slow_b.is_finished(),
        "the calls ended before the daemon stopped accepting"
    );

    assert_eq!(slow_a.await.unwrap(), daemon.id());
    assert_eq!(slow_b.await.unwrap(), daemon.id());
    let status = daemon.wait();
    assert!(status.success(), "{status}");
    assert!(!env.paths.socket().exists());
    assert!(env.log().contains("SIGTERM"), "{}", env.log());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shutdown_call_stops_the_daemon() {
    let env = TestEnv::with_daemon(DAEMON);
    let daemon = env.start_foreground();
    // A slow call on its own connection keeps the daemon draining (connections open)
    // while the calls after the shutdown are made; its delay only bounds a failure.
    let busy = connect(&env).await;
    let slow = tokio::spawn(async move { ping(&busy, 5000).await });
    let conn = connect(&env).await;
    assert!(
        wait_until_async(T, async || {
            conn.client
                .status(tarpc::context::current(), StatusRequest {})
                .await
                .unwrap()
                .unwrap()
                .in_flight_calls
                == 2
        })
        .await,
        "the slow ping never started"
    );
    let resp = conn
        .client
        .shutdown(
            tarpc::context::current(),
            ShutdownRequest {
                reason: "test".into(),
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resp.pid, daemon.id());
    assert_eq!(resp.in_flight_calls, 1, "the slow ping is in flight");
    // Calls after the shutdown are refused with a catalog error, not dropped.
    let after = tokio::time::timeout(
        T,
        conn.client
            .ping(tarpc::context::current(), PingRequest::default()),
    )
    .await;
    match after {
        Ok(Ok(Err(e))) => {
            assert_eq!(e.code, ErrorCode::Internal, "{e:?}");
            assert!(e.message.contains("shutting down"), "{e:?}");
            assert!(
                e.remedy.as_deref().is_some_and(|r| r.contains("retry")),
                "{e:?}"
            );
        }
        other => panic!("a call after the shutdown must be refused with INTERNAL: {other:?}"),
    }
    // The call that was in flight is answered, then the daemon exits.
    assert_eq!(slow.await.unwrap(), daemon.id());
    assert!(daemon.wait().success());
    assert!(!env.paths.socket().exists());
}

/// Polls `cond` every 10 ms until it holds or `limit` passes.
async fn wait_until_async(limit: Duration, mut cond: impl AsyncFnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if cond().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[test]
fn a_second_daemon_refuses_to_start_and_names_the_first() {
    let env = TestEnv::with_daemon(DAEMON);
    let first = env.start_foreground();
    let out = env.daemon().arg("--foreground").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "another lean-ctxd is running (pid {})",
            first.id()
        )),
        "{stderr}"
    );
    assert_eq!(env.daemons(), vec![first.id()]);
}

#[test]
fn the_log_is_private_and_its_first_line_names_the_build() {
    let env = TestEnv::with_daemon(DAEMON);
    let _daemon = env.start_foreground();
    let mode = fs::metadata(env.paths.log_file())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let log = env.log();
    let first = log.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "lean-ctxd {} build {}",
            env!("CARGO_PKG_VERSION"),
            lean_ctx_shared::protocol::build_id()
        )),
        "{first}"
    );
    assert!(
        first.contains("cmdline:") && first.contains("--foreground"),
        "{first}"
    );
    let sock_mode = fs::metadata(env.paths.socket())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(sock_mode, 0o600);
}

#[test]
fn a_peer_of_another_uid_is_refused() {
    let env = TestEnv::with_daemon(DAEMON);
    let _daemon = env.start_foreground();
    // Open the way on purpose so only the daemon's own uid check stands in between.
    for dir in [env.dir(), env.paths.runtime_dir.as_path()] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o711)).unwrap();
    }
    fs::set_permissions(env.paths.socket(), fs::Permissions::from_mode(0o666)).unwrap();
    let probe = format!(
        "import socket,json,struct\n\
         s=socket.socket(socket.AF_UNIX); s.connect({:?})\n\
         h=json.dumps({{'protocol':{PROTOCOL_VERSION},'schema':{:?},'version':'0','build':'b','intent':'call','client':'intruder'}}).encode()\n\
         try:\n  s.sendall(b'LCTX'+struct.pack('>I',len(h))+h); s.settimeout(5); print(len(s.recv(64)))\n\
         except (BrokenPipeError, ConnectionResetError): print(0)\n",
        env.paths.socket().display().to_string(),
        lean_ctx_shared::protocol::SCHEMA,
    );
    let ours = rustix::process::getuid().as_raw();
    let out = as_another_user()
        .args(["/usr/bin/python3", "-c", &probe])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the probe could not run as another uid (as root: setpriv; otherwise: a user \
         namespace mapping /etc/subuid, which needs newuidmap): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0",
        "the daemon answered a foreign uid"
    );
    let log = env.log();
    let refused: Vec<u32> = log
        .split("peer uid ")
        .skip(1)
        .filter_map(|rest| rest.split_once(" is not ours"))
        .map(|(uid, _)| uid.parse().unwrap())
        .collect();
    assert_eq!(refused.len(), 1, "one refusal expected:\n{log}");
    assert_ne!(refused[0], ours, "{log}");
    if ours == 0 {
        assert_eq!(refused[0], 65534, "{log}");
    }
}
