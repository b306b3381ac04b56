//! What agents and people set lean-ctx up with: `setup` (MCP configuration for Claude
//! Code, Cursor, VS Code and Codex) and `doctor`.

use std::{
    fs,
    io::{Read, Write},
    net::TcpListener,
    path::PathBuf,
    thread,
};

use lean_ctx_testkit::TestEnv;
use serde_json::{Value, json};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

fn project(env: &TestEnv) -> PathBuf {
    let root = env.dir().join("proj");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    fs::canonicalize(root).unwrap()
}

#[test]
fn setup_prints_then_merges_agent_configs_keeping_everything_else() {
    let env = TestEnv::with_shim(SHIM);
    let root = project(&env);
    let home = env.dir().join("home");
    let shim = fs::canonicalize(SHIM).unwrap().display().to_string();

    let (out, v) = env.shim_json_in(&root, &["setup"]);
    assert!(out.status.success(), "{v}");
    let printed = v.clone();
    let paths: Vec<&str> = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    let expected = [
        root.join(".mcp.json"),
        home.join(".cursor/mcp.json"),
        root.join(".vscode/mcp.json"),
        home.join(".codex/config.toml"),
    ];
    assert_eq!(
        paths,
        expected
            .iter()
            .map(|p| p.to_str().unwrap())
            .collect::<Vec<_>>()
    );
    assert!(expected.iter().all(|p| !p.exists()), "printing wrote files");
    let claude: Value = serde_json::from_str(v["agents"][0]["entry"].as_str().unwrap()).unwrap();
    assert_eq!(
        claude,
        json!({"mcpServers": {"lean-ctx": {"command": shim, "args": ["mcp"]}}})
    );

    fs::create_dir_all(home.join(".cursor")).unwrap();
    fs::write(
        home.join(".cursor/mcp.json"),
        r#"{"theme": 1, "mcpServers": {"other": {"command": "x"}}}"#,
    )
    .unwrap();
    fs::create_dir_all(home.join(".codex")).unwrap();
    fs::write(
        home.join(".codex/config.toml"),
        "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"y\"\n",
    )
    .unwrap();
    let (out, v) = env.shim_json_in(&root, &["setup", "--write"]);
    assert!(out.status.success(), "{v}");

    let cursor: Value =
        serde_json::from_slice(&fs::read(home.join(".cursor/mcp.json")).unwrap()).unwrap();
    assert_eq!(cursor["theme"], 1);
    assert_eq!(cursor["mcpServers"]["other"], json!({"command": "x"}));
    assert_eq!(
        cursor["mcpServers"]["lean-ctx"],
        json!({"command": shim, "args": ["mcp"]})
    );
    let vscode: Value =
        serde_json::from_slice(&fs::read(root.join(".vscode/mcp.json")).unwrap()).unwrap();
    assert_eq!(vscode["servers"]["lean-ctx"]["type"], "stdio");
    let codex = fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(
        codex.starts_with("# my settings\nmodel = \"o3\"\n"),
        "{codex}"
    );
    let parsed: toml::Table = codex.parse().unwrap();
    assert_eq!(
        parsed["mcp_servers"]["other"]["command"].as_str(),
        Some("y")
    );
    assert_eq!(
        parsed["mcp_servers"]["lean-ctx"]["command"].as_str(),
        Some(shim.as_str())
    );
    assert_eq!(
        parsed["mcp_servers"]["lean-ctx"]["args"][0].as_str(),
        Some("mcp")
    );

    // Running it again changes nothing; a file that does not parse is left alone.
    let before = fs::read(home.join(".cursor/mcp.json")).unwrap();
    let (out, v) = env.shim_json_in(&root, &["setup", "--write", "--agent", "cursor"]);
    assert!(out.status.success(), "{v}");
    let mut cursor_written = printed["agents"][1].clone();
    assert_eq!(cursor_written["agent"], "cursor", "{printed}");
    cursor_written["written"] = json!(true);
    assert_eq!(
        v,
        json!({"agents": [cursor_written], "service": false, "trusted": root})
    );
    assert_eq!(fs::read(home.join(".cursor/mcp.json")).unwrap(), before);
    fs::write(root.join(".mcp.json"), "{ not json").unwrap();
    let (out, v) = env.shim_json_in(&root, &["setup", "--write", "--agent", "claude"]);
    assert!(!out.status.success());
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("left untouched"),
        "{v}"
    );
    assert_eq!(
        fs::read_to_string(root.join(".mcp.json")).unwrap(),
        "{ not json"
    );
}

