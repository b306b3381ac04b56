//! The whole worktree, not only its code, end to end through real shims and the real
//! daemon over a git repository that mixes Rust, TOML, YAML, Markdown, a shell script,
//! a binary and an oversized file: every text file listed with its kind, searched
//! (globs, context, files only, a line saying what was searched when nothing
//! matched), read, edited by lines under the hash the agent holds (the file's, a
//! window's, a symbol's) and created; what is not indexed is named, never left out;
//! exit codes as grep's (1: nothing found, 2: an error).

use std::{
    fs,
    path::{Path, PathBuf},
    process::Output,
};

use lean_ctx_testkit::{TestEnv, git};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

const CARGO: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nrust-version = \"1.70\"\n\n[dependencies]\nserde = \"1.0\"\n";
const LIB: &str = "pub fn answer() -> u8 {\n    let x = 41;\n    x + 1\n}\n";
const CI: &str = "on: push\njobs:\n  build:\n    runs-on: ubuntu\n";

fn fixture() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    fs::create_dir_all(root.join("src")).unwrap();
    git(&root, &["init", "-q"]);
    fs::write(root.join("Cargo.toml"), CARGO).unwrap();
    fs::write(root.join("src/lib.rs"), LIB).unwrap();
    fs::write(
        root.join("README.md"),
        "# Demo\n\nNeeds rust-version 1.70.\n",
    )
    .unwrap();
    fs::write(root.join("ci.yml"), CI).unwrap();
    fs::write(root.join("run.sh"), "#!/bin/sh\ncargo test\n").unwrap();
    fs::write(
        root.join("logo.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0rust-version",
    )
    .unwrap();
    // Over the default index.max_file_bytes (1 MiB).
    fs::write(root.join("dump.sql"), "-- rust-version\n".repeat(80_000)).unwrap();
    fs::write(env.dir().join("outside.txt"), "secret\n").unwrap();
    (env, fs::canonicalize(root).unwrap())
}

/// `lean-ctx ARGS` in `root` as the session `agent`.
fn run(env: &TestEnv, root: &Path, args: &[&str]) -> Output {
    env.shim()
        .current_dir(root)
        .env("LEAN_CTX_SESSION", "agent")
        .args(args)
        .output()
        .unwrap()
}

