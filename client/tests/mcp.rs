//! `lean-ctx mcp` driven by real MCP clients: the Python `mcp` SDK (scenario in
//! tests/mcp/sdk_client.py) against the real shim and daemon.

use std::{fs, path::Path, process::Command};

use lean_ctx_testkit::{TestEnv, git, go_calls_fixture, gopls_env};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

const LIB_RS: &str = "pub struct Point { pub x: i32 }\n\nimpl Point {\n    pub fn new(x: i32) -> Self {\n        Point { x }\n    }\n}\n\npub fn helper() -> i32 { 1 }\n";

#[test]
fn the_python_mcp_sdk_drives_every_tool_through_indexing_errors_and_a_daemon_crash() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("proj");
    fs::create_dir_all(project.join("src/gen")).unwrap();
    fs::write(project.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    fs::write(project.join("src/lib.rs"), LIB_RS).unwrap();
    fs::write(
        project.join("src/dup.rs"),
        "mod a { pub fn run() {} }\nmod b { pub fn run() {} }\n",
    )
    .unwrap();
    // Enough code that the first index is still running when the first call arrives.
    for i in 0..3000 {
        let body: String = (0..40)
            .map(|j| format!("pub fn f{i}_{j}(x: u32) -> u32 {{ x * {j} + {i} }}\n"))
            .collect();
        fs::write(project.join(format!("src/gen/m{i}.rs")), body).unwrap();
    }
    sdk_scenario(&env, &[], &project, &[("LEAN_CTX_MCP_WAIT_MS", "0")]);
}

/// An agent's whole read → find → edit → check loop through the Python SDK on a real
/// crate: `semver` from the pinned Rust corpus, copied and git-initialised, plus a CRLF file with
/// non-ASCII text; every edit guarded by a hash an answer gave (issue 17).
#[test]
fn the_python_mcp_sdk_runs_an_agent_loop_on_a_real_crate() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("semver");
    lean_ctx_testkit::copy_dir(&lean_ctx_testkit::corpus_crate("semver"), &project);
    fs::write(
        project.join("src/größe.rs"),
        "// ünï\r\npub fn zweite() -> &'static str {\r\n    \"ß\"\r\n}\r\n",
    )
    .unwrap();
    git(&project, &["init", "-q"]);
    sdk_scenario(&env, &["--agent-loop"], &project, &[]);
}

/// Issue 42's loop through the Python SDK: a change touching code and configuration
/// in a repository of Rust, TOML, YAML, Markdown and a shell script, a 1 MB
/// changelog read in pages, and every failure an `isError` with its code.
#[test]
fn the_python_mcp_sdk_changes_code_and_configuration_in_a_mixed_repository() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("mixed");
    fs::create_dir_all(project.join("src")).unwrap();
    for (path, text) in [
        (
            "Cargo.toml",
            "[package]\nname = \"mixed\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1.0\"\n",
        ),
        (
            "src/lib.rs",
            "pub fn version() -> &'static str {\n    \"1.0\"\n}\n\n/// Uses serde.\npub fn uses() {}\n",
        ),
        ("ci.yml", "on: push\njobs:\n  test:\n    runs-on: ubuntu\n"),
        ("README.md", "# Mixed\n\nDepends on serde.\n"),
        ("run.sh", "#!/bin/sh\ncargo test\n"),
    ] {
        fs::write(project.join(path), text).unwrap();
    }
    let changelog: String = (1..=20_000)
        .map(|i| format!("- {i:05}: a change of some fifty-odd bytes, said plainly\n"))
        .collect();
    assert!(changelog.len() > 1_000_000);
    fs::write(project.join("CHANGELOG.md"), changelog).unwrap();
    fs::write(env.dir().join("outside.txt"), "secret\n").unwrap();
    git(&project, &["init", "-q"]);
    sdk_scenario(&env, &["--mixed-repository"], &project, &[]);
}

/// Runs tests/mcp/sdk_client.py (the Python SDK as the client of the real shim) on
/// `project`; it prints `ok` or fails with the broken assertion.
fn sdk_scenario(env: &TestEnv, mode: &[&str], project: &Path, extra_env: &[(&str, &str)]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/sdk_client.py");
    let out = Command::new(lean_ctx_testkit::python())
        .arg(script)
        .args(mode)
        .arg(SHIM)
        .arg(project)
        .env_clear()
        .envs(env.envs())
        .envs(extra_env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "MCP scenario failed:\n{}\n{}\ndaemon log:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        env.log()
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
}

/// The daemon closes a connection without calls after `connection_idle_timeout`; the
/// MCP session on it does not notice: its next call reconnects and is answered.
#[test]
fn an_mcp_session_idle_past_the_connection_timeout_is_answered_on_its_next_call() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[daemon]\nconnection_idle_timeout = \"2s\"\n");
    let project = env.dir().join("proj");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join("src/lib.rs"), LIB_RS).unwrap();
    sdk_scenario(&env, &["--idle"], &project, &[]);
    assert_eq!(
        env.daemons().len(),
        1,
        "the same daemon answered: {}",
        env.log()
    );
}

