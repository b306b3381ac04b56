//! Reading, end to end through real shims and the real daemon: `lean-ctx read` in
//! every mode over a git repository with a CRLF file and non-ASCII text, each
//! answer's hash guarding the next edit of exactly what was read; re-reads within a
//! session (`--session`, `LEAN_CTX_SESSION`) answered by one line or by the diff;
//! batches where one file's failure (outside the root, missing) stays its own.

use std::{
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use lean_ctx_testkit::{TestEnv, git, wait_until};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

const LIB: &str = "pub struct Point {\n    pub x: i32,\n}\n\nimpl Point {\n    pub fn größe(&self) -> i32 {\n        // 日本\n        self.x\n    }\n}\n\npub fn helper() -> u8 {\n    1\n}\n";
const CRLF: &str =
    "// ünï\r\nfn zweite() -> &'static str {\r\n    \"ß\"\r\n}\r\n\r\nfn dritte() {}\r\n";

fn fixture() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    fs::create_dir_all(root.join("src")).unwrap();
    git(&root, &["init", "-q"]);
    fs::write(root.join("src/lib.rs"), LIB).unwrap();
    fs::write(root.join("src/crlf.rs"), CRLF).unwrap();
    fs::write(env.dir().join("outside.rs"), "fn secret() {}\n").unwrap();
    (env, fs::canonicalize(root).unwrap())
}

fn file(v: &Value, i: usize) -> &Value {
    &v["files"][i]
}

/// `lean-ctx ARGS` in `cwd` as text (what an agent reads).
fn text(env: &TestEnv, cwd: &Path, args: &[&str]) -> String {
    let out = env.shim().current_dir(cwd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `lean-ctx ARGS` in `root` as the session `agent`, as text.
fn in_session(env: &TestEnv, root: &Path, args: &[&str]) -> String {
    let out = env
        .shim()
        .current_dir(root)
        .env("LEAN_CTX_SESSION", "agent")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[test]
fn every_mode_answers_with_the_hash_that_guards_the_next_edit_of_exactly_that() {
    let (env, root) = fixture();
    // full: numbered lines without line endings, the whole file's hash.
    let v = env.ok(&root, &["read", "src/crlf.rs"]);
    let f = file(&v, 0);
    assert_eq!(f["hash"], blake3_hex(CRLF.as_bytes()), "{v}");
    assert_eq!(f["content"]["Lines"]["lines"][0], "// ünï", "{v}");
    assert_eq!(f["content"]["Lines"]["lines"][2], "    \"ß\"", "{v}");
    assert_eq!(f["total_lines"], 6);

    // map: each symbol with its range and the hash of its bytes.
    let v = env.ok(&root, &["read", "src/lib.rs", "--mode", "map"]);
    let symbols = file(&v, 0)["content"]["Symbols"]["symbols"]
        .as_array()
        .unwrap()
        .clone();
    let method = symbols
        .iter()
        .find(|s| s["name_path"] == "Point/größe")
        .unwrap_or_else(|| panic!("{v}"));
    let decl = "pub fn größe(&self) -> i32 {\n        // 日本\n        self.x\n    }";
    assert_eq!(method["hash"], blake3_hex(decl.as_bytes()), "{v}");
    assert_eq!(method["depth"], 1);
    assert_eq!(method["range"]["start"]["line"], 6);

    // symbol: the same hash, the declaration's whole lines.
    let v = env.ok(&root, &["read", "src/lib.rs", "--name-path", "größe"]);
    let f = file(&v, 0);
    assert_eq!(f["hash"], method["hash"], "{v}");
    assert_eq!(
        f["content"]["Lines"]["lines"][0],
        "    pub fn größe(&self) -> i32 {"
    );
    let shown = text(&env, &root, &["read", "src/lib.rs", "--name-path", "größe"]);
    assert!(
        shown.starts_with(&format!(
            "Point/größe, lines 6-9 of 14  hash {}\n6 ",
            &method["hash"].as_str().unwrap()[..16]
        )),
        "{shown}"
    );

    // The symbol's hash guards its edit: accepted now …
    let hash = method["hash"].as_str().unwrap().to_string();
    env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Point/größe",
            "--new-body",
            "pub fn größe(&self) -> i32 {\n    self.x * 2\n}",
            "--expected-hash",
            &hash,
        ],
    );
    // … and stale after it.
    let e = env.err(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Point/größe",
            "--new-body",
            "pub fn größe(&self) -> i32 { 0 }",
            "--expected-hash",
            &hash,
        ],
    );
    assert_eq!(e["code"], "CONFLICT", "{e}");

    // lines in a CRLF file: the hash of exactly the lines an edit of them replaces.
    let v = env.ok(
        &root,
        &[
            "read",
            "src/crlf.rs",
            "--start-line",
            "2",
            "--end-line",
            "4",
        ],
    );
    let f = file(&v, 0);
    assert_eq!(
        f["hash"],
        blake3_hex("fn zweite() -> &'static str {\r\n    \"ß\"\r\n}".as_bytes()),
        "{v}"
    );
    let hash = f["hash"].as_str().unwrap().to_string();
    env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "src/crlf.rs",
            "--line",
            "2",
            "--end-line",
            "4",
            "--new-body",
            "fn zweite() -> &'static str {\n    \"ss\"\n}",
            "--expected-hash",
            &hash,
        ],
    );
    assert_eq!(
        fs::read_to_string(root.join("src/crlf.rs")).unwrap(),
        CRLF.replace("\"ß\"", "\"ss\"")
    );

    // signatures: declarations with their lines and hashes.
    let shown = text(
        &env,
        &root,
        &["read", "src/crlf.rs", "--mode", "signatures"],
    );
    assert!(
        shown.contains("  2  fn zweite() -> &'static str  "),
        "{shown}"
    );
    assert!(shown.contains("  6  fn dritte()  "), "{shown}");
}

