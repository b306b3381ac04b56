//! Backing A end to end: real shims, the real daemon, a real rust-analyzer (built from
//! crates.io by `tests/ensure-rust-analyzer.sh` when the toolchain has none), a real
//! gopls (`tests/ensure-gopls.sh`), a real python-lsp-server, and clangd (Debian's)
//! and bash-language-server (npm) found with no configuration. Fixtures carry
//! non-ASCII lines, so every column crosses the position-encoding boundary.

use std::{
    fs,
    path::{Path, PathBuf},
    thread,
    time::Duration,
};

use lean_ctx_testkit::{
    TestEnv, bash_language_server, git, go_calls_fixture, gopls_env, pylsp, python_fixture,
    rust_analyzer, spots, typescript_language_server, wait_until,
};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

const LIB_RS: &str = "pub mod shapes;\n\
/// Größe: ein Maß — non-ASCII before the name.\n\
pub fn größe(s: &shapes::Square) -> u32 { let ü = s.side; ü * ü }\n\
pub fn use_it() -> u32 { größe(&shapes::Square { side: 2 }) + größe(&shapes::Square { side: 3 }) }\n";

const SHAPES_RS: &str = "pub trait Area { fn area(&self) -> u32; }\n\
pub struct Square { pub side: u32 }\n\
impl Area for Square { fn area(&self) -> u32 { self.side * self.side } }\n\
pub struct Circle { pub r: u32 }\n\
impl Area for Circle { fn area(&self) -> u32 { 3 * self.r * self.r } }\n";

/// A cargo crate `proj` (a git repo) and an environment whose rust-analyzer is the
/// real one; `extra` is appended to `[lsp]`.
fn rust_project(extra: &str) -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\nrust = [{:?}]\n{extra}",
        rust_analyzer().display().to_string()
    ));
    let root = env.dir().join("proj");
    write_crate(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "fixture"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    (env, root)
}

fn write_crate(root: &Path) {
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    fs::write(root.join("src/lib.rs"), LIB_RS).unwrap();
    fs::write(root.join("src/shapes.rs"), SHAPES_RS).unwrap();
}

#[test]
fn rust_analyzer_navigates_non_ascii_code_and_reports_indexing_first() {
    let (env, root) = rust_project("");
    // The first call finds no server yet: INDEXING with progress, never an empty list.
    let first = env.err(
        &root,
        &["refactor", "references", "src/lib.rs:3:8", "--no-wait"],
    );
    assert_eq!(first["code"], "INDEXING", "{first}");
    assert!(
        first["details"]["progress"]["message"].is_string(),
        "{first}"
    );

    // `größe` is column 7 in characters (9 in UTF-8 bytes).
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    assert_eq!(
        spots(&refs),
        ["src/lib.rs 3:7", "src/lib.rs 4:25", "src/lib.rs 4:62"]
    );
    assert_eq!(refs["backing"], "rust-analyzer");
    assert_eq!(refs["total"], 3);
    assert!(
        refs["locations"][1]["context"]
            .as_str()
            .unwrap()
            .starts_with("pub fn use_it")
    );
    // Each location names the declaration it lies in, with the hash its edit takes:
    // the caller is edited without a read.
    let callers: Vec<&str> = refs["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["symbol"]["name_path"].as_str().unwrap())
        .collect();
    assert_eq!(callers, ["größe", "use_it", "use_it"]);
    let text = env
        .shim()
        .current_dir(&root)
        .args(["refactor", "references", "src/lib.rs:3:9"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let hash = refs["locations"][1]["symbol"]["hash"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "src/lib.rs\n  function größe  {}\n    3:7  pub fn größe",
            &refs["locations"][0]["symbol"]["hash"].as_str().unwrap()[..16]
        )) && text.contains(&format!("\n  function use_it  {}\n    4:25  ", &hash[..16])),
        "{text}"
    );

    // By name (in its file, a directory, the project), or at the declaration's start
    // as a map or a search gives it (column 0 will do): no column to guess.
    for args in [
        &[
            "refactor",
            "references",
            "--name-path",
            "größe",
            "src/lib.rs",
        ][..],
        &["refactor", "references", "--name-path", "größe", "src"],
        &["refactor", "references", "--name-path", "größe"],
        &["refactor", "references", "src/lib.rs:3:0"],
    ] {
        assert_eq!(
            spots(&env.ok(&root, args)),
            ["src/lib.rs 3:7", "src/lib.rs 4:25", "src/lib.rs 4:62"],
            "{args:?}"
        );
    }
    let imps = env.ok(
        &root,
        &["refactor", "implementations", "--name-path", "/Area"],
    );
    assert_eq!(spots(&imps), ["src/shapes.rs 3:14", "src/shapes.rs 5:14"]);
    let many = env.err(&root, &["refactor", "definition", "--name-path", "area"]);
    assert_eq!(many["code"], "AMBIGUOUS_SYMBOL", "{many}");
    let none = env.err(&root, &["refactor", "references", "--name-path", "nichts"]);
    assert_eq!(none["code"], "NO_SYMBOL", "{none}");

    // The second `größe(` call on line 4 is column 62: past two non-ASCII names.
    let def = env.ok(&root, &["refactor", "definition", "src/lib.rs:4:63"]);
    assert_eq!(spots(&def), ["src/lib.rs 3:7"]);
    let decl = env.ok(&root, &["refactor", "declaration", "src/lib.rs:4:63"]);
    assert_eq!(spots(&decl), ["src/lib.rs 3:7"]);

    let imps = env.ok(
        &root,
        &["refactor", "implementations", "src/shapes.rs:1:11"],
    );
    assert_eq!(spots(&imps), ["src/shapes.rs 3:14", "src/shapes.rs 5:14"]);

    let limited = env.ok(
        &root,
        &["refactor", "references", "src/lib.rs:3:9", "--limit", "1"],
    );
    assert_eq!(
        (limited["total"].as_u64(), limited["truncated"].as_bool()),
        (Some(3), Some(true))
    );

    // rust-analyzer has no type hierarchy: said plainly.
    let th = env.err(&root, &["refactor", "type-hierarchy", "src/shapes.rs:2:12"]);
    assert_eq!(th["code"], "UNSUPPORTED", "{th}");

    // A position outside the file.
    let oob = env.err(&root, &["refactor", "references", "src/lib.rs:3:99"]);
    assert_eq!(oob["code"], "POSITION_OUT_OF_RANGE", "{oob}");

    // Diagnostics of a file written by someone else just now: never stale.
    fs::write(
        root.join("src/lib.rs"),
        format!("{LIB_RS}pub fn kaputt() -> u32 {{ \"ö\" }}\n"),
    )
    .unwrap();
    let diags = env.ok(&root, &["refactor", "inspections", "src/lib.rs"]);
    let found = diags["diagnostics"].as_array().unwrap();
    assert!(
        found
            .iter()
            .any(|d| d["severity"] == "ERROR" && d["range"]["start"]["line"] == 5),
        "{diags}"
    );
    // Each diagnostic names the declaration it lies in, as reads and edits do.
    assert!(
        found
            .iter()
            .filter(|d| d["range"]["start"]["line"] == 5)
            .all(|d| d["symbol"]["name_path"] == "kaputt" && d["symbol"]["hash"].is_string()),
        "{diags}"
    );
    let list = env.ok(
        &root,
        &["refactor", "inspections", "src/lib.rs", "--mode", "list"],
    );
    assert!(!list["sources"].as_array().unwrap().is_empty(), "{list}");

    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0]["state"], "ready");
    assert_eq!(st[0]["language"], "rust");
    assert_eq!(st[0]["position_encoding"], "utf-8");
    assert!(st[0]["rss_bytes"].as_u64().unwrap() > 1 << 20);
    assert!(st[0]["open_documents"].as_u64().unwrap() >= 2);
    assert!(st[0]["calls_served"].as_u64().unwrap() >= 8);

    // The caller's hash from the references answer guards its edit.
    env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "use_it",
            "--expected-hash",
            &hash[..16],
            "--new-body",
            "pub fn use_it() -> u32 { größe(&shapes::Square { side: 4 }) }",
        ],
    );

    // The warm server checks each edit: what it reports new comes with the answer
    // (the type error in `kaputt` was there before, and is not new).
    let clean = env.ok(
        &root,
        &[
            "refactor",
            "insert-after-symbol",
            "--name-path",
            "use_it",
            "--text",
            "pub fn twice() -> u32 { use_it() * 2 }",
        ],
    );
    assert_eq!(clean["introduced"], serde_json::json!([]), "{clean}");
    let broken = env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "größe",
            "--new-body",
            "pub fn größe(s: &shapes::Square, k: u32) -> u32 { s.side * k }",
        ],
    );
    let introduced = broken["introduced"].as_array().unwrap();
    assert!(
        !introduced.is_empty()
            && introduced.iter().all(|d| d["severity"] == "ERROR"
                && d["symbol"]["name_path"] == "use_it"
                && d["range"]["start"]["line"] == 4),
        "{broken}"
    );
}

