//! The headless backing end to end, through real shims and the real daemon: outline,
//! search, symbol edits that never lose data, PathJail, freshness, worktrees sharing
//! the caches.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Output, Stdio},
    thread,
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    ErrorCode,
    hello::{ClientHello, Intent},
    protocol::{SearchSymbolRequest, SymbolsOverviewRequest},
    transport,
};
use lean_ctx_testkit::{TestEnv, git};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// A test world with a project directory `proj` holding `files`.
fn project(files: &[(&str, &str)]) -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    write_files(&root, files);
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    (env, fs::canonicalize(root).unwrap())
}

fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
}

/// `lean-ctx --json ARGS` in `cwd`.
fn run(env: &TestEnv, cwd: &Path, args: &[&str]) -> (Output, Value) {
    env.shim_json_in(cwd, args)
}

fn ok(env: &TestEnv, cwd: &Path, args: &[&str]) -> Value {
    let (out, v) = run(env, cwd, args);
    assert!(out.status.success(), "{args:?} failed: {v}");
    v
}

fn err_code(env: &TestEnv, cwd: &Path, args: &[&str]) -> (String, Value) {
    let (out, v) = run(env, cwd, args);
    assert!(!out.status.success(), "{args:?} should fail: {v}");
    (v["error"]["code"].as_str().unwrap().to_string(), v)
}

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

const LIB_RS: &str = "pub struct Point { pub x: i32 }\n\nimpl Point {\n    pub fn new(x: i32) -> Self {\n        Point { x }\n    }\n}\n\npub fn helper() -> i32 { 1 }\n";

#[test]
fn outline_search_and_overview_answer_from_the_index() {
    let (env, root) = project(&[
        ("src/lib.rs", LIB_RS),
        (
            "src/deep/mod.py",
            "class Point:\n    def move(self): pass\n",
        ),
    ]);
    let v = ok(&env, &root, &["outline", "src", "--depth", "2"]);
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["src/deep/mod.py", "src/lib.rs"]);
    let v = ok(&env, &root, &["search", "Point/new"]);
    assert_eq!(v["hits"][0]["name_path"], "Point/new");
    assert_eq!(v["hits"][0]["path"], "src/lib.rs");
    assert_eq!(
        v["hits"][0]["range"]["start"],
        serde_json::json!({"line": 4, "column": 4})
    );
    // Issue 16: `::` and `.` qualify as `/` does, a module or package qualifies by the
    // file's place, and a leading separator anchors at the top level.
    for q in ["Point::new", "Point.new", "src.lib.Point.new"] {
        let v = ok(&env, &root, &["search", q]);
        assert_eq!(v["hits"][0]["name_path"], "Point/new", "{q}: {v}");
    }
    let v = ok(&env, &root, &["search", "deep.mod.Point.move"]);
    assert_eq!(v["hits"][0]["path"], "src/deep/mod.py", "{v}");
    // A trailing separator: the symbol and its members, the symbol first, each hit
    // at its name (the position navigation takes).
    for q in ["Point/", "Point::", "Point."] {
        let v = ok(&env, &root, &["search", q]);
        let found: Vec<(&str, &str, u64)> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["path"].as_str().unwrap(),
                    h["name_path"].as_str().unwrap(),
                    h["name_range"]["start"]["column"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("src/deep/mod.py", "Point", 6),
                ("src/lib.rs", "Point", 11),
                ("src/deep/mod.py", "Point/move", 8),
                ("src/lib.rs", "Point/x", 23),
                ("src/lib.rs", "Point/new", 11),
            ],
            "{q}: {v}"
        );
    }
    // Nothing found: exit 1, as grep's.
    let (out, v) = run(&env, &root, &["search", "/new"]);
    assert_eq!(
        (out.status.code(), &v["total"]),
        (Some(1), &serde_json::json!(0))
    );
    let v = ok(&env, &root, &["search", "::helper"]);
    assert_eq!(
        (v["total"].as_u64(), &v["hits"][0]["name_path"]),
        (Some(1), &serde_json::json!("helper")),
        "{v}"
    );
    let v = ok(&env, &root, &["search", "point", "--kind", "class"]);
    assert_eq!(v["total"], 1);
    assert_eq!(v["hits"][0]["path"], "src/deep/mod.py");
    let v = ok(
        &env,
        &root.join("src"),
        &["refactor", "symbols-overview", "lib.rs"],
    );
    assert_eq!(v["path"], "src/lib.rs");
    assert_eq!(v["language"], "rust");
    let names: Vec<&str> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name_path"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Point", "impl Point", "helper"]);
    let text = env
        .shim()
        .current_dir(&root)
        .args(["outline", "src/lib.rs"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("src/lib.rs (rust)") && text.contains("pub fn new(x: i32) -> Self"),
        "{text}"
    );
}

#[test]
fn edits_chain_by_hash_and_keep_crlf_bom_and_non_ascii_bytes() {
    let crlf = "\u{feff}// größe: 日本\r\nfn first() {\r\n    1\r\n}\r\n\r\nfn zweite() -> &'static str { \"ß\" }\r\n";
    let (env, root) = project(&[("src/w.rs", crlf)]);
    let v = ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "first",
            "--path",
            "src/w.rs",
            "--new-body",
            "fn first() {\n    \"é\".len()\n}",
        ],
    );
    let after = fs::read(root.join("src/w.rs")).unwrap();
    let expected = "\u{feff}// größe: 日本\r\nfn first() {\r\n    \"é\".len()\r\n}\r\n\r\nfn zweite() -> &'static str { \"ß\" }\r\n";
    assert_eq!(String::from_utf8(after.clone()).unwrap(), expected);
    // The answer's hash is the written range's: the next edit can use it unread.
    assert_eq!(
        v["hash"],
        hash("fn first() {\r\n    \"é\".len()\r\n}".as_bytes())
    );
    assert_eq!(
        v["new_range"]["start"],
        serde_json::json!({"line": 2, "column": 0})
    );
    let h = v["hash"].as_str().unwrap().to_string();
    ok(
        &env,
        &root,
        &[
            "refactor",
            "insert-after-symbol",
            "--name-path",
            "first",
            "--expected-hash",
            &h,
            "--text",
            "fn dritte() {}",
        ],
    );
    ok(
        &env,
        &root,
        &[
            "refactor",
            "insert-before-symbol",
            "--name-path",
            "zweite",
            "--text",
            "/// Zwei.\n#[inline]",
        ],
    );
    let text = fs::read_to_string(root.join("src/w.rs")).unwrap();
    assert_eq!(
        text,
        "\u{feff}// größe: 日本\r\nfn first() {\r\n    \"é\".len()\r\n}\r\n\r\nfn dritte() {}\r\n\r\n/// Zwei.\r\n#[inline]\r\nfn zweite() -> &'static str { \"ß\" }\r\n"
    );
    // Nothing but CRLF line endings, and the BOM still first.
    assert!(!text.replace("\r\n", "").contains('\n'));
    assert!(text.starts_with('\u{feff}'));
}

