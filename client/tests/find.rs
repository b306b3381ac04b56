//! Finding one's way through a project, end to end through real shims and the real
//! daemon: `tree` (the indexed files with per-directory counts and languages) and
//! `search --text|--regex` (matching lines labelled with their symbols) over a
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
/// a non-ASCII name, two text files (TOML, Markdown), and files `.gitignore` and
/// `info/exclude` leave out.
fn fixture() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q"]);
    for (path, text) in [
        (".gitignore", "target/\n*.gen.rs\n"),
        ("Cargo.toml", "[package]\nname = \"p\"\n"),
        ("README.md", "# a text file\n"),
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
    assert_eq!(v["total_files"], 6, "{v}");
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
            "Cargo.toml",
            "README.md",
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
        json!({"File": {"language": "rust", "skipped": null}})
    );
    // A text file by its kind.
    assert_eq!(
        v["entries"][10]["kind"],
        json!({"File": {"language": "toml", "skipped": null}})
    );

    // Depth 1: the root's entries, directories with their counts only.
    assert_eq!(
        text(&env, &root, &["tree", "--depth", "1"]),
        "./ (6 files: rust 2, markdown 1, python 1, toml 1, typescript 1)\n  src/ (3 files: rust 2, python 1)\n  web/ (1 file: typescript 1)\n  Cargo.toml\n  README.md\n"
    );
    // The default depth (2), from a subdirectory: that directory's tree.
    assert_eq!(
        text(&env, &root.join("src"), &["tree"]),
        "src/ (3 files: rust 2, python 1)\n  deep/ (1 file: python 1)\n    a/ (1 file: python 1)\n  ünï/ (1 file: rust 1)\n    straße.rs\n  lib.rs\n"
    );
    // A limit too small for the depth asked: fewer whole levels, not a cut subtree.
    let v = env.ok(&root, &["tree", "--depth", "3", "--limit", "8"]);
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
            "web/app.ts",
            "Cargo.toml",
            "README.md",
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

/// `(path, line, column, enclosing name path)` of each hit.
fn hits(v: &Value) -> Vec<(String, u64, u64, String)> {
    v["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits in {v}"))
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
                h["column"].as_u64().unwrap(),
                h["symbol"]["name_path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn hit(path: &str, line: u64, column: u64, symbol: &str) -> (String, u64, u64, String) {
    (path.into(), line, column, symbol.into())
}

/// The text index: a search reads only the files whose content may hold the
/// pattern, yet sees every write another process made before it, at once (no wait
/// for the watcher's debounce): a file created in a new directory, one rewritten,
/// one appended to, one removed.
#[test]
fn a_text_search_reads_only_candidates_and_sees_every_write_made_before_it() {
    let (env, root) = fixture();
    for i in 0..200 {
        let text = format!("fn filler_{i}() {{ let x = {i}; }}\n");
        fs::write(root.join(format!("src/filler_{i}.rs")), text).unwrap();
    }
    let v = env.ok(&root, &["search", "--text", "parse_args"]);
    assert_eq!(v["total"], 1, "{v}");
    let all = v["searched"]["files"].as_u64().unwrap();
    assert!(all > 200, "{v}");
    // Only src/lib.rs holds the trigrams, and its bytes are all that is read: the
    // search waited for the text index's fill, which took every file after the walk
    // had answered (the walk itself leaves them to it).
    assert_eq!(v["searched"]["read"], 1, "{v}");
    let log = env.log();
    let indexed = log.find(" indexed ").expect("the walk's line");
    let filled = log[indexed..]
        .lines()
        .find(|l| l.contains("text index filled in"));
    assert!(
        filled.is_some_and(|l| l.ends_with(&format!(" files={all}"))),
        "{log}"
    );
    let lib = fs::metadata(root.join("src/lib.rs")).unwrap().len();
    assert_eq!(v["searched"]["bytes_read"], lib, "{v}");

    for round in 0..24 {
        let token = format!("fresh_token_{round}_q");
        match round % 3 {
            0 => {
                let dir = root.join(format!("new_{round}/deeper"));
                fs::create_dir_all(&dir).unwrap();
                fs::write(dir.join("n.rs"), format!("fn {token}() {{}}\n")).unwrap();
            }
            1 => {
                let text = format!("fn filler() {{ {token}(); }}\n");
                fs::write(root.join(format!("src/filler_{round}.rs")), text).unwrap();
            }
            _ => {
                let mut f = fs::OpenOptions::new()
                    .append(true)
                    .open(root.join("src/lib.rs"))
                    .unwrap();
                std::io::Write::write_all(&mut f, format!("// {token}\n").as_bytes()).unwrap();
            }
        }
        let v = env.ok(&root, &["search", "--text", &token]);
        assert_eq!(v["total"], 1, "round {round}: {v}");
        assert!(
            v["searched"]["read"].as_u64() <= Some(2),
            "round {round}: {v}"
        );
    }
    fs::remove_file(root.join("src/filler_5.rs")).unwrap();
    // Nothing found: exit 1, as grep's.
    let (out, v) = env.shim_json_in(&root, &["search", "--text", "filler_5()"]);
    assert_eq!(
        (out.status.code(), &v["total"]),
        (Some(1), &json!(0)),
        "{v}"
    );

    // Nothing to plan on (no three characters in a row): every file is read.
    let v = env.ok(
        &root,
        &["search", "--regex", "f.l", "-l", "--limit", "1000"],
    );
    assert_eq!(v["searched"]["read"], v["searched"]["files"], "{v}");
    assert!(v["files"].as_u64() > Some(190), "{v}");
}

