//! Warm language servers against what a per-session tool pays: `references` on a real
//! medium crate (regex-syntax from the pinned corpus) through the daemon's warm
//! rust-analyzer, side by side with a fresh rust-analyzer started for the same query
//! (a new daemon each time: spawn, load the workspace, answer). Whole processes, as an
//! agent's tool call sees them. Then eight concurrent sessions on one worktree: the
//! one shared server's RSS against eight separate servers, each in its own daemon
//! (what eight per-session tools run), all loaded at once. And a session's first
//! call: its start (`lean-ctx project`, as `lean-ctx mcp` starts) warms the server
//! while the agent reads; its first `references` against one nothing prewarmed. Last,
//! a "who calls this, and change the call" task in tokens against the built-in way.
//!
//! Run: `bash client/benches/fetch-corpus.sh && cargo build --release --workspace --bins
//! && cargo bench -p lean-ctx-client --bench lsp`

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

use lean_ctx_testkit::{TestEnv, rust_analyzer};
use serde_json::Value;

const COLD_RUNS: usize = 3;
const WARM_RUNS: usize = 30;
const SESSIONS: usize = 8;

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpus/repo/vendor");
    let krate = fs::read_dir(&corpus)
        .unwrap_or_else(|_| panic!("no corpus: run client/benches/fetch-corpus.sh first"))
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("regex-syntax-")
        })
        .expect("regex-syntax in the corpus");
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("regex-syntax");
    let status = Command::new("cp")
        .arg("-r")
        .arg(&krate)
        .arg(&project)
        .status()
        .unwrap();
    assert!(status.success());
    let at = position(&project, "src/hir/mod.rs", "pub struct Hir {", "Hir");
    // `-- who-calls`: that task alone, on one warm server.
    if std::env::args().any(|a| a == "who-calls") {
        let env = world(&project);
        timed(&env, &project, &at);
        who_calls_and_fix(&env, &project);
        return;
    }
    println!("references to `Hir` at {at} in {}", krate.display());

    let mut cold = Vec::new();
    let mut warm_env = None;
    for _ in 0..COLD_RUNS {
        let env = world(&project);
        let ms = timed(&env, &project, &at);
        cold.push(ms);
        warm_env = Some(env);
    }
    let env = warm_env.unwrap();
    let mut warm: Vec<f64> = (0..WARM_RUNS).map(|_| timed(&env, &project, &at)).collect();

    // A session's start warms the server: `lean-ctx project` (what `lean-ctx mcp`
    // sends first) at t0, the server ready while the agent reads, then its first
    // `references`; against the first call of a session that started nothing (the
    // fresh runs above: spawn, load, answer).
    let mut prewarmed = Vec::new();
    let mut ready_after = Vec::new();
    for _ in 0..COLD_RUNS {
        let env = world(&project);
        let t0 = Instant::now();
        let out = env
            .shim()
            .current_dir(&project)
            .arg("project")
            .output()
            .unwrap();
        assert!(out.status.success());
        while !status_of(&env)["language_servers"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["state"] == "ready"))
        {
            assert!(t0.elapsed().as_secs() < 600, "no server warmed");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        ready_after.push(t0.elapsed().as_secs_f64() * 1e3);
        prewarmed.push(timed(&env, &project, &at));
    }

    let handles: Vec<_> = (0..SESSIONS)
        .map(|_| {
            let (envs, cwd, at) = (env.envs(), project.clone(), at.clone());
            std::thread::spawn(move || {
                let out = Command::new(env!("CARGO_BIN_EXE_lean-ctx"))
                    .env_clear()
                    .envs(envs)
                    .current_dir(cwd)
                    .args(["--json", "refactor", "references", &at])
                    .output()
                    .unwrap();
                assert!(out.status.success());
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let st = status_of(&env);
    let servers = st["language_servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "one server for every session");
    let shared = servers[0]["rss_bytes"].as_u64().unwrap();
    // Eight separate servers: eight isolated daemons, one query each, all at once.
    let separate: Vec<TestEnv> = (0..SESSIONS).map(|_| world(&project)).collect();
    std::thread::scope(|scope| {
        for env in &separate {
            let (project, at) = (&project, &at);
            scope.spawn(move || timed(env, project, at));
        }
    });
    let separate_rss: Vec<u64> = separate
        .iter()
        .map(|env| {
            status_of(env)["language_servers"][0]["rss_bytes"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let total_separate: u64 = separate_rss.iter().sum();

    let (c50, w50) = (median(&mut cold), median(&mut warm));
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    println!("whole process `lean-ctx refactor references`:");
    println!("  fresh rust-analyzer per query ({COLD_RUNS} runs)  p50 {c50:>9.1} ms");
    println!("  warm shared server ({WARM_RUNS} runs)            p50 {w50:>9.1} ms");
    println!(
        "  ratio warm / fresh                       {:>9.4}x",
        w50 / c50
    );
    let (r50, p50) = (median(&mut ready_after), median(&mut prewarmed));
    println!("a session's first `references` ({COLD_RUNS} sessions each):");
    println!("  session start -> server ready (prewarm)  p50 {r50:>9.1} ms");
    println!("  first call, server prewarmed             p50 {p50:>9.1} ms");
    println!("  first call, nothing prewarmed            p50 {c50:>9.1} ms");
    println!(
        "  ratio prewarmed / cold                   {:>9.4}x",
        p50 / c50
    );
    println!("memory, {SESSIONS} sessions on one worktree:");
    println!(
        "  one shared server                        {:>9.1} MiB",
        mib(shared)
    );
    println!(
        "  {SESSIONS} separate servers, running at once         {:>9.1} MiB",
        mib(total_separate)
    );
    println!(
        "  ratio                                    {:>9.3}x",
        shared as f64 / total_separate as f64
    );
    who_calls_and_fix(&env, &project);
}

/// "Who calls `is_meta_character`? Change the call in src/ast/parse.rs": through
/// lean-ctx (the call hierarchy by name, a one-line window for its hash, a line
/// edit under it) against the built-in way (ripgrep, the 2,000-line page of the
/// 6,398-line file that holds the call, a string edit), in o200k tokens read (the
/// answers) and sent (the arguments), to the same end state.
fn who_calls_and_fix(env: &TestEnv, project: &Path) {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |s: &str| bpe.encode_ordinary(s).len();
    let (mut read, mut sent) = (0, 0);
    let mut lean = |args: &[&str]| {
        let out = env.shim().current_dir(project).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        read += tokens(&text);
        sent += tokens(&args[1..].join(" "));
        text
    };
    let callers = lean(&[
        "refactor",
        "call-hierarchy",
        "--name-path",
        "is_meta_character",
    ]);
    let row = callers
        .lines()
        .find(|l| l.contains("src/ast/parse.rs:"))
        .expect("a caller in src/ast/parse.rs");
    let line = row
        .rsplit("at ")
        .next()
        .and_then(|sites| sites.split(':').next())
        .unwrap()
        .to_string();
    let window = lean(&[
        "read",
        "src/ast/parse.rs",
        "--start-line",
        &line,
        "--end-line",
        &line,
    ]);
    let hash = window.split("hash ").nth(1).unwrap()[..16].to_string();
    let code = window.lines().nth(1).unwrap().split_once(' ').unwrap().1;
    let indent = &code[..code.len() - code.trim_start().len()];
    let new = format!("{indent}// Checked by the agent.\n{code}");
    lean(&[
        "refactor",
        "replace-lines",
        "src/ast/parse.rs",
        "--line",
        &line,
        "--expected-hash",
        &hash,
        "--text",
        &new,
    ]);
    let (lean_read, lean_sent) = (read, sent);

    // The built-in way, on the same text as it was.
    let path = project.join("src/ast/parse.rs");
    let grep = Command::new("rg")
        .current_dir(project)
        .args(["-n", "is_meta_character(", "src"])
        .output()
        .unwrap();
    let grep = String::from_utf8(grep.stdout).unwrap();
    let now = fs::read_to_string(&path).unwrap();
    let before = now.replacen(&format!("{indent}// Checked by the agent.\n"), "", 1);
    let at: usize = line.parse().unwrap();
    let page: String = before
        .lines()
        .enumerate()
        .skip((at - 1) / 2000 * 2000)
        .take(2000)
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect();
    let confirm = "The file src/ast/parse.rs has been updated.";
    let builtin_read = tokens(&grep) + tokens(&page) + tokens(confirm);
    let builtin_sent = tokens("is_meta_character( src")
        + tokens("src/ast/parse.rs")
        + tokens(&format!("src/ast/parse.rs{code}{new}"));
    assert!(now.contains(&new), "the call is changed");
    println!(
        "who calls is_meta_character, then change the call in src/ast/parse.rs (o200k tokens):"
    );
    println!(
        "  lean-ctx (call hierarchy, a window, a line edit)  read {lean_read:>6}  sent {lean_sent:>4}"
    );
    println!(
        "  built-in (rg, the 2,000-line page, an edit)       read {builtin_read:>6}  sent {builtin_sent:>4}"
    );
    println!(
        "  ratio (read + sent)                                {:>9.3}x",
        (lean_read + lean_sent) as f64 / (builtin_read + builtin_sent) as f64
    );
}

/// An isolated daemon world whose rust-analyzer is the real one, `project` trusted.
fn world(project: &Path) -> TestEnv {
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    env.write_config(&format!(
        "[lsp]\nrust = [{:?}]\n",
        rust_analyzer().display().to_string()
    ));
    env.trust(project);
    env
}

/// `path:line:column` of `name` on the line holding `needle`.
fn position(root: &Path, rel: &str, needle: &str, name: &str) -> String {
    let text = fs::read_to_string(root.join(rel)).unwrap();
    let (i, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .expect("needle in the file");
    let column = line[..line.find(needle).unwrap() + needle.find(name).unwrap()]
        .chars()
        .count();
    format!("{rel}:{}:{column}", i + 1)
}

/// One whole `references` call (the CLI waits through INDEXING), in ms.
fn timed(env: &TestEnv, cwd: &PathBuf, at: &str) -> f64 {
    let t = Instant::now();
    let out = env
        .shim()
        .current_dir(cwd)
        .args(["--json", "refactor", "references", at])
        .output()
        .unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        out.status.success() && v["total"].as_u64().unwrap() > 10,
        "{v}"
    );
    ms
}

fn status_of(env: &TestEnv) -> Value {
    let (out, v) = env.shim_json(&["daemon", "status"]);
    assert!(out.status.success());
    v
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