/// Issue 16: attributes, decorators and doc comments travel with their item (an
/// insert-before lands above them, a replacement without them keeps them, one with
/// them replaces them), declarations start at their first keyword (`var`,
/// `export`), a heredoc's trailing newline adds no blank line, and inserted
/// siblings get the blank line the file puts between its siblings.
#[test]
fn edits_keep_attributes_decorators_and_docs_with_their_item_and_space_like_the_file() {
    let rust = "/// Tests.\n#[cfg(test)]\nmod tests {\n    /// One.\n    #[test]\n    fn one() {}\n\n    #[test]\n    fn two() {}\n}\n";
    let py = "import dataclasses\n\n\n@dataclasses.dataclass\nclass Point:\n    x: int = 0\n\n    @property\n    def norm(self):\n        return 1\n";
    let go = "package p\n\n// X is five.\nvar X int = 4\n";
    let ts = "/** Adds. */\nexport function add(a: number): number {\n  return a;\n}\n";
    let (env, root) = project(&[
        ("src/lib.rs", rust),
        ("p.py", py),
        ("p.go", go),
        ("p.ts", ts),
    ]);
    let edit = |verb: &str, path: &str, name: &str, text: &str| {
        let flag = if verb == "replace-symbol-body" {
            "--new-body"
        } else {
            "--text"
        };
        ok(
            &env,
            &root,
            &[
                "refactor",
                verb,
                "--name-path",
                name,
                "--path",
                path,
                flag,
                text,
            ],
        );
    };
    let read = |path: &str| fs::read_to_string(root.join(path)).unwrap();

    edit(
        "insert-before-symbol",
        "src/lib.rs",
        "tests",
        "fn helper() {}\n",
    );
    edit(
        "insert-before-symbol",
        "src/lib.rs",
        "tests/two",
        "fn zero() {}\n",
    );
    edit(
        "replace-symbol-body",
        "src/lib.rs",
        "tests/one",
        "fn one() {\n    assert!(true);\n}\n",
    );
    assert_eq!(
        read("src/lib.rs"),
        "fn helper() {}\n/// Tests.\n#[cfg(test)]\nmod tests {\n    /// One.\n    #[test]\n    fn one() {\n        assert!(true);\n    }\n\n    fn zero() {}\n\n    #[test]\n    fn two() {}\n}\n"
    );
    // A replacement that brings its own attributes and doc replaces them, once.
    edit(
        "replace-symbol-body",
        "src/lib.rs",
        "tests/one",
        "/// Uno.\n#[test]\n#[ignore = \"slow\"]\nfn one() {}\n",
    );
    assert!(
        read("src/lib.rs").contains(
            "\n    /// Uno.\n    #[test]\n    #[ignore = \"slow\"]\n    fn one() {}\n\n    fn zero"
        ),
        "{}",
        read("src/lib.rs")
    );

    edit(
        "insert-before-symbol",
        "p.py",
        "Point",
        "def make():\n    return Point()\n",
    );
    edit(
        "insert-before-symbol",
        "p.py",
        "Point/norm",
        "def area(self):\n    return 0\n",
    );
    edit(
        "replace-symbol-body",
        "p.py",
        "Point/norm",
        "def norm(self):\n    return 2\n",
    );
    assert_eq!(
        read("p.py"),
        "import dataclasses\n\n\ndef make():\n    return Point()\n\n\n@dataclasses.dataclass\nclass Point:\n    x: int = 0\n\n    def area(self):\n        return 0\n\n    @property\n    def norm(self):\n        return 2\n"
    );

    // The range starts at `var`: a body starting with it is not a syntax error.
    edit("replace-symbol-body", "p.go", "X", "var X int = 5\n");
    assert_eq!(read("p.go"), "package p\n\n// X is five.\nvar X int = 5\n");
    edit(
        "replace-symbol-body",
        "p.ts",
        "add",
        "export function add(a: number): number {\n  return a + 1;\n}\n",
    );
    assert_eq!(
        read("p.ts"),
        "/** Adds. */\nexport function add(a: number): number {\n  return a + 1;\n}\n"
    );
    let v = ok(&env, &root, &["refactor", "symbols-overview", "p.ts"]);
    assert_eq!(
        v["symbols"][0]["range"]["start"],
        serde_json::json!({"line": 2, "column": 0}),
        "{v}"
    );
}

#[test]
fn inserted_and_replaced_code_takes_the_symbols_indentation() {
    let py = "class A:\n    def one(self):\n        return 1\n";
    let (env, root) = project(&[("a.py", py), ("src/lib.rs", LIB_RS)]);
    ok(
        &env,
        &root,
        &[
            "refactor",
            "insert-after-symbol",
            "--name-path",
            "A/one",
            "--text",
            "def two(self):\n    return 2",
        ],
    );
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "A/one",
            "--new-body",
            "def one(self):\n    return 11",
        ],
    );
    assert_eq!(
        fs::read_to_string(root.join("a.py")).unwrap(),
        "class A:\n    def one(self):\n        return 11\n    def two(self):\n        return 2\n"
    );
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Point/new",
            "--new-body",
            "pub fn new(x: i32) -> Self {\n    Point { x: x + 1 }\n}",
        ],
    );
    assert!(
        fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .contains("    pub fn new(x: i32) -> Self {\n        Point { x: x + 1 }\n    }\n")
    );
}

/// An agent that copies a declaration as it read it, first line indented as in the
/// file, gets it written as read: the first line's indentation is not doubled. Text
/// indented otherwise is taken relative to its first line.
#[test]
fn a_declaration_copied_as_read_is_written_as_read() {
    let py = "class A:\n    def one(self):\n        return 1\n";
    let (env, root) = project(&[("a.py", py), ("src/lib.rs", LIB_RS)]);
    let replace = |name_path: &str, body: &str| {
        ok(
            &env,
            &root,
            &[
                "refactor",
                "replace-symbol-body",
                "--name-path",
                name_path,
                "--new-body",
                body,
            ],
        )
    };
    let shown = ok(
        &env,
        &root,
        &["read", "src/lib.rs", "--name-path", "Point/new"],
    );
    let lines = shown["files"][0]["content"]["Lines"]["lines"]
        .as_array()
        .unwrap();
    let text: Vec<&str> = lines.iter().map(|l| l.as_str().unwrap()).collect();
    let text = text.join("\n");
    assert!(text.starts_with("    pub fn new"), "{shown}");
    let copied = text.replace("Point { x }", "Point { x: x + 2 }");
    replace("Point/new", &copied);
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("\n    pub fn new(x: i32) -> Self {\n        Point { x: x + 2 }\n    }\n"),
        "{lib}"
    );
    replace("A/one", "    def one(self):\n        return 12\n");
    assert_eq!(
        fs::read_to_string(root.join("a.py")).unwrap(),
        "class A:\n    def one(self):\n        return 12\n"
    );
    // Two blanks where the file has four: laid out relative to the first line (its
    // body two deeper), placed at the declaration's indentation.
    replace(
        "Point/new",
        "  pub fn new(x: i32) -> Self {\n    Point { x }\n  }",
    );
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("\n    pub fn new(x: i32) -> Self {\n      Point { x }\n    }\n"),
        "{lib}"
    );
}

