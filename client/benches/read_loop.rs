//! Tokens of an agent's reading loop on a real crate, lean-ctx against reading whole
//! files, counted with o200k (the tokenizer gain accounting uses) over exactly the
//! text each answer prints. The loop, on `semver` from the pinned Rust corpus
//! (copied, git-initialised), one session: find `Version::new` (a symbol search),
//! read the file's map, read the symbol, edit it by its hash, read it again, a
//! colleague changes it, read it again, edit it again by the fresh hash. The
//! alternative reads the whole file (numbered lines, as agents' read tools print it)
//! wherever the loop reads, and finds the symbol by grep; edits cost the same text
//! either way, so they are left out of both.
//!
//! Run: `cargo bench -p lean-ctx-client --bench read_loop` (no network; the debug
//! profile gives the same counts: `--profile dev`).

use std::{fs, process::Command};

use lean_ctx_testkit::{TestEnv, git};

const NEW: &str = "pub const fn new(major: u64, minor: u64, patch: u64) -> Self {\n    // Built by the agent.\n    Version {\n        major,\n        minor,\n        patch,\n        pre: Prerelease::EMPTY,\n        build: BuildMetadata::EMPTY,\n    }\n}";

fn main() {
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    let root = env.dir().join("semver");
    lean_ctx_testkit::copy_dir(&lean_ctx_testkit::corpus_crate("semver"), &root);
    git(&root, &["init", "-q"]);
    let lib = root.join("src/lib.rs");
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |s: &str| bpe.encode_ordinary(s).len();
    let run = |args: &[&str]| -> String {
        let out = env
            .shim()
            .current_dir(&root)
            .env("LEAN_CTX_SESSION", "bench")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let hash = |answer: &str| -> String {
        let at = answer.find("hash ").expect("a hash") + 5;
        answer[at..at + 16].to_string()
    };
    // What an agent's read tool prints for the whole file: `cat -n`.
    let whole = || -> usize {
        let text = fs::read_to_string(&lib).unwrap();
        let numbered: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
            .collect();
        tokens(&numbered)
    };
    let grep = || -> usize {
        let out = Command::new("grep")
            .args(["-rn", "fn new(", "src"])
            .current_dir(&root)
            .output()
            .unwrap();
        tokens(&String::from_utf8_lossy(&out.stdout))
    };

    let mut ours: Vec<(&str, usize)> = Vec::new();
    let mut theirs: Vec<(&str, usize)> = Vec::new();
    ours.push(("find", tokens(&run(&["search", "Version/new"]))));
    theirs.push(("find", grep()));
    ours.push((
        "map",
        tokens(&run(&["read", "src/lib.rs", "--mode", "map"])),
    ));
    let symbol = run(&["read", "src/lib.rs", "--name-path", "Version/new"]);
    ours.push(("read symbol", tokens(&symbol)));
    theirs.push(("read", whole()));
    run(&[
        "refactor",
        "replace-symbol-body",
        "--name-path",
        "Version/new",
        "--path",
        "src/lib.rs",
        "--new-body",
        NEW,
        "--expected-hash",
        &hash(&symbol),
    ]);
    theirs.push(("re-read after the edit", whole()));
    ours.push((
        "re-read after the edit",
        tokens(&run(&["read", "src/lib.rs", "--name-path", "Version/new"])),
    ));
    let text = fs::read_to_string(&lib).unwrap();
    fs::write(
        &lib,
        text.replace("// Built by the agent.", "// Changed by a colleague."),
    )
    .unwrap();
    let diff = run(&["read", "src/lib.rs", "--name-path", "Version/new"]);
    ours.push(("re-read after a change (diff)", tokens(&diff)));
    theirs.push(("re-read after a change", whole()));
    run(&[
        "refactor",
        "replace-symbol-body",
        "--name-path",
        "Version/new",
        "--path",
        "src/lib.rs",
        "--new-body",
        &NEW.replace("agent", "agent again"),
        "--expected-hash",
        &hash(&diff),
    ]);

    let sum = |v: &[(&str, usize)]| v.iter().map(|(_, n)| n).sum::<usize>();
    println!("reading loop on semver src/lib.rs (o200k tokens of what the agent reads)");
    for (label, n) in &ours {
        println!("  lean-ctx  {label:<32} {n:>6}");
    }
    for (label, n) in &theirs {
        println!("  whole     {label:<32} {n:>6}");
    }
    let (a, b) = (sum(&ours), sum(&theirs));
    println!(
        "  total: lean-ctx {a}, whole files {b}: {:.1}x fewer",
        b as f64 / a as f64
    );
}