#[test]
fn doctor_checks_daemon_dirs_socket_and_ides_and_fails_on_a_broken_config() {
    let env = TestEnv::with_shim(SHIM);
    let (out, v) = env.shim_json(&["doctor"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["ok"], true);
    let level = |v: &Value, check: &str| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["check"] == check)
            .map(|f| f["level"].as_str().unwrap().to_string())
            .collect()
    };
    for check in ["config", "data dir", "runtime dir", "daemon", "socket"] {
        assert_eq!(level(&v, check), ["ok"], "{check}: {v}");
    }
    assert_eq!(level(&v, "rust-analyzer").len(), 1);

    // An IDE that answers /health, and a port file whose IDE is gone.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ide = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).unwrap();
        let request = String::from_utf8_lossy(&buf[..n]).to_string();
        assert!(request.starts_with("GET /health HTTP/1.1"), "{request}");
        // The published plugin answers 401 to a /health without the token.
        assert!(
            request.contains(&format!("X-LeanCtx-Token: {}", "0".repeat(64))),
            "{request}"
        );
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}").unwrap();
    });
    fs::create_dir_all(&env.paths.data_dir).unwrap();
    let port_file = |name: &str, pid: u32, port: u16, mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        let body = json!({"port": port, "token": "0".repeat(64), "pid": pid, "project_root": format!("/p/{name}"), "ide_version": "IU-2026.1", "started_at": 1});
        let path = env.paths.data_dir.join(format!("jetbrains-{name}.port"));
        fs::write(&path, body.to_string()).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    };
    // This test process holds the listener, as an IDE holds its port.
    port_file("alive", std::process::id(), port, 0o600);
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    port_file("dead", dead_pid, 1, 0o600);
    // Anyone could have written this one: it is not even probed.
    port_file("loose", std::process::id(), port, 0o666);
    let (out, v) = env.shim_json(&["doctor"]);
    ide.join().unwrap();
    assert!(out.status.success(), "{v}");
    let mut ides = level(&v, "ide");
    ides.sort();
    assert_eq!(ides, ["ok", "warn", "warn"], "{v}");
    assert!(
        v["findings"].as_array().unwrap().iter().any(|f| f["detail"]
            .as_str()
            .unwrap()
            .contains("jetbrains-loose.port: ignored, mode 666")),
        "{v}"
    );

    // A data dir others can write into is a warning.
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&env.paths.data_dir, fs::Permissions::from_mode(0o777)).unwrap();
        let (_, v) = env.shim_json(&["doctor"]);
        assert_eq!(level(&v, "data dir"), ["warn"], "{v}");
        fs::set_permissions(&env.paths.data_dir, fs::Permissions::from_mode(0o700)).unwrap();
    }

    fs::create_dir_all(&env.paths.config_dir).unwrap();
    fs::write(env.paths.config_file(), "[daemon\nidle_timeout = ").unwrap();
    let (out, v) = env.shim_json(&["doctor"]);
    assert!(!out.status.success());
    assert_eq!(v["ok"], false);
    assert_eq!(level(&v, "config"), ["fail"], "{v}");
    let text = env.shim().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("FAIL  config")
            && text.contains("fix: fix the TOML syntax")
            && text.ends_with("lean-ctx is not healthy\n"),
        "{text}"
    );
}

#[test]
fn doctor_checks_the_configured_rust_analyzer() {
    let env = TestEnv::with_shim(SHIM);
    let finding = |env: &TestEnv| -> Value {
        let (_, v) = env.shim_json(&["doctor"]);
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["check"] == "rust-analyzer")
            .cloned()
            .unwrap()
    };
    env.write_config(&format!(
        "[lsp]\nrust = [{:?}]\n",
        lean_ctx_testkit::rust_analyzer().display().to_string()
    ));
    let f = finding(&env);
    assert_eq!(f["level"], "ok", "{f}");
    assert!(
        f["detail"].as_str().unwrap().starts_with("rust-analyzer"),
        "{f}"
    );
    env.write_config("[lsp]\nrust = \"/nonexistent/ra --log\"\n");
    let f = finding(&env);
    assert_eq!(f["level"], "warn", "{f}");
    assert!(
        f["detail"].as_str().unwrap().contains("/nonexistent/ra"),
        "{f}"
    );
    assert!(f["fix"].as_str().unwrap().contains("lsp.rust"), "{f}");
    env.write_config("[lsp]\nrust = \"jetbrains\"\n");
    assert_eq!(finding(&env)["level"], "ok");
}