#[test]
fn catalog_errors_for_missing_ambiguous_out_of_range_conflicting_and_broken_edits() {
    let dup = "mod a { pub fn run() {} }\nmod b { pub fn run() {} }\n";
    let (env, root) = project(&[
        ("src/lib.rs", LIB_RS),
        ("src/dup.rs", dup),
        ("notes.txt", "hello\n"),
    ]);
    let before = fs::read(root.join("src/lib.rs")).unwrap();

    let (code, _) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "nope",
            "--new-body",
            "fn nope() {}",
        ],
    );
    assert_eq!(code, "NO_SYMBOL");
    let (code, v) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "run",
            "--new-body",
            "fn run() {}",
        ],
    );
    assert_eq!(code, "AMBIGUOUS_SYMBOL");
    let candidates = &v["error"]["details"]["candidates"];
    assert_eq!(candidates.as_array().unwrap().len(), 2, "{v}");
    assert_eq!(
        candidates[0],
        serde_json::json!({"name_path": "a/run", "path": "src/dup.rs", "line": 1})
    );
    let (code, _) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "src/lib.rs",
            "--line",
            "99",
            "--new-body",
            "x",
        ],
    );
    assert_eq!(code, "POSITION_OUT_OF_RANGE");
    // A text file has no symbols to address (its lines are: client/tests/text_files.rs).
    let (code, _) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "notes.txt",
            "--line",
            "1",
            "--new-body",
            "x",
        ],
    );
    assert_eq!(code, "UNSUPPORTED_LANGUAGE");
    let (code, v) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--expected-hash",
            &hash(b"stale"),
            "--new-body",
            "pub fn helper() -> i32 { 2 }",
        ],
    );
    assert_eq!(code, "CONFLICT");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("file untouched")
    );
    let (code, v) = err_code(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--new-body",
            "pub fn helper( -> i32 {",
        ],
    );
    assert_eq!(code, "CONFLICT");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("syntax error"),
        "{v}"
    );
    assert_eq!(
        fs::read(root.join("src/lib.rs")).unwrap(),
        before,
        "a refused edit changed the file"
    );

    // The right hash, and force for a deliberate syntax error, go through.
    let right = hash(b"pub fn helper() -> i32 { 1 }");
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--expected-hash",
            &right,
            "--new-body",
            "pub fn helper() -> i32 { 2 }",
        ],
    );
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--force",
            "--new-body",
            "pub fn helper( {",
        ],
    );
    assert!(
        fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .ends_with("pub fn helper( {\n")
    );
}

#[test]
fn sixty_four_concurrent_edits_with_one_expected_hash_apply_exactly_once() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS)]);
    ok(&env, &root, &["project"]);
    let h = hash(b"pub fn helper() -> i32 { 1 }");
    let children: Vec<_> = (0..64)
        .map(|i| {
            env.shim()
                .current_dir(&root)
                .args([
                    "--json",
                    "refactor",
                    "replace-symbol-body",
                    "--name-path",
                    "helper",
                    "--expected-hash",
                    &h,
                ])
                .arg("--new-body")
                .arg(format!("pub fn helper() -> i32 {{ {} }}", i + 100))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut applied = 0;
    let mut conflicts = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        if out.status.success() {
            applied += 1;
        } else {
            assert_eq!(v["error"]["code"], "CONFLICT", "{v}");
            conflicts += 1;
        }
    }
    assert_eq!((applied, conflicts), (1, 63));
    let text = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let body = text
        .strip_prefix(&LIB_RS[..LIB_RS.len() - "pub fn helper() -> i32 { 1 }\n".len()])
        .unwrap();
    assert!(
        body.starts_with("pub fn helper() -> i32 { 1")
            && body.ends_with(" }\n")
            && body.len() == "pub fn helper() -> i32 { 100 }\n".len(),
        "{body}"
    );
}