#[test]
fn files_we_wrote_reach_the_server_in_band_before_the_next_answer() {
    let (env, root) = rust_project("");
    let preview = env.ok(&root, &rename_square(&["--preview"]));
    let plan = preview["plan_hash"].as_str().unwrap().to_string();
    // Only the file the call named is an open document; rust-analyzer read
    // src/lib.rs from disk itself.
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st[0]["open_documents"], 1, "{st:?}");
    let applied = env.ok(&root, &rename_square(&["--plan-hash", &plan]));
    assert_eq!(
        applied["changed_paths"],
        serde_json::json!(["src/lib.rs", "src/shapes.rs"])
    );
    // src/lib.rs, which no call named, is an open document now: its new text went to
    // the server in the same stream as the next request. Told only by
    // didChangeWatchedFiles, rust-analyzer reloads a file it has not opened on its
    // VFS thread, behind the requests (a CI run once got 2 of these 5 references).
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st[0]["open_documents"], 2, "{st:?}");
    let refs = env.ok(&root, &["refactor", "references", "src/shapes.rs:2:12"]);
    assert_eq!(refs["total"], 5, "{refs}");
}

/// `refactor rename` of `Square` (src/shapes.rs:2:12) to `Quadrat`, plus `extra`.
fn rename_square<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "refactor",
        "rename",
        "src/shapes.rs:2:12",
        "--new-name",
        "Quadrat",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn rename_previews_applies_across_files_and_refuses_a_drifted_plan() {
    let (env, root) = rust_project("");
    let preview = env.ok(&root, &rename_square(&["--preview"]));
    let usages = preview["usages"].as_array().unwrap();
    let files: std::collections::BTreeSet<&str> =
        usages.iter().map(|u| u["path"].as_str().unwrap()).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["src/lib.rs", "src/shapes.rs"]
    );
    assert!(
        usages
            .iter()
            .all(|u| u["text"] == "Square" && u["new_text"] == "Quadrat")
    );
    assert_eq!(preview["applied"], false);
    let plan = preview["plan_hash"].as_str().unwrap().to_string();
    assert_eq!(fs::read_to_string(root.join("src/lib.rs")).unwrap(), LIB_RS);

    // Someone edits a usage's file between preview and apply: CONFLICT, nothing written.
    let drifted = format!("// a line above shifts every usage\n{LIB_RS}");
    // Written behind the daemon's back and asked at once: whatever the watcher has
    // told the server yet, the answer is about the disk.
    fs::write(root.join("src/lib.rs"), &drifted).unwrap();
    let conflict = env.err(&root, &rename_square(&["--plan-hash", &plan]));
    assert_eq!(conflict["code"], "CONFLICT", "{conflict}");
    assert_eq!(
        fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        drifted
    );
    assert_eq!(
        fs::read_to_string(root.join("src/shapes.rs")).unwrap(),
        SHAPES_RS
    );

    // A fresh preview and its plan apply to every file.
    let again = env.ok(&root, &rename_square(&["--preview"]));
    let plan = again["plan_hash"].as_str().unwrap().to_string();
    // The plan is of this rename: the same usages renamed to another name are not it.
    let mut other = rename_square(&["--plan-hash", &plan]);
    other[4] = "Viereck";
    let refused = env.err(&root, &other);
    assert_eq!(refused["code"], "CONFLICT", "{refused}");
    assert_eq!(
        fs::read_to_string(root.join("src/shapes.rs")).unwrap(),
        SHAPES_RS
    );
    let applied = env.ok(&root, &rename_square(&["--plan-hash", &plan]));
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(
        applied["changed_paths"],
        serde_json::json!(["src/lib.rs", "src/shapes.rs"])
    );
    assert_eq!(
        fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        drifted.replace("Square", "Quadrat")
    );
    assert_eq!(
        fs::read_to_string(root.join("src/shapes.rs")).unwrap(),
        SHAPES_RS.replace("Square", "Quadrat")
    );
    // The server saw our writes: the next answer is about the new text.
    let refs = env.ok(&root, &["refactor", "references", "src/shapes.rs:2:12"]);
    assert_eq!(refs["total"], 5, "{refs}");
    for l in refs["locations"].as_array().unwrap() {
        assert!(l["context"].as_str().unwrap().contains("Quadrat"), "{l}");
    }

    // Nothing to rename at a keyword (column 0, where the declaration starts, would
    // mean its name).
    let nothing = env.err(
        &root,
        &[
            "refactor",
            "rename",
            "src/shapes.rs:2:1",
            "--new-name",
            "x",
            "--preview",
        ],
    );
    assert_eq!(nothing["code"], "NO_SYMBOL_AT_POSITION", "{nothing}");

    // Move, safe delete and inline have no language-server equivalent.
    let mv = env.err(
        &root,
        &[
            "refactor",
            "move",
            "src/shapes.rs:2:12",
            "--destination",
            "src/lib.rs",
        ],
    );
    assert_eq!(mv["code"], "BACKEND_REQUIRED", "{mv}");
}