#[test]
fn a_session_re_read_is_one_line_a_change_its_diff_and_fresh_the_whole() {
    let (env, root) = fixture();
    let read = |args: &[&str]| {
        let mut all = vec!["read", "--session", "s1"];
        all.extend_from_slice(args);
        text(&env, &root, &all)
    };
    let first = read(&["src/lib.rs", "--name-path", "helper"]);
    assert!(first.contains("13     1"), "{first}");
    assert_eq!(
        read(&["src/lib.rs", "--name-path", "helper"]).trim(),
        "unchanged since your read 1"
    );
    // Another session, and no session, get it whole.
    assert_eq!(
        text(
            &env,
            &root,
            &[
                "read",
                "--session",
                "s2",
                "src/lib.rs",
                "--name-path",
                "helper"
            ]
        ),
        first
    );
    assert_eq!(
        text(
            &env,
            &root,
            &["read", "src/lib.rs", "--name-path", "helper"]
        ),
        first.replace("  (read 1)", "")
    );
    // The environment names the session too.
    let out = env
        .shim()
        .current_dir(&root)
        .env("LEAN_CTX_SESSION", "s1")
        .args(["read", "src/lib.rs", "--name-path", "helper"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "unchanged since your read 1"
    );

    // Someone else changes the file: the re-read is the change, here the lines (their
    // diff would be longer than they are).
    fs::write(
        root.join("src/lib.rs"),
        LIB.replace("    1\n}", "    // two\n    2\n}"),
    )
    .unwrap();
    let changed = read(&["src/lib.rs", "--name-path", "helper"]);
    assert!(
        changed.starts_with("lines 12-15 of 15  hash ")
            && changed
                .contains("(read 2)\n12 pub fn helper() -> u8 {\n13     // two\n14     2\n15 }"),
        "{changed}"
    );
    assert_eq!(
        read(&["src/lib.rs", "--name-path", "helper"]).trim(),
        "unchanged since your read 2"
    );
    let fresh = read(&["src/lib.rs", "--name-path", "helper", "--fresh"]);
    assert!(fresh.contains("14     2"), "{fresh}");

    // mode=diff: against this session's last read of the whole file, in file lines.
    let long: String = (0..30).map(|i| format!("fn f{i}() {{}}\r\n")).collect();
    fs::write(root.join("src/crlf.rs"), format!("{CRLF}{long}")).unwrap();
    read(&["src/crlf.rs"]);
    assert_eq!(
        read(&["src/crlf.rs", "--mode", "diff"]).trim(),
        "unchanged since your read 3"
    );
    fs::write(
        root.join("src/crlf.rs"),
        format!("{}{long}", CRLF.replace("dritte", "vierte")),
    )
    .unwrap();
    let diff = read(&["src/crlf.rs", "--mode", "diff"]);
    assert!(
        diff.starts_with("changed since your read 3")
            && diff.contains("\n@@ -4,5 +4,5 @@\n")
            && diff.contains("\n-fn dritte() {}\n+fn vierte() {}\n"),
        "no \\r in a diff: {diff:?}"
    );
    // map: unchanged is one line, a change the diff of its rows.
    read(&["src/crlf.rs", "--mode", "map"]);
    let again = read(&["src/crlf.rs", "--mode", "map"]);
    assert!(again.starts_with("unchanged since your read "), "{again}");
    fs::write(root.join("src/crlf.rs"), CRLF.replace("dritte", "fünfte")).unwrap();
    let rows = read(&["src/crlf.rs", "--mode", "map"]);
    assert!(rows.starts_with("changed since your read "), "{rows}");
    assert!(
        rows.contains("\n-")
            && rows.contains("vierte")
            && rows.contains("\n+")
            && rows.contains("fünfte"),
        "{rows}"
    );
    // mode=diff needs a session.
    let e = env.err(&root, &["read", "src/crlf.rs", "--mode", "diff"]);
    assert_eq!(e["code"], "INVALID_TARGET", "{e}");
}

#[test]
fn a_file_past_one_answer_is_read_in_pages_and_windows() {
    let (env, root) = fixture();
    // 17 MiB of lines: more than one 16 MiB frame holds.
    let line = format!("// {}\n", "x".repeat(1020));
    fs::write(root.join("src/huge.rs"), line.repeat(17 * 1024)).unwrap();
    // Whole: its first page, leaving room in the answer's cap for the small file
    // after it in the batch; a file that no longer fits is refused on its own,
    // saying how to read it.
    let v = env.ok(&root, &["read", "src/huge.rs", "src/lib.rs", "src/huge.rs"]);
    let page = &file(&v, 0)["content"]["Lines"];
    assert_eq!(page["start_line"], 1, "{page}");
    assert_eq!(
        page["more"],
        page["end_line"].as_u64().unwrap() + 1,
        "{page}"
    );
    assert!(file(&v, 1)["content"]["Lines"].is_object(), "{v}");
    let refused = &file(&v, 2)["content"]["Failed"];
    assert_eq!(refused["code"], "UNSUPPORTED", "{refused}");
    assert!(
        refused["remedy"]
            .as_str()
            .unwrap()
            .contains("read fewer files at once"),
        "{refused}"
    );
    let v = env.ok(
        &root,
        &[
            "read",
            "src/huge.rs",
            "--start-line",
            "17370",
            "--end-line",
            "17408",
        ],
    );
    let lines = &file(&v, 0)["content"]["Lines"]["lines"];
    assert_eq!(lines.as_array().unwrap().len(), 39);
    assert_eq!(file(&v, 0)["total_lines"], 17 * 1024);
    // Past index.max_file_bytes nothing is parsed: no map, no symbol.
    let (out, v) = env.shim_json_in(&root, &["read", "src/huge.rs", "--mode", "map"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    let e = file(&v, 0);
    assert_eq!(e["content"]["Failed"]["code"], "UNSUPPORTED", "{e}");
}

/// A window of a file larger than one answer is streamed (the file read once, a MiB
/// at a time, only the window kept): its lines, its hash and the line count are
/// those of the file, across the pieces' edges too; past its end, a window is out of
/// range; a window larger than the answer's cap is its first page.
#[test]
fn a_window_of_a_large_file_is_streamed_and_exact_across_piece_edges() {
    let (env, root) = fixture();
    // Lines of 100 bytes, each numbered: line 10486 straddles the first MiB's edge.
    let text: String = (1..=200_000)
        .map(|i| format!("{i:09}{}\n", "y".repeat(90)))
        .collect();
    assert!(text.len() > 16 << 20);
    fs::write(root.join("big.txt"), &text).unwrap();
    let all: Vec<&str> = text.lines().collect();
    for (first, last) in [
        (1, 2),
        (10_485, 10_487),
        (20_970, 20_973),
        (199_999, 200_001),
    ] {
        let v = env.ok(
            &root,
            &[
                "read",
                "big.txt",
                "--start-line",
                &first.to_string(),
                "--end-line",
                &last.to_string(),
            ],
        );
        let f = file(&v, 0);
        // As `cat -n` counts: the trailing newline starts no line.
        assert_eq!(f["total_lines"], 200_000, "{f}");
        let want: Vec<&str> = (first..=last.min(200_000)).map(|l| all[l - 1]).collect();
        assert_eq!(
            f["content"]["Lines"]["lines"],
            serde_json::json!(want),
            "{first}..{last}"
        );
        assert_eq!(
            f["hash"],
            blake3_hex(want.join("\n").as_bytes()),
            "{first}..{last}"
        );
    }
    // A read whose only file failed fails: exit 2, the failure in the answer.
    let (out, past) = env.shim_json_in(&root, &["read", "big.txt", "--start-line", "200001"]);
    assert_eq!(out.status.code(), Some(2), "{past}");
    assert_eq!(
        file(&past, 0)["content"]["Failed"]["code"],
        "POSITION_OUT_OF_RANGE",
        "{past}"
    );
    let whole = env.ok(
        &root,
        &["read", "big.txt", "--mode", "lines", "--start-line", "1"],
    );
    let page = &file(&whole, 0)["content"]["Lines"];
    assert_eq!(
        page["more"],
        page["end_line"].as_u64().unwrap() + 1,
        "{whole}"
    );
    assert_eq!(page["lines"][0], all[0], "{whole}");
}

#[test]
fn a_batch_answers_each_file_and_a_failure_outside_the_root_stays_its_own() {
    let (env, root) = fixture();
    std::os::unix::fs::symlink(env.dir().join("outside.rs"), root.join("src/link.rs")).unwrap();
    let v = env.ok(
        &root,
        &[
            "read",
            "src/lib.rs",
            "../outside.rs",
            "src/link.rs",
            "src/missing.rs",
            "src/crlf.rs",
            "--mode",
            "map",
        ],
    );
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 5, "{v}");
    assert!(files[0]["content"]["Symbols"].is_object(), "{v}");
    assert!(files[4]["content"]["Symbols"].is_object(), "{v}");
    for f in &files[1..4] {
        let code = f["content"]["Failed"]["code"].as_str().unwrap_or_default();
        assert!(code == "FILE_NOT_FOUND", "{f}");
    }
    assert!(!v.to_string().contains("secret"), "{v}");
    assert_eq!(v["truncated"], false);
}

#[test]
fn outline_search_and_symbols_overview_hash_each_symbol_and_a_stale_hash_shows_what_changed() {
    let (env, root) = fixture();
    let helper = "pub fn helper() -> u8 {\n    1\n}";
    let want = blake3_hex(helper.as_bytes());
    let v = env.ok(&root, &["outline", "src/lib.rs"]);
    let outlined = v["files"][0]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name_path"] == "helper")
        .unwrap_or_else(|| panic!("{v}"))
        .clone();
    assert_eq!(outlined["hash"], want, "{v}");
    let method = &v["files"][0]["symbols"][1]["children"][0];
    assert_eq!(method["name_path"], "Point/größe", "{v}");
    assert!(method["hash"].is_string(), "children too: {v}");
    let v = env.ok(&root, &["outline", "src"]);
    assert!(v.to_string().contains(&want), "a directory outline: {v}");
    let v = env.ok(&root, &["search", "helper"]);
    assert_eq!(v["hits"][0]["hash"], want, "{v}");
    let v = env.ok(&root, &["refactor", "symbols-overview", "src/lib.rs"]);
    assert!(v.to_string().contains(&want), "{v}");
    // The text answers show the short form, which edits accept.
    let shown = text(&env, &root, &["search", "helper"]);
    assert!(
        shown.starts_with(&format!(
            "src/lib.rs:12:7  function helper  pub fn helper() -> u8  {}\n",
            &want[..16]
        )),
        "{shown}"
    );
    let edit = |hash: &str, body: &str| {
        env.shim_json_in(
            &root,
            &[
                "refactor",
                "replace-symbol-body",
                "--name-path",
                "helper",
                "--new-body",
                body,
                "--expected-hash",
                hash,
            ],
        )
    };
    let (out, v) = edit(&want[..16], "pub fn helper() -> u8 {\n    2\n}");
    assert!(out.status.success(), "{v}");
    // Shorter than 16 digits names nothing (empty included): refused, never taken
    // for no guard at all.
    let fresh = v["hash"].as_str().unwrap().to_string();
    for short in [&fresh[..15], &fresh[..8], "", "  "] {
        let (out, v) = edit(short, "pub fn helper() -> u8 { 9 }");
        assert!(!out.status.success(), "{short:?}");
        assert_eq!(v["error"]["code"], "CONFLICT", "{short:?}: {v}");
    }
    assert!(
        !fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .contains("{ 9 }")
    );

    // Someone else changes it; the agent's hash from the outline is stale: CONFLICT,
    // with the diff from the text that hash was taken from to the text now.
    let v = env.ok(&root, &["search", "helper"]);
    let stale = v["hits"][0]["hash"].as_str().unwrap().to_string();
    let now = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    fs::write(
        root.join("src/lib.rs"),
        now.replace("    2\n}", "    // théirs\n    3\n}"),
    )
    .unwrap();
    let (out, v) = edit(&stale[..16], "pub fn helper() -> u8 {\n    4\n}");
    assert!(!out.status.success());
    let e = &v["error"];
    assert_eq!(e["code"], "CONFLICT", "{v}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("what changed since that hash was taken (lines of the file now):\n@@ -12,3 +12,4 @@\n pub fn helper() -> u8 {\n-    2\n+    // théirs\n+    3\n }"),
        "{message}"
    );
    assert!(e["remedy"].as_str().unwrap().contains("ctx_read"), "{e}");
    assert!(
        !fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .contains("    4\n")
    );
}

/// A stale hash's diff shows text of the call's own root only: a hash handed out in
/// project A, given to an edit in project B, is a plain `CONFLICT` there, never an
/// oracle for A's text (a guessed secret's hash would otherwise print it).
#[test]
fn a_hash_of_another_projects_text_shows_none_of_it() {
    let (env, b) = fixture();
    let a = env.dir().join("secrets");
    fs::create_dir_all(a.join("src")).unwrap();
    git(&a, &["init", "-q"]);
    fs::write(
        a.join("src/lib.rs"),
        "pub fn helper() -> u8 {\n    // password=hunter2\n    1\n}\n",
    )
    .unwrap();
    let v = env.ok(&a, &["search", "helper"]);
    let hash = v["hits"][0]["hash"].as_str().unwrap().to_string();
    let (out, v) = env.shim_json_in(
        &b,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--new-body",
            "pub fn helper() -> u8 { 2 }",
            "--expected-hash",
            &hash,
        ],
    );
    assert!(!out.status.success());
    assert_eq!(v["error"]["code"], "CONFLICT", "{v}");
    assert!(!v.to_string().contains("hunter2"), "{v}");
    assert_eq!(fs::read_to_string(b.join("src/lib.rs")).unwrap(), LIB);
}

#[test]
fn gain_counts_a_read_against_the_file_and_an_unchanged_re_read_against_what_it_would_resend() {
    let (env, root) = fixture();
    let mut big = String::from(LIB);
    for i in 0..200 {
        big.push_str(&format!("pub fn f{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n"));
    }
    fs::write(root.join("src/lib.rs"), &big).unwrap();
    // stats.json as soon as it counts `n` reads (written within a second of a call;
    // the daemon must keep running: it holds the session).
    let stats = |n: u64| -> Value {
        let mut last = Value::Null;
        let counted = wait_until(Duration::from_secs(30), || {
            last = fs::read(env.paths.data_dir.join("stats.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .map_or(Value::Null, |v| v["commands"]["read"].clone());
            last["commands"] == n
        });
        assert!(counted, "{last}");
        last
    };
    // One symbol of a 200-function file: the whole file is what it replaced.
    env.ok(
        &root,
        &[
            "read",
            "--session",
            "g",
            "src/lib.rs",
            "--name-path",
            "helper",
        ],
    );
    let first = stats(1);
    assert_eq!(first["commands"], 1, "{first}");
    let (input, output) = (
        first["input_tokens"].as_u64().unwrap(),
        first["output_tokens"].as_u64().unwrap(),
    );
    assert!(input > 50 * output, "{first}");

    // The unchanged re-read: against the symbol it would have sent again, not the file.
    env.ok(
        &root,
        &[
            "read",
            "--session",
            "g",
            "src/lib.rs",
            "--name-path",
            "helper",
        ],
    );
    let second = stats(2);
    let (input2, output2) = (
        second["input_tokens"].as_u64().unwrap() - input,
        second["output_tokens"].as_u64().unwrap() - output,
    );
    assert_eq!(second["commands"], 2, "{second}");
    assert!(output2 < 16 && output2 > 0, "one line: {second}");
    // What a full answer of the symbol costs, header and all: about the first output.
    assert!(input2 > output2 && input2 <= output + 2, "{first} {second}");
}

/// A re-read whose diff would say more than the text it describes is the text: a
/// diff is never the larger answer.
#[test]
fn a_re_read_whose_diff_outgrows_the_text_is_the_text() {
    let (env, root) = fixture();
    let read = |args: &[&str]| in_session(&env, &root, &[&["read"], args].concat());
    let long: String = (0..30).map(|i| format!("fn f{i}() {{}}\n")).collect();
    fs::write(root.join("src/crlf.rs"), &long).unwrap();
    read(&["src/crlf.rs"]);
    // One line of many changed: the diff.
    fs::write(root.join("src/crlf.rs"), long.replace("f7()", "g7()")).unwrap();
    let small = read(&["src/crlf.rs"]);
    assert!(
        small.starts_with("changed since your read 1")
            && small.contains("\n-fn f7() {}\n+fn g7() {}\n"),
        "{small}"
    );
    // Every line changed: the lines, numbered, as a first read shows them.
    fs::write(root.join("src/crlf.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    let whole = read(&["src/crlf.rs"]);
    assert!(whole.starts_with("lines 1-2 of 2  hash "), "{whole}");
    assert!(
        whole
            .trim_end()
            .ends_with("(read 3)\n1 fn a() {}\n2 fn b() {}"),
        "{whole}"
    );
    assert_eq!(read(&["src/crlf.rs"]).trim(), "unchanged since your read 3");
}

#[test]
fn the_sessions_own_edit_counts_as_read_and_someone_elses_as_a_change() {
    let (env, root) = fixture();
    let in_session = |args: &[&str]| in_session(&env, &root, args);
    let first = in_session(&["read", "src/lib.rs", "--name-path", "helper"]);
    assert!(first.contains("(read 1)"), "{first}");
    in_session(&[
        "refactor",
        "replace-symbol-body",
        "--name-path",
        "helper",
        "--new-body",
        "pub fn helper() -> u8 {\n    2\n}",
    ]);
    // The agent wrote it: no diff of its own edit.
    assert_eq!(
        in_session(&["read", "src/lib.rs", "--name-path", "helper"]).trim(),
        "unchanged since your read 2"
    );
    // Another session's edit is a change to this one.
    let out = env
        .shim()
        .current_dir(&root)
        .env("LEAN_CTX_SESSION", "other")
        .args([
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--new-body",
            "pub fn helper() -> u8 {\n    3\n}",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let changed = in_session(&["read", "src/lib.rs", "--name-path", "helper"]);
    assert!(
        changed.contains("(read 3)\n12 pub fn helper() -> u8 {\n13     3\n14 }"),
        "{changed}"
    );
}

/// An MCP server's session (`ends_with_connection`) outlives its connection while the
/// process that opened it lives: the daemon closes a quiet connection, the server
/// reconnects, and what it read still counts (here the test process is that server).
/// That it is forgotten once the process is gone is `reads.rs`'s unit test, with a
/// real process killed. A CLI session (`--session`, a connection per call) is kept
/// either way.
#[test]
fn a_session_bound_to_its_connection_outlives_the_connection_while_its_process_lives() {
    use lean_ctx_shared::{
        hello::{ClientHello, Intent},
        protocol::{ReadContent, ReadMode, ReadRequest, ReadSession},
        transport,
    };
    let (env, root) = fixture();
    env.ok(&root, &["read", "src/lib.rs"]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let connect = || {
        rt.block_on(transport::connect(
            &env.paths.socket(),
            &ClientHello::new(Intent::Call, "test"),
            Duration::from_secs(5),
        ))
        .unwrap()
    };
    let read = |conn: &transport::Connection, id: &str, bound: bool| -> ReadContent {
        let req = ReadRequest {
            root: root.clone(),
            paths: vec!["src/lib.rs".into()],
            mode: ReadMode::Symbol,
            start_line: None,
            end_line: None,
            name_path: Some("helper".into()),
            fresh: false,
            session: Some(ReadSession {
                id: id.into(),
                ends_with_connection: bound,
            }),
            wait_ms: 0,
        };
        let resp = rt
            .block_on(conn.client.read(tarpc::context::current(), req))
            .unwrap()
            .unwrap();
        resp.files.into_iter().next().unwrap().content
    };
    let first = connect();
    assert!(matches!(
        read(&first, "mcp", true),
        ReadContent::Lines { .. }
    ));
    assert!(matches!(
        read(&first, "cli", false),
        ReadContent::Lines { .. }
    ));
    assert_eq!(
        read(&first, "mcp", true),
        ReadContent::Unchanged { since: 1 }
    );
    drop(first);
    let second = connect();
    // Whether or not the daemon has noticed the close yet, the answer is the same.
    assert_eq!(
        read(&second, "mcp", true),
        ReadContent::Unchanged { since: 1 }
    );
    assert_eq!(
        read(&second, "cli", false),
        ReadContent::Unchanged { since: 1 }
    );
}

/// mode=diff for a session that read only a window of a file answers that window's
/// changes, where its lines are now, never the whole file it did not have; a second
/// diff, nothing having changed since, is one line.
#[test]
fn a_diff_covers_the_windows_the_session_read_not_the_whole_file() {
    let (env, root) = fixture();
    let big: String = (1..=3000).map(|i| format!("// line {i}\n")).collect();
    fs::write(root.join("src/big.rs"), &big).unwrap();
    let in_session = |args: &[&str]| in_session(&env, &root, args);
    let window = in_session(&[
        "read",
        "src/big.rs",
        "--start-line",
        "1000",
        "--end-line",
        "1010",
    ]);
    assert!(window.contains("// line 1005"), "{window}");
    // Someone else changes a line of the window and adds three lines above it.
    let changed = big
        .replace("// line 1005\n", "// line 1005, changed\n")
        .replacen("// line 10\n", "// line 10\n// a\n// b\n// c\n", 1);
    fs::write(root.join("src/big.rs"), &changed).unwrap();
    let diff = in_session(&["read", "src/big.rs", "--mode", "diff"]);
    assert!(
        diff.contains("-// line 1005\n+// line 1005, changed"),
        "{diff}"
    );
    assert!(
        diff.contains("+1006,"),
        "the window is where its lines are now: {diff}"
    );
    assert!(!diff.contains("// a\n"), "{diff}");
    assert!(diff.len() < 1000, "{} bytes: {diff}", diff.len());
    let again = in_session(&["read", "src/big.rs", "--mode", "diff"]);
    assert!(
        again.trim().ends_with("unchanged since your read 2"),
        "{again}"
    );
}
