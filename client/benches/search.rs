//! Warm content search against spawning ripgrep on the same tree, whole process each,
//! rounds alternating so machine noise hits both alike: `lean-ctx search
//! --text|--regex` (a warm daemon, its index ready) vs `rg`, for a rare and a common
//! literal, a case-insensitive literal, a regex with literal runs and one with no
//! three characters in a row (nothing for the text index to plan on), one found
//! everywhere and one found almost nowhere. Each pattern's matching lines are compared
//! first, file by file (`-l` pages against `rg -c`), so both did the same search.
//! Timed: `lean-ctx search --limit 1000` (an answer of at most 1,000 lines; the
//! search stops reading once they are found) against `rg` printing every line and
//! against `rg | head -n 1000` (the same answer, ripgrep stopping at the closed pipe).
//! Each answer's `searched` says how many files the text index left to read, how many
//! were read before the answer was full, and their bytes. Per corpus also: the first index with and without the text index
//! (`[index] text_index`), alternating, then that daemon's first search (with the
//! text index it waits for the fill the walk's end makes), and the daemon's resident
//! memory after each once it settles (the walk's lists frozen, its buffers given
//! back).
//!
//! Corpora: the pinned crates (`fetch-corpus.sh`, 7,621 files), and when
//! `fetch-scale.sh` has run, Kubernetes 1.31.3 from the Go module proxy (one real
//! large repository, opened at its directory in the composite) and the whole
//! 105,338-file composite. `LEAN_CTX_SEARCH_ROUNDS` sets the rounds (default 30;
//! the larger corpora take a third of them); words after `--` keep the corpora
//! whose label starts with one of them (`-- crates kubernetes`).
//!
//! Run: `bash client/benches/fetch-corpus.sh && bash client/benches/fetch-scale.sh && cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench search`
//! (needs ripgrep: `apt-get install ripgrep`).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Instant,
};

use lean_ctx_testkit::TestEnv;

/// The largest limit the daemon allows: as many lines as it will list.
const LIMIT: &str = "1000";
/// A literal no corpus holds: the first index's first search finds nothing.
const ABSENT: &str = "qzx_absent_from_every_corpus_xzq";

/// A pattern with no three characters in a row that few lines hold: every file is
/// read and the answer never fills (the whole scan against ripgrep's).
const NO_TRIGRAM_RARE: &str = r"\b[a-z]\d[a-z]\d[a-z]\d[a-z]\b";

