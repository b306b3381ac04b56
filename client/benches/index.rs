//! The headless index against universal-ctags on a real corpus (≥ 3,000 .rs files of
//! pinned crates.io crates, vendored by `fetch-corpus.sh`), side by side in one run:
//! first full index, a second git worktree of the same repository, the first index
//! of a daemon started again over the persisted store (restart-warm), a warm
//! `lean-ctx outline FILE` as a whole process vs `ctags -x FILE`, in-socket
//! `symbols_overview` latency on a cached file, and daemon RSS per indexed symbol.
//!
//! Per language, one pinned real corpus each (`fetch-lang-corpora.sh`: Python,
//! TypeScript, JavaScript, Go, Java, Kotlin, and the conformance corpora of the
//! languages added later): a fresh daemon's whole-process
//! `lean-ctx outline` waiting for the first index against `ctags -R --languages=X` on
//! the same tree, in alternating order, 5 rounds; in each, a second git worktree of
//! the corpus (made beside it once) and the restart-warm index too (after `daemon
//! start`, auto-spawned by the outline itself, and a second after `daemon start`,
//! prewarmed), whole process as well, a warm call of the same outline (the floor
//! no restart can go under: the process start and the shim alone), and daemon RSS
//! per symbol; and the floor under any parser: a fresh daemon's first index of a
//! copy of the corpus whose files no language claims (the same bytes walked, read,
//! hashed and stored, nothing parsed; the text index fills in after the answer, as
//! in every first index); with the BENCHMARKS.md rows.
//!
//! Run: `bash client/benches/fetch-corpus.sh && bash client/benches/fetch-lang-corpora.sh && cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench index`
//! (needs Debian's `universal-ctags`). Arguments after `--` pick the parts: `rust`
//! and any of `python typescript javascript go java kotlin c cpp csharp ruby php bash
//! lua haskell elixir ocaml r scala swift` (default: all).

#[path = "common/mod.rs"]
mod common;

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use lean_ctx_shared::protocol::{StatusRequest, SymbolsOverviewRequest};
use lean_ctx_testkit::TestEnv;

use common::{connect, ctags_r, index, median, ms};

const ROUNDS: usize = 5;
const PROCESS_RUNS: usize = 100;
const SOCKET_CALLS: usize = 2000;
/// A large, real file for the per-file comparisons.
const FILE: &str = "vendor/syn-2.0.111/src/expr.rs";

/// The per-language corpora: directory under `target/bench-corpus-langs`, ctags'
/// language names, the corpus as BENCHMARKS.md names it (`fetch-lang-corpora.sh`
/// pins them). universal-ctags has no parser for Scala or Swift: their rows compare
/// with it given a regex definition of each (`benches/ctags/`), what a user of ctags
/// writes for such a language.
const LANGS: [(&str, &str, &str); 19] = [
    ("python", "Python", "Django 5.1.4 sdist (PyPI)"),
    (
        "typescript",
        "TypeScript",
        "rxjs 7.8.1 + effect 3.10.0 (npm, TypeScript sources)",
    ),
    ("javascript", "JavaScript", "lodash 4.17.21 (npm)"),
    ("go", "Go", "golang.org/x/tools v0.28.0 (Go module proxy)"),
    (
        "java",
        "Java",
        "guava 33.3.1-jre sources jar (Maven Central)",
    ),
    (
        "kotlin",
        "Kotlin",
        "kotlin-stdlib 2.0.21 sources jar (Maven Central)",
    ),
    // C headers are C++ in lean-ctx, as in ctags: both languages for both corpora.
    (
        "c",
        "C,C++",
        "git 2.39.5 + redis 7.0.15 (Debian's upstream tarballs)",
    ),
    ("cpp", "C,C++", "rocksdb 7.8.3 (Debian's upstream tarball)"),
    (
        "csharp",
        "C#",
        "keepass2 2.47 + Newtonsoft.Json 6.0.8 + NUnit 2.6.4 (Debian's upstream tarballs)",
    ),
    (
        "ruby",
        "Ruby",
        "rails 6.1.7.10 + vagrant 2.3.4 + rubocop 1.39.0 (Debian's upstream tarballs)",
    ),
    (
        "php",
        "PHP",
        "WordPress 6.1.9 + phpMyAdmin 5.2.1 (Debian's upstream tarballs)",
    ),
    (
        "bash",
        "Sh",
        "git 2.39.5's t/ + dracut 059 (Debian's upstream tarballs)",
    ),
    (
        "lua",
        "Lua",
        "neovim 0.7.2 + nmap 7.93 + prosody 0.12.3 + awesome 4.3 (Debian's upstream tarballs)",
    ),
    (
        "haskell",
        "Haskell",
        "pandoc 2.17.1.1 + git-annex 10.20230126 + ShellCheck 0.9.0 (Debian's upstream tarballs)",
    ),
    (
        "elixir",
        "Elixir",
        "Elixir 1.14.0's lib/, with its tests (Debian's upstream tarball)",
    ),
    (
        "ocaml",
        "OCaml",
        "OCaml 4.13.1 + dune 2.9.3 (Debian's upstream tarballs)",
    ),
    (
        "r",
        "R",
        "R 4.2.2's own packages, src/library (Debian's upstream tarball)",
    ),
    (
        "scala",
        "Scala",
        "cats-core_3 2.12.0 + scala3-library_3 3.3.4 sources jars (Maven Central)",
    ),
    (
        "swift",
        "Swift",
        "expo-modules-core 2.2.3's iOS sources (npm)",
    ),
];
const LANG_ROUNDS: usize = 5;
/// Warm whole-process outlines per round (their median is the round's floor).
const WARM_CALLS: usize = 3;