#[test]
fn reformat_writes_atomically_and_guards_the_hash() {
    let (env, root) = rust_project("");
    let ugly = "pub fn   grün( )->u32{1}\n";
    fs::write(root.join("src/ugly.rs"), ugly).unwrap();
    fs::write(root.join("src/lib.rs"), format!("{LIB_RS}pub mod ugly;\n")).unwrap();
    let stale = env.err(
        &root,
        &[
            "refactor",
            "reformat",
            "src/ugly.rs",
            "--expected-hash",
            &"0".repeat(64),
        ],
    );
    assert_eq!(stale["code"], "CONFLICT", "{stale}");
    assert_eq!(fs::read_to_string(root.join("src/ugly.rs")).unwrap(), ugly);
    let hash = blake3::hash(ugly.as_bytes()).to_hex().to_string();
    let done = env.ok(
        &root,
        &[
            "refactor",
            "reformat",
            "src/ugly.rs",
            "--expected-hash",
            &hash,
        ],
    );
    assert_eq!(done["reformatted"], true, "{done}");
    let now = fs::read_to_string(root.join("src/ugly.rs")).unwrap();
    assert_eq!(now, "pub fn grün() -> u32 {\n    1\n}\n");
    assert_eq!(done["hash"], blake3::hash(now.as_bytes()).to_hex().as_str());
    let again = env.ok(&root, &["refactor", "reformat", "src/ugly.rs"]);
    assert_eq!(again["reformatted"], false);
}

#[test]
fn a_killed_server_is_restarted_by_the_next_call_and_many_sessions_share_one() {
    let (env, root) = rust_project("");
    env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    let first = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap() as u32;

    // Eight sessions at once: one server answers them all.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (shim_env, cwd) = (env.envs(), root.clone());
            thread::spawn(move || {
                std::process::Command::new(SHIM)
                    .env_clear()
                    .envs(shim_env)
                    .current_dir(cwd)
                    .args(["--json", "refactor", "references", "src/lib.rs:3:9"])
                    .output()
                    .unwrap()
            })
        })
        .collect();
    for h in handles {
        let out = h.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st.len(), 1);
    assert_eq!(st[0]["pid"].as_u64().unwrap() as u32, first);

    env.kill9(first);
    assert!(wait_until(Duration::from_secs(10), || env
        .status_rows(&root, "language_servers")[0]["state"]
        == "failed"));
    // The next call starts a new one (answering INDEXING meanwhile) and then answers.
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    assert_eq!(refs["total"], 3);
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st.len(), 1);
    assert_ne!(st[0]["pid"].as_u64().unwrap() as u32, first);
    assert_eq!(st[0]["state"], "ready");
}

#[test]
fn two_worktrees_get_two_servers_which_go_when_idle_and_die_with_the_daemon() {
    let (env, root) = rust_project("idle_ttl = \"10s\"\n");
    let second = env.dir().join("second");
    git(&root, &["worktree", "add", "-q", second.to_str().unwrap()]);
    let second = fs::canonicalize(second).unwrap();
    // Trust is by path: a second worktree (another branch's code) is trusted apart.
    env.trust(&second);
    fs::write(second.join("src/lib.rs"), LIB_RS.replace("größe", "maß")).unwrap();

    // Each worktree's server is seen right after its own call: the first may already
    // have idled out by the time the second (loading a whole crate on a busy
    // machine) answers, so one listing of both would race the TTL.
    let server_of = |root: &Path| {
        env.status_rows(root, "language_servers")
            .iter()
            .find(|s| s["root"] == root.to_str().unwrap())
            .map(|s| s["pid"].as_u64().unwrap())
    };
    let here = env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    let here_server = server_of(&root).expect("a server for the first worktree");
    let there = env.ok(&second, &["refactor", "references", "src/lib.rs:3:8"]);
    let there_server = server_of(&second).expect("a server for the second worktree");
    assert_eq!(here["total"], 3);
    assert_eq!(there["total"], 3);
    assert!(
        there["locations"][0]["context"]
            .as_str()
            .unwrap()
            .contains("maß")
    );
    assert_ne!(here_server, there_server, "one server per worktree");
    assert_eq!(env.daemons().len(), 1);

    // Idle past the TTL: shut down, processes gone.
    assert!(
        wait_until(Duration::from_secs(30), || env
            .status_rows(&root, "language_servers")
            .is_empty()),
        "{:?}",
        env.status_rows(&root, "language_servers")
    );
    assert!(wait_until(Duration::from_secs(5), || env
        .language_servers()
        .is_empty()));

    // A daemon killed with -9 leaves no server behind: they see their stdin close.
    env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    let pid = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap() as u32;
    let daemon = env.daemon_pid().unwrap();
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(daemon as i32).unwrap(),
        rustix::process::Signal::KILL,
    );
    assert!(
        wait_until(Duration::from_secs(15), || env
            .language_servers()
            .is_empty()),
        "server {pid} outlived its daemon: {:?}",
        env.language_servers()
    );
}

#[test]
fn evict_and_restart_through_the_cli() {
    let (env, root) = rust_project("");
    env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    let before = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap();
    let restarted = env.ok(&root, &["servers", "restart"]);
    assert_eq!(restarted["affected"], 1, "{restarted}");
    let after = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap();
    assert_ne!(before, after);
    let evicted = env.ok(&root, &["servers", "evict", "--language", "rust"]);
    assert_eq!(evicted["affected"], 1);
    assert!(env.status_rows(&root, "language_servers").is_empty());
    assert!(wait_until(Duration::from_secs(5), || env
        .language_servers()
        .is_empty()));
}

/// An environment whose Python server is the real pylsp; `extra` is appended to `[lsp]`.
fn python_env(extra: &str) -> TestEnv {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\n{extra}",
        pylsp().display().to_string()
    ));
    env
}

/// [`python_fixture`] in the directory `name` of the environment.
fn python_project(env: &TestEnv, name: &str) -> PathBuf {
    let root = python_fixture(&env.dir().join(name));
    env.trust(&root);
    root
}