#[test]
fn kill_dash_9_during_edits_leaves_each_file_old_or_new_never_a_mix() {
    // Big enough that writing and fsyncing the temp file takes a while: the kill is
    // timed on the temp file's appearance, so it lands between the write's start and
    // its rename.
    let filler: String = (0..20_000)
        .map(|i| format!("pub fn f{i}() -> u32 {{ {i} }}\n"))
        .collect();
    let version = |n: u32| format!("pub fn target() -> u32 {{ {n} }}\n{filler}");
    let (env, root) = project(&[("src/big.rs", &version(0))]);
    let file = root.join("src/big.rs");
    let temps = || -> Vec<String> {
        fs::read_dir(root.join("src"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".big.rs.lean-ctx."))
            .collect()
    };
    let mut current = version(0);
    let mut mid_write = 0;
    for n in 1..=40u32 {
        let known = temps();
        let mut child = env
            .shim()
            .current_dir(&root)
            .args([
                "--json",
                "refactor",
                "replace-symbol-body",
                "--path",
                "src/big.rs",
                "--line",
                "1",
            ])
            .arg("--new-body")
            .arg(format!("pub fn target() -> u32 {{ {n} }}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // This round's temp file (`.big.rs.lean-ctx.<daemon pid>.<n>.tmp`), the moment
        // it appears; none if the edit finished between two looks.
        let deadline = Instant::now() + Duration::from_secs(30);
        let staged = loop {
            if let Some(t) = temps().into_iter().find(|t| !known.contains(t)) {
                break Some(t);
            }
            if child.try_wait().unwrap().is_some() {
                break None;
            }
            assert!(Instant::now() < deadline, "round {n}: no edit within 30 s");
            // Looking again at once keeps the reaction inside the write's fsync; the
            // yield leaves the daemon its core on a busy machine.
            thread::yield_now();
        };
        if let Some(t) = &staged {
            let pid = t.split('.').nth(4).unwrap().parse().unwrap();
            env.kill9(pid);
        }
        let out = child.wait_with_output().unwrap();
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let now = fs::read_to_string(&file).unwrap();
        let left_behind = staged.as_ref().is_some_and(|t| temps().contains(t));
        if left_behind {
            // Killed before the rename: the file is untouched and the shim says the
            // daemon went away.
            mid_write += 1;
            assert!(
                now == current,
                "round {n}: killed mid-write, the file changed"
            );
            assert!(!out.status.success(), "round {n}: {answer}");
            assert_eq!(answer["error"]["code"], "INTERNAL", "round {n}: {answer}");
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("the call to lean-ctxd failed"),
                "round {n}: {answer}"
            );
        } else {
            // Renamed before the kill (or never killed): the new version, whether or
            // not the answer made it out.
            assert!(
                now == version(n),
                "round {n}: neither old nor new: {answer}"
            );
            if staged.is_none() {
                assert!(out.status.success(), "round {n}: {answer}");
            }
            current = now;
        }
        for pid in env.daemons() {
            env.kill9(pid);
        }
        if mid_write == 6 {
            break;
        }
    }
    assert_eq!(
        mid_write, 6,
        "too few kills landed between write and rename"
    );
    // The next write cleans up temp files that dead writers left.
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "src/big.rs",
            "--line",
            "1",
            "--new-body",
            "pub fn target() -> u32 { 99 }",
        ],
    );
    let leftovers: Vec<_> = fs::read_dir(root.join("src"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().contains(".lean-ctx."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn path_jail_refuses_every_escape_and_touches_nothing_outside() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS), (".git/config", "[core]\n")]);
    fs::remove_dir_all(root.join(".git")).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "init"]);
    git(
        &root,
        &["worktree", "add", "-q", "-b", "side", "../sibling"],
    );
    git(
        &root,
        &["worktree", "add", "-q", "-b", "nested", "nested-wt"],
    );
    let outside = env.dir().join("outside");
    write_files(
        &outside,
        &[
            ("secret.rs", "pub fn secret() {}\n"),
            ("dir/x.rs", "fn x() {}\n"),
        ],
    );
    let sibling = fs::canonicalize(env.dir().join("sibling")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("src/link-dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.rs"), root.join("src/link.rs")).unwrap();
    std::os::unix::fs::symlink(root.join("src/loop-b"), root.join("src/loop-a")).unwrap();
    std::os::unix::fs::symlink(root.join("src/loop-a"), root.join("src/loop-b")).unwrap();
    std::os::unix::fs::symlink(root.join("src/link-dir"), root.join("src/chain")).unwrap();
    fs::create_dir(root.join("src/dir.rs")).unwrap();
    let snapshot = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<(PathBuf, Vec<u8>)> = walk(dir)
            .into_iter()
            .map(|p| (p.clone(), fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = (
        snapshot(&outside),
        snapshot(&sibling),
        snapshot(&root.join("nested-wt")),
        fs::read("/etc/hostname").ok(),
    );

    let o = outside.display().to_string();
    let s = sibling.display().to_string();
    let attacks: Vec<String> = vec![
        "../outside/secret.rs".into(),
        "../../etc/passwd".into(),
        "/etc/passwd".into(),
        "/etc/hostname".into(),
        format!("{o}/secret.rs"),
        format!("{o}/dir/x.rs"),
        "src/../../outside/secret.rs".into(),
        "src/./../../outside/secret.rs".into(),
        "./../outside/secret.rs".into(),
        "..".into(),
        "../".into(),
        "src/link.rs".into(),
        "src/link-dir/secret.rs".into(),
        "src/link-dir/dir/x.rs".into(),
        "src/chain/secret.rs".into(),
        "src/loop-a".into(),
        "src/loop-a/x.rs".into(),
        "".into(),
        ".".into(),
        "src".into(),
        "src/dir.rs".into(),
        ".git/config".into(),
        ".git/HEAD".into(),
        format!("{s}/src/lib.rs"),
        "../sibling/src/lib.rs".into(),
        "nested-wt/src/lib.rs".into(),
        format!("{}/nested-wt/src/lib.rs", root.display()),
        "/proc/self/root/etc/passwd".into(),
        "/dev/null".into(),
        "~/secret.rs".into(),
        "..%2Foutside%2Fsecret.rs".into(),
        "..\\outside\\secret.rs".into(),
        "\u{2024}\u{2024}/outside/secret.rs".into(),
        format!("{}/../outside/secret.rs", root.display()),
        "src/lib.rs/..".into(),
        "x".repeat(5000),
    ];
    assert!(attacks.len() >= 30);
    let mut codes = std::collections::BTreeMap::<String, usize>::new();
    for attack in &attacks {
        for args in [
            vec![
                "refactor",
                "replace-symbol-body",
                "--path",
                attack,
                "--line",
                "1",
                "--end-line",
                "1",
                "--new-body",
                "pwned",
            ],
            vec![
                "refactor",
                "insert-after-symbol",
                "--path",
                attack,
                "--name-path",
                "secret",
                "--text",
                "pwned",
            ],
            vec!["refactor", "symbols-overview", attack],
        ] {
            let (code, v) = err_code(&env, &root, &args);
            assert!(
                matches!(code.as_str(), "FILE_NOT_FOUND" | "WORKTREE_MISMATCH"),
                "{attack:?} {args:?}: {v}"
            );
            *codes.entry(code).or_default() += 1;
        }
    }
    let (code, _) = err_code(
        &env,
        &root,
        &["refactor", "symbols-overview", &format!("{s}/src/lib.rs")],
    );
    assert_eq!(code, "WORKTREE_MISMATCH");
    let (code, _) = err_code(
        &env,
        &root,
        &["refactor", "symbols-overview", "nested-wt/src/lib.rs"],
    );
    assert_eq!(code, "WORKTREE_MISMATCH");
    // NUL bytes cannot pass through a command line; agents' JSON can carry them.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let conn = transport::connect(
            &env.paths.socket(),
            &ClientHello::new(Intent::Call, "test"),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        for attack in ["src/lib.rs\0.txt", "\0", "../outside/secret.rs\0"] {
            let req = SymbolsOverviewRequest {
                root: root.clone(),
                path: attack.into(),
                depth: 0,
            };
            let err = conn
                .client
                .symbols_overview(tarpc::context::current(), req)
                .await
                .unwrap()
                .unwrap_err();
            assert_eq!(err.code, ErrorCode::FileNotFound, "{attack:?}");
            assert!(err.message.contains("NUL"), "{}", err.message);
        }
    });
    let after = (
        snapshot(&outside),
        snapshot(&sibling),
        snapshot(&root.join("nested-wt")),
        fs::read("/etc/hostname").ok(),
    );
    assert!(before == after, "a refused path was modified");
    // The nested worktree is not part of this root's index either.
    let v = ok(&env, &root, &["search", "helper"]);
    assert_eq!(v["total"], 1, "{v}\n{}", env.log());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            if p.file_name().is_some_and(|n| n != ".git") {
                out.extend(walk(&p));
            }
        } else if e.file_type().unwrap().is_file() {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_second_worktree_is_indexed_from_the_shared_cache_and_edits_stay_in_their_worktree() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("src/m{i}.rs"),
                format!("pub fn f{i}() -> u32 {{ {i} }}\npub struct S{i};\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (env, main) = project(&refs);
    git(&main, &["init", "-q"]);
    git(&main, &["add", "."]);
    git(&main, &["commit", "-qm", "init"]);
    git(&main, &["worktree", "add", "-q", "-b", "feature", "../wt"]);
    let wt = fs::canonicalize(env.dir().join("wt")).unwrap();
    // Files written in the same clock tick as their git index are racily clean and
    // must be read; rewrite both indexes a tick later so git vouches for every file.
    thread::sleep(Duration::from_millis(30));
    git(&main, &["reset", "-q"]);
    git(&wt, &["reset", "-q"]);

    ok(&env, &main, &["outline"]);
    ok(&env, &wt, &["outline"]);
    let st = ok(&env, &main, &["daemon", "status"]);
    let row = |root: &Path| {
        st["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["root"] == root.display().to_string())
            .unwrap()
            .clone()
    };
    let (a, b) = (row(&main), row(&wt));
    assert_eq!(a["worktree_group"], b["worktree_group"]);
    // The 40 Rust files and Cargo.toml.
    assert_eq!(a["index"]["files_indexed"], 41);
    assert_eq!(b["index"]["files_indexed"], 41);
    assert_eq!(a["index"]["symbol_cache"]["misses"], 41, "{a}");
    assert_eq!(b["index"]["symbol_cache"]["hits"], 41, "{b}");
    assert_eq!(b["index"]["symbol_cache"]["misses"], 0, "{b}");
    // Its content hashes came from its git index and what the first worktree
    // learned: not one file of the second worktree was read.
    assert_eq!(b["index"]["hash_cache"]["hits"], 41, "{b}");
    assert_eq!(b["index"]["hash_cache"]["misses"], 0, "{b}");
    let cache = |name: &str| {
        st["caches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(cache("git_blob")["hits"], 41, "{st}");
    let symbols = cache("symbols");
    assert_eq!(
        symbols["entries"], 41,
        "one parse per distinct content: {symbols}"
    );

    ok(
        &env,
        &wt,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "f7",
            "--new-body",
            "pub fn f7() -> u32 { 700 }",
        ],
    );
    assert!(
        fs::read_to_string(wt.join("src/m7.rs"))
            .unwrap()
            .contains("700")
    );
    assert_eq!(
        fs::read_to_string(main.join("src/m7.rs")).unwrap(),
        "pub fn f7() -> u32 { 7 }\npub struct S7;\n"
    );
    let v = ok(&env, &main, &["search", "f7"]);
    assert_eq!(v["hits"][0]["path"], "src/m7.rs");
    assert_eq!(v["hits"][0]["signature"], "pub fn f7() -> u32");
}

#[test]
fn gitignored_binary_and_oversized_files_are_skipped_and_counted() {
    let big: String = (0..2000)
        .map(|i| format!("pub fn big{i}() {{}}\n"))
        .collect();
    let (env, root) = project(&[
        (".gitignore", "ignored.rs\nbuild/\n"),
        ("src/lib.rs", LIB_RS),
        ("ignored.rs", "pub fn hidden_one() {}\n"),
        ("build/gen.rs", "pub fn hidden_two() {}\n"),
        ("src/big.rs", &big),
    ]);
    fs::write(root.join("src/bin.rs"), b"pub fn bin() {}\0\0\0").unwrap();
    fs::create_dir_all(&env.paths.config_dir).unwrap();
    fs::write(env.paths.config_file(), "[index]\nmax_file_bytes = 20000\n").unwrap();
    ok(&env, &root, &["outline"]);
    let st = ok(&env, &root, &["daemon", "status"]);
    let ix = &st["projects"][0]["index"];
    // src/lib.rs and Cargo.toml.
    assert_eq!(ix["files_indexed"], 2, "{ix}");
    assert_eq!(ix["skipped_binary"], 1, "{ix}");
    assert_eq!(ix["skipped_too_large"], 1, "{ix}");
    assert_eq!(ix["state"], "ready");
    for hidden in ["hidden_one", "hidden_two", "big1", "bin"] {
        let (out, v) = run(&env, &root, &["search", hidden]);
        assert_eq!(
            (out.status.code(), &v["total"]),
            (Some(1), &serde_json::json!(0))
        );
    }
    // An ignored file asked for by name is still answered.
    let v = ok(&env, &root, &["refactor", "symbols-overview", "ignored.rs"]);
    assert_eq!(v["symbols"][0]["name"], "hidden_one");
}

#[test]
fn every_write_by_anyone_shows_in_answers_without_a_call_naming_the_file() {
    // How soon is a figure for a benchmark; here the bound only keeps a broken watcher
    // from hanging the test.
    const SOON: Duration = Duration::from_secs(10);
    let (env, root) = project(&[("src/lib.rs", LIB_RS)]);
    ok(&env, &root, &["outline"]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let conn = transport::connect(
            &env.paths.socket(),
            &ClientHello::new(Intent::Call, "test"),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        let search = |q: &str| {
            let req = SearchSymbolRequest {
                root: root.clone(),
                query: q.into(),
                kind: None,
                path: None,
                limit: 5,
                skip: 0,
                wait_ms: 0,
            };
            let client = conn.client.clone();
            async move {
                client
                    .search_symbol(tarpc::context::current(), req)
                    .await
                    .unwrap()
                    .unwrap()
                    .total
            }
        };
        for (name, write) in [
            (
                "appended_fn",
                Box::new(|r: &Path| {
                    fs::write(
                        r.join("src/lib.rs"),
                        format!("{LIB_RS}pub fn appended_fn() {{}}\n"),
                    )
                    .unwrap()
                }) as Box<dyn Fn(&Path)>,
            ),
            (
                "brand_new_fn",
                Box::new(|r: &Path| {
                    fs::write(r.join("src/new.rs"), "pub fn brand_new_fn() {}\n").unwrap()
                }),
            ),
            (
                "moved_fn",
                Box::new(|r: &Path| {
                    fs::create_dir(r.join("moved")).unwrap();
                    fs::write(r.join("moved/m.rs"), "pub fn moved_fn() {}\n").unwrap();
                }),
            ),
        ] {
            assert_eq!(search(name).await, 0);
            let started = Instant::now();
            write(&root);
            let mut seen = false;
            while started.elapsed() < SOON {
                if search(name).await == 1 {
                    seen = true;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            assert!(seen, "{name} not visible {SOON:?} after the write");
        }
        // Deletion too.
        fs::remove_file(root.join("src/new.rs")).unwrap();
        let started = Instant::now();
        while search("brand_new_fn").await != 0 {
            assert!(started.elapsed() < SOON, "deleted file still answered");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    // Single-file answers never wait for the watcher: they re-check the file.
    fs::write(root.join("src/lib.rs"), "pub fn only() {}\n").unwrap();
    let v = ok(&env, &root, &["refactor", "symbols-overview", "src/lib.rs"]);
    assert_eq!(v["symbols"][0]["name"], "only");
}

#[test]
fn the_editor_focused_file_ranks_first_while_the_signal_is_fresh() {
    let (env, root) = project(&[
        ("src/a.rs", "pub fn handle() {}\n"),
        ("src/b.rs", "pub fn handle() {}\n"),
    ]);
    let first = |env: &TestEnv| {
        ok(env, &root, &["search", "handle"])["hits"][0]["path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(first(&env), "src/a.rs");

    let v = ok(
        &env,
        &root.join("src"),
        &["editor-signal", "--file", "b.rs"],
    );
    assert_eq!(
        v["active_file"],
        root.join("src/b.rs").display().to_string()
    );
    assert_eq!(first(&env), "src/b.rs");
    let signal: Value =
        serde_json::from_slice(&fs::read(env.paths.data_dir.join("editor_signal.json")).unwrap())
            .unwrap();
    assert_eq!(
        signal["active_file"],
        root.join("src/b.rs").display().to_string()
    );
    assert_eq!(signal["recent_files"][0]["path"], signal["active_file"]);
    assert!(signal["updated_at"].as_u64().unwrap() > 0);

    // A focus older than 120 s no longer counts.
    let mut stale = signal.clone();
    stale["updated_at"] = (signal["updated_at"].as_u64().unwrap() - 600_000).into();
    stale["recent_files"][0]["at"] = stale["updated_at"].clone();
    fs::write(
        env.paths.data_dir.join("editor_signal.json"),
        stale.to_string(),
    )
    .unwrap();
    assert_eq!(first(&env), "src/a.rs");

    let (code, _) = err_code(&env, &root, &["editor-signal", "--file", "nope.rs"]);
    assert_eq!(code, "FILE_NOT_FOUND");
}

#[test]
fn shell_completions_are_valid_scripts() {
    let env = TestEnv::with_shim(SHIM);
    let out = env.shim().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(
        script.contains("lean-ctx")
            && script.contains("outline")
            && script.contains("editor-signal")
    );
    let path = env.dir().join("lean-ctx.bash");
    fs::write(&path, &script).unwrap();
    let check = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .unwrap();
    assert!(check.success(), "bash -n rejected the completion script");
}

type EditAnswer = Result<lean_ctx_shared::protocol::EditResponse, lean_ctx_shared::LeanError>;

/// An edit over the socket, as an agent's MCP call makes it: the marker function
/// inserted before the symbol on `path`'s first line.
async fn insert_marker(
    client: &lean_ctx_shared::protocol::LeanCtxClient,
    root: &Path,
    path: &str,
    marker: &str,
) -> EditAnswer {
    use lean_ctx_shared::protocol::{EditAction, EditRequest, EditTarget};
    let req = EditRequest {
        root: root.to_path_buf(),
        action: EditAction::InsertBeforeSymbol,
        target: EditTarget::Lines {
            path: path.into(),
            line: 1,
            end_line: None,
        },
        text: format!("fn {marker}() {{}}"),
        expected_hash: None,
        force: false,
        wait_ms: 0,
        session: None,
    };
    let mut ctx = tarpc::context::current();
    ctx.deadline = Instant::now() + Duration::from_secs(30);
    client.edit_symbol(ctx, req).await.expect("transport")
}

/// `a` and `b` swapped atomically (`RENAME_EXCHANGE`), over and over on a thread,
/// while edits of `path` run on this one: at least `MIN_SWAPS` swaps, and on until the
/// editor has made `MIN_EDITS` edits (bounded by 40 s). With `relink`, `b` is made a
/// symlink to it again whenever a write replaced the symlink under either name by a
/// file (so the attack lasts the whole race). Answers each edit's (marker, answer).
fn race_edits(
    env: &TestEnv,
    (a, b): (&Path, &Path),
    relink: Option<&Path>,
    root: &Path,
    path: &str,
) -> (usize, Vec<(String, EditAnswer)>) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    const MIN_SWAPS: usize = 10_000;
    const MIN_EDITS: usize = 300;
    let done = AtomicBool::new(false);
    let edits = AtomicUsize::new(0);
    // A shim call starts the daemon and opens the project.
    ok(env, root, &["search", "keep"]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let conn = rt
        .block_on(transport::connect(
            &env.paths.socket(),
            &ClientHello::new(Intent::Call, "test"),
            Duration::from_secs(5),
        ))
        .unwrap();
    // The first edit opens the project, outside the race.
    rt.block_on(insert_marker(&conn.client, root, path, "warm"))
        .unwrap();
    thread::scope(|s| {
        let swapper = s.spawn(|| {
            // Set however the swapper ends (a failed swap panics): the editor stops.
            struct Done<'a>(&'a AtomicBool);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _done = Done(&done);
            let start = Instant::now();
            let mut swaps = 0;
            while swaps < MIN_SWAPS
                || (edits.load(Ordering::Relaxed) < MIN_EDITS
                    && start.elapsed() < Duration::from_secs(40))
            {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    a,
                    rustix::fs::CWD,
                    b,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
                let is_link = |p: &Path| fs::symlink_metadata(p).unwrap().is_symlink();
                if let Some(target) = relink.filter(|_| !is_link(a) && !is_link(b)) {
                    fs::remove_file(b).unwrap();
                    std::os::unix::fs::symlink(target, b).unwrap();
                }
            }
            swaps
        });
        let mut answers = Vec::new();
        // Bounded by the swapper's own bound; the count guards a stuck flag.
        while !done.load(Ordering::Relaxed) && answers.len() < 100_000 {
            let marker = format!("m{}", answers.len());
            let answer = rt.block_on(insert_marker(&conn.client, root, path, &marker));
            answers.push((marker, answer));
            edits.fetch_add(1, Ordering::Relaxed);
        }
        (swapper.join().unwrap(), answers)
    })
}

/// Every file under `dir` (symlinks not followed) with its bytes.
fn snapshot_all(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else {
                let bytes = if t.is_file() {
                    fs::read(e.path()).unwrap()
                } else {
                    Vec::new()
                };
                files.push((e.path(), bytes));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_directory_swapped_for_a_symlink_out_never_lets_an_edit_escape_and_every_answer_is_true() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS), ("src/sub/t.rs", "fn keep() {}\n")]);
    let outside = env.dir().join("outside");
    write_files(&outside, &[("sub/t.rs", "fn outside_keep() {}\n")]);
    std::os::unix::fs::symlink(outside.join("sub"), root.join("src/alt")).unwrap();
    let before = snapshot_all(&outside);
    let (sub, alt) = (root.join("src/sub"), root.join("src/alt"));

    let (swaps, answers) = race_edits(&env, (&sub, &alt), None, &root, "src/sub/t.rs");

    assert!(
        swaps >= 10_000 && answers.len() >= 50,
        "{swaps} swaps, {} edits",
        answers.len()
    );
    let after = snapshot_all(&outside);
    let outside_text =
        String::from_utf8_lossy(&fs::read(outside.join("sub/t.rs")).unwrap()).into_owned();
    let escaped = answers
        .iter()
        .filter(|(m, _)| outside_text.contains(&format!("fn {m}() {{}}")))
        .count();
    let outside_temps = after
        .iter()
        .filter(|(p, _)| p.to_string_lossy().ends_with(".tmp"))
        .count();
    eprintln!(
        "{swaps} swaps, {} edits: {escaped} markers written outside, {outside_temps} temp files outside",
        answers.len()
    );
    assert!(after == before, "the outside directory changed");
    // The real directory is under one of the two names; its file holds exactly the
    // markers whose answers said written.
    let real = [&sub, &alt]
        .into_iter()
        .find(|p| fs::symlink_metadata(p).unwrap().is_dir())
        .unwrap();
    let text = fs::read_to_string(real.join("t.rs")).unwrap();
    let mut lies = Vec::new();
    let mut written = 0;
    for (marker, answer) in &answers {
        let present = text.contains(&format!("fn {marker}() {{}}"));
        match answer {
            Ok(_) => {
                written += 1;
                if !present {
                    lies.push(format!("{marker}: said written, not in the file"));
                }
            }
            Err(e) => {
                assert!(matches!(e.code, ErrorCode::FileNotFound), "{marker}: {e:?}");
                if present {
                    lies.push(format!("{marker}: {} but written", e.message));
                }
            }
        }
    }
    assert!(
        lies.is_empty(),
        "{} untrue answers: {:?}",
        lies.len(),
        &lies[..lies.len().min(5)]
    );
    let temps: Vec<_> = snapshot_all(&root)
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
    let errors: std::collections::BTreeSet<&str> = answers
        .iter()
        .filter_map(|(_, a)| a.as_ref().err())
        .map(|e| e.message.as_str())
        .collect();
    eprintln!(
        "{swaps} swaps, {} edits, {written} written; errors: {errors:?}",
        answers.len()
    );
}

/// A project with a directory `x` holding `x/keep.rs`, indexed (so `x` is watched).
fn indexed_with_x() -> (TestEnv, PathBuf) {
    let (env, root) = project(&[("src/lib.rs", LIB_RS), ("x/keep.rs", "fn keep() {}\n")]);
    assert!(outlined_paths(&env, &root).contains(&"x/keep.rs".to_string()));
    (env, root)
}

/// The files `outline` of the whole root lists, in its order.
fn outlined_paths(env: &TestEnv, root: &Path) -> Vec<String> {
    let v = ok(env, root, &["outline", "."]);
    let files = v["files"].as_array().unwrap().iter();
    files
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// A directory moved out of the root keeps its watch until the watcher drops it, so
/// a directory made in it afterwards is reported under its old name inside the
/// root, where a symlink to it now stands. The walk of that name starts beneath the
/// root without following a symlink: nothing outside is indexed.
#[test]
fn a_directory_moved_out_and_linked_back_is_never_walked_through_the_link() {
    let (env, root) = indexed_with_x();
    let paths = || outlined_paths(&env, &root);
    let outside = env.dir().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::rename(root.join("x"), outside.join("x")).unwrap();
    std::os::unix::fs::symlink(outside.join("x"), root.join("x")).unwrap();
    fs::create_dir(outside.join("x/y")).unwrap();
    fs::write(outside.join("x/y/evil.rs"), "fn evil() {}\n").unwrap();
    // The watcher has seen the move once `x/keep.rs` is gone; then a while longer
    // for the event from the moved directory's watch.
    let deadline = Instant::now() + Duration::from_secs(10);
    while paths().contains(&"x/keep.rs".to_string()) {
        assert!(Instant::now() < deadline, "the move was never seen");
        thread::sleep(Duration::from_millis(50));
    }
    thread::sleep(Duration::from_millis(500));
    let found = paths();
    assert!(
        found.iter().all(|p| !p.starts_with("x/")),
        "walked through the symlink: {found:?}\n{}",
        env.log()
    );
}

/// A directory moved aside and another made under its name: the index drops what
/// the old one held under that name (it used to keep it until the next full walk).
#[test]
fn a_directory_replaced_under_its_name_leaves_nothing_of_the_old_one_behind() {
    let (env, root) = indexed_with_x();
    let paths = || outlined_paths(&env, &root);
    fs::rename(root.join("x"), root.join("x.old")).unwrap();
    write_files(&root, &[("x/new.rs", "fn new() {}\n")]);
    let want = ["src/lib.rs", "x.old/keep.rs", "x/new.rs"].map(String::from);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut found = paths();
        found.sort();
        if found == want {
            break;
        }
        assert!(Instant::now() < deadline, "{found:?}\n{}", env.log());
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_file_swapped_for_a_symlink_to_a_secret_never_copies_the_secret_in() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS), ("src/t.rs", "fn keep() {}\n")]);
    let outside = env.dir().join("outside");
    write_files(&outside, &[("secret.rs", "fn secret_token_4711() {}\n")]);
    std::os::unix::fs::symlink(outside.join("secret.rs"), root.join("src/t.alt")).unwrap();
    let before = snapshot_all(&outside);

    let (swaps, answers) = race_edits(
        &env,
        (&root.join("src/t.rs"), &root.join("src/t.alt")),
        Some(&outside.join("secret.rs")),
        &root,
        "src/t.rs",
    );

    assert!(
        swaps >= 10_000 && answers.len() >= 50,
        "{swaps} swaps, {} edits",
        answers.len()
    );
    assert!(snapshot_all(&outside) == before, "the secret changed");
    let leaked: Vec<_> = snapshot_all(&root)
        .into_iter()
        .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains("secret_token_4711"))
        .map(|(p, _)| p)
        .collect();
    assert!(leaked.is_empty(), "the secret was copied into {leaked:?}");
    let written = answers.iter().filter(|(_, a)| a.is_ok()).count();
    eprintln!("{swaps} swaps, {} edits, {written} written", answers.len());
    let errors: std::collections::BTreeSet<String> = answers
        .iter()
        .filter_map(|(_, a)| a.as_ref().err())
        .map(|e| format!("{:?}: {}", e.code, e.message))
        .collect();
    eprintln!("errors: {errors:?}");
}

#[test]
fn outside_paths_that_exist_and_that_do_not_are_refused_alike() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS)]);
    let outside = env.dir().join("outside");
    write_files(
        &outside,
        &[
            ("secret.rs", "pub fn secret() {}\n"),
            ("dir/x.rs", "fn x() {}\n"),
        ],
    );
    std::os::unix::fs::symlink(&outside, root.join("src/link-dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.rs"), root.join("src/link.rs")).unwrap();
    std::os::unix::fs::symlink(outside.join("gone.rs"), root.join("src/dangling.rs")).unwrap();
    std::os::unix::fs::symlink("../../outside/secret.rs", root.join("src/rel-link.rs")).unwrap();
    std::os::unix::fs::symlink("../../outside/gone.rs", root.join("src/rel-dangling.rs")).unwrap();
    let o = outside.display().to_string();
    // (exists, does not)
    let pairs: Vec<(String, String)> = vec![
        ("../outside/secret.rs".into(), "../outside/gone.rs".into()),
        (format!("{o}/secret.rs"), format!("{o}/gone.rs")),
        (format!("{o}/dir/x.rs"), format!("{o}/nodir/x.rs")),
        (format!("{o}/dir"), format!("{o}/nodir")),
        (
            "src/link-dir/secret.rs".into(),
            "src/link-dir/gone.rs".into(),
        ),
        (
            "src/link-dir/dir/x.rs".into(),
            "src/link-dir/nodir/x.rs".into(),
        ),
        ("src/link.rs".into(), "src/dangling.rs".into()),
        ("src/rel-link.rs".into(), "src/rel-dangling.rs".into()),
        ("/etc/passwd".into(), "/etc/no-such-file-4711".into()),
        (
            "src/../../outside/secret.rs".into(),
            "src/../../outside/gone.rs".into(),
        ),
        (
            format!("{}/../outside/secret.rs", root.display()),
            format!("{}/../outside/gone.rs", root.display()),
        ),
    ];
    // The message starts with the path as the daemon got it (the shim makes it
    // absolute): `"PATH": why`.
    let shape = |v: &Value| {
        let message = v["error"]["message"].as_str().unwrap();
        (
            v["error"]["code"].clone(),
            message.split_once("\": ").map(|(_, why)| why.to_string()),
            v["error"]["remedy"].clone(),
        )
    };
    for (exists, missing) in &pairs {
        for args in [
            &["refactor", "symbols-overview"][..],
            &["outline"][..],
            &[
                "refactor",
                "replace-symbol-body",
                "--line",
                "1",
                "--end-line",
                "1",
                "--new-body",
                "pwned",
                "--path",
            ][..],
        ] {
            let answer = |path: &str| {
                let mut all = args.to_vec();
                all.push(path);
                let (_, v) = err_code(&env, &root, &all);
                shape(&v)
            };
            let (a, b) = (answer(exists), answer(missing));
            assert_eq!(a, b, "{exists:?} vs {missing:?} ({args:?})");
            assert_eq!(a.0, "FILE_NOT_FOUND", "{exists:?}: {a:?}");
        }
    }
}