/// (label, lean-ctx mode, pattern, ignore case)
type Case = (&'static str, &'static str, &'static str, bool);

/// A corpus: its label, its directory under `target/`, and its cases.
struct Corpus {
    label: &'static str,
    dir: &'static str,
    large: bool,
    cases: &'static [Case],
}

const CORPORA: &[Corpus] = &[
    Corpus {
        label: "crates (7,621 files)",
        dir: "bench-corpus/repo",
        large: false,
        cases: &[
            ("rare literal", "--text", "poll_ready", false),
            ("common literal", "--text", "unsafe", false),
            ("literal, ignore case", "--text", "deprecated", true),
            ("regex", "--regex", r"fn \w+_mut\(", false),
            ("regex, no trigram", "--regex", r"\d{4}-\d\d", false),
            ("regex, no trigram, rare", "--regex", NO_TRIGRAM_RARE, false),
        ],
    },
    Corpus {
        label: "Kubernetes 1.31.3",
        dir: "scale-corpus/repo/go/k8s.io/kubernetes",
        large: true,
        cases: &[
            ("rare literal", "--text", "PodSandboxStatus", false),
            ("common literal", "--text", "return err", false),
            ("literal, ignore case", "--text", "deprecated", true),
            (
                "regex",
                "--regex",
                r"func \(\w+ \*\w+\) Validate\w*\(",
                false,
            ),
            ("regex, no trigram", "--regex", r"\d{4}-\d\d", false),
            ("regex, no trigram, rare", "--regex", NO_TRIGRAM_RARE, false),
        ],
    },
    Corpus {
        label: "composite (105,338 files)",
        dir: "scale-corpus/repo",
        large: true,
        cases: &[
            ("rare literal", "--text", "poll_ready", false),
            ("common literal", "--text", "return err", false),
            ("literal, ignore case", "--text", "deprecated", true),
            ("regex", "--regex", r"fn \w+_mut\(", false),
            ("regex, no trigram", "--regex", r"\d{4}-\d\d", false),
            ("regex, no trigram, rare", "--regex", NO_TRIGRAM_RARE, false),
        ],
    },
];

fn main() {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target");
    assert!(
        target.join("bench-corpus/.done").exists(),
        "no corpus: run `bash client/benches/fetch-corpus.sh` first"
    );
    assert!(
        Command::new("rg")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "no ripgrep: `apt-get install ripgrep`"
    );
    let rounds: usize = std::env::var("LEAN_CTX_SEARCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let scale = target.join("scale-corpus/.done").exists();
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.to_lowercase())
        .collect();
    let chosen =
        |label: &str| only.is_empty() || only.iter().any(|o| label.to_lowercase().starts_with(o));
    for corpus in CORPORA.iter().filter(|c| chosen(c.label)) {
        if corpus.large && !scale {
            println!(
                "{}: skipped (run `bash client/benches/fetch-scale.sh`)",
                corpus.label
            );
            continue;
        }
        let rounds = if corpus.large {
            (rounds / 3).max(3)
        } else {
            rounds
        };
        bench(corpus, &target.join(corpus.dir), rounds);
    }
}

/// A daemon of its own with the text index on or off; no size cut-off, so every
/// file rg searches is indexed.
fn env(text_index: bool) -> TestEnv {
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    std::fs::create_dir_all(&env.paths.config_dir).unwrap();
    std::fs::write(
        env.paths.config_file(),
        // The composite's lists (about 230 MB) pass the default cap's quarter.
        format!(
            "[index]\nmax_file_bytes = 1073741824\nstore_max_bytes = 4294967296\ntext_index = {text_index}\n"
        ),
    )
    .unwrap();
    env
}

fn bench(corpus: &Corpus, repo: &Path, rounds: usize) {
    let bytes = searched_bytes(repo);
    println!(
        "\n== {} ({}): {:.1} MiB of text rg searches",
        corpus.label,
        repo.display(),
        bytes as f64 / (1 << 20) as f64
    );
    // The first index with and without the text index, alternating: five rounds
    // each (two over a GiB of text), a ratio per round, their median reported.
    let first_rounds = if bytes > 1 << 30 { 2 } else { 5 };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    // And the first search made right after (a literal in no file): with the text
    // index it waits for the fill the walk's end makes; without, it reads every file.
    let (mut then_with, mut then_without) = (Vec::new(), Vec::new());
    let mut rss = (0, 0);
    let mut kept = None;
    for round in 0..first_rounds {
        for text_index in [true, false] {
            let env = env(text_index);
            let t = Instant::now();
            // The corpus's own directory is the project, even inside the composite's
            // repository.
            env.ok(repo, &["--root", ".", "tree", "--depth", "0"]);
            let answered = ms(t);
            let (out, v) = env.shim_json_in(repo, &["--root", ".", "search", "--text", ABSENT]);
            assert_eq!(out.status.code(), Some(1), "{v}");
            let then = ms(t);
            // What follows the answer settles first: the text index's lists are
            // frozen and its snapshot kept (or found too large to keep), the walk's
            // buffers given back; then until three seconds in a row move it by less
            // than 1%, at most 60 s each. (A rate alone stopped in the middle of a
            // long freeze on the composite.)
            if text_index {
                let settled = || {
                    let log = env.log();
                    log.contains("text index is larger")
                        || log.contains("cannot keep the text")
                        || has_text_snapshot(&env.paths.index_store_dir())
                };
                for _ in 0..120 {
                    if settled() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
            }
            let mut resident = rss_kib(&env);
            let mut still = 0;
            for _ in 0..60 {
                std::thread::sleep(std::time::Duration::from_secs(1));
                let now = rss_kib(&env);
                still = match now.abs_diff(resident) * 100 < resident {
                    true => still + 1,
                    false => 0,
                };
                resident = now;
                if still == 3 {
                    break;
                }
            }
            match text_index {
                true => {
                    with.push(answered);
                    then_with.push(then);
                    rss.0 = resident;
                }
                false => {
                    without.push(answered);
                    then_without.push(then);
                    rss.1 = resident;
                }
            }
            // The last daemon with the text index answers the searches.
            if text_index && round == first_rounds - 1 {
                kept = Some(env);
            }
        }
    }
    let env = kept.unwrap();
    let status = env.ok(repo, &["--root", ".", "daemon", "status"]);
    let text = status["caches"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "text_index"))
        .cloned()
        .unwrap_or_default();
    let index_bytes = text["bytes"].as_u64().unwrap_or(0);
    let mut ratios: Vec<f64> = with.iter().zip(&without).map(|(w, o)| w / o).collect();
    let shown = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "first index, ms (with / without the text index): {} / {}: median ratio {:.2}x",
        shown(&with),
        shown(&without),
        stats(&mut ratios).0
    );
    let mut ratios: Vec<f64> = then_with
        .iter()
        .zip(&then_without)
        .map(|(w, o)| w / o)
        .collect();
    println!(
        "first index and a first search, ms (with: the search waits for the text index's fill / without: it reads every file): {} / {}: median ratio {:.2}x",
        shown(&then_with),
        shown(&then_without),
        stats(&mut ratios).0
    );
    println!(
        "text index: {} contents, {:.1} MiB of posting lists ({:.3} B per text byte); daemon RSS {:.0} MiB with, {:.0} MiB without ({:.3} B per text byte)",
        text["entries"],
        index_bytes as f64 / (1 << 20) as f64,
        index_bytes as f64 / bytes as f64,
        rss.0 as f64 / 1024.0,
        rss.1 as f64 / 1024.0,
        (rss.0 as f64 - rss.1 as f64) * 1024.0 / bytes as f64
    );

    let ours = |mode: &str, pattern: &str, ci: bool| {
        let mut c = env.shim();
        c.current_dir(repo)
            .args(["--root", ".", "search", mode, pattern, "--limit", LIMIT]);
        if ci {
            c.arg("-i");
        }
        c
    };
    let theirs = |mode: &str, pattern: &str, ci: bool| {
        let mut c = rg(repo, mode, ci, "-n");
        c.arg("--").arg(pattern);
        c
    };

    let head = |mode: &str, pattern: &str, ci: bool| {
        let mut c = Command::new("sh");
        c.current_dir(repo).stdin(Stdio::null()).args([
            "-c",
            r#"rg --no-config -n $1 -- "$2" | head -n $3"#,
            "sh",
            &rg_flags(mode, ci),
            pattern,
            LIMIT,
        ]);
        c
    };

    println!("warm, whole process, {rounds} rounds each, alternating (p50 / p90 / mean, ms):");
    for &(label, mode, pattern, ci) in corpus.cases {
        // The same search: matching lines per file by both.
        let ours_files = matching_files(&env, repo, mode, pattern, ci);
        let rg_files = rg_counts(repo, mode, pattern, ci);
        let lines: u64 = rg_files.values().sum();
        let same = if ours_files == rg_files {
            "same in every file"
        } else {
            "DIFFERENT"
        };
        let mut json = ours(mode, pattern, ci);
        json.arg("--json");
        let v: serde_json::Value = serde_json::from_slice(&json.output().unwrap().stdout).unwrap();
        let searched = &v["searched"];
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(time(ours(mode, pattern, ci)));
            b.push(time(theirs(mode, pattern, ci)));
            c.push(time(head(mode, pattern, ci)));
        }
        let (a50, a90, amean) = stats(&mut a);
        let (b50, b90, bmean) = stats(&mut b);
        let (c50, c90, cmean) = stats(&mut c);
        println!(
            "  {label} {pattern:?}: {lines} lines in {} files (rg's; ours: {same}); the timed answer read {} of {} files ({} left unread once full), {:.1} MiB",
            rg_files.len(),
            searched["read"],
            searched["files"],
            searched["unread"],
            searched["bytes_read"].as_u64().unwrap_or(0) as f64 / (1 << 20) as f64
        );
        println!("    lean-ctx search {mode}  {a50:>8.2} {a90:>8.2} {amean:>8.2}");
        println!("    rg                     {b50:>8.2} {b90:>8.2} {bmean:>8.2}");
        println!("    rg | head -n {LIMIT}       {c50:>8.2} {c90:>8.2} {cmean:>8.2}");
        println!(
            "    ratio to rg            {:>7.3}x {:>7.3}x {:>7.3}x",
            a50 / b50,
            a90 / b90,
            amean / bmean
        );
        println!(
            "    ratio to rg | head     {:>7.3}x {:>7.3}x {:>7.3}x",
            a50 / c50,
            a90 / c90,
            amean / cmean
        );
    }
}