#[test]
fn the_instance_cap_and_the_memory_budget_evict_the_least_recently_used() {
    for limit in ["max_servers = 1\n", "rss_budget_mb = 1\n"] {
        let env = python_env(limit);
        let (a, b) = (python_project(&env, "a"), python_project(&env, "b"));
        env.ok(&a, &["refactor", "definition", "main.py:3:26"]);
        let first = env.status_rows(&a, "language_servers");
        assert_eq!(first.len(), 1, "{limit}");
        let first = first[0]["pid"].as_u64().unwrap() as u32;
        // A second root's server pushes the first (least recently used) out at once;
        // the one in use stays even when it alone is over the budget.
        env.ok(&b, &["refactor", "definition", "main.py:3:26"]);
        assert!(
            wait_until(Duration::from_secs(10), || {
                let st = env.status_rows(&a, "language_servers");
                st.len() == 1 && st[0]["root"] == b.to_str().unwrap()
            }),
            "{limit}: {:?}",
            env.status_rows(&a, "language_servers")
        );
        assert!(wait_until(Duration::from_secs(5), || {
            !lean_ctx_shared::process::pid_alive(first)
        }));
    }
}

#[test]
fn python_lsp_server_answers_definition_and_references() {
    let env = python_env("");
    let root = python_project(&env, "py");
    // `fläche` in the second call: after "print(\"𝔘\", fläche(2, 3), " (the astral
    // `𝔘` makes character, UTF-16 and byte columns three different numbers).
    let def = env.ok(&root, &["refactor", "definition", "main.py:3:26"]);
    assert_eq!(spots(&def), ["geo.py 2:4"], "{def}");
    assert_eq!(def["backing"], "pylsp");
    let refs = env.ok(&root, &["refactor", "references", "geo.py:2:5"]);
    assert_eq!(
        spots(&refs),
        ["geo.py 2:4", "main.py 1:16", "main.py 3:11", "main.py 3:25"],
        "{refs}"
    );
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st.len(), 1);
    assert_eq!(st[0]["language"], "python");
    assert_eq!(st[0]["state"], "ready");
}

#[test]
fn gopls_answers_definition_and_references_on_non_ascii_lines() {
    let env = gopls_env(SHIM);
    let root = env.dir().join("geo");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("go.mod"), "module example.com/geo\n\ngo 1.26\n").unwrap();
    fs::write(
        root.join("geo.go"),
        "package geo\n\n// Größe — non-ASCII first\nfunc Fläche(a, b int) int { return a * b }\n",
    )
    .unwrap();
    // `Größe` and the astral `𝔘` (two UTF-16 units, four bytes) before both uses:
    // character, UTF-16 and byte columns of `Fläche` are three different numbers.
    fs::write(
        root.join("use.go"),
        "package geo\n\nvar Größe = len(\"𝔘\") + Fläche(2, 3) + Fläche(4, 5)\n",
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);

    let def = env.ok(&root, &["refactor", "definition", "use.go:3:40"]);
    assert_eq!(spots(&def), ["geo.go 4:5"], "{def}");
    assert_eq!(def["backing"], "gopls");
    // gopls offers no declaration apart from the definition: that, said so.
    let decl = env.ok(&root, &["refactor", "declaration", "use.go:3:40"]);
    assert_eq!(spots(&decl), ["geo.go 4:5"], "{decl}");
    assert!(
        decl["fallback"]
            .as_str()
            .is_some_and(|f| f.contains("answered with the definition")),
        "{decl}"
    );
    let refs = env.ok(&root, &["refactor", "references", "geo.go:4:7"]);
    assert_eq!(
        spots(&refs),
        ["geo.go 4:5", "use.go 3:23", "use.go 3:38"],
        "{refs}"
    );
    // By name, and at the declaration's start (`func` is no symbol): the same.
    for args in [
        &["refactor", "references", "--name-path", "Fläche"][..],
        &["refactor", "references", "geo.go:4:0"],
    ] {
        assert_eq!(spots(&env.ok(&root, args)), spots(&refs), "{args:?}");
    }
    let st = env.status_rows(&root, "language_servers");
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0]["language"], "go");
    assert_eq!(st[0]["state"], "ready");
    // gopls v0.23.0 takes UTF-16 although we offer UTF-8 first: the columns above
    // crossed `𝔘` as two units each way.
    assert_eq!(st[0]["position_encoding"], "utf-16");
}

#[test]
fn a_missing_server_is_backend_required_with_a_remedy() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[lsp]\nrust = \"/nonexistent/rust-analyzer\"\ngo = \"jetbrains\"\n");
    let root = env.dir().join("proj");
    write_crate(&root);
    fs::write(root.join("main.go"), "package main\nfunc main() {}\n").unwrap();
    fs::write(root.join("A.cs"), "class A {}\n").unwrap();
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    // No C# server on PATH and none configured: the one to install is named, and
    // references answer by name meanwhile, said to be unresolved.
    let e = env.err(&root, &["refactor", "definition", "A.cs:1:6"]);
    assert_eq!(e["code"], "BACKEND_REQUIRED", "{e}");
    let csharp_ls = "dotnet tool install --global csharp-ls";
    assert!(e["remedy"].as_str().unwrap().contains(csharp_ls), "{e}");
    let refs = env.ok(&root, &["refactor", "references", "A.cs:1:6"]);
    assert_eq!(refs["backing"], "by name, unresolved", "{refs}");
    assert!(
        refs["fallback"].as_str().unwrap().contains(csharp_ls),
        "{refs}"
    );
    assert_eq!(spots(&refs), ["A.cs 1:6"], "{refs}");
    let e = env.err(&root, &["refactor", "definition", "src/lib.rs:3:9"]);
    assert_eq!(e["code"], "BACKEND_REQUIRED", "{e}");
    assert!(e["remedy"].as_str().unwrap().contains("lsp.rust"), "{e}");
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:3:9"]);
    assert_eq!(refs["backing"], "by name, unresolved", "{refs}");
    let e = env.err(&root, &["refactor", "definition", "main.go:2:6"]);
    assert_eq!(e["code"], "BACKEND_REQUIRED", "{e}");
    assert!(e["message"].as_str().unwrap().contains("jetbrains"), "{e}");
    let e = env.err(&root, &["refactor", "references", "Cargo.toml:1:1"]);
    assert_eq!(e["code"], "UNSUPPORTED_LANGUAGE", "{e}");
}

/// A reformat of a region is `textDocument/rangeFormatting` (typescript-language-server
/// offers it): the region's lines are formatted, the others keep their bytes; a
/// non-ASCII line before the region shifts nothing.
#[test]
fn a_region_reformat_formats_only_those_lines() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\ntypescript = [{:?}, \"--stdio\"]\n",
        typescript_language_server().display().to_string()
    ));
    let root = env.dir().join("ts");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("tsconfig.json"), "{\"include\": [\"src\"]}\n").unwrap();
    let ugly = "const  größe  =  1;\nconst  b  =  2;\nconst  c  =  3;\n";
    fs::write(root.join("src/a.ts"), ugly).unwrap();
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    let done = env.ok(
        &root,
        &["refactor", "reformat", "src/a.ts", "--region", "2"],
    );
    assert_eq!(done["reformatted"], true, "{done}");
    assert_eq!(
        fs::read_to_string(root.join("src/a.ts")).unwrap(),
        "const  größe  =  1;\nconst b = 2;\nconst  c  =  3;\n"
    );
    // The whole file, as before.
    env.ok(&root, &["refactor", "reformat", "src/a.ts"]);
    assert_eq!(
        fs::read_to_string(root.join("src/a.ts")).unwrap(),
        "const größe = 1;\nconst b = 2;\nconst c = 3;\n"
    );
}

