//! The index at scale: a fresh daemon's first index of a repository of more than
//! 100,000 real source files in every indexed language (`fetch-scale.sh`: a pinned
//! composite of npm, PyPI, Go, Maven and crates.io packages), side by side with
//! `ctags -R` on the same tree, while `daemon status` is asked every 100 ms over the
//! socket and every 2 s as a whole process. Reports the index time and its ratio to
//! ctags, status latency throughout (goal: within 50 ms), the daemon's RSS peak and
//! end, and resident bytes per indexed symbol.
//!
//! Run: `bash client/benches/fetch-scale.sh && cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench scale`
//! (needs Debian's `universal-ctags`).

#[path = "common/mod.rs"]
mod common;

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use lean_ctx_shared::protocol::StatusRequest;
use lean_ctx_testkit::TestEnv;

use common::{connect, ctags_r, index, median, ms};

const ROUNDS: usize = 2;
const LANGUAGES: &str = "Rust,Python,JavaScript,TypeScript,Go,Java,Kotlin";
const EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "java", "kt",
    "kts",
];

/// What one round of the daemon measured.
struct Round {
    index: Duration,
    /// In-socket `status` latencies while the index was being built.
    status: Vec<Duration>,
    /// Whole-process `lean-ctx daemon status` times while the index was being built.
    process_status: Vec<Duration>,
    peak_rss: u64,
}

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/scale-corpus/repo");
    assert!(
        repo.join("../.done").exists(),
        "no corpus: run `bash client/benches/fetch-scale.sh` first"
    );
    assert!(
        Command::new("ctags")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "no ctags: `apt-get install universal-ctags`"
    );
    let (files, bytes) = sources(&repo);
    println!(
        "corpus: {files} source files, {:.0} MiB ({})",
        bytes as f64 / 1048576.0,
        repo.display()
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tags = tempfile::NamedTempFile::new().unwrap();
    let (mut rounds, mut ctags) = (vec![], vec![]);
    let mut last = None;
    for round in 0..ROUNDS {
        let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
        assert!(
            env.shim()
                .args(["daemon", "start"])
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success()
        );
        let r = rt.block_on(measure(&env, &repo));
        ctags.push(ctags_r(LANGUAGES, tags.path(), &repo));
        println!(
            "  round {round}: lean-ctx first index {:.1} s, ctags -R {:.1} s; status worst {:.1} ms in socket ({} asks), {:.1} ms whole process ({} runs)",
            r.index.as_secs_f64(),
            ctags[round].as_secs_f64(),
            ms(*r.status.iter().max().unwrap()),
            r.status.len(),
            ms(*r.process_status.iter().max().unwrap_or(&Duration::ZERO)),
            r.process_status.len()
        );
        rounds.push(r);
        last = Some(env);
    }
    let env = last.unwrap();

    let index: Vec<Duration> = rounds.iter().map(|r| r.index).collect();
    let (ours, theirs) = (median(&index), median(&ctags));
    println!("first index of {files} files (median of {ROUNDS}, 2 cores):");
    println!(
        "  lean-ctx                    {:>8.1} s",
        ours.as_secs_f64()
    );
    println!(
        "  ctags -R                    {:>8.1} s",
        theirs.as_secs_f64()
    );
    println!(
        "  ratio                       {:>8.2}x",
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    let mut status: Vec<Duration> = rounds.iter().flat_map(|r| r.status.clone()).collect();
    status.sort();
    let mut process: Vec<Duration> = rounds
        .iter()
        .flat_map(|r| r.process_status.clone())
        .collect();
    process.sort();
    println!(
        "daemon status while indexing, in socket ({} asks): p50 {:.2} ms, p99 {:.2} ms, worst {:.2} ms (goal ≤ 50 ms)",
        status.len(),
        ms(status[status.len() / 2]),
        ms(status[status.len() * 99 / 100]),
        ms(*status.last().unwrap())
    );
    if let Some(worst) = process.last() {
        println!(
            "daemon status while indexing, whole process ({} runs): p50 {:.1} ms, worst {:.1} ms",
            process.len(),
            ms(process[process.len() / 2]),
            ms(*worst)
        );
    }

    let conn = rt.block_on(connect(&env));
    let st = rt
        .block_on(
            conn.client
                .status(tarpc::context::current(), StatusRequest {}),
        )
        .unwrap()
        .unwrap();
    let ix = st
        .projects
        .iter()
        .find(|p| p.root == repo.canonicalize().unwrap())
        .and_then(|p| p.index.as_ref())
        .unwrap();
    let rss = st.rss_bytes.unwrap_or(0);
    let cache = |name: &str| st.caches.iter().find(|c| c.name == name);
    println!(
        "indexed: {} files, {} symbols",
        ix.files_indexed, ix.symbols
    );
    println!(
        "daemon RSS: peak while indexing {:.0} MiB, after {:.0} MiB = {:.0} bytes per symbol (symbol cache {:.0} MiB in {} entries, cap {:.0} MiB)",
        rounds.iter().map(|r| r.peak_rss).max().unwrap() as f64 / 1048576.0,
        rss as f64 / 1048576.0,
        rss as f64 / ix.symbols.max(1) as f64,
        cache("symbols").map_or(0, |c| c.bytes) as f64 / 1048576.0,
        cache("symbols").map_or(0, |c| c.entries),
        cache("symbols").map_or(0, |c| c.capacity_bytes) as f64 / 1048576.0,
    );
}

/// One fresh daemon's first index of `repo`, with status asked throughout.
async fn measure(env: &TestEnv, repo: &Path) -> Round {
    let indexing = connect(env).await;
    let asking = connect(env).await;
    let done = Arc::new(AtomicBool::new(false));
    let shim = env.shim().get_program().to_owned();
    let shim_env: Vec<_> = env
        .shim()
        .get_envs()
        .map(|(k, v)| (k.to_owned(), v.map(ToOwned::to_owned)))
        .collect();
    // Whole-process status on a blocking thread: what a user typing it sees.
    let processes = tokio::task::spawn_blocking({
        let done = done.clone();
        move || {
            let mut times = vec![];
            while !done.load(Ordering::Relaxed) {
                let mut c = Command::new(&shim);
                for (k, v) in &shim_env {
                    match v {
                        Some(v) => c.env(k, v),
                        None => c.env_remove(k),
                    };
                }
                c.args(["daemon", "status"]).stdout(Stdio::null());
                let t = Instant::now();
                assert!(c.status().unwrap().success());
                times.push(t.elapsed());
                std::thread::sleep(Duration::from_secs(2));
            }
            times
        }
    });
    let sockets = tokio::spawn({
        let done = done.clone();
        async move {
            let (mut times, mut peak) = (vec![], 0);
            while !done.load(Ordering::Relaxed) {
                let t = Instant::now();
                let st = asking
                    .client
                    .status(tarpc::context::current(), StatusRequest {})
                    .await
                    .unwrap()
                    .unwrap();
                times.push(t.elapsed());
                peak = peak.max(st.rss_bytes.unwrap_or(0));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            (times, peak)
        }
    });
    let index = index(&indexing, repo, Duration::from_secs(1800)).await;
    done.store(true, Ordering::Relaxed);
    let (status, peak_rss) = sockets.await.unwrap();
    Round {
        index,
        status,
        process_status: processes.await.unwrap(),
        peak_rss,
    }
}

/// The number and total size of the source files under `dir` (`.git` left out).
fn sources(dir: &Path) -> (usize, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            let p = e.path();
            if t.is_dir() && e.file_name() != ".git" {
                stack.push(p);
            } else if t.is_file()
                && p.extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| EXTENSIONS.contains(&x))
            {
                files += 1;
                bytes += e.metadata().unwrap().len();
            }
        }
    }
    (files, bytes)
}