/// Issue 16: an ambiguous name path is always `AMBIGUOUS_SYMBOL` with every candidate
/// and its `[n]` address, never the first or the shallowest one. A bare name matches
/// at any depth (the top-level function and both methods), a leading `/` anchors at
/// the top level, and two overloads are two candidates.
#[test]
fn an_ambiguous_name_path_names_every_candidate_and_edits_nothing() {
    let rs = "fn parse() -> u8 { 0 }\n\nstruct A;\n\nimpl A {\n    fn parse(&self) -> u8 { 1 }\n}\n\nstruct B;\n\nimpl B {\n    fn parse(&self) -> u8 { 2 }\n}\n";
    let java = "class Calc {\n    int add(int a) { return a; }\n    int add(int a, int b) { return a + b; }\n}\n";
    let (env, root) = project(&[("src/lib.rs", rs), ("src/Calc.java", java)]);
    let replace = |name_path: &str, path: Option<&str>, body: &str| {
        let mut args = vec![
            "refactor",
            "replace-symbol-body",
            "--name-path",
            name_path,
            "--new-body",
            body,
        ];
        if let Some(p) = path {
            args.extend(["--path", p]);
        }
        run(&env, &root, &args)
    };
    let candidates = |v: &Value| -> Vec<String> {
        v["error"]["details"]["candidates"]
            .as_array()
            .unwrap_or_else(|| panic!("no candidates: {v}"))
            .iter()
            .map(|c| format!("{}:{}", c["name_path"].as_str().unwrap(), c["line"]))
            .collect()
    };
    for path in [Some("src/lib.rs"), None] {
        let (out, v) = replace("parse", path, "fn parse() -> u8 { 9 }");
        assert!(!out.status.success(), "{path:?}: {v}");
        assert_eq!(v["error"]["code"], "AMBIGUOUS_SYMBOL", "{path:?}: {v}");
        // Each candidate as the address that names it alone: the top-level one
        // anchored.
        assert_eq!(
            candidates(&v),
            ["/parse:1", "A/parse:6", "B/parse:12"],
            "{path:?}"
        );
    }
    assert_eq!(fs::read_to_string(root.join("src/lib.rs")).unwrap(), rs);

    for path in [Some("src/Calc.java"), None] {
        let (out, v) = replace("Calc/add", path, "int add(int a) { return 0; }");
        assert!(!out.status.success(), "{path:?}: {v}");
        assert_eq!(v["error"]["code"], "AMBIGUOUS_SYMBOL", "{path:?}: {v}");
        // The first overload, stored without an index, is addressed as `[0]`.
        assert_eq!(
            candidates(&v),
            ["Calc/add[0]:2", "Calc/add[1]:3"],
            "{path:?}"
        );
    }
    assert_eq!(
        fs::read_to_string(root.join("src/Calc.java")).unwrap(),
        java
    );

    // Exactly one match: the anchored top-level function, and one overload by `[n]`.
    let (out, v) = replace("/parse", None, "fn parse() -> u8 { 9 }");
    assert!(out.status.success(), "{v}");
    assert!(
        fs::read_to_string(root.join("src/lib.rs"))
            .unwrap()
            .starts_with("fn parse() -> u8 { 9 }\n\nstruct A;")
    );
    let (out, v) = replace("add[1]", None, "int add(int a, int b) { return b + a; }");
    assert!(out.status.success(), "{v}");
    let (out, v) = replace("Calc/add[0]", None, "int add(int a) { return -a; }");
    assert!(out.status.success(), "{v}");
    assert_eq!(
        fs::read_to_string(root.join("src/Calc.java")).unwrap(),
        java.replace("return a + b;", "return b + a;")
            .replace("return a;", "return -a;")
    );
}

