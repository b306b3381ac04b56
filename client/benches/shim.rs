//! The shim's own cost, whole process: `lean-ctx daemon status` against a warm daemon,
//! side by side with spawning `/bin/true` (the least any command can cost), runs
//! interleaved so machine noise hits both alike; plus peak RSS of the shim (GNU
//! time's %M) and the daemon's RSS when idle.
//!
//! Run: `cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench shim`

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use lean_ctx_testkit::TestEnv;

const RUNS: usize = 300;
const RSS_RUNS: usize = 20;

fn main() {
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    let (out, v) = env.shim_json(&["daemon", "start"]);
    assert!(out.status.success(), "{v}");
    let daemon_pid = v["pid"].as_u64().unwrap() as u32;
    std::thread::sleep(Duration::from_millis(300));
    let idle_rss = rss_kib(daemon_pid);

    let status = || {
        let mut c = env.shim();
        c.args(["daemon", "status"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let truth = || {
        let mut c = Command::new("/bin/true");
        c.stdout(Stdio::null());
        c
    };
    for _ in 0..20 {
        run(status());
        run(truth());
    }
    let (mut shim, mut floor) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        shim.push(run(status()));
        floor.push(run(truth()));
    }
    let (s50, s90, smean) = stats(&mut shim);
    let (f50, f90, fmean) = stats(&mut floor);
    println!("whole process, {RUNS} runs each, interleaved:");
    println!(
        "  lean-ctx daemon status (warm daemon)  p50 {s50:>7.2} ms  p90 {s90:>7.2} ms  mean {smean:>7.2} ms"
    );
    println!(
        "  /bin/true                             p50 {f50:>7.2} ms  p90 {f90:>7.2} ms  mean {fmean:>7.2} ms"
    );
    println!(
        "  ratio                                 p50 {:>7.2}x   p90 {:>7.2}x   mean {:>7.2}x",
        s50 / f50,
        s90 / f90,
        smean / fmean
    );

    let peak = (0..RSS_RUNS)
        .map(|_| {
            let timed = Command::new("/usr/bin/time")
                .args(["-f", "%M"])
                .arg(env!("CARGO_BIN_EXE_lean-ctx"))
                .args(["daemon", "status"])
                .env_clear()
                .envs(env.envs())
                .stdout(Stdio::null())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&timed.stderr);
            text.trim()
                .lines()
                .last()
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        })
        .max()
        .unwrap();
    let after = rss_kib(daemon_pid);
    println!("memory:");
    println!(
        "  shim peak RSS (max of {RSS_RUNS} runs)      {:>6.1} MiB",
        peak as f64 / 1024.0
    );
    println!(
        "  daemon RSS, idle after start          {:>6.1} MiB",
        idle_rss as f64 / 1024.0
    );
    println!(
        "  daemon RSS, idle after the runs       {:>6.1} MiB",
        after as f64 / 1024.0
    );
}

fn run(mut cmd: Command) -> f64 {
    let t = Instant::now();
    let status = cmd.status().unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(status.success());
    ms
}

fn stats(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
    (at(0.5), at(0.9), v.iter().sum::<f64>() / v.len() as f64)
}

fn rss_kib(pid: u32) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * rustix::param::page_size() as u64 / 1024
}