/// A search stops reading once the files before the next one fill its answer, so a
/// pattern found everywhere costs what its answer costs; what it says it read, and
/// the counts it gives, are what it read. A later page goes on in the same order.
#[test]
fn a_search_stops_reading_once_its_answer_is_full_and_says_so() {
    let (env, root) = fixture();
    for i in 0..300 {
        let text = format!("fn common_{i}() {{\n    common_word();\n    common_word();\n}}\n");
        fs::write(root.join(format!("src/c_{i:03}.rs")), text).unwrap();
    }
    let everything = env.ok(
        &root,
        &["search", "--text", "common_word", "--limit", "1000"],
    );
    assert_eq!(
        (
            everything["total"].as_u64(),
            everything["searched"]["unread"].as_u64()
        ),
        (Some(600), Some(0)),
        "{everything}"
    );
    let all_hits = hits(&everything);

    let v = env.ok(&root, &["search", "--text", "common_word", "--limit", "5"]);
    assert_eq!(hits(&v), all_hits[..5], "{v}");
    let (read, unread) = (
        v["searched"]["read"].as_u64().unwrap(),
        v["searched"]["unread"].as_u64().unwrap(),
    );
    // Two workers, two hits a file: three files fill it, and a worker may have taken
    // one more file each before it saw the answer full.
    assert!((3..=5).contains(&read), "{v}");
    assert_eq!(read + unread, 300, "{v}");
    assert_eq!(v["total"].as_u64(), Some(2 * read), "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    let text = text(
        &env,
        &root,
        &["search", "--text", "common_word", "--limit", "5"],
    );
    // Another run: its workers may have read a file more or fewer.
    assert!(
        text.contains("+ matching lines shown, in ")
            && text.contains(" files unread); go on with skip=5"),
        "{text}"
    );

    // The next page: the same order, from where the last one stopped.
    let next = env.ok(
        &root,
        &[
            "search",
            "--text",
            "common_word",
            "--limit",
            "5",
            "--skip",
            "5",
        ],
    );
    assert_eq!(hits(&next), all_hits[5..10], "{next}");

    // Files only: filled by files with a match, each with its exact count.
    let files = env.ok(
        &root,
        &["search", "--text", "common_word", "-l", "--limit", "4"],
    );
    let listed = files["matching_files"].as_array().unwrap();
    assert_eq!(listed.len(), 4, "{files}");
    assert!(listed.iter().all(|f| f["lines"] == 2), "{files}");
    assert!(files["searched"]["unread"].as_u64() >= Some(290), "{files}");
}