#[test]
fn a_file_changed_behind_the_daemons_back_reaches_the_server_without_being_named() {
    let (env, root) = rust_project("");
    let refs = ["refactor", "references", "src/shapes.rs:2:12"];
    let before = env.ok(&root, &refs)["total"].as_u64().unwrap();
    // lib.rs gains two usages of `Square`; no call names lib.rs, so only the daemon's
    // watcher can tell the server (didChangeWatchedFiles).
    fs::write(
        root.join("src/lib.rs"),
        format!("{LIB_RS}pub fn more() -> shapes::Square {{ shapes::Square {{ side: 4 }} }}\n"),
    )
    .unwrap();
    let mut last = serde_json::Value::Null;
    assert!(
        wait_until(Duration::from_secs(60), || {
            last = env.ok(&root, &refs);
            last["total"].as_u64() == Some(before + 2)
        }),
        "{before} before, now {last}"
    );
    assert!(
        last["locations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["context"].as_str().unwrap().contains("pub fn more()")),
        "{last}"
    );
}

#[test]
fn a_rename_the_server_planned_on_a_stale_view_of_a_file_is_planned_again_on_the_disk() {
    // Nothing watches this root (one inotify watch for the whole daemon) and it is
    // rescanned only hourly: a file changed behind the daemon's back stays unknown to
    // rust-analyzer.
    let (env, root) = rust_project("[index]\nrescan_interval = \"1h\"\n");
    let _daemon = env.start_foreground_with_inotify_limits(1, 16);
    let refs = env.ok(&root, &["refactor", "references", "src/shapes.rs:2:12"]);
    assert_eq!(refs["total"], 5, "{refs}");
    let drifted = format!("// a line above shifts every usage\n{LIB_RS}");
    fs::write(root.join("src/lib.rs"), &drifted).unwrap();

    // The server's first edits for lib.rs point one line up, where the disk does not
    // hold the name: it is handed lib.rs as the disk has it and asked again, so the
    // plan is the disk's, with no conflict.
    let preview = env.ok(&root, &rename_square(&["--preview"]));
    assert_eq!(preview["conflicts"], serde_json::json!([]), "{preview}");
    let usages = preview["usages"].as_array().unwrap();
    assert_eq!(usages.len(), 5, "{preview}");
    let lines = drifted.lines().collect::<Vec<_>>();
    for u in usages.iter().filter(|u| u["path"] == "src/lib.rs") {
        assert_eq!(u["text"], "Square", "{u}");
        let line = u["range"]["start"]["line"].as_u64().unwrap() as usize;
        assert!(lines[line - 1].contains("Square"), "{u}");
    }
    let plan = preview["plan_hash"].as_str().unwrap().to_string();
    let applied = env.ok(&root, &rename_square(&["--plan-hash", &plan]));
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(
        fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        drifted.replace("Square", "Quadrat")
    );
    assert_eq!(
        fs::read_to_string(root.join("src/shapes.rs")).unwrap(),
        SHAPES_RS.replace("Square", "Quadrat")
    );
}

/// A TypeScript project `ts`: `shared` exported by src/a.ts and used by three other
/// files (one with a non-ASCII line first); trusted, with the pinned
/// typescript-language-server configured.
fn typescript_project() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\ntypescript = [{:?}, \"--stdio\"]\n",
        typescript_language_server().display().to_string()
    ));
    let root = env.dir().join("ts");
    fs::create_dir_all(root.join("src/use")).unwrap();
    fs::write(root.join("tsconfig.json"), "{\"include\": [\"src\"]}\n").unwrap();
    fs::write(
        root.join("src/a.ts"),
        "// Größe\nexport function shared(): number { return 1; }\n",
    )
    .unwrap();
    for i in 1..=3 {
        fs::write(
            root.join(format!("src/use/u{i}.ts")),
            format!("import {{ shared }} from '../a';\nexport const v{i} = shared() + {i};\n"),
        )
        .unwrap();
    }
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    (env, root)
}

/// Columns through a real server that counts UTF-16 units, on the queried line
/// itself: `𝔘` (two units, four bytes) in strings and `ü` (one unit, two bytes)
/// before the column asked for and before every location answered. The agent's
/// columns are characters: the server must be asked at, and answer, the same ones.
#[test]
fn utf16_columns_hold_on_the_queried_line_itself() {
    let (env, root) = typescript_project();
    fs::write(
        root.join("src/wide.ts"),
        "const ü = \"𝔘\"; export const both = \"𝔘\" + ü + ü;\n",
    )
    .unwrap();
    // In characters: `ü` declared at 6, used at 41 and 45 (each `𝔘` one character,
    // two UTF-16 units).
    let refs = env.ok(&root, &["refactor", "references", "src/wide.ts:1:45"]);
    assert_eq!(
        spots(&refs),
        ["src/wide.ts 1:6", "src/wide.ts 1:41", "src/wide.ts 1:45"],
        "{refs}"
    );
    for l in refs["locations"].as_array().unwrap() {
        let (start, end) = (&l["range"]["start"]["column"], &l["range"]["end"]["column"]);
        assert_eq!(end.as_u64().unwrap() - start.as_u64().unwrap(), 1, "{l}");
    }
}

/// Issue 16: a freshly started typescript-language-server answered `references` from
/// its partial-semantic syntax server while tsserver loaded the project (1 of 7
/// locations, the next call 7). A cold server's answer is the whole answer: each of
/// three fresh daemons answers all seven on its first call.
#[test]
fn a_cold_typescript_server_answers_references_completely_on_the_first_call() {
    let want = [
        "src/a.ts 2:16",
        "src/use/u1.ts 1:9",
        "src/use/u1.ts 2:18",
        "src/use/u2.ts 1:9",
        "src/use/u2.ts 2:18",
        "src/use/u3.ts 1:9",
        "src/use/u3.ts 2:18",
    ];
    for attempt in 0..3 {
        let (env, root) = typescript_project();
        let refs = env.ok(&root, &["refactor", "references", "src/a.ts:2:17"]);
        assert_eq!(spots(&refs), want, "fresh daemon {attempt}: {refs}");
        assert_eq!(refs["backing"], "typescript-language-server", "{refs}");
    }
}

