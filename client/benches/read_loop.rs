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
//! The second loop is a change that touches configuration and code on the same
//! crate: raise the serde dependency in both entries of `Cargo.toml` and change the
//! code that uses it (`src/serde.rs`). With lean-ctx: a text search with a glob and
//! context, a window of the manifest, two line edits under the hashes held, a search
//! of the code, a window of it, a line edit, and the re-reads that check them. The
//! alternative: grep with context, the whole manifest read before editing it, grep of
//! the code, the whole code file read, and each file read again to check. Edits'
//! own text is left out of both, as above.
//!
//! Run: `cargo bench -p lean-ctx-client --bench read_loop` (no network; the debug
//! profile gives the same counts: `--profile dev`).

use std::{fs, process::Command};

use lean_ctx_testkit::{TestEnv, git};

const NEW: &str = "pub const fn new(major: u64, minor: u64, patch: u64) -> Self {\n    // Built by the agent.\n    Version {\n        major,\n        minor,\n        patch,\n        pre: Prerelease::EMPTY,\n        build: BuildMetadata::EMPTY,\n    }\n}";

fn main() {
    reading_loop();
    mixed_task();
}

/// What an agent's read tool prints for a whole file: `cat -n`.
fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect()
}

/// semver from the pinned Rust corpus, copied and git-initialised, with the shim
/// that runs in it as one session and the tokenizer that counts.
struct Semver {
    env: TestEnv,
    root: std::path::PathBuf,
    bpe: tiktoken_rs::CoreBPE,
}

impl Semver {
    fn new() -> Semver {
        let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
        let root = env.dir().join("semver");
        lean_ctx_testkit::copy_dir(&lean_ctx_testkit::corpus_crate("semver"), &root);
        git(&root, &["init", "-q"]);
        let bpe = tiktoken_rs::o200k_base().unwrap();
        Semver { env, root, bpe }
    }

