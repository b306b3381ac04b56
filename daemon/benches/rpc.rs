//! RPC cost over the daemon socket, in one process: the real server (`accept::run`)
//! on a temp socket and real clients (`transport::connect`), side by side with the
//! floor a user could not beat, a bare Unix-socket echo of the same size.
//!
//! Run: `cargo bench -p lean-ctx-daemon --bench rpc` (figures in BENCHMARKS.md).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use lean_ctx_daemon::{
    accept,
    index::root::IndexConfig,
    state::{Daemon, DaemonConfig},
};
use lean_ctx_shared::{
    Paths,
    hello::{ClientHello, Intent},
    protocol::{PingRequest, StartMode},
    transport::{self, Connection},
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{UnixListener, UnixStream},
};

const SEQUENTIAL_CALLS: usize = 20_000;
const CLIENTS: usize = 8;
const THROUGHPUT_WINDOW: Duration = Duration::from_secs(3);

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(bench());
}

async fn bench() {
    let tmp = tempfile::Builder::new()
        .prefix("lcb")
        .tempdir_in("/tmp")
        .unwrap();
    let paths = Paths {
        data_dir: tmp.path().join("data"),
        runtime_dir: tmp.path().join("run"),
        state_dir: tmp.path().join("state"),
        config_dir: tmp.path().join("config"),
    };
    paths.ensure_runtime_dir().unwrap();
    let listener = UnixListener::bind(paths.socket()).unwrap();
    let daemon = Arc::new(Daemon::new(DaemonConfig {
        socket: paths.socket(),
        paths: paths.clone(),
        start_mode: StartMode::Foreground,
        idle_timeout: None,
        index: IndexConfig::default(),
        symbol_cache_bytes: 1 << 24,
        text_index: true,
        text_index_cap: 0,
        lsp: Default::default(),
        ide: Default::default(),
        limits: Default::default(),
        answer_max_bytes: lean_ctx_daemon::budget::DEFAULT_CAP,
    }));
    let serving = tokio::spawn(accept::run(listener, daemon.clone()));

    let echo_path = tmp.path().join("echo.sock");
    let echo = tokio::spawn(echo_server(UnixListener::bind(&echo_path).unwrap()));

    let socket = paths.socket();
    let hello = ClientHello::new(Intent::Call, "bench");
    let connect = || transport::connect(&socket, &hello, Duration::from_secs(5));
    let conn = connect().await.unwrap();
    // Warm up both paths.
    for _ in 0..2_000 {
        call(&conn).await;
    }
    let mut raw = UnixStream::connect(&echo_path).await.unwrap();
    for _ in 0..2_000 {
        echo_round_trip(&mut raw).await;
    }

    println!(
        "round trip, one client, {SEQUENTIAL_CALLS} sequential calls (interleaved in blocks of 1000):"
    );
    let (mut rpc, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..SEQUENTIAL_CALLS / 1000 {
        for _ in 0..1000 {
            let t = Instant::now();
            call(&conn).await;
            rpc.push(t.elapsed());
        }
        for _ in 0..1000 {
            let t = Instant::now();
            echo_round_trip(&mut raw).await;
            bare.push(t.elapsed());
        }
    }
    let (rpc50, rpc99) = percentiles(&mut rpc);
    let (bare50, bare99) = percentiles(&mut bare);
    println!(
        "  lean-ctx ping (hello'd tarpc, bincode)   p50 {:>6.1} µs   p99 {:>6.1} µs",
        us(rpc50),
        us(rpc99)
    );
    println!(
        "  bare unix-socket echo (the floor)        p50 {:>6.1} µs   p99 {:>6.1} µs",
        us(bare50),
        us(bare99)
    );
    println!(
        "  ratio                                    p50 {:>6.2}x    p99 {:>6.2}x",
        us(rpc50) / us(bare50),
        us(rpc99) / us(bare99)
    );

    println!("throughput, {CLIENTS} concurrent clients, closed loop, {THROUGHPUT_WINDOW:?} each:");
    let mut conns = Vec::new();
    for _ in 0..CLIENTS {
        conns.push(Arc::new(connect().await.unwrap()));
    }
    let rpc_rate = throughput(conns, |c: Arc<Connection>| async move { call(&c).await }).await;
    let mut raws = Vec::new();
    for _ in 0..CLIENTS {
        raws.push(Arc::new(tokio::sync::Mutex::new(
            UnixStream::connect(&echo_path).await.unwrap(),
        )));
    }
    let bare_rate = throughput(raws, |s: Arc<tokio::sync::Mutex<UnixStream>>| async move {
        echo_round_trip(&mut *s.lock().await).await
    })
    .await;
    println!("  lean-ctx ping                            {rpc_rate:>8.0} calls/s");
    println!("  bare unix-socket echo                    {bare_rate:>8.0} calls/s");
    println!(
        "  ratio                                    {:>8.2}x",
        rpc_rate / bare_rate
    );
    println!(
        "daemon RSS after the run: {:.1} MiB (in-process: includes the clients)",
        lean_ctx_daemon::sys::rss_bytes().unwrap_or(0) as f64 / 1048576.0
    );

    daemon.shutdown();
    serving.await.unwrap();
    echo.abort();
}

async fn call(conn: &Connection) {
    conn.client
        .ping(tarpc::context::current(), PingRequest::default())
        .await
        .unwrap()
        .unwrap();
}

/// The request and answer sizes of a bincode'd ping, framed the same way.
const ECHO_LEN: usize = 64;

async fn echo_server(listener: UnixListener) {
    loop {
        let (mut s, _) = listener.accept().await.unwrap();
        tokio::spawn(async move {
            let mut buf = [0u8; ECHO_LEN];
            while s.read_exact(&mut buf).await.is_ok() {
                if s.write_all(&buf).await.is_err() {
                    break;
                }
            }
        });
    }
}

async fn echo_round_trip(s: &mut UnixStream) {
    let mut buf = [7u8; ECHO_LEN];
    s.write_all(&buf).await.unwrap();
    s.read_exact(&mut buf).await.unwrap();
}

/// Runs `op` in a closed loop on every client for the window; returns calls/s.
async fn throughput<C, F, Fut>(clients: Vec<C>, op: F) -> f64
where
    C: Clone + Send + 'static,
    F: Fn(C) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|c| {
            let (stop, count, op) = (stop.clone(), count.clone(), op.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    op(c.clone()).await;
                    count.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(THROUGHPUT_WINDOW).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }
    count.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    (at(0.50), at(0.99))
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
