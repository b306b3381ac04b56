//! Warm content search against spawning ripgrep on the same corpus (the pinned crates
//! vendored by `fetch-corpus.sh`), whole process each, rounds alternating so machine
//! noise hits both alike: `lean-ctx search --text|--regex` (a warm daemon, its index
//! ready) vs `rg` over the same file types, for a rare and a common literal, a
//! case-insensitive literal and a regex. Each pattern's matching-line counts are
//! compared first, so both did the same search.
//!
//! Run: `bash client/benches/fetch-corpus.sh && cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench search`
//! (needs ripgrep: `apt-get install ripgrep`).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Instant,
};

use lean_ctx_testkit::TestEnv;

const ROUNDS: usize = 30;
/// The largest limit the daemon allows: as many lines as it will list.
const LIMIT: &str = "1000";
/// The file types the index holds (Rust, Python, TypeScript/TSX, JavaScript, Go,
/// Java, Kotlin), in ripgrep's names.
const TYPES: &[&str] = &["rust", "py", "ts", "js", "go", "java", "kotlin"];

/// (label, lean-ctx mode, pattern, ignore case)
const CASES: &[(&str, &str, &str, bool)] = &[
    ("rare literal", "--text", "poll_ready", false),
    ("common literal", "--text", "unsafe", false),
    ("literal, ignore case", "--text", "deprecated", true),
    ("regex", "--regex", r"fn \w+_mut\(", false),
];

fn main() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpus");
    let repo = corpus.join("repo");
    assert!(
        corpus.join(".done").exists(),
        "no corpus: run `bash client/benches/fetch-corpus.sh` first"
    );
    assert!(
        Command::new("rg")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "no ripgrep: `apt-get install ripgrep`"
    );
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    std::fs::create_dir_all(&env.paths.config_dir).unwrap();
    // Search every file rg searches: no size cut-off.
    std::fs::write(
        env.paths.config_file(),
        "[index]\nmax_file_bytes = 1073741824\n",
    )
    .unwrap();
    let t = Instant::now();
    let tree = env.ok(&repo, &["tree", "--depth", "0"]);
    println!(
        "corpus: {} indexed files ({}), first index {:.0} ms",
        tree["total_files"],
        repo.display(),
        ms(t)
    );

    let ours = |mode: &str, pattern: &str, ci: bool| {
        let mut c = env.shim();
        c.current_dir(&repo)
            .args(["search", mode, pattern, "--limit", LIMIT]);
        if ci {
            c.arg("-i");
        }
        c
    };
    let theirs = |mode: &str, pattern: &str, ci: bool| {
        let mut c = Command::new("rg");
        c.current_dir(&repo).args(["--no-config", "-n"]);
        for t in TYPES {
            c.args(["-t", t]);
        }
        if mode == "--text" {
            c.arg("-F");
        }
        if ci {
            c.arg("-i");
        }
        c.arg("--").arg(pattern);
        c
    };

    println!("warm, whole process, {ROUNDS} rounds each, alternating (p50 / p90 / mean, ms):");
    for &(label, mode, pattern, ci) in CASES {
        // The same search: matching lines by both.
        let mut json = ours(mode, pattern, ci);
        json.arg("--json");
        let v: serde_json::Value = serde_json::from_slice(&json.output().unwrap().stdout).unwrap();
        let ours_lines = v["total"].as_u64().unwrap();
        let rg_lines = count_lines(theirs(mode, pattern, ci), &repo);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            a.push(time(ours(mode, pattern, ci)));
            b.push(time(theirs(mode, pattern, ci)));
        }
        let (a50, a90, amean) = stats(&mut a);
        let (b50, b90, bmean) = stats(&mut b);
        println!("  {label} {pattern:?}: {ours_lines} lines (rg: {rg_lines})");
        println!("    lean-ctx search {mode}  {a50:>8.2} {a90:>8.2} {amean:>8.2}");
        println!("    rg                     {b50:>8.2} {b90:>8.2} {bmean:>8.2}");
        println!(
            "    ratio                  {:>7.2}x {:>7.2}x {:>7.2}x",
            a50 / b50,
            a90 / b90,
            amean / bmean
        );
    }
}

/// Lines `cmd` prints.
fn count_lines(mut cmd: Command, cwd: &Path) -> usize {
    let out = cmd.current_dir(cwd).output().unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count()
}

fn time(mut cmd: Command) -> f64 {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let t = Instant::now();
    let status = cmd.status().unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(status.success(), "{cmd:?}");
    ms
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn stats(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
    (at(0.5), at(0.9), v.iter().sum::<f64>() / v.len() as f64)
}