/// `/` offered as the client's root (and as the working directory) is refused like
/// the CLI's: no project is made of it, nothing is indexed, read or remembered.
#[test]
fn a_client_offering_the_filesystem_root_gets_no_project_of_it() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("proj");
    fs::create_dir_all(&project).unwrap();
    sdk_scenario(&env, &["--broad-roots"], &project, &[]);
    let (out, status) = env.shim_json(&["daemon", "status"]);
    assert!(out.status.success(), "{status}");
    let roots: Vec<&str> = status["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["root"].as_str().unwrap())
        .collect();
    assert!(roots.is_empty(), "{roots:?}");
}

#[test]
fn the_python_mcp_sdk_drives_the_language_server_actions() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\n",
        lean_ctx_testkit::pylsp().display().to_string()
    ));
    let project = lean_ctx_testkit::python_fixture(&env.dir().join("py"));
    env.trust(&project);
    // An unused import on line 2 gives pyflakes something to report.
    fs::write(
        project.join("main.py"),
        "from geo import fläche\nimport os\nprint(\"ü\", fläche(2, 3), fläche(4, 5))\n",
    )
    .unwrap();
    sdk_scenario(&env, &["--language-servers"], &project, &[]);
}

#[test]
fn the_mcp_inspector_cli_lists_the_tools_and_calls_one() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("proj");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    fs::write(project.join("src/lib.rs"), LIB_RS).unwrap();
    let inspect = |method_args: &[&str]| env.mcp_inspector(&project, &[], method_args);
    let listed = inspect(&["--method", "tools/list"]);
    let tools = listed["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ctx_navigate",
            "ctx_outline",
            "ctx_read",
            "ctx_refactor",
            "ctx_search",
            "ctx_tree"
        ]
    );
    for (i, tool) in tools.iter().enumerate() {
        let annotations = &tool["annotations"];
        // Read-only but for the one that writes; none reaches outside the machine.
        assert_eq!(annotations["readOnlyHint"] == true, i != 3, "{tool}");
        assert_eq!(annotations["openWorldHint"], false, "{tool}");
        assert!(tool["title"].is_string(), "{tool}");
        // Portable: no property typed `[T, "null"]` (clients on the OpenAPI subset
        // reject it); optional is not `required`.
        for (name, prop) in tool["inputSchema"]["properties"].as_object().unwrap() {
            assert!(!prop["type"].is_array(), "{name}: {tool}");
        }
    }
    assert_eq!(tools[3]["annotations"]["destructiveHint"], true);
    let outline = &tools[1]["inputSchema"]["properties"];
    // Typed, compacted: an optional parameter is one not `required`.
    assert_eq!(outline["depth"]["type"], "integer", "{outline}");
    // The Inspector sends every --tool-arg as a string; numbers are accepted as such.
    let called = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "ctx_search",
        "--tool-arg",
        "query=helper",
        "--tool-arg",
        "limit=2",
    ]);
    assert_eq!(called["isError"], false, "{called}");
    let text = called["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("src/lib.rs:9:7  function helper  pub fn helper() -> i32"),
        "{text}"
    );
    // A read's hash (each Inspector call is a new session) guards an edit in the next.
    let read = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "ctx_read",
        "--tool-arg",
        "path=src/lib.rs",
        "--tool-arg",
        "name_path=helper",
    ]);
    assert_eq!(read["isError"], false, "{read}");
    let text = read["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("lines 9-9 of 9  hash "), "{text}");
    let hash = &text["lines 9-9 of 9  hash ".len()..][..16];
    let edit = |hash: &str| {
        inspect(&[
            "--method",
            "tools/call",
            "--tool-name",
            "ctx_refactor",
            "--tool-arg",
            "action=replace_symbol_body",
            "--tool-arg",
            "name_path=helper",
            "--tool-arg",
            "new_body=pub fn helper() -> i32 { 2 }",
            "--tool-arg",
            &format!("expected_hash={hash}"),
        ])
    };
    let edited = edit(hash);
    assert_eq!(edited["isError"], false, "{edited}");
    let stale = edit(hash);
    assert_eq!(stale["isError"], true, "{stale}");
    let text = stale["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("ERROR: CONFLICT:"), "{text}");
    assert!(
        text.contains("\n-pub fn helper() -> i32 { 1 }\n+pub fn helper() -> i32 { 2 }"),
        "the diff since the read: {text}"
    );

    // Configuration too: found by a glob, read, a line replaced under the file's hash.
    let call = |tool: &str, args: &[&str]| {
        let mut all = vec!["--method", "tools/call", "--tool-name", tool];
        for arg in args {
            all.extend(["--tool-arg", arg]);
        }
        inspect(&all)
    };
    let found = call(
        "ctx_search",
        &["action=text", "query=name", "glob=*.toml", "context=1"],
    );
    let text = found["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Cargo.toml"), "{found}");
    let read = call("ctx_read", &["path=Cargo.toml"]);
    let text = read["content"][0]["text"].as_str().unwrap();
    let at = text.find("hash ").unwrap() + 5;
    let hash = format!("expected_hash={}", &text[at..at + 16]);
    let replaced = call(
        "ctx_refactor",
        &[
            "action=replace_lines",
            "path=Cargo.toml",
            "line=2",
            "text=name = \"q\"",
            &hash,
        ],
    );
    assert_eq!(replaced["isError"], false, "{replaced}");
    assert_eq!(
        fs::read_to_string(project.join("Cargo.toml")).unwrap(),
        "[package]\nname = \"q\"\n"
    );
    // A failure is a failure: isError, with the code as structured content.
    let missing = call("ctx_read", &["path=missing.toml"]);
    assert_eq!(missing["isError"], true, "{missing}");
    assert_eq!(
        missing["structuredContent"]["error"]["code"], "FILE_NOT_FOUND",
        "{missing}"
    );
}