fn main() {
    assert!(
        Command::new("ctags")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "no ctags: `apt-get install universal-ctags`"
    );
    // `cargo bench` passes `--bench`; the rest names the parts to run.
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wants = |part: &str| picked.is_empty() || picked.iter().any(|p| p == part);
    let langs: Vec<_> = LANGS.iter().filter(|(dir, ..)| wants(dir)).collect();
    if !langs.is_empty() {
        languages(&langs);
    }
    if wants("rust") {
        rust();
    }
}

/// Each language's first index against ctags, side by side, and the same
/// corpus's second worktree, restart-warm index and daemon RSS per symbol.
fn languages(langs: &[&(&str, &str, &str)]) {
    let corpora = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpus-langs");
    let tags = tempfile::NamedTempFile::new().unwrap();
    let mut rows = Vec::new();
    for &&(dir, ctags_lang, title) in langs {
        let tree = corpora.join(dir);
        assert!(
            tree.join(".done").exists(),
            "no {dir} corpus: run `bash client/benches/fetch-lang-corpora.sh` first"
        );
        let second = second_worktree(&tree);
        let floor = floor_copy(&tree);
        let ctags = || {
            // The files lean-ctx indexes: a corpus may ship other languages too
            // (Django's admin JavaScript), so with `LEAN_CTX_BENCH_CTAGS_ALL` set ctags
            // parses every language lean-ctx does.
            let languages = match std::env::var_os("LEAN_CTX_BENCH_CTAGS_ALL") {
                Some(_) => "Python,JavaScript,TypeScript,Go,Java,Kotlin,Rust,C,C++,C#,Ruby,PHP,Sh,Lua,Haskell,Elixir,OCaml,R".to_string(),
                None => ctags_lang.to_string(),
            };
            ctags_r(&languages, tags.path(), &tree)
        };
        // Untimed, once each: the corpus into the page cache. Otherwise the first
        // round of each corpus meets a cold cache (0.9–7.9 s on this machine; ctags
        // alone leaves the files of other languages lean-ctx reads cold) and moves
        // the median; both sides read from the cache after this.
        ctags();
        lang_round(&tree, &second);
        first_index(&floor);
        let (mut rounds, mut theirs, mut floors) = (vec![], vec![], vec![]);
        for round in 0..LANG_ROUNDS {
            // Alternating which goes first, so neither always meets a warm page cache.
            if round % 2 == 1 {
                theirs.push(ctags());
            }
            let r = lang_round(&tree, &second);
            floors.push(first_index(&floor));
            if round % 2 == 0 {
                theirs.push(ctags());
            }
            println!(
                "  {dir} round {round}: lean-ctx {:.0} ms ({} files, {} symbols), the same bytes as text {:.0} ms, second worktree {:.0} ms, restart-warm {:.0} ms (auto-spawned {:.0} ms, prewarmed {:.1} ms, a warm call {:.1} ms); in the daemon: first walk {:.0} ms, restart {}; ctags {:.0} ms",
                ms(r.first),
                r.files,
                r.symbols,
                ms(floors[round]),
                ms(r.second),
                ms(r.restart),
                ms(r.restart_auto),
                ms(r.prewarmed),
                ms(r.warm_call),
                ms(r.first_in),
                r.restart_in
                    .map_or("walked (no listing used)".into(), |d| format!(
                        "{:.1} ms from the listing",
                        ms(d)
                    )),
                ms(theirs[round])
            );
            rounds.push(r);
        }
        let tags_text = std::fs::read_to_string(tags.path()).unwrap_or_default();
        let ctags_symbols = tags_text.lines().filter(|l| !l.starts_with("!_")).count();
        let span = |v: &[Duration]| {
            let (lo, hi) = (v.iter().min().unwrap(), v.iter().max().unwrap());
            format!("{:.0}–{:.0} ms", ms(*lo), ms(*hi))
        };
        let ours: Vec<_> = rounds.iter().map(|r| r.first).collect();
        let pick = |f: fn(&Round) -> Duration| median(&rounds.iter().map(f).collect::<Vec<_>>());
        let (first, second_wt, restart) = (median(&ours), pick(|r| r.second), pick(|r| r.restart));
        let (restart_auto, prewarmed) = (pick(|r| r.restart_auto), pick(|r| r.prewarmed));
        let warm_call = pick(|r| r.warm_call);
        let ratio = ms(first) / ms(median(&theirs));
        // What no parser can go under: the same bytes walked, read, hashed, stored and
        // text-indexed, with nothing parsed (`floor_copy`).
        let floor_ratio = ms(median(&floors)) / ms(median(&theirs));
        let last = rounds.last().unwrap();
        let per_symbol = |rss: u64| rss as f64 / last.symbols.max(1) as f64;
        // Second worktree, restart-warm (each with its share of the first index) and
        // RSS per symbol, as the row shows them.
        // The daemon's own restart against its own first walk: what the process
        // start and the shim (a few ms each on this machine) leave out.
        let (first_in, restart_in) = (
            pick(|r| r.first_in),
            pick(|r| r.restart_in.unwrap_or(Duration::MAX)),
        );
        let in_daemon = match restart_in {
            Duration::MAX => "walked".to_string(),
            d => format!(
                "{:.1} ms of {:.0} ms ({:.1}%)",
                ms(d),
                ms(first_in),
                100.0 * ms(d) / ms(first_in)
            ),
        };
        let warm = format!(
            "{:.0} ms ({:.1}%) | {:.0} ms ({:.1}%) | {:.0} ms ({:.1}%) | {:.1} ms ({:.1}%) | {:.1} ms ({:.1}%) | {in_daemon} | {:.0} B; {:.0} B",
            ms(second_wt),
            100.0 * ms(second_wt) / ms(first),
            ms(restart),
            100.0 * ms(restart) / ms(first),
            ms(restart_auto),
            100.0 * ms(restart_auto) / ms(first),
            ms(prewarmed),
            100.0 * ms(prewarmed) / ms(first),
            ms(warm_call),
            100.0 * ms(warm_call) / ms(first),
            per_symbol(last.rss_both),
            per_symbol(last.rss_warm),
        );
        println!(
            "{dir}: {} files, {} symbols (ctags {ctags_symbols} tags); lean-ctx median {:.0} ms, ctags median {:.0} ms: {ratio:.2}x; the same bytes as text {:.0} ms: {floor_ratio:.2}x | {warm}",
            last.files,
            last.symbols,
            ms(first),
            ms(median(&theirs)),
            ms(median(&floors)),
        );
        rows.push(format!(
            "| {title} | {} | {} | {} | {} | {} | {ratio:.2}x | {} ({floor_ratio:.2}x) | {warm} |",
            thousands(last.files),
            thousands(last.symbols),
            span(&ours),
            thousands(ctags_symbols as u64),
            span(&theirs),
            span(&floors),
        ));
    }
    println!("\nBENCHMARKS.md rows (medians of {LANG_ROUNDS} alternating rounds):");
    println!(
        "| corpus | files | symbols | lean-ctx first index | ctags tags | universal-ctags | ratio | the same bytes as text (ratio to ctags) | second worktree | restart-warm | restart-warm, auto-spawned | restart-warm, prewarmed | a warm call (the floor) | restart-warm in the daemon (of its first walk) | RSS/symbol (both worktrees; after restart-warm) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}

/// A second git worktree of the corpus at `tree`, beside it (made once).
fn second_worktree(tree: &Path) -> PathBuf {
    let name = tree.file_name().unwrap().to_string_lossy();
    let second = tree.with_file_name(format!("{name}-second"));
    let head = |dir: &Path| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout)
    };
    // A corpus fetched again (its pins changed) is a new repository: the worktree
    // made beside the old one is dropped.
    if second.exists() && head(&second) != head(tree) {
        std::fs::remove_dir_all(&second).unwrap();
        Command::new("git")
            .arg("-C")
            .arg(tree)
            .args(["worktree", "prune"])
            .status()
            .unwrap();
    }
    if !second.join(".git").exists() {
        let ok = Command::new("git")
            .arg("-C")
            .arg(tree)
            .args(["worktree", "add", "-q", "--detach"])
            .arg(&second)
            .arg("HEAD")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git worktree add {}", second.display());
    }
    second
}