#[test]
fn gain_accounts_every_call_conservatively_and_its_json_has_the_plugins_keys() {
    let env = TestEnv::with_shim(SHIM);
    let root = project(&env);
    let mut source = String::from("pub fn helper() -> i32 { 1 }\n");
    for i in 0..150 {
        source.push_str(&format!(
            "/// Adds {i}, saturating.\npub fn add_{i}(x: u32) -> u32 {{\n    let y = x.checked_add({i});\n    match y {{\n        Some(v) => v,\n        None => u32::MAX,\n    }}\n}}\n\n"
        ));
    }
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/lib.rs"), &source).unwrap();
    let (out, v) = env.shim_json(&["gain"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["summary"]["total_commands"], 0);

    for args in [
        &["refactor", "symbols-overview", "src/lib.rs"][..],
        &["search", "helper"],
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "helper",
            "--new-body",
            "pub fn helper() -> i32 { 2 }",
        ],
    ] {
        let (out, v) = env.shim_json_in(&root, args);
        assert!(out.status.success(), "{args:?}: {v}");
    }
    let (out, _) = env.shim_json_in(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "nope",
            "--new-body",
            "x",
        ],
    );
    assert!(!out.status.success());
    // Stopping flushes stats.json.
    assert!(
        env.shim()
            .args(["daemon", "stop"])
            .status()
            .unwrap()
            .success()
    );

    let stats: Value =
        serde_json::from_slice(&fs::read(env.paths.data_dir.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["total_commands"], 4, "{stats}");
    assert_eq!(stats["total_errors"], 1);
    let overview = &stats["commands"]["symbols_overview"];
    // The whole file was the baseline: far more than the outline returned (each of
    // the 151 symbols with its signature and 16-digit hash, ~9 tokens of it).
    assert!(
        2 * overview["input_tokens"].as_u64().unwrap()
            > 3 * overview["output_tokens"].as_u64().unwrap(),
        "{overview}"
    );
    // Search claims nothing.
    assert_eq!(
        stats["commands"]["search_symbol"]["input_tokens"],
        stats["commands"]["search_symbol"]["output_tokens"]
    );
    let edit = &stats["commands"]["replace_symbol_body"];
    assert_eq!(edit["commands"], 1);
    let file = root.join("src/lib.rs").display().to_string();
    assert_eq!(stats["files"][&file]["commands"], 2, "{stats}");

    let (out, v) = env.shim_json(&["gain"]);
    assert!(out.status.success(), "{v}");
    // The drift test's Rust half: the same sample the plugin's gain codec decodes
    // (plugin-kotlin/core's GainCodec test) has exactly this output's shape.
    let sample: Value = serde_json::from_str(
        &fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/gain-sample.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        shape(&v),
        shape(&sample),
        "gain --json drifted from tests/fixtures/gain-sample.json"
    );
    // Pinned against the plugin's DTOs (docs/ide-wire.md, `lean-ctx gain --json`).
    let summary = &v["summary"];
    assert!(summary["model"]["model_key"].is_string());
    for key in ["tokens_saved", "gain_rate_pct", "avoided_usd"] {
        assert!(summary[key].is_number(), "summary.{key}: {v}");
    }
    for key in [
        "total",
        "compression",
        "cost_efficiency",
        "quality",
        "consistency",
        "trend",
    ] {
        let n = summary["score"][key]
            .as_u64()
            .unwrap_or_else(|| panic!("score.{key}: {v}"));
        assert!(n <= 100, "score.{key} = {n}");
    }
    for key in [
        "category",
        "commands",
        "tokens_saved",
        "tool_calls",
        "tool_spend_usd",
    ] {
        assert!(!v["tasks"][0][key].is_null(), "tasks[].{key}: {v}");
    }
    for key in ["path", "access_count", "tokens_saved", "compression_pct"] {
        assert!(!v["heatmap"][0][key].is_null(), "heatmap[].{key}: {v}");
    }
    let input = stats["total_input_tokens"].as_u64().unwrap();
    let output = stats["total_output_tokens"].as_u64().unwrap();
    assert_eq!(summary["tokens_saved"], input.saturating_sub(output));
    assert_eq!(summary["score"]["quality"], 75, "one call of four failed");
    assert_eq!(v["heatmap"][0]["path"], file);
    let text = env.shim().arg("gain").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("tokens saved") && text.contains("symbols_overview"),
        "{text}"
    );
}

/// A JSON value's structure: objects keep their keys, arrays the shape of their first
/// element, scalars become their type (integers and floats are both numbers).
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        Value::Array(items) => Value::Array(items.first().map(shape).into_iter().collect()),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}