/// References through a real server name the imports apart (issue 47: TypeScript's
/// import lines doubled what an agent read): each location says whether it lies in
/// an import, and the text answer lists the uses and counts the imports.
#[test]
fn references_mark_the_imports_and_the_text_lists_the_uses() {
    let (env, root) = typescript_project();
    let refs = env.ok(&root, &["refactor", "references", "src/a.ts:2:17"]);
    let imports: Vec<(String, bool)> = refs["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let spot = format!(
                "{} {}",
                l["path"].as_str().unwrap(),
                l["range"]["start"]["line"]
            );
            (spot, l["import"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("src/a.ts 2".to_string(), false),
            ("src/use/u1.ts 1".to_string(), true),
            ("src/use/u1.ts 2".to_string(), false),
            ("src/use/u2.ts 1".to_string(), true),
            ("src/use/u2.ts 2".to_string(), false),
            ("src/use/u3.ts 1".to_string(), true),
            ("src/use/u3.ts 2".to_string(), false),
        ],
        "{refs}"
    );
    let out = env
        .shim()
        .current_dir(&root)
        .args(["refactor", "references", "src/a.ts:2:17"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("import {"), "{text}");
    assert!(
        text.contains("2:18  export const v1 = shared() + 1;"),
        "{text}"
    );
    assert!(
        text.contains("7 locations (3 in imports, not listed)"),
        "{text}"
    );
    // By name, in the directory that holds it: the same locations.
    let by_name = env.ok(
        &root,
        &["refactor", "references", "--name-path", "shared", "src"],
    );
    assert_eq!(spots(&by_name), spots(&refs), "{by_name}");
}

/// A TypeScript project large enough that tsserver's project load takes seconds: the
/// small project and 1,500 generated files.
fn large_typescript_project() -> (TestEnv, PathBuf) {
    let (env, root) = typescript_project();
    let shapes: String = (0..60)
        .map(|k| {
            format!(
                "export interface Shape{k} {{ side: number; name: string; tags: string[]; next?: Shape{k}; }}\n\
                 export function area{k}(s: Shape{k}): number {{ const x = s.side * {k}; return x + s.tags.length; }}\n"
            )
        })
        .collect();
    fs::create_dir_all(root.join("src/gen")).unwrap();
    for i in 0..1500 {
        fs::write(root.join(format!("src/gen/g{i}.ts")), &shapes).unwrap();
    }
    (env, root)
}

/// Issue 16: a cold typescript-language-server holds every request until tsserver has
/// loaded the project the file opened into. Asked with `--no-wait` on a project large
/// enough that the load takes seconds, a call answers `INDEXING` with the server's own
/// progress ("Initializing JS/TS language features") and the remedy to retry as soon
/// as the load shows, not after the 30 s a query may take; retried, the answer is
/// complete.
#[test]
fn a_cold_typescript_server_loading_a_large_project_answers_indexing_after_a_short_wait() {
    let (env, root) = large_typescript_project();
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    let mut loading = Vec::new();
    let refs = loop {
        assert!(std::time::Instant::now() < deadline, "{loading:#?}");
        let asked = std::time::Instant::now();
        let (out, v) = env.shim_json_in(
            &root,
            &["refactor", "references", "src/a.ts:2:17", "--no-wait"],
        );
        let took = asked.elapsed();
        if out.status.success() {
            break v;
        }
        assert_eq!(v["error"]["code"], "INDEXING", "{v}");
        // Well inside the 30 s a query may take (a loaded machine's slack).
        assert!(took < Duration::from_secs(15), "{took:?}: {v}");
        assert!(
            v["error"]["remedy"].as_str().unwrap().contains("retry"),
            "{v}"
        );
        loading.push(v["error"]["message"].as_str().unwrap().to_string());
    };
    assert!(
        loading
            .iter()
            .any(|m| m.contains("Initializing JS/TS language features")),
        "no INDEXING while tsserver loaded the project: {loading:#?}"
    );
    assert_eq!(spots(&refs).len(), 7, "{refs}");
}

/// Issue 16: the caller's wait bounds a load as it bounds readiness. An MCP tool call
/// (the Inspector, a real MCP client) allowed two minutes on a cold server loading a
/// large project waits for the load and answers every reference in its one call; it
/// used to answer `INDEXING` after a fixed 2 s whatever the caller allowed.
#[test]
fn an_mcp_call_that_allows_a_long_wait_gets_the_whole_answer_from_a_loading_server() {
    let (env, root) = large_typescript_project();
    let called = env.mcp_inspector(
        &root,
        &[("LEAN_CTX_MCP_WAIT_MS", "120000")],
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "ctx_refactor",
            "--tool-arg",
            "action=references",
            "--tool-arg",
            "path=src/a.ts",
            "--tool-arg",
            "line=2",
            "--tool-arg",
            "column=17",
        ],
    );
    assert_eq!(called["isError"], false, "{called}");
    let text = called["content"][0]["text"].as_str().unwrap();
    // Each use is an indented `line:column  text` under its file; the three imports
    // are counted.
    let found = text
        .lines()
        .filter(|l| l.starts_with("  ") && l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert_eq!(found, 4, "{text}");
    assert!(
        text.contains("7 locations (3 in imports, not listed)"),
        "{text}"
    );
    assert!(
        env.log().contains("a request waits for the server's load"),
        "the call did not meet a load: {}",
        env.log()
    );
}

/// Issue 16: with the real gopls, a first call on a fresh daemon answers every
/// reference across the module's packages (gopls is ready only once its initial
/// workspace load ended), and a position on no symbol is `NO_SYMBOL_AT_POSITION`:
/// gopls's own "no identifier found" on a keyword (it was `INTERNAL … report a bug`)
/// and a blank, which other servers answer with no locations.
#[test]
fn gopls_answers_a_cold_call_completely_and_no_symbol_at_position_on_no_symbol() {
    let env = gopls_env(SHIM);
    let root = env.dir().join("mod");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("go.mod"), "module example.com/m\n\ngo 1.21\n").unwrap();
    fs::write(
        root.join("a.go"),
        "package m\n\n// Größe\nfunc Shared() int { return 1 }\n",
    )
    .unwrap();
    for i in 1..=3 {
        let dir = root.join(format!("p{i}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("u.go"),
            format!("package p{i}\n\nimport \"example.com/m\"\n\nvar V = m.Shared()\n"),
        )
        .unwrap();
    }
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);

    let refs = env.ok(&root, &["refactor", "references", "a.go:4:6"]);
    assert_eq!(
        spots(&refs),
        ["a.go 4:5", "p1/u.go 5:10", "p2/u.go 5:10", "p3/u.go 5:10"],
        "{refs}"
    );
    for at in ["a.go:1:0", "a.go:2:0"] {
        let e = env.err(&root, &["refactor", "references", at]);
        assert_eq!(e["code"], "NO_SYMBOL_AT_POSITION", "{at}: {e}");
    }
}