/// rg's flags for a search: fixed strings for `--text`, `-i` when asked.
fn rg_flags(mode: &str, ci: bool) -> String {
    let mut flags = vec![];
    if mode == "--text" {
        flags.push("-F");
    }
    if ci {
        flags.push("-i");
    }
    flags.join(" ")
}

/// Every file our search finds, with its matching lines: `-l` pages of 1,000 files
/// until the answer is complete.
fn matching_files(
    env: &TestEnv,
    repo: &Path,
    mode: &str,
    pattern: &str,
    ci: bool,
) -> BTreeMap<String, u64> {
    let mut found = BTreeMap::new();
    loop {
        let skip = found.len().to_string();
        let mut args = vec!["--root", ".", "search", mode, pattern, "-l"];
        args.extend(["--limit", LIMIT, "--skip", &skip]);
        if ci {
            args.push("-i");
        }
        let (_, v) = env.shim_json_in(repo, &args);
        for f in v["matching_files"].as_array().unwrap() {
            let path = f["path"].as_str().unwrap().to_string();
            found.insert(path, f["lines"].as_u64().unwrap());
        }
        if v["truncated"] != true {
            return found;
        }
    }
}

/// `rg --no-config OUTPUT` in `repo`, fixed strings for `--text`, `-i` when asked;
/// never with the bench's stdin (rg searches a readable stdin instead of the tree).
fn rg(repo: &Path, mode: &str, ci: bool, output: &str) -> Command {
    let mut c = Command::new("rg");
    c.current_dir(repo)
        .stdin(Stdio::null())
        .args(["--no-config", output]);
    if mode == "--text" {
        c.arg("-F");
    }
    if ci {
        c.arg("-i");
    }
    c
}