/// Issue 16: `lean-ctx --root DIR …` run from outside DIR resolves relative paths (and
/// the default, "here") against DIR, as MCP does; inside the root they start at the
/// working directory.
#[test]
fn paths_from_outside_the_root_start_at_the_root() {
    let (env, root) = project(&[("src/lib.rs", LIB_RS)]);
    let outside = env.dir().join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    let root_arg = root.to_str().unwrap();
    let v = ok(&env, &outside, &["--root", root_arg, "outline"]);
    assert_eq!(v["files"][0]["path"], "src/lib.rs", "{v}");
    let v = ok(
        &env,
        &outside,
        &[
            "--root",
            root_arg,
            "refactor",
            "symbols-overview",
            "src/lib.rs",
        ],
    );
    assert_eq!(v["path"], "src/lib.rs", "{v}");
    let v = ok(
        &env,
        &root.join("src"),
        &["refactor", "symbols-overview", "lib.rs"],
    );
    assert_eq!(v["path"], "src/lib.rs", "{v}");
}

/// Issue 16: a symbol's hash covers everything a replacement may rewrite, its doc
/// comment included. Someone changes the doc comment on disk after the agent read the
/// symbol (overview, `read --name-path`): the agent's edit with the hash it read is a
/// `CONFLICT` and the file keeps the other writer's doc comment, whether the new
/// text brings its own doc comment or keeps the one on disk; with the hash read again
/// the edit goes through.
#[test]
fn a_doc_comment_changed_since_the_read_is_a_conflict_not_a_lost_update() {
    let src = "pub fn zero() -> u8 { 0 }\n\n/// Adds one.\n#[inline]\npub fn add(a: u8) -> u8 { a + 1 }\n";
    let (env, root) = project(&[("src/lib.rs", src)]);
    let file = root.join("src/lib.rs");
    let v = ok(&env, &root, &["refactor", "symbols-overview", "src/lib.rs"]);
    let listed = v["symbols"][1]["hash"].as_str().unwrap().to_string();
    let decl = "/// Adds one.\n#[inline]\npub fn add(a: u8) -> u8 { a + 1 }";
    assert_eq!(listed, hash(decl.as_bytes()), "{v}");
    let read = ok(&env, &root, &["read", "src/lib.rs", "--name-path", "add"]);
    assert_eq!(read["files"][0]["hash"], listed.as_str(), "{read}");
    assert_eq!(
        read["files"][0]["content"]["Lines"]["lines"][0], "/// Adds one.",
        "the read shows what its hash covers: {read}"
    );

    let theirs = src.replace("/// Adds one.", "/// Adds one; wraps at 255.");
    fs::write(&file, &theirs).unwrap();
    for body in [
        "/// Adds one.\n#[inline]\npub fn add(a: u8) -> u8 { a.wrapping_add(1) }",
        "pub fn add(a: u8) -> u8 { a.wrapping_add(1) }",
    ] {
        let (code, v) = err_code(
            &env,
            &root,
            &[
                "refactor",
                "replace-symbol-body",
                "--name-path",
                "add",
                "--new-body",
                body,
                "--expected-hash",
                &listed,
            ],
        );
        assert_eq!(code, "CONFLICT", "{v}");
        assert_eq!(fs::read_to_string(&file).unwrap(), theirs);
    }

    let now = ok(&env, &root, &["read", "src/lib.rs", "--name-path", "add"]);
    let now = now["files"][0]["hash"].as_str().unwrap().to_string();
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "add",
            "--new-body",
            "pub fn add(a: u8) -> u8 { a.wrapping_add(1) }",
            "--expected-hash",
            &now,
        ],
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        theirs.replace("{ a + 1 }", "{ a.wrapping_add(1) }")
    );
}