/// [`run`], which must succeed: its text.
fn ok(env: &TestEnv, root: &Path, args: &[&str]) -> String {
    let out = run(env, root, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// [`run`] with `--json`, which must succeed.
fn json(env: &TestEnv, root: &Path, args: &[&str]) -> Value {
    let out = run(env, root, &[&["--json"], args].concat());
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// [`run`], which must fail with `code`: its stdout and stderr.
fn fails(env: &TestEnv, root: &Path, args: &[&str], code: i32) -> String {
    let out = run(env, root, args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {out:?}");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `refactor replace-lines PATH --line LINE --text TEXT --expected-hash HASH`.
fn replace_lines<'a>(path: &'a str, line: &'a str, text: &'a str, hash: &'a str) -> [&'a str; 9] {
    [
        "refactor",
        "replace-lines",
        path,
        "--line",
        line,
        "--text",
        text,
        "--expected-hash",
        hash,
    ]
}

fn hash_of(v: &Value) -> String {
    v["files"][0]["hash"].as_str().unwrap()[..16].to_string()
}

#[test]
fn every_text_file_is_listed_with_its_kind_and_what_is_not_indexed_is_named() {
    let (env, root) = fixture();
    let tree = ok(&env, &root, &["tree"]);
    for kind in ["rust 1", "toml 1", "markdown 1", "yaml 1", "bash 1"] {
        assert!(tree.contains(kind), "{kind}: {tree}");
    }
    assert!(tree.contains("logo.png (binary: not indexed)"), "{tree}");
    assert!(
        tree.contains("dump.sql (1280000 bytes, over index.max_file_bytes: not indexed)"),
        "{tree}"
    );
    assert!(tree.contains("Cargo.toml\n"), "{tree}");
    // A config file reads like code: numbered, hashed.
    let read = ok(&env, &root, &["read", "ci.yml"]);
    assert!(read.contains("\n4     runs-on: ubuntu\n"), "{read}");
}

#[test]
fn text_search_covers_every_text_file_with_globs_context_and_files_only() {
    let (env, root) = fixture();
    let found = ok(&env, &root, &["search", "--text", "rust-version"]);
    // One hit a file: grep's layout, the path on each line (no column: the JSON has it).
    assert!(found.contains("Cargo.toml:4  rust-version"), "{found}");
    assert!(found.contains("README.md:3  Needs"), "{found}");
    // Complete: no count line after the hits.
    assert!(found.ends_with("Needs rust-version 1.70.\n"), "{found}");

    let toml = ok(
        &env,
        &root,
        &["search", "--text", "rust-version", "-g", "*.toml"],
    );
    assert!(!toml.contains("README"), "{toml}");
    let not_toml = ok(
        &env,
        &root,
        &["search", "--text", "rust-version", "--exclude", "*.toml"],
    );
    assert!(!not_toml.contains("Cargo.toml") && not_toml.contains("README.md"));

    // Context as grep marks it: the lines around, `LINE-`.
    let context = ok(&env, &root, &["search", "--text", "runs-on", "-C", "1"]);
    assert!(
        context.contains("3-    build:\n") && context.contains("4  runs-on: ubuntu\n"),
        "{context}"
    );
    let v = json(&env, &root, &["search", "--regex", "^jobs", "-A", "2"]);
    assert_eq!(
        v["hits"][0]["after"],
        serde_json::json!(["  build:", "    runs-on: ubuntu"])
    );

    let files = ok(&env, &root, &["search", "--text", "e", "-l"]);
    assert!(files.contains("Cargo.toml  "), "{files}");
    assert!(!files.contains(":0  "), "files only, no lines: {files}");

    // A cut answer says where to go on, and going on continues exactly there.
    let all = json(&env, &root, &["search", "--text", "e", "--limit", "500"]);
    let total = all["total"].as_u64().unwrap();
    assert!(total > 6, "{all}");
    let (mut skip, mut seen) = (0u64, Vec::new());
    loop {
        let page = ok(
            &env,
            &root,
            &[
                "search",
                "--text",
                "e",
                "--limit",
                "4",
                "--skip",
                &skip.to_string(),
            ],
        );
        let v = json(
            &env,
            &root,
            &[
                "search",
                "--text",
                "e",
                "--limit",
                "4",
                "--skip",
                &skip.to_string(),
            ],
        );
        seen.extend(v["hits"].as_array().unwrap().iter().cloned());
        if v["truncated"] == false {
            break;
        }
        skip += 4;
        assert!(
            page.ends_with(&format!("go on with skip={skip}\n")),
            "{page}"
        );
    }
    assert_eq!(
        serde_json::json!(seen),
        all["hits"],
        "every hit once, in order"
    );

    // Nothing found: exit 1, as grep's, saying what was searched and what was not.
    let none = fails(&env, &root, &["search", "--text", "no such text"], 1);
    assert!(
        none.contains("in the 5 files searched")
            && none.contains("1 binary and 1 oversized not searched"),
        "{none}"
    );
    // A symbol search finding nothing too; an error is 2.
    fails(&env, &root, &["search", "nosuchsymbol"], 1);
    let bad = fails(&env, &root, &["search", "--regex", "("], 2);
    assert!(bad.contains("INVALID_TARGET"), "{bad}");
    let bad = fails(&env, &root, &["search", "--text", "x", "-g", "a{"], 2);
    assert!(bad.contains("not a valid glob"), "{bad}");
}

#[test]
fn line_edits_are_guarded_by_the_hash_of_any_view_the_agent_holds() {
    let (env, root) = fixture();
    // The whole file's hash guards a line anywhere in it.
    let whole = hash_of(&json(&env, &root, &["read", "Cargo.toml"]));
    let edit = ok(
        &env,
        &root,
        &replace_lines("Cargo.toml", "4", "rust-version = \"1.75\"", &whole),
    );
    assert!(edit.starts_with("line 4 written, file hash "), "{edit}");
    assert_eq!(
        fs::read_to_string(root.join("Cargo.toml")).unwrap(),
        CARGO.replace("1.70", "1.75")
    );
    // The session wrote it, so a full re-read is one line, not its own edit.
    let again = ok(&env, &root, &["read", "Cargo.toml"]);
    assert!(again.contains("unchanged since your read"), "{again}");

    // The old hash is stale now: CONFLICT with what changed, nothing written.
    let stale = fails(
        &env,
        &root,
        &replace_lines("Cargo.toml", "7", "serde = \"2\"", &whole),
        2,
    );
    assert!(stale.contains("CONFLICT"), "{stale}");
    assert!(
        stale.contains("-rust-version = \"1.70\"\n+rust-version = \"1.75\""),
        "{stale}"
    );
    assert!(
        fs::read_to_string(root.join("Cargo.toml"))
            .unwrap()
            .contains("serde = \"1.0\"")
    );

    // A window's hash guards a line inside the window.
    let window = hash_of(&json(
        &env,
        &root,
        &[
            "read",
            "ci.yml",
            "--mode",
            "lines",
            "--start-line",
            "2",
            "--end-line",
            "4",
        ],
    ));
    ok(
        &env,
        &root,
        &replace_lines(
            "ci.yml",
            "4",
            "    runs-on: debian\n    timeout-minutes: 5",
            &window,
        ),
    );
    assert_eq!(
        fs::read_to_string(root.join("ci.yml")).unwrap(),
        "on: push\njobs:\n  build:\n    runs-on: debian\n    timeout-minutes: 5\n"
    );
    // The edit added a line, so the window's lines moved: its re-read is the change
    // (line 5 was never read), here the lines themselves, shorter than their diff...
    let moved = ok(
        &env,
        &root,
        &["read", "ci.yml", "--start-line", "2", "--end-line", "4"],
    );
    assert!(
        moved.starts_with("lines 2-4 of 5  hash ") && moved.ends_with("4     runs-on: debian\n"),
        "{moved}"
    );
    // ...while an edit that keeps the line count leaves the window read: unchanged.
    let deps = hash_of(&json(
        &env,
        &root,
        &["read", "Cargo.toml", "--start-line", "6", "--end-line", "7"],
    ));
    ok(
        &env,
        &root,
        &replace_lines("Cargo.toml", "7", "serde = \"1.0.200\"", &deps),
    );
    let again = ok(
        &env,
        &root,
        &["read", "Cargo.toml", "--start-line", "6", "--end-line", "7"],
    );
    assert!(again.contains("unchanged since your read"), "{again}");
    // ...but not a line outside it.
    let lib = hash_of(&json(
        &env,
        &root,
        &[
            "read",
            "src/lib.rs",
            "--mode",
            "symbol",
            "--name-path",
            "answer",
        ],
    ));
    let outside = fails(
        &env,
        &root,
        &replace_lines("ci.yml", "1", "on: pull_request", &window),
        2,
    );
    assert!(outside.contains("CONFLICT"), "{outside}");

    // A symbol's hash guards one line of its body: no need to resend the whole.
    ok(
        &env,
        &root,
        &replace_lines("src/lib.rs", "2", "    let x = 40 + 1;", &lib),
    );
    assert_eq!(
        fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        LIB.replace("let x = 41;", "let x = 40 + 1;")
    );

    // A text file has no symbols: said so, with what to do instead.
    let symbol = fails(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "Cargo.toml",
            "--line",
            "2",
            "--new-body",
            "x",
        ],
        2,
    );
    assert!(
        symbol.contains("UNSUPPORTED_LANGUAGE") && symbol.contains("end_line"),
        "{symbol}"
    );
}

#[test]
fn create_file_writes_only_new_files_and_replaces_one_only_under_its_hash() {
    let (env, root) = fixture();
    let made = ok(
        &env,
        &root,
        &[
            "refactor",
            "create-file",
            "docs/new/guide.md",
            "--text",
            "# Guide\n\nHello.\n",
        ],
    );
    assert!(made.starts_with("lines 1-3 written, file hash "), "{made}");
    assert_eq!(
        fs::read_to_string(root.join("docs/new/guide.md")).unwrap(),
        "# Guide\n\nHello.\n"
    );
    // Written by the session, so read by it; searchable at once.
    assert!(ok(&env, &root, &["read", "docs/new/guide.md"]).contains("unchanged since"));
    assert!(ok(&env, &root, &["search", "--text", "Hello."]).contains("docs/new/guide.md"));

    // An existing file is never replaced without its hash...
    let exists = fails(
        &env,
        &root,
        &[
            "refactor",
            "create-file",
            "docs/new/guide.md",
            "--text",
            "gone",
        ],
        2,
    );
    assert!(
        exists.contains("CONFLICT") && exists.contains("exists"),
        "{exists}"
    );
    assert!(
        fs::read_to_string(root.join("docs/new/guide.md"))
            .unwrap()
            .starts_with("# Guide")
    );
    // ...and is with it.
    let hash = hash_of(&json(
        &env,
        &root,
        &["read", "docs/new/guide.md", "--fresh"],
    ));
    ok(
        &env,
        &root,
        &[
            "refactor",
            "create-file",
            "docs/new/guide.md",
            "--text",
            "# New\n",
            "--expected-hash",
            &hash,
        ],
    );
    assert_eq!(
        fs::read_to_string(root.join("docs/new/guide.md")).unwrap(),
        "# New\n"
    );

    // Outside the root, into .git, through a symlink leading out: refused, nothing
    // written anywhere.
    std::os::unix::fs::symlink(env.dir(), root.join("out")).unwrap();
    for path in ["../evil.txt", ".git/hooks/evil", "out/evil.txt", "src"] {
        let refused = fails(
            &env,
            &root,
            &["refactor", "create-file", path, "--text", "x"],
            2,
        );
        assert!(!refused.contains("INTERNAL"), "{path}: {refused}");
    }
    assert!(!env.dir().join("evil.txt").exists());
    assert!(!root.join(".git/hooks/evil").exists());

    // A code file that would not parse: refused, and the directories it needed are
    // not left behind.
    let broken = fails(
        &env,
        &root,
        &[
            "refactor",
            "create-file",
            "src/deep/er/bad.rs",
            "--text",
            "fn x( {",
        ],
        2,
    );
    assert!(broken.contains("syntax error"), "{broken}");
    assert!(!root.join("src/deep").exists());
}

#[test]
fn a_read_that_fails_is_a_failure_and_a_batch_answers_each_file() {
    let (env, root) = fixture();
    for args in [
        &["read", "../outside.txt"][..],
        &["read", "missing.txt"],
        &[
            "read",
            "ci.yml",
            "--mode",
            "lines",
            "--start-line",
            "4",
            "--end-line",
            "2",
        ],
        &[
            "read",
            "src/lib.rs",
            "--mode",
            "symbol",
            "--name-path",
            "nothing",
        ],
    ] {
        let out = fails(&env, &root, args, 2);
        assert!(!out.contains("secret"), "{args:?}: {out}");
    }
    // One file of two failing: the other answers, and the batch is no failure.
    let batch = ok(&env, &root, &["read", "ci.yml", "missing.txt"]);
    assert!(
        batch.contains("runs-on") && batch.contains("missing.txt"),
        "{batch}"
    );
}

#[test]
fn a_file_past_the_answer_cap_is_read_in_pages_that_continue_exactly() {
    let (env, root) = fixture();
    let changelog: String = (1..=15_000)
        .map(|i| format!("- change {i}: something about version 0.{i}\n"))
        .collect();
    fs::write(root.join("CHANGELOG.md"), &changelog).unwrap();
    let (mut next, mut seen) = (Some(1u64), Vec::new());
    while let Some(start) = next {
        let start = start.to_string();
        let args = [
            "read",
            "CHANGELOG.md",
            "--start-line",
            &start,
            "--end-line",
            "15000",
        ];
        let text = ok(&env, &root, &args);
        // Each page fits a client's tool answer: under the default cap of 80 KB.
        assert!(text.len() < 100_000, "{} bytes", text.len());
        let v = json(&env, &root, &[&args[..], &["--fresh"]].concat());
        let lines = &v["files"][0]["content"]["Lines"];
        seen.extend(
            lines["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string()),
        );
        next = lines["more"].as_u64();
        if let Some(more) = next {
            assert!(
                text.ends_with(&format!("go on with start_line={more}\n")),
                "{text}"
            );
            assert_eq!(more, lines["end_line"].as_u64().unwrap() + 1);
        }
    }
    assert_eq!(
        seen.join("\n") + "\n",
        changelog,
        "every line once, in order"
    );
    // A whole read is the first page, not 800 KB.
    let whole = json(&env, &root, &["read", "CHANGELOG.md", "--fresh"]);
    assert_eq!(whole["files"][0]["content"]["Lines"]["start_line"], 1);
    assert!(
        whole["files"][0]["content"]["Lines"]["more"].is_u64(),
        "{whole}"
    );
}

#[test]
fn a_symbol_is_read_by_its_name_alone_or_within_a_directory() {
    let (env, root) = fixture();
    // The one file holding it, found by the index: no search first.
    let read = ok(&env, &root, &["read", "--name-path", "answer"]);
    assert!(
        read.starts_with("src/lib.rs  lines 1-4 of 4  hash "),
        "{read}"
    );
    let within = ok(
        &env,
        &root,
        &["read", "--name-path", "answer", "src", "--fresh"],
    );
    assert!(within.starts_with("src/lib.rs  lines 1-4 of 4"), "{within}");
    let none = fails(&env, &root, &["read", "--name-path", "nothing"], 2);
    assert!(none.contains("NO_SYMBOL"), "{none}");
}