/// Issue 16: `inspections` finds the obvious errors. Rust: two undefined names and a
/// type error, from rust-analyzer's own diagnostics (experimental ones included), no
/// cargo run; Python: pylsp's default checker (pyflakes) names an undefined name.
#[test]
fn inspections_report_undefined_names_and_type_errors_by_default() {
    let (env, root) = rust_project("");
    fs::write(
        root.join("src/broken.rs"),
        "pub fn f() -> u32 {\n    let größe: u32 = \"ö\";\n    undefined_one + undefined_two(größe)\n}\n",
    )
    .unwrap();
    fs::write(
        root.join("src/lib.rs"),
        format!("{LIB_RS}pub mod broken;\n"),
    )
    .unwrap();
    let diags = env.ok(&root, &["refactor", "inspections", "src/broken.rs"]);
    let errors: Vec<String> = diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "ERROR")
        .map(|d| {
            let at = &d["range"]["start"];
            format!(
                "{} {}:{}",
                d["code"].as_str().unwrap_or("-"),
                at["line"],
                at["column"]
            )
        })
        .collect();
    // Both undefined names (E0425: `undefined_one`, `undefined_two`) and the
    // mismatched type (E0308, after the non-ASCII `größe`).
    for want in ["E0425 3:4", "E0425 3:20", "E0308 2:21"] {
        assert!(errors.iter().any(|e| e == want), "no {want}: {diags}");
    }

    let env = python_env("");
    let root = python_project(&env, "py");
    fs::write(
        root.join("bad.py"),
        "# Größe\ndef f():\n    return nirgends + 1\n",
    )
    .unwrap();
    let diags = env.ok(&root, &["refactor", "inspections", "bad.py"]);
    assert!(
        diags["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["range"]["start"]["line"] == 3
                && d["message"].as_str().unwrap().contains("nirgends")),
        "{diags}"
    );
}

/// Issue 16: a position on no name (a keyword, a number, a comment) is
/// `NO_SYMBOL_AT_POSITION` from the file's own parse, before a server is asked,
/// whatever the server would make of it (pylsp answers such positions with no
/// locations, gopls with an error); a string's text, which the parse cannot rule
/// out, reaches gopls, whose "no identifier found" (gopls v0.23.0) maps the same. A
/// name is still answered by each.
#[test]
fn a_position_on_no_name_is_no_symbol_at_position_with_pylsp_and_gopls() {
    let env = python_env("");
    let root = python_project(&env, "py");
    // geo.py: `# Größe …` / `def fläche(a, b):` / `    return a * b`; main.py line 3:
    // `print("𝔘", fläche(2, 3), …)`, the `2` at column 18.
    for at in ["geo.py:2:1", "geo.py:3:5", "geo.py:1:3", "main.py:3:18"] {
        let e = env.err(&root, &["refactor", "references", at]);
        assert_eq!(e["code"], "NO_SYMBOL_AT_POSITION", "pylsp {at}: {e}");
    }
    let refs = env.ok(&root, &["refactor", "references", "geo.py:2:5"]);
    assert_eq!(spots(&refs).len(), 4, "{refs}");
    // Column 0, where the declaration starts: its name.
    let at_start = env.ok(&root, &["refactor", "references", "geo.py:2:0"]);
    assert_eq!(spots(&at_start), spots(&refs), "{at_start}");

    let env = gopls_env(SHIM);
    let root = env.dir().join("mod");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("go.mod"), "module example.com/m\n\ngo 1.21\n").unwrap();
    fs::write(
        root.join("a.go"),
        "package m\n\n// Shared is one.\nfunc Shared() int { return 1 }\n\nvar S = \"hello\"\n",
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    // `func`, `return`, `1`, the comment, and (asked of gopls) the string's text.
    for at in [
        "a.go:4:1",
        "a.go:4:22",
        "a.go:4:27",
        "a.go:3:5",
        "a.go:6:11",
    ] {
        let e = env.err(&root, &["refactor", "references", at]);
        assert_eq!(e["code"], "NO_SYMBOL_AT_POSITION", "gopls {at}: {e}");
    }
    let refs = env.ok(&root, &["refactor", "references", "a.go:4:6"]);
    assert_eq!(spots(&refs), ["a.go 4:5"], "{refs}");
}

/// The depth-first rows of a call hierarchy: `depth path line:col name_path sites`.
fn call_rows(v: &serde_json::Value) -> Vec<String> {
    fn below(calls: &[serde_json::Value], parent: Option<u64>, rows: &mut Vec<String>) {
        for (i, n) in calls.iter().enumerate() {
            if n["parent"].as_u64() != parent {
                continue;
            }
            let sites: Vec<String> = n["sites"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("{}:{}", p["line"], p["column"]))
                .collect();
            rows.push(format!(
                "{} {} {}:{} {} [{}]",
                n["depth"],
                n["path"].as_str().unwrap(),
                n["range"]["start"]["line"],
                n["range"]["start"]["column"],
                n["symbol"]["name_path"].as_str().unwrap_or("-"),
                sites.join(" ")
            ));
            below(calls, Some(i as u64), rows);
        }
    }
    let mut rows = Vec::new();
    below(v["calls"].as_array().unwrap(), None, &mut rows);
    rows
}

/// Call hierarchies through three real servers, by name: callers and callees to a
/// depth, each node the declaration an agent edits with its hash, the call sites in
/// the caller; pylsp has none and says so.
#[test]
fn call_hierarchies_follow_calls_to_a_depth_through_real_servers() {
    // gopls: leaf ← mid (twice) ← top.
    let env = gopls_env(SHIM);
    let root = go_calls_fixture(&env.dir().join("calls"));
    env.trust(&root);
    let callers = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "--name-path",
            "leaf",
            "--depth",
            "2",
        ],
    );
    assert_eq!(callers["backing"], "gopls", "{callers}");
    assert_eq!(callers["root_item"]["symbol"]["name_path"], "leaf");
    assert_eq!(
        call_rows(&callers),
        [
            "1 calls.go 5:5 mid [5:24 5:33]",
            "2 calls.go 7:5 top [7:24]"
        ],
        "{callers}"
    );
    // Each node's hash guards an edit of it.
    let hash = callers["calls"][0]["symbol"]["hash"].as_str().unwrap();
    env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "mid",
            "--expected-hash",
            &hash[..16],
            "--new-body",
            "func mid() int { return leaf() * 2 }",
        ],
    );
    let callees = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "calls.go:7:0",
            "--direction",
            "outgoing",
            "--depth",
            "2",
        ],
    );
    assert_eq!(
        call_rows(&callees),
        ["1 calls.go 5:5 mid [7:24]", "2 calls.go 3:5 leaf [5:24]"],
        "{callees}"
    );
    let text = String::from_utf8(
        env.shim()
            .current_dir(&root)
            .args(["refactor", "call-hierarchy", "--name-path", "leaf"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.starts_with("callers of calls.go:3:5  function leaf  ")
            && text.contains("\n  calls.go:5:5  function mid  ")
            && text.ends_with("  at 5:24\n1 call (gopls)\n"),
        "{text}"
    );

    // rust-analyzer: größe's callers, and what use_it calls.
    let (env, root) = rust_project("");
    let callers = env.ok(
        &root,
        &["refactor", "call-hierarchy", "--name-path", "größe"],
    );
    assert_eq!(
        call_rows(&callers),
        ["1 src/lib.rs 4:7 use_it [4:25 4:62]"],
        "{callers}"
    );
    let callees = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "--name-path",
            "use_it",
            "--direction",
            "outgoing",
        ],
    );
    assert_eq!(
        call_rows(&callees),
        ["1 src/lib.rs 3:7 größe [4:25 4:62]"],
        "{callees}"
    );

    // tsserver: `shared`'s callers are the three modules' top levels.
    let (env, root) = typescript_project();
    let callers = env.ok(
        &root,
        &["refactor", "call-hierarchy", "--name-path", "shared"],
    );
    let paths: Vec<&str> = callers["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["src/use/u1.ts", "src/use/u2.ts", "src/use/u3.ts"],
        "{callers}"
    );

    // pylsp offers no call hierarchy: said, with a remedy.
    let env = python_env("");
    let root = python_project(&env, "py");
    let e = env.err(&root, &["refactor", "call-hierarchy", "geo.py:2:5"]);
    assert_eq!(e["code"], "UNSUPPORTED", "{e}");
}