/// `tree` copied once beside it (`<name>-floor`, a git repository too) with `.floor`
/// after every file's name, so no language claims any file: a first index of it
/// walks, reads, hashes, stores and text-indexes the same bytes and parses nothing,
/// the floor under any parser's first index of `tree`.
fn floor_copy(tree: &Path) -> PathBuf {
    let name = tree.file_name().unwrap().to_string_lossy();
    let floor = tree.with_file_name(format!("{name}-floor"));
    let done = floor.join(".floor-of");
    let head = std::fs::read(tree.join(".done")).unwrap();
    if std::fs::read(&done).is_ok_and(|d| d == head) {
        return floor;
    }
    let _ = std::fs::remove_dir_all(&floor);
    let listed = Command::new("git")
        .arg("-C")
        .arg(tree)
        .args(["ls-files", "-z"])
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "git ls-files in {}",
        tree.display()
    );
    for rel in listed.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel).unwrap());
        let mut to = floor.join(rel).into_os_string();
        to.push(".floor");
        std::fs::create_dir_all(floor.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(tree.join(rel), to).unwrap();
    }
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .arg("-C")
            .arg(&floor)
            .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
            .args(args)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?} in {}", floor.display());
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "floor"]);
    std::fs::write(&done, head).unwrap();
    floor
}