    fn tokens(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    /// `lean-ctx ARGS` in the crate, as the session `bench`: its text.
    fn run(&self, args: &[&str]) -> String {
        let out = self
            .env
            .shim()
            .current_dir(&self.root)
            .env("LEAN_CTX_SESSION", "bench")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

/// Both columns, labelled, and their totals.
fn report(title: &str, ours: &[(&str, usize)], theirs: &[(&str, usize)]) {
    let sum = |v: &[(&str, usize)]| v.iter().map(|(_, n)| n).sum::<usize>();
    println!("{title} (o200k tokens of what the agent reads)");
    for (label, n) in ours {
        println!("  lean-ctx  {label:<40} {n:>6}");
    }
    for (label, n) in theirs {
        println!("  built-in  {label:<40} {n:>6}");
    }
    let (a, b) = (sum(ours), sum(theirs));
    println!(
        "  total: lean-ctx {a}, built-in tools {b}: {:.1}x fewer",
        b as f64 / a as f64
    );
}

fn reading_loop() {
    let semver = Semver::new();
    let (root, tokens) = (&semver.root, |s: &str| semver.tokens(s));
    let run = |args: &[&str]| semver.run(args);
    let lib = root.join("src/lib.rs");
    let hash = |answer: &str| -> String {
        let at = answer.find("hash ").expect("a hash") + 5;
        answer[at..at + 16].to_string()
    };
    let whole = || tokens(&numbered(&fs::read_to_string(&lib).unwrap()));
    let grep = || -> usize {
        let out = Command::new("grep")
            .args(["-rn", "fn new(", "src"])
            .current_dir(root)
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

    report("reading loop on semver src/lib.rs", &ours, &theirs);
}

fn mixed_task() {
    let semver = Semver::new();
    let (root, tokens) = (&semver.root, |s: &str| semver.tokens(s));
    let run = |args: &[&str]| semver.run(args);
    let hash = |answer: &str, marker: &str| -> String {
        let at = answer.find(marker).expect("a hash") + marker.len();
        answer[at..at + 16].to_string()
    };
    let whole = |path: &str| tokens(&numbered(&fs::read_to_string(root.join(path)).unwrap()));
    let grep = |args: &[&str]| -> usize {
        let out = Command::new("grep")
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        tokens(&String::from_utf8_lossy(&out.stdout))
    };
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let old = "version = \"1.0.220\"";
    let lines: Vec<u32> = manifest
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == old)
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(lines.len(), 2, "semver's two serde entries");
    let (first, last) = (lines[0] - 1, lines[1] + 1);

    let mut ours: Vec<(&str, usize)> = Vec::new();
    let mut theirs: Vec<(&str, usize)> = Vec::new();
    let found = run(&["search", "--text", old, "-g", "Cargo.toml", "-C", "1"]);
    ours.push(("find the dependency (glob, context)", tokens(&found)));
    theirs.push((
        "grep -n -C1 the dependency",
        grep(&["-n", "-C1", old, "Cargo.toml"]),
    ));
    let window = run(&[
        "read",
        "Cargo.toml",
        "--start-line",
        &first.to_string(),
        "--end-line",
        &last.to_string(),
    ]);
    ours.push(("read the window of both entries", tokens(&window)));
    theirs.push(("read the manifest", whole("Cargo.toml")));
    let new = "version = \"1.0.228\"";
    let edited = run(&[
        "refactor",
        "replace-lines",
        "Cargo.toml",
        "--line",
        &lines[0].to_string(),
        "--text",
        new,
        "--expected-hash",
        &hash(&window, "hash "),
    ]);
    // The second line under the file's new hash the first edit answered.
    run(&[
        "refactor",
        "replace-lines",
        "Cargo.toml",
        "--line",
        &lines[1].to_string(),
        "--text",
        new,
        "--expected-hash",
        &hash(&edited, "file hash "),
    ]);
    let code = run(&["search", "--text", "collect_str", "-g", "*.rs"]);
    ours.push(("find the code that uses it", tokens(&code)));
    theirs.push(("grep -rn the code", grep(&["-rn", "collect_str", "src"])));
    let at: u32 = code
        .lines()
        // `  LINE  text` under its path, or `path:LINE  text`.
        .find_map(|l| {
            let l = l.trim();
            let l = l.rsplit_once(".rs:").map_or(l, |(_, rest)| rest);
            l.split_whitespace().next()?.parse().ok()
        })
        .expect("a hit");
    let code_window = run(&[
        "read",
        "src/serde.rs",
        "--start-line",
        &(at - 5).to_string(),
        "--end-line",
        &(at + 2).to_string(),
    ]);
    ours.push(("read the code around it", tokens(&code_window)));
    theirs.push(("read src/serde.rs", whole("src/serde.rs")));
    run(&[
        "refactor",
        "replace-lines",
        "src/serde.rs",
        "--line",
        &at.to_string(),
        "--text",
        "        serializer.collect_str(&self)",
        "--expected-hash",
        &hash(&code_window, "hash "),
    ]);
    let check = |path: &str, first: u32, last: u32| {
        tokens(&run(&[
            "read",
            path,
            "--start-line",
            &first.to_string(),
            "--end-line",
            &last.to_string(),
        ]))
    };
    ours.push((
        "re-read the manifest window",
        check("Cargo.toml", first, last),
    ));
    theirs.push(("re-read the manifest", whole("Cargo.toml")));
    ours.push((
        "re-read the code window",
        check("src/serde.rs", at - 5, at + 2),
    ));
    theirs.push(("re-read src/serde.rs", whole("src/serde.rs")));
    assert_eq!(
        fs::read_to_string(root.join("Cargo.toml"))
            .unwrap()
            .matches(new)
            .count(),
        2,
        "the task's end state"
    );
    report(
        "mixed task on semver: a dependency raised and the code that uses it",
        &ours,
        &theirs,
    );
}
