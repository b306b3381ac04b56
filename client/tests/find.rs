//! Finding one's way through a project, end to end through real shims and the real
//! daemon: `tree` (the indexed files with per-directory counts and languages) over a
//! fixture with non-ASCII names and text, CRLF line endings and ignored files that
//! must never appear.

use std::{
    fs,
    path::{Path, PathBuf},
};

use lean_ctx_testkit::{TestEnv, git};
use serde_json::{Value, json};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// A git repository `proj`: Rust, Python and TypeScript files, one of them CRLF with
/// a non-ASCII name, and files `.gitignore` and `info/exclude` leave out.
fn fixture() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q"]);
    for (path, text) in [
        (".gitignore", "target/\n*.gen.rs\n"),
        ("Cargo.toml", "[package]\nname = \"p\"\n"),
        ("README.md", "# not indexed\n"),
        (
            "src/lib.rs",
            "pub fn parse_args() -> Vec<String> {\n    let needle = 1;\n    vec![]\n}\n",
        ),
        (
            "src/ünï/straße.rs",
            "// größe: 日本\r\nfn zweite() -> &'static str {\r\n    \"needle ß\"\r\n}\r\n",
        ),
        (
            "src/deep/a/b.py",
            "class Point:\n    def move(self):\n        return 'needle'\n",
        ),
        (
            "web/app.ts",
            "export function run(): number { return 1; }\n",
        ),
        ("target/debug/gen.rs", "fn needle_in_target() {}\n"),
        ("src/secret.gen.rs", "fn needle_generated() {}\n"),
        ("excluded.rs", "fn needle_excluded() {}\n"),
    ] {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    fs::write(root.join(".git/info/exclude"), "excluded.rs\n").unwrap();
    (env, fs::canonicalize(root).unwrap())
}

/// `lean-ctx ARGS` in `cwd` as text.
fn text(env: &TestEnv, cwd: &Path, args: &[&str]) -> String {
    let out = env.shim().current_dir(cwd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn paths(v: &Value) -> Vec<&str> {
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect()
}

#[test]
fn the_tree_lists_indexed_files_with_counts_and_languages_and_never_an_ignored_one() {
    let (env, root) = fixture();
    let v = env.ok(&root, &["tree", "--depth", "9"]);
    assert_eq!(v["total_files"], 4, "{v}");
    assert_eq!(v["depth"], 4, "{v}");
    assert_eq!(v["truncated"], false);
    assert_eq!(
        paths(&v),
        [
            "",
            "src",
            "src/deep",
            "src/deep/a",
            "src/deep/a/b.py",
            "src/ünï",
            "src/ünï/straße.rs",
            "src/lib.rs",
            "web",
            "web/app.ts",
        ]
    );
    assert_eq!(
        v["entries"][1],
        json!({"path": "src", "level": 1, "kind": {"Dir": {"files": 3, "languages": [
            {"language": "rust", "files": 2}, {"language": "python", "files": 1}
        ], "expanded": true}}})
    );
    assert_eq!(
        v["entries"][6]["kind"],
        json!({"File": {"language": "rust"}})
    );

    // Depth 1: the root's entries, directories with their counts only.
    assert_eq!(
        text(&env, &root, &["tree", "--depth", "1"]),
        "./ (4 files: rust 2, python 1, typescript 1)\n  src/ (3 files: rust 2, python 1)\n  web/ (1 file: typescript 1)\n"
    );
    // The default depth (2), from a subdirectory: that directory's tree.
    assert_eq!(
        text(&env, &root.join("src"), &["tree"]),
        "src/ (3 files: rust 2, python 1)\n  deep/ (1 file: python 1)\n    a/ (1 file: python 1)\n  ünï/ (1 file: rust 1)\n    straße.rs\n  lib.rs\n"
    );
    // A limit too small for the depth asked: fewer whole levels, not a cut subtree.
    let v = env.ok(&root, &["tree", "--depth", "3", "--limit", "6"]);
    assert_eq!(
        (v["depth"].as_u64(), v["truncated"].as_bool()),
        (Some(2), Some(false)),
        "{v}"
    );
    assert_eq!(
        paths(&v),
        [
            "",
            "src",
            "src/deep",
            "src/ünï",
            "src/lib.rs",
            "web",
            "web/app.ts"
        ]
    );
    // A limit smaller than one level: cut, and said so.
    let v = env.ok(&root, &["tree", "--limit", "1"]);
    assert_eq!(
        (v["depth"].as_u64(), v["truncated"].as_bool()),
        (Some(1), Some(true)),
        "{v}"
    );
    assert_eq!(paths(&v), ["", "src"]);

    // A file created later shows up; an ignored one never does.
    fs::write(root.join("web/late.ts"), "export const late = 1;\n").unwrap();
    fs::write(root.join("web/late.gen.rs"), "fn f() {}\n").unwrap();
    let seen = lean_ctx_testkit::wait_until(std::time::Duration::from_secs(20), || {
        paths(&env.ok(&root, &["tree", "web"])).contains(&"web/late.ts")
    });
    assert!(seen, "web/late.ts never appeared");
    assert_eq!(
        paths(&env.ok(&root, &["tree", "web"])),
        ["web", "web/app.ts", "web/late.ts"]
    );

    // Outside the root: refused like every path.
    let e = env.err(&root, &["tree", "/etc"]);
    assert_eq!(e["code"], "FILE_NOT_FOUND", "{e}");
}