#[test]
fn text_and_regex_search_label_each_line_with_its_symbol_and_never_search_an_ignored_file() {
    let (env, root) = fixture();
    let v = env.ok(&root, &["search", "--text", "needle"]);
    assert_eq!(
        (v["total"].as_u64(), v["files"].as_u64()),
        (Some(3), Some(3)),
        "{v}"
    );
    assert_eq!(
        hits(&v),
        [
            hit("src/deep/a/b.py", 3, 16, "Point/move"),
            hit("src/lib.rs", 2, 8, "parse_args"),
            hit("src/ünï/straße.rs", 3, 5, "zweite"),
        ]
    );
    // The line as it is, without its CRLF.
    assert_eq!(v["hits"][2]["text"], "    \"needle ß\"");
    assert_eq!(v["hits"][1]["symbol"]["kind"], "function");
    // Columns count characters; a comment line lies in no symbol.
    assert_eq!(
        hits(&env.ok(&root, &["search", "--text", "ß", "--path", "src/ünï"])),
        [
            hit("src/ünï/straße.rs", 1, 6, ""),
            hit("src/ünï/straße.rs", 3, 12, "zweite")
        ]
    );

    // Literal by default; a regex on request; `$` before a CRLF.
    let literal = env.ok(&root, &["search", "--text", "vec![]"]);
    assert_eq!(hits(&literal), [hit("src/lib.rs", 3, 4, "parse_args")]);
    assert_eq!(
        hits(&env.ok(&root, &["search", "--regex", r"vec!\[\]"])),
        hits(&literal)
    );
    assert_eq!(
        hits(&env.ok(&root, &["search", "--regex", "ß\"$"])),
        [hit("src/ünï/straße.rs", 3, 12, "zweite")]
    );
    let e = env.err(&root, &["search", "--regex", "vec![]"]);
    assert_eq!(e["code"], "INVALID_TARGET", "{e}");

    // Case: exact unless asked, then beyond ASCII too.
    // Nothing found: exit 1, as grep's.
    let (out, v) = env.shim_json_in(&root, &["search", "--text", "NEEDLE"]);
    assert_eq!(
        (out.status.code(), &v["total"]),
        (Some(1), &json!(0)),
        "{v}"
    );
    assert_eq!(
        env.ok(&root, &["search", "--text", "NEEDLE", "-i"])["total"],
        3
    );
    assert_eq!(
        hits(&env.ok(&root, &["search", "--text", "GRÖßE", "-i"])),
        [hit("src/ünï/straße.rs", 1, 3, "")]
    );

    // Bounded, and said so: the third file, one line, may be left unread once the
    // first two fill the answer.
    let v = env.ok(&root, &["search", "--text", "needle", "--limit", "2"]);
    assert_eq!(
        (
            v["hits"].as_array().unwrap().len(),
            v["total"].as_u64().unwrap() + v["searched"]["unread"].as_u64().unwrap(),
            v["truncated"].as_bool()
        ),
        (2, 3, Some(true)),
        "{v}"
    );

    // Ignored files are never searched, whatever they hold.
    let (out, all) = env.shim_json_in(&root, &["search", "--regex", "needle_"]);
    assert_eq!(
        (out.status.code(), &all["total"]),
        (Some(1), &json!(0)),
        "{all}"
    );

    // The focused file first, then path order.
    env.ok(&root, &["editor-signal", "--file", "src/ünï/straße.rs"]);
    let v = env.ok(&root, &["search", "--text", "needle"]);
    assert_eq!(v["hits"][0]["path"], "src/ünï/straße.rs", "{v}");
    assert_eq!(v["hits"][1]["path"], "src/deep/a/b.py", "{v}");

    // A write shows in the very next answer, labels included.
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    fs::write(
        root.join("src/lib.rs"),
        format!("fn inserted() {{\n    let needle = 2;\n}}\n{lib}"),
    )
    .unwrap();
    assert_eq!(
        hits(&env.ok(
            &root,
            &["search", "--text", "needle", "--path", "src/lib.rs"]
        )),
        [
            hit("src/lib.rs", 2, 8, "inserted"),
            hit("src/lib.rs", 5, 8, "parse_args")
        ]
    );

    // The text form: grouped by file; one hit is shorter without its symbol's name
    // (grep's size is the bound), which the JSON answer above has.
    assert_eq!(
        text(
            &env,
            &root,
            &["search", "--text", "needle", "--path", "src/deep"]
        ),
        "src/deep/a/b.py:3  return 'needle'\n"
    );
}

#[test]
fn text_search_never_reads_through_a_directory_swapped_for_a_symlink_outside_the_root() {
    let (env, root) = fixture();
    // Outside the root: a file at the same relative path as an indexed one.
    let outside = env.dir().join("outside");
    fs::create_dir_all(outside.join("a")).unwrap();
    fs::write(
        outside.join("a/b.py"),
        "class Point:\n    def move(self):\n        return 'needle_secret'\n",
    )
    .unwrap();
    // Exit 1 when nothing matched: the answer is what counts here.
    let search = |q: &str| {
        env.shim_json_in(&root, &["search", "--text", q, "--limit", "50"])
            .1
    };
    assert_eq!(search("needle")["total"], 3, "indexed first");
    // Swap the indexed directory for a symlink to the outside one and back, searching
    // in between: whatever the watcher has seen yet, no answer may hold the secret.
    let deep = root.join("src/deep");
    let aside = root.join("src/deep.aside");
    for round in 0..10 {
        fs::rename(&deep, &aside).unwrap();
        std::os::unix::fs::symlink(&outside, &deep).unwrap();
        for q in ["needle_secret", "needle"] {
            let v = search(q);
            assert!(
                !v.to_string().contains("needle_secret"),
                "round {round}: {v}"
            );
        }
        fs::remove_file(&deep).unwrap();
        fs::rename(&aside, &deep).unwrap();
        let v = search("needle");
        assert!(
            !v.to_string().contains("needle_secret"),
            "round {round}: {v}"
        );
    }
}