/// What every agent session pays before its first call, as a real client (the Python
/// SDK) receives it: the server's instructions and its tool list, in o200k tokens
/// (the tool list as compact JSON, the form clients pass on). At most 1,200: a
/// session that does one task must not pay more for the tools than the task saves.
#[test]
fn a_sessions_fixed_cost_is_at_most_1200_tokens() {
    let env = TestEnv::with_shim(SHIM);
    let project = env.dir().join("proj");
    fs::create_dir_all(&project).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/sdk_client.py");
    let out = Command::new(lean_ctx_testkit::python())
        .arg(script)
        .args(["--fixed-cost", SHIM])
        .arg(&project)
        .env_clear()
        .envs(env.envs())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let count = |text: &str| bpe.encode_ordinary(text).len();
    let instructions = count(listed["instructions"].as_str().unwrap());
    let tools: Vec<(String, usize)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                count(&t.to_string()),
            )
        })
        .collect();
    let total = instructions + tools.iter().map(|(_, n)| n).sum::<usize>();
    eprintln!("fixed cost: {total} tokens (instructions {instructions}, tools {tools:?})");
    assert_eq!(tools.len(), 6, "{tools:?}");
    assert!(
        total <= 1200,
        "the fixed cost is {total} tokens: instructions {instructions}, tools {tools:?}"
    );
}

/// A call graph through a real MCP client (the Inspector CLI) and a real gopls: by
/// name, two levels of callers, as the tree an agent reads.
#[test]
fn the_mcp_inspector_follows_a_call_hierarchy_by_name_through_gopls() {
    let env = gopls_env(SHIM);
    let root = go_calls_fixture(&env.dir().join("calls"));
    env.trust(&root);
    let called = env.mcp_inspector(
        &root,
        &[],
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "ctx_navigate",
            "--tool-arg",
            "action=call_hierarchy",
            "--tool-arg",
            "name_path=leaf",
            "--tool-arg",
            "depth=2",
        ],
    );
    assert_eq!(called["isError"], false, "{called}");
    let text = called["content"][0]["text"].as_str().unwrap();
    let rows: Vec<String> = text
        .lines()
        .map(|l| {
            // Each row without its hash: `path:L:C  kind name  HASH  at sites`.
            let words: Vec<&str> = l.split("  ").collect();
            words
                .iter()
                .filter(|w| !(w.len() == 16 && w.chars().all(|c| c.is_ascii_hexdigit())))
                .copied()
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect();
    assert_eq!(
        rows,
        [
            "callers of calls.go:3:5  function leaf",
            "  calls.go:5:5  function mid  at 5:24, 5:33",
            "    calls.go:7:5  function top  at 7:24",
            "2 calls (gopls)",
        ],
        "{text}"
    );
}
