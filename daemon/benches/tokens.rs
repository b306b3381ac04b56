//! Gain accounting's tokenizer (`src/tokens.rs`) against tiktoken-rs's `o200k_base`,
//! the crate a Rust user would reach for, side by side in one run: loading the tables
//! (interleaved, each in a fresh process so neither reuses the other's freed heap),
//! the resident memory a load adds, and counting the same texts, with every count
//! compared. Exits non-zero if any count differs.
//!
//! Run: `cargo bench -p lean-ctx-daemon --bench tokens [-- DIR...]` (default: the
//! daemon's own sources and, when fetched, `target/bench-corpus-langs`).

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use lean_ctx_daemon::tokens::O200k;

const ROUNDS: usize = 11;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [flag, which] = &args[..]
        && flag == "--load-in-child"
    {
        return load_in_child(which);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs: Vec<PathBuf> = match args.is_empty() {
        true => [
            manifest.join("src"),
            manifest.join("../target/bench-corpus-langs"),
        ]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect(),
        false => args.iter().map(PathBuf::from).collect(),
    };

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        for (which, into) in [("ours", &mut ours), ("tiktoken", &mut theirs)] {
            into.push(child(which));
        }
    }
    let med = |v: &mut Vec<(Duration, u64)>, f: fn(&(Duration, u64)) -> f64| {
        let mut xs: Vec<f64> = v.iter().map(f).collect();
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let ms = |x: &(Duration, u64)| x.0.as_secs_f64() * 1e3;
    let mib = |x: &(Duration, u64)| x.1 as f64 / 1024.0;
    let (lo, lt) = (med(&mut ours, ms), med(&mut theirs, ms));
    let (ro, rt) = (med(&mut ours, mib), med(&mut theirs, mib));
    println!("o200k_base, medians of {ROUNDS} fresh processes each, interleaved:");
    println!(
        "  load     lean-ctx {lo:8.1} ms   tiktoken-rs {lt:8.1} ms   ratio {:.3}x",
        lo / lt
    );
    println!(
        "  RSS      lean-ctx {ro:8.1} MiB  tiktoken-rs {rt:8.1} MiB  ratio {:.3}x",
        ro / rt
    );

    let mut texts = Vec::new();
    for dir in &dirs {
        collect(dir, &mut texts);
    }
    let (ours, theirs) = (O200k::load(), tiktoken_rs::o200k_base().unwrap());
    let (mut t_ours, mut t_theirs, mut tokens, mut bytes, mut differ) =
        (Duration::ZERO, Duration::ZERO, 0u64, 0usize, 0);
    for (path, text) in &texts {
        let t = Instant::now();
        let a = ours.count(text);
        t_ours += t.elapsed();
        let t = Instant::now();
        let b = theirs.encode_ordinary(text).len() as u64;
        t_theirs += t.elapsed();
        if a != b {
            differ += 1;
            println!("  DIFFERS {}: {a} against {b}", path.display());
        }
        tokens += b;
        bytes += text.len();
    }
    println!(
        "  count    {} texts, {:.1} MiB, {tokens} tokens: lean-ctx {:.0} ms, tiktoken-rs {:.0} ms, ratio {:.3}x; {differ} differ",
        texts.len(),
        bytes as f64 / 1048576.0,
        t_ours.as_secs_f64() * 1e3,
        t_theirs.as_secs_f64() * 1e3,
        t_ours.as_secs_f64() / t_theirs.as_secs_f64()
    );
    if differ > 0 {
        std::process::exit(1);
    }
}

/// One load in a fresh process of this bench: its wall time and the KiB of resident
/// memory it added.
fn child(which: &str) -> (Duration, u64) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--load-in-child", which])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (ns, kib) = text.trim().split_once(' ').unwrap();
    (
        Duration::from_nanos(ns.parse().unwrap()),
        kib.parse().unwrap(),
    )
}

fn load_in_child(which: &str) {
    let before = rss_kib();
    let t = Instant::now();
    let kept: Box<dyn std::any::Any> = match which {
        "ours" => Box::new(O200k::load()),
        _ => Box::new(tiktoken_rs::o200k_base().unwrap()),
    };
    let took = t.elapsed();
    println!("{} {}", took.as_nanos(), rss_kib() - before);
    drop(kept);
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Text files under `dir` (below 4 MiB; `.git` left out).
fn collect(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_symlink() || path.ends_with(".git") {
            continue;
        }
        if path.is_dir() {
            collect(&path, out);
        } else if path.metadata().is_ok_and(|m| m.len() < 4 << 20)
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            out.push((path, text));
        }
    }
}