/// Issue 16: a declaration of several names (Java `int a, b;`, Go `var X, Y T` and
/// `A, B = 1, 2` in a `const (…)` group, TypeScript `const a = 1, b = 2`) is one
/// range each name reports, with a signature naming it alone. Replacing one name
/// alone would rewrite its siblings: `INVALID_TARGET` naming them, file untouched; a
/// name alone in its declaration is replaced as usual, an insert lands outside the
/// declaration, and its lines rewrite it whole.
#[test]
fn one_name_of_a_declaration_of_several_is_never_replaced_alone() {
    let java = "class K {\n    static final int A1 = 1, B1 = 2;\n}\n";
    let go = "package p\n\nvar X, Y float64\n\nconst (\n\tA, B = 1, 2\n\tC    = 3\n)\n";
    let ts = "export const a = 1, b = 2;\n";
    let (env, root) = project(&[("K.java", java), ("p.go", go), ("p.ts", ts)]);
    let read = |path: &str| fs::read_to_string(root.join(path)).unwrap();
    for (path, name, sibling, body) in [
        ("K.java", "K/B1", "K/A1", "static final int B1 = 3;"),
        ("p.go", "Y", "X", "var Y float64 = 1"),
        ("p.go", "B", "A", "B = 5"),
        ("p.ts", "b", "a", "export const b = 3;"),
    ] {
        let before = read(path);
        let (code, v) = err_code(
            &env,
            &root,
            &[
                "refactor",
                "replace-symbol-body",
                "--name-path",
                name,
                "--path",
                path,
                "--new-body",
                body,
            ],
        );
        assert_eq!(code, "INVALID_TARGET", "{name}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{sibling:?}")) || message.contains(sibling),
            "{v}"
        );
        assert!(
            v["error"]["remedy"].as_str().unwrap().contains("line"),
            "{v}"
        );
        assert_eq!(read(path), before, "{name}");
    }

    let v = ok(&env, &root, &["refactor", "symbols-overview", "p.ts"]);
    let b = &v["symbols"][1];
    assert_eq!(b["name_path"], "b", "{v}");
    assert_eq!(b["signature"], "export const b", "{v}");
    assert_eq!(b["range"], v["symbols"][0]["range"], "{v}");

    let edit = |verb: &str, path: &str, name: &str, flag: &str, text: &str| {
        ok(
            &env,
            &root,
            &[
                "refactor",
                verb,
                "--name-path",
                name,
                "--path",
                path,
                flag,
                text,
            ],
        );
    };
    edit(
        "insert-before-symbol",
        "p.ts",
        "b",
        "--text",
        "export const z = 0;",
    );
    assert_eq!(
        read("p.ts"),
        "export const z = 0;\nexport const a = 1, b = 2;\n"
    );
    edit("replace-symbol-body", "p.go", "C", "--new-body", "C = 4");
    assert!(
        read("p.go").contains("\tA, B = 1, 2\n\tC = 4\n)"),
        "{}",
        read("p.go")
    );
    ok(
        &env,
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--path",
            "p.go",
            "--line",
            "3",
            "--end-line",
            "3",
            "--new-body",
            "var X, Y float32",
        ],
    );
    assert!(
        read("p.go").starts_with("package p\n\nvar X, Y float32\n\n"),
        "{}",
        read("p.go")
    );
}