/// A session's start (`open_project`: what `lean-ctx mcp` sends first, and `lean-ctx
/// project`) warms the language servers of its trusted root: nothing asks for one,
/// and by the first question it is up, so even a call that will not wait gets the
/// whole answer. An untrusted root starts none.
#[test]
fn a_session_start_warms_the_language_servers_of_a_trusted_root() {
    let (env, root) = rust_project("");
    env.ok(&root, &["project"]);
    let warm = wait_until(Duration::from_secs(300), || {
        env.status_rows(&root, "language_servers")
            .iter()
            .any(|s| s["language"] == "rust" && s["state"] == "ready")
    });
    assert!(warm, "{:?}", env.status_rows(&root, "language_servers"));
    let refs = env.ok(
        &root,
        &["refactor", "references", "src/lib.rs:3:9", "--no-wait"],
    );
    assert_eq!(refs["total"], 3, "{refs}");

    let other = env.dir().join("other");
    write_crate(&other);
    git(&other, &["init", "-q"]);
    let other = fs::canonicalize(other).unwrap();
    env.ok(&other, &["project"]);
    thread::sleep(Duration::from_secs(2));
    assert!(
        env.status_rows(&other, "language_servers")
            .iter()
            .all(|s| s["root"] != other.to_str().unwrap()),
        "an untrusted root got a server"
    );
}

/// Servers found with no configuration at all (`shared/src/servers.rs`): clangd, as
/// Debian installs it, for C: definition, references and rename by name, and the
/// diagnostics an edit introduces; bash-language-server (npm, pinned in `tests/lsp`),
/// put on the PATH as a user installs it, for shell: references. No `[lsp]` section.
#[test]
fn clangd_and_bash_language_server_are_found_with_no_configuration() {
    let env = TestEnv::with_shim(SHIM);
    env.put_on_path("bash-language-server", &bash_language_server());
    let root = env.dir().join("c");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("geo.h"), "/* Größe */\nint area(int w, int h);\n").unwrap();
    fs::write(
        root.join("geo.c"),
        "#include \"geo.h\"\n\n/* Fläche: w × h. */\nint area(int w, int h) { return w * h; }\n",
    )
    .unwrap();
    fs::write(
        root.join("main.c"),
        "#include \"geo.h\"\n\nint main(void) { return area(2, 3) + area(4, 5); }\n",
    )
    .unwrap();
    // clangd's background index (every file's references) needs the compilation
    // database; Debian's clangd finds the system headers without it.
    let dir = fs::canonicalize(&root).unwrap();
    let commands: Vec<serde_json::Value> = ["geo.c", "main.c"]
        .iter()
        .map(|f| serde_json::json!({"directory": dir, "file": f, "arguments": ["cc", "-std=c11", "-c", f]}))
        .collect();
    fs::write(
        root.join("compile_commands.json"),
        serde_json::to_string(&commands).unwrap(),
    )
    .unwrap();
    fs::write(
        root.join("tools.sh"),
        "#!/bin/sh\n# Grüßt.\ngreet() {\n  echo \"hi $1\"\n}\ngreet a\ngreet b\n",
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    let root = dir;
    env.trust(&root);

    let def = env.ok(&root, &["refactor", "definition", "main.c:3:26"]);
    assert_eq!(spots(&def), ["geo.c 4:4"], "{def}");
    assert_eq!(def["backing"], "clangd", "{def}");
    // References by name: the declaration in the header, the definition and both
    // calls (the other files from clangd's background index).
    let all = ["geo.c 4:4", "geo.h 2:4", "main.c 3:24", "main.c 3:37"];
    let refs = env.ok(
        &root,
        &["refactor", "references", "--name-path", "area", "geo.c"],
    );
    assert_eq!(spots(&refs), all, "{refs}");
    // Who calls it: `main`, at both calls (clangd's incoming call hierarchy).
    let callers = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "--name-path",
            "area",
            "geo.c",
            "--direction",
            "incoming",
        ],
    );
    assert_eq!(callers["backing"], "clangd", "{callers}");
    assert_eq!(
        call_rows(&callers),
        ["1 main.c 3:4 main [3:24 3:37]"],
        "{callers}"
    );

    // An edit that breaks a call: the answer carries clangd's new diagnostic.
    let edit = env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "main",
            "--new-body",
            "int main(void) { return area(2) + area(4, 5); }",
        ],
    );
    let introduced = edit["introduced"].as_array().cloned().unwrap_or_default();
    assert!(
        introduced
            .iter()
            .any(|d| d["path"] == "main.c" && d["message"].as_str().unwrap().contains("argument")),
        "{edit}"
    );

    let renamed = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "--name-path",
            "area",
            "geo.c",
            "--new-name",
            "fläche",
        ],
    );
    assert_eq!(renamed["applied"], true, "{renamed}");
    for (file, count) in [("geo.h", 1), ("geo.c", 1), ("main.c", 2)] {
        let text = fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(text.matches("fläche(").count(), count, "{file}: {text}");
        assert!(!text.contains("area("), "{file}: {text}");
    }

    let greet = env.ok(
        &root,
        &["refactor", "references", "--name-path", "greet", "tools.sh"],
    );
    assert_eq!(
        spots(&greet),
        ["tools.sh 3:0", "tools.sh 6:0", "tools.sh 7:0"],
        "{greet}"
    );
    assert_eq!(greet["backing"], "bash-language-server", "{greet}");
    let servers: Vec<String> = env
        .status_rows(&root, "language_servers")
        .iter()
        .map(|s| s["language"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(servers, ["bash", "cpp"], "C is served by C++'s clangd");
}