/// A daemon's environment with empty caches and no size cut-off.
fn fresh_env() -> TestEnv {
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    std::fs::create_dir_all(&env.paths.config_dir).unwrap();
    std::fs::write(
        env.paths.config_file(),
        "[index]\nmax_file_bytes = 1073741824\n",
    )
    .unwrap();
    env
}

/// A fresh daemon's first index of `tree`, whole process, as `lang_round` times it.
fn first_index(tree: &Path) -> Duration {
    let env = fresh_env();
    let mut outline = env.shim();
    outline
        .current_dir(tree)
        .args(["outline", "--limit", "1"])
        .stdout(Stdio::null());
    let took = time(outline);
    let ok = env
        .shim()
        .args(["daemon", "stop"])
        .stdout(Stdio::null())
        .status();
    assert!(ok.unwrap().success(), "daemon stop");
    took
}

/// One round on one corpus, each step a whole `lean-ctx outline` process waiting for
/// the index: a fresh daemon's (empty caches, no size cut-off) first index of
/// `tree`, then of its second worktree; the daemon stopped and started again over
/// its persisted store, `tree` again (restart-warm: `daemon start`, then the
/// outline, so the daemon's prewarm of its last root may run first), then stopped
/// and `tree` again with no daemon running (the outline spawns it), then stopped,
/// started and `tree` asked a second later (prewarmed: the daemon checked its
/// recent roots in that pause), then the same outline again, warm, a few times, each
/// after the same pause (the floor of any restart: a call to a daemon that holds
/// everything already). With the files and symbols of `tree` and the daemon's RSS
/// after the second worktree and after restart-warm.
struct Round {
    first: Duration,
    second: Duration,
    restart: Duration,
    restart_auto: Duration,
    prewarmed: Duration,
    warm_call: Duration,
    /// The daemon's own figures (its log's `indexed` lines): the first walk of
    /// `tree`, and the restart's answer from that walk's listing (`None`: the
    /// restart walked instead). Process start and the shim are not in them.
    first_in: Duration,
    restart_in: Option<Duration>,
    files: u64,
    symbols: u64,
    rss_both: u64,
    rss_warm: u64,
}