/// rg's matching lines per file (`rg -c`).
fn rg_counts(repo: &Path, mode: &str, pattern: &str, ci: bool) -> BTreeMap<String, u64> {
    let out = rg(repo, mode, ci, "-c")
        .arg("--")
        .arg(pattern)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit_once(':'))
        .map(|(path, n)| (path.to_string(), n.parse().unwrap()))
        .collect()
}

/// The bytes of the files rg searches in `repo` (`rg --files`: ignore rules,
/// no hidden files).
fn searched_bytes(repo: &Path) -> u64 {
    let out = Command::new("rg")
        .current_dir(repo)
        .args(["--no-config", "--files", "-0"])
        .output()
        .unwrap();
    out.stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| std::fs::metadata(repo.join(String::from_utf8_lossy(p).as_ref())).ok())
        .map(|m| m.len())
        .sum()
}

/// Whether a text index snapshot is kept under the store directory `dir` (in its
/// build's directory).
fn has_text_snapshot(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|builds| {
        builds
            .flatten()
            .any(|b| b.path().join(lean_ctx_shared::index_store::TEXT).exists())
    })
}

/// The daemon's resident set, in KiB.
fn rss_kib(env: &TestEnv) -> u64 {
    let pid = env.daemon_pid().expect("a daemon");
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}

fn time(mut cmd: Command) -> f64 {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let t = Instant::now();
    let status = cmd.status().unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    // Exit 1: nothing matched (both tools, as grep).
    assert!(matches!(status.code(), Some(0 | 1)), "{cmd:?}");
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