fn lang_round(tree: &Path, second: &Path) -> Round {
    let env = fresh_env();
    let daemon = |step: &str| {
        let ok = env
            .shim()
            .args(["daemon", step])
            .stdout(Stdio::null())
            .status();
        assert!(ok.unwrap().success(), "daemon {step}");
    };
    let outline = |dir: &Path| {
        let mut outline = env.shim();
        outline
            .current_dir(dir)
            .args(["outline", "--limit", "1"])
            .stdout(Stdio::null());
        time(outline)
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = || {
        rt.block_on(async {
            let conn = connect(&env).await;
            conn.client
                .status(tarpc::context::current(), StatusRequest {})
                .await
                .unwrap()
                .unwrap()
        })
    };
    daemon("start");
    let first = outline(tree);
    let second = outline(second);
    let both = status();
    let root = tree.canonicalize().unwrap();
    let ix = both
        .projects
        .iter()
        .find(|p| p.root == root)
        .and_then(|p| p.index.as_ref())
        .expect("the outline's root is indexed");
    let (files, symbols) = (ix.files_indexed, ix.symbols);
    daemon("stop");
    daemon("start");
    let restart = outline(tree);
    let warm = status();
    daemon("stop");
    let restart_auto = outline(tree);
    daemon("stop");
    daemon("start");
    std::thread::sleep(Duration::from_secs(1));
    let prewarmed = outline(tree);
    // Each after the same pause as the prewarmed call's: on this machine any call
    // after a second of idleness costs about a millisecond more than one right
    // after another (a warm daemon too), so back-to-back calls would flatter the floor.
    let warm_call = median(
        &(0..WARM_CALLS)
            .map(|_| {
                std::thread::sleep(Duration::from_secs(1));
                outline(tree)
            })
            .collect::<Vec<_>>(),
    );
    let log = env.log();
    let indexed = |how: &str| {
        let root = format!("root={} ", root.display());
        log.lines()
            .find(|l| l.contains(&root) && l.contains(&format!("how=\"{how}\"")))
            .and_then(|l| l.split(" ms=").nth(1)?.split(' ').next()?.parse().ok())
            .map(|ms: f64| Duration::from_secs_f64(ms / 1000.0))
    };
    Round {
        first,
        second,
        restart,
        restart_auto,
        prewarmed,
        warm_call,
        first_in: indexed("walked").expect("the first walk's log line"),
        restart_in: indexed("from the last walk's listing"),
        files,
        symbols,
        rss_both: both.rss_bytes.unwrap_or(0),
        rss_warm: warm.rss_bytes.unwrap_or(0),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The Rust corpus: first index, second worktree, one file, in-socket latency, RSS.
fn rust() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpus");
    let (repo, second) = (corpus.join("repo"), corpus.join("second"));
    assert!(
        corpus.join(".done").exists(),
        "no corpus: run `bash client/benches/fetch-corpus.sh` first"
    );
    let rs_files = count_rs(&repo.join("vendor"));
    let corpus_bytes = bytes_rs(&repo.join("vendor"));
    println!(
        "corpus: {rs_files} .rs files, {:.1} MiB ({})",
        corpus_bytes as f64 / 1048576.0,
        repo.display()
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tags = tempfile::NamedTempFile::new().unwrap();
    let ctags_tree = |dir: &Path| ctags_r("Rust", tags.path(), &dir.join("vendor"));

    let (mut first, mut second_wt, mut ctags_first, mut ctags_second, mut restart) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut last = None;
    for round in 0..ROUNDS {
        // A fresh daemon per round: empty caches, as on first use, and everything
        // ctags parses parsed (no size cut-off).
        let env = fresh_env();
        assert!(
            env.shim()
                .args(["daemon", "start"])
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success()
        );
        let conn = rt.block_on(connect(&env));
        ctags_first.push(ctags_tree(&repo));
        first.push(rt.block_on(index(&conn, &repo, Duration::from_secs(900))));
        ctags_second.push(ctags_tree(&second));
        second_wt.push(rt.block_on(index(&conn, &second, Duration::from_secs(900))));
        let before = rt.block_on(
            conn.client
                .status(tarpc::context::current(), StatusRequest {}),
        );
        // Started again: the store holds what the first daemon learned (its writer
        // flushed at exit); the first index of `repo` stats every file and parses
        // nothing that did not change.
        drop(conn);
        for step in ["stop", "start"] {
            let ok = env
                .shim()
                .args(["daemon", step])
                .stdout(Stdio::null())
                .status();
            assert!(ok.unwrap().success(), "daemon {step}");
        }
        let conn = rt.block_on(connect(&env));
        restart.push(rt.block_on(index(&conn, &repo, Duration::from_secs(900))));
        println!(
            "  round {round}: lean-ctx first {:.0} ms, second worktree {:.0} ms, restart-warm {:.0} ms; ctags {:.0} ms, {:.0} ms",
            ms(first[round]),
            ms(second_wt[round]),
            ms(restart[round]),
            ms(ctags_first[round]),
            ms(ctags_second[round])
        );
        last = Some((env, conn, before.unwrap().unwrap()));
    }
    let (env, conn, st) = last.unwrap();
    let (f, s, c1, c2, r) = (
        median(&first),
        median(&second_wt),
        median(&ctags_first),
        median(&ctags_second),
        median(&restart),
    );
    let status = || {
        rt.block_on(
            conn.client
                .status(tarpc::context::current(), StatusRequest {}),
        )
        .unwrap()
        .unwrap()
    };
    let row = st
        .projects
        .iter()
        .find(|p| p.root == repo.canonicalize().unwrap())
        .unwrap();
    let ix = row.index.as_ref().unwrap();
    println!(
        "full index (median of {ROUNDS}; {} files, {} symbols indexed):",
        ix.files_indexed, ix.symbols
    );
    println!("  lean-ctx first index        {:>8.0} ms", ms(f));
    println!("  ctags -R                    {:>8.0} ms", ms(c1));
    println!(
        "  ratio                       {:>8.2}x  (goal ≤ 1.0x)",
        ms(f) / ms(c1)
    );
    println!("second worktree of the same repository:");
    println!(
        "  lean-ctx second worktree    {:>8.0} ms   = {:.1}% of its first index (goal ≤ 5%)",
        ms(s),
        100.0 * ms(s) / ms(f)
    );
    println!("  ctags -R                    {:>8.0} ms", ms(c2));
    println!("  ratio                       {:>8.3}x", ms(s) / ms(c2));
    let warm = status();
    let warm_row = warm
        .projects
        .iter()
        .find(|p| p.root == repo.canonicalize().unwrap())
        .and_then(|p| p.index.as_ref())
        .unwrap();
    println!("restart-warm (a daemon started again over the persisted store):");
    println!(
        "  lean-ctx restart-warm       {:>8.0} ms   = {:.1}% of its first index (goal ≤ 10%)",
        ms(r),
        100.0 * ms(r) / ms(f)
    );
    println!("  ratio to ctags -R           {:>8.3}x", ms(r) / ms(c1));
    let store = warm.store.as_ref().expect("the store is on");
    println!(
        "  its caches: symbols {} cached / {} parsed; store {} parses served, {} KiB on disk, {} entries{}",
        warm_row.symbol_cache.hits,
        warm_row.symbol_cache.misses,
        store.hits,
        store.bytes / 1024,
        store.entries,
        store
            .note
            .as_ref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    );
    let second_row = st
        .projects
        .iter()
        .find(|p| p.root == second.canonicalize().unwrap())
        .and_then(|p| p.index.as_ref())
        .unwrap();
    for line in env.log().lines().filter(|l| l.contains("indexed")) {
        println!("  daemon log: {}", line.trim());
    }
    println!(
        "  its caches: content hashes {} known / {} read, symbols {} cached / {} parsed",
        second_row.hash_cache.hits,
        second_row.hash_cache.misses,
        second_row.symbol_cache.hits,
        second_row.symbol_cache.misses
    );

    // Warm whole-process outline of one file vs ctags on it.
    let file = repo.join(FILE);
    let outline = || {
        let mut c = env.shim();
        c.current_dir(&repo)
            .args(["outline", FILE])
            .stdout(Stdio::null());
        c
    };
    let ctags_x = || {
        let mut c = Command::new("ctags");
        c.args(["-x", "--languages=Rust"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let (mut ours, mut theirs) = (vec![], vec![]);
    for _ in 0..PROCESS_RUNS {
        ours.push(time(outline()));
        theirs.push(time(ctags_x()));
    }
    let (o, t) = (median(&ours), median(&theirs));
    println!("one file, whole process, warm ({FILE}, {PROCESS_RUNS} runs each, interleaved, p50):");
    println!("  lean-ctx outline FILE       {:>8.2} ms", ms(o));
    println!("  ctags -x FILE               {:>8.2} ms", ms(t));
    println!(
        "  ratio                       {:>8.2}x  (goal ≤ 1.0x)",
        ms(o) / ms(t)
    );

    let mut lat = Vec::with_capacity(SOCKET_CALLS);
    rt.block_on(async {
        for _ in 0..SOCKET_CALLS {
            let req = SymbolsOverviewRequest {
                root: repo.clone(),
                path: FILE.into(),
                depth: 1,
            };
            let t = Instant::now();
            conn.client
                .symbols_overview(tarpc::context::current(), req)
                .await
                .unwrap()
                .unwrap();
            lat.push(t.elapsed());
        }
    });
    lat.sort();
    println!("in-socket symbols_overview on a cached file ({SOCKET_CALLS} calls):");
    println!(
        "  p50 {:.3} ms, p99 {:.3} ms  (goal p50 ≤ 1 ms)",
        ms(lat[lat.len() / 2]),
        ms(lat[lat.len() * 99 / 100])
    );
    let per_symbol = |st: &lean_ctx_shared::protocol::StatusResponse| {
        let symbols: u64 = st
            .projects
            .iter()
            .filter_map(|p| p.index.as_ref())
            .map(|ix| ix.symbols)
            .max()
            .unwrap_or(0);
        (
            st.rss_bytes.unwrap_or(0) as f64 / symbols.max(1) as f64,
            symbols,
        )
    };
    let (b, n) = per_symbol(&st);
    println!(
        "daemon RSS per indexed symbol: {b:.0} bytes after the first index of both worktrees ({n} symbols each)"
    );
    let (b, n) = per_symbol(&warm);
    println!(
        "                               {b:.0} bytes after the restart-warm index of one ({n} symbols): {:.1} MiB",
        warm.rss_bytes.unwrap_or(0) as f64 / 1048576.0
    );
    println!(
        "daemon RSS after indexing both worktrees: {:.1} MiB (symbol cache {:.1} MiB in {} entries)",
        st.rss_bytes.unwrap_or(0) as f64 / 1048576.0,
        st.caches
            .iter()
            .find(|c| c.name == "symbols")
            .map_or(0, |c| c.bytes) as f64
            / 1048576.0,
        st.caches
            .iter()
            .find(|c| c.name == "symbols")
            .map_or(0, |c| c.entries)
    );
    // Gain accounting's tokenizer (about 50 MB of tables) is part of the figure
    // above; it is dropped a minute after the last call.
    std::thread::sleep(Duration::from_secs(63));
    let idle = status();
    println!(
        "daemon RSS a minute later, idle (tokenizer released): {:.1} MiB",
        idle.rss_bytes.unwrap_or(0) as f64 / 1048576.0
    );
}

fn time(mut cmd: Command) -> Duration {
    let t = Instant::now();
    assert!(cmd.status().unwrap().success());
    t.elapsed()
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            rs_files(&p, out);
        } else if t.is_file() && p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn count_rs(dir: &Path) -> usize {
    let mut v = Vec::new();
    rs_files(dir, &mut v);
    v.len()
}

fn bytes_rs(dir: &Path) -> u64 {
    let mut v = Vec::new();
    rs_files(dir, &mut v);
    v.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum()
}
