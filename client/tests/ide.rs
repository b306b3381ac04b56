//! Backing B end to end: real shims and the real daemon against the plugin core's
//! standalone contract server (plugin-kotlin/core: the plugin's real HTTP server,
//! token guard and port file, answering from a script; the IntelliJ Platform itself
//! cannot run here). Scripts match requests on their exact wire fields, so a wrong
//! UTF-16 column or a missing field is an `INTERNAL` answer, not a silent pass.

use std::{
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use lean_ctx_testkit::{ContractIde, TestEnv, pylsp, spots, wait_until};
use serde_json::{Value, json};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// Line 6 holds `𝔘` (two UTF-16 units) before `run`: column 35 in characters is 36 on
/// the wire.
const MAIN_KT: &str = concat!(
    "package demo\n",
    "// 𝔘 Größe\n",
    "class Main {\n",
    "    fun run(): Int = 1\n",
    "}\n",
    "fun caller() = \"𝔘\".length + Main().run()\n",
);

const GEO_PY: &str = "def fläche(a, b):\n    return a * b\n";
const MAIN_PY: &str = "from geo import fläche\nprint(\"𝔘\", fläche(2, 3))\n";

fn wire(line: u32, from: u32, to: u32) -> Value {
    json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}})
}

/// The declaration of `run` (line 4) and its call (line 6), as the wire has them.
fn run_usages() -> Value {
    json!([
        {"path": "src/Main.kt", "range": wire(3, 8, 11)},
        {"path": "src/Main.kt", "range": wire(5, 36, 39)}
    ])
}

/// A refactoring's whole request body on src/Main.kt: the file, the identifier's
/// range, then the operation's own `fields`.
fn on_main_kt(range: &Value, fields: Value) -> Value {
    let mut body = json!({"path": "src/Main.kt", "range": range});
    body.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    body
}

/// Every rule matches every field the daemon sends on its route (docs/ide-wire.md,
/// Requests), so a missing or wrong field is an `INTERNAL` answer naming the request.
fn script() -> Value {
    let at_call = json!({"path": "src/Main.kt", "line": 5, "character": 36, "scope": "project"});
    // `fläche` in main.py line 2, column 12: 13 on the wire, after `𝔘`.
    let at_py_call = json!({"path": "main.py", "line": 1, "character": 13, "scope": "project"});
    let run_range = wire(3, 8, 11);
    let on_run = |fields: Value| on_main_kt(&run_range, fields);
    let to_other = json!({"kind": "path", "path": "src/other"});
    json!({
        "description": "lean-ctx daemon contract test",
        "routes": {
            "/references": {"match": at_call, "response": {"locations": run_usages(), "truncated": false, "total": 2}},
            "/definition": [
                {"match": at_call, "response": {"locations": [run_usages()[0]], "truncated": false, "total": 1}},
                {"match": at_py_call, "response": {"locations": [{"path": "geo.py", "range": wire(0, 4, 10)}], "truncated": false, "total": 1}}
            ],
            "/implementations": {"match": at_call, "response": {"locations": [], "truncated": false, "total": 0}},
            "/declaration": {"match": at_call, "response": {"locations": [run_usages()[0]], "truncated": false, "total": 1}},
            "/type_hierarchy": {
                "match": {"path": "src/Main.kt", "line": 2, "character": 6, "scope": "project", "direction": "subtypes"},
                "response": {"tree": {"name": "Main", "path": "src/Main.kt", "line": 3, "children": [
                    {"name": "Sub", "path": "src/Main.kt", "line": 3, "children": []}]}, "truncated": false}
            },
            "/inspections": {"match": {"path": "src/Main.kt"}, "response": {"diagnostics": [
                {"path": "src/Main.kt", "line": 6, "severity": "WARNING", "message": "Function \"caller\" is never used"}], "truncated": false, "total": 1}},
            "/list_inspections": {"match": {"path": "src/Main.kt"}, "response": {"inspections": [
                {"id": "UnusedSymbol", "name": "Unused declaration", "severity": "WARNING"}], "truncated": false, "total": 1}},
            "/symbols_overview": {"match": {"path": "src/Util.groovy"}, "response": {"symbols": [
                {"name": "Util", "kind": "object", "line": 1}], "truncated": false, "total": 1}},
            "/renamePreview": {"match": on_run(json!({"new_name": "execute", "search_comments": false, "search_text_occurrences": false})),
                "response": {"usages": run_usages(), "conflicts": []}},
            "/renameApply": {"match": on_run(json!({"new_name": "execute", "search_comments": false, "search_text_occurrences": false, "force": false})),
                "edits": [
                    {"path": "src/Main.kt", "range": wire(3, 8, 11), "text": "execute"},
                    {"path": "src/Main.kt", "range": wire(5, 36, 39), "text": "execute"}],
                "response": {"applied": true, "changed_paths": ["src/Main.kt"]}},
            "/safeDeletePreview": {"match": on_run(json!({})),
                "response": {"usages": run_usages(), "conflicts": [{"path": "src/Main.kt", "message": "run() is used in caller()"}]}},
            // Past the preview's conflict only with force.
            "/safeDeleteApply": {"match": on_run(json!({"force": true, "propagate": false})),
                "edits": [{"path": "src/Main.kt", "range": wire(3, 0, 22), "text": ""}],
                "response": {"applied": true, "changed_paths": ["src/Main.kt"]}},
            "/movePreview": {"match": on_run(json!({"target": to_other})),
                "response": {"usages": [run_usages()[0]], "conflicts": []}},
            "/moveApply": {"match": on_run(json!({"target": to_other, "force": false})),
                "response": {"applied": true, "changed_paths": []}},
            "/inlinePreview": {"match": on_run(json!({"keep_definition": false})),
                "response": {"usages": run_usages(), "conflicts": []}},
            "/inlineApply": {"match": on_run(json!({"keep_definition": false})),
                "response": {"applied": true, "changed_paths": []}},
            "/reformat": {"match": {"path": "src/Main.kt", "scope": {"kind": "file"}, "optimize_imports": false},
                "edits": [{"path": "src/Main.kt", "range": wire(3, 0, 4), "text": "  "}],
                "response": {"applied": true, "changed_paths": ["src/Main.kt"]}}
        }
    })
}

/// A project with a Kotlin file the IDE answers for, a Groovy file tree-sitter does not
/// parse, and Python files pylsp can answer for once the IDE is gone.
fn world() -> (TestEnv, PathBuf) {
    world_with("")
}

/// [`world`] with more lines in its `[ide]` section. The contract server is a JVM whose
/// first `/health` can miss the 300 ms of docs/ide-wire.md, Reachability, while builds
/// run beside it (seen in CI): its health check gets a bound that only keeps a dead
/// server from hanging the test.
fn world_with(ide: &str) -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\nkotlin = \"jetbrains\"\n[ide]\nhealth_timeout = \"10s\"\n{ide}",
        pylsp().display().to_string()
    ));
    let root = env.dir().join("proj");
    fs::create_dir_all(root.join("src/other")).unwrap();
    fs::write(root.join("src/Main.kt"), MAIN_KT).unwrap();
    fs::write(root.join("src/Util.groovy"), "class Util {\n}\n").unwrap();
    fs::write(root.join("geo.py"), GEO_PY).unwrap();
    fs::write(root.join("main.py"), MAIN_PY).unwrap();
    fs::write(root.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    (env, root)
}

/// The fixture file's bytes now.
fn main_kt(root: &Path) -> String {
    fs::read_to_string(root.join("src/Main.kt")).unwrap()
}

fn run(env: &TestEnv, root: &Path, args: &[&str]) -> (bool, Value) {
    let (out, v) = env.shim_json_in(root, args);
    (out.status.success(), v)
}

#[test]
fn every_endpoint_goes_to_the_ide_with_utf16_positions_and_guards_on_our_side() {
    let (env, root) = world();
    // No IDE yet: kotlin is "jetbrains only".
    let none = env.err(&root, &["refactor", "references", "src/Main.kt:6:35"]);
    assert_eq!(none["code"], "BACKEND_REQUIRED", "{none}");

    // A window opens while the daemon runs: the next call uses it.
    let ide = ContractIde::start(&env, &root, &script());
    let refs = env.ok(&root, &["refactor", "references", "src/Main.kt:6:35"]);
    assert_eq!(
        spots(&refs),
        ["src/Main.kt 4:8", "src/Main.kt 6:35"],
        "{refs}"
    );
    assert_eq!(refs["backing"], "jetbrains");
    assert_eq!(
        refs["locations"][1]["context"],
        "fun caller() = \"𝔘\".length + Main().run()"
    );
    let def = env.ok(&root, &["refactor", "definition", "src/Main.kt:6:35"]);
    assert_eq!(spots(&def), ["src/Main.kt 4:8"]);
    let decl = env.ok(&root, &["refactor", "declaration", "src/Main.kt:6:35"]);
    assert_eq!(spots(&decl), ["src/Main.kt 4:8"]);
    let imps = env.ok(&root, &["refactor", "implementations", "src/Main.kt:6:35"]);
    assert_eq!(imps["total"], 0);

    let th = env.ok(
        &root,
        &[
            "refactor",
            "type-hierarchy",
            "src/Main.kt:3:6",
            "--direction",
            "subtypes",
        ],
    );
    assert_eq!(th["root_item"]["name"], "Main");
    assert_eq!(th["items"][0]["name"], "Sub", "{th}");

    let diags = env.ok(&root, &["refactor", "inspections", "src/Main.kt"]);
    assert_eq!(
        diags["diagnostics"][0]["range"]["start"]["line"], 6,
        "{diags}"
    );
    assert_eq!(diags["backing"], "jetbrains");
    let list = env.ok(
        &root,
        &["refactor", "inspections", "src/Main.kt", "--mode", "list"],
    );
    assert_eq!(list["sources"][0]["id"], "UnusedSymbol", "{list}");
    assert_eq!(list["sources"][0]["name"], "Unused declaration", "{list}");
    assert_eq!(list["sources"][0]["severity"], "WARNING", "{list}");

    // No grammar here reads Groovy: the IDE's structure answers.
    let overview = env.ok(&root, &["refactor", "symbols-overview", "src/Util.groovy"]);
    assert_eq!(overview["symbols"][0]["name"], "Util", "{overview}");
    assert_eq!(overview["symbols"][0]["kind"], "object");
    // Kotlin is parsed here: the headless index answers, with ranges and signatures.
    let headless = env.ok(&root, &["refactor", "symbols-overview", "src/Main.kt"]);
    assert_eq!(headless["symbols"][0]["name_path"], "Main", "{headless}");

    // Reformat: a stale expected_hash is refused before anything is sent.
    let stale = env.err(
        &root,
        &[
            "refactor",
            "reformat",
            "src/Main.kt",
            "--expected-hash",
            &"0".repeat(64),
        ],
    );
    assert_eq!(stale["code"], "CONFLICT", "{stale}");
    assert_eq!(main_kt(&root), MAIN_KT);

    // Safe delete with a conflict: refused without force, nothing sent.
    let blocked = env.err(&root, &["refactor", "safe-delete", "src/Main.kt:4:9"]);
    assert_eq!(blocked["code"], "CONFLICT", "{blocked}");
    assert_eq!(main_kt(&root), MAIN_KT);

    // Move and inline: previews, then applies (the double changes nothing).
    let mv = env.ok(
        &root,
        &[
            "refactor",
            "move",
            "src/Main.kt:4:9",
            "--destination",
            "src/other",
            "--preview",
        ],
    );
    assert_eq!(mv["usages"][0]["text"], "run", "{mv}");
    let mv = env.ok(
        &root,
        &[
            "refactor",
            "move",
            "src/Main.kt:4:9",
            "--destination",
            "src/other",
        ],
    );
    assert_eq!(mv["applied"], true);
    let outside = env.err(
        &root,
        &[
            "refactor",
            "move",
            "src/Main.kt:4:9",
            "--destination",
            "../elsewhere/x",
        ],
    );
    assert_eq!(outside["code"], "INVALID_TARGET", "{outside}");
    let inl = env.ok(&root, &["refactor", "inline", "src/Main.kt:4:9"]);
    assert_eq!(inl["applied"], true, "{inl}");

    // Rename: preview, then drift of a usage's text → CONFLICT, nothing sent.
    let preview = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "src/Main.kt:4:9",
            "--new-name",
            "execute",
            "--preview",
        ],
    );
    assert_eq!(preview["usages"][1]["text"], "run", "{preview}");
    assert_eq!(preview["usages"][1]["range"]["start"]["column"], 35);
    let plan = preview["plan_hash"].as_str().unwrap().to_string();
    let drifted = MAIN_KT.replace("Main().run()", "Main().rux()");
    fs::write(root.join("src/Main.kt"), &drifted).unwrap();
    let drift = env.err(
        &root,
        &[
            "refactor",
            "rename",
            "src/Main.kt:4:9",
            "--new-name",
            "execute",
            "--plan-hash",
            &plan,
        ],
    );
    assert_eq!(drift["code"], "CONFLICT", "{drift}");
    assert_eq!(main_kt(&root), drifted);
    fs::write(root.join("src/Main.kt"), MAIN_KT).unwrap();
    let applied = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "src/Main.kt:4:9",
            "--new-name",
            "execute",
            "--plan-hash",
            &plan,
        ],
    );
    assert_eq!(
        applied["changed_paths"],
        json!(["src/Main.kt"]),
        "{applied}"
    );
    assert_eq!(main_kt(&root), MAIN_KT.replace("run()", "execute()"));
    // The headless index sees the IDE's write at once.
    let search = env.ok(&root, &["search", "execute"]);
    assert_eq!(search["total"], 1, "{search}");

    // Reformat through the IDE: its edit lands, the hash is of the new bytes.
    let formatted = env.ok(&root, &["refactor", "reformat", "src/Main.kt"]);
    let now = main_kt(&root);
    assert_eq!(formatted["reformatted"], true, "{formatted}\n{now}");
    assert!(now.contains("\n  fun execute(): Int = 1\n"), "{now}");
    assert_eq!(
        formatted["hash"],
        blake3::hash(now.as_bytes()).to_hex().as_str()
    );

    // Symbol edits through the IDE's document store: our guards, our bytes.
    let before = main_kt(&root);
    let stale = env.err(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Main/execute",
            "--new-body",
            "fun execute(): Int = 2",
            "--expected-hash",
            &"0".repeat(64),
        ],
    );
    assert_eq!(stale["code"], "CONFLICT", "{stale}");
    assert_eq!(main_kt(&root), before);
    let replaced = env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Main/execute",
            "--new-body",
            "fun execute(): Int = 2",
        ],
    );
    assert_eq!(replaced["backing"], "jetbrains", "{replaced}");
    assert_eq!(replaced["new_range"]["start"]["line"], 4);
    let inserted = env.ok(
        &root,
        &[
            "refactor",
            "insert-after-symbol",
            "--name-path",
            "caller",
            "--text",
            "fun more() = \"ü\"",
        ],
    );
    assert_eq!(inserted["backing"], "jetbrains", "{inserted}");
    let now = main_kt(&root);
    assert_eq!(
        now,
        before.replace("Int = 1", "Int = 2") + "fun more() = \"ü\"\n",
        "{now}"
    );
    assert_eq!(
        inserted["hash"],
        blake3::hash("fun more() = \"ü\"".as_bytes())
            .to_hex()
            .as_str()
    );

    let st = env.status_rows(&root, "ides");
    assert_eq!(st.len(), 1);
    assert_eq!(st[0]["reachable"], true);
    assert_eq!(st[0]["port"], ide.port);
}

#[test]
fn a_wrong_token_is_unauthorized_and_a_dead_ide_falls_back_in_the_same_call() {
    let (env, root) = world();
    let mut ide = ContractIde::start(&env, &root, &script());
    let def = env.ok(&root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(def["backing"], "jetbrains", "{def}");
    assert_eq!(spots(&def), ["geo.py 1:4"]);

    // A port file whose token the IDE does not know (and re-reading it does not help).
    let real = fs::read_to_string(&ide.port_file).unwrap();
    let mut forged: Value = serde_json::from_str(&real).unwrap();
    forged["token"] = "f".repeat(64).into();
    fs::write(&ide.port_file, forged.to_string()).unwrap();
    let denied = wait_until(Duration::from_secs(5), || {
        run(&env, &root, &["refactor", "definition", "main.py:2:12"]).1["error"]["code"]
            == "UNAUTHORIZED"
    });
    assert!(denied, "{}", env.log());
    fs::write(&ide.port_file, &real).unwrap();
    assert!(wait_until(Duration::from_secs(5), || run(
        &env,
        &root,
        &["refactor", "definition", "main.py:2:12"]
    )
    .0));

    // The IDE dies: the next call falls back to the language server, and status says so.
    ide.kill9();
    let def = env.ok(&root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(def["backing"], "pylsp", "{def}");
    assert_eq!(spots(&def), ["geo.py 1:4"]);
    let st = env.status_rows(&root, "ides");
    assert_eq!(st[0]["reachable"], false, "{st:?}");
    // Kotlin is "jetbrains only": without the IDE, BACKEND_REQUIRED.
    let kt = env.err(&root, &["refactor", "references", "src/Main.kt:6:35"]);
    assert_eq!(kt["code"], "BACKEND_REQUIRED", "{kt}");
}

/// The definition of `fläche`, asked at the call in main.py: the backing that
/// answered, and why the ones before it did not.
fn flache_backing(env: &TestEnv, root: &Path) -> (String, Option<String>) {
    let def = env.ok(root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(spots(&def), ["geo.py 1:4"], "{def}");
    let why = def["fallback"].as_str().map(str::to_string);
    (def["backing"].as_str().unwrap().to_string(), why)
}

/// `/definition` for `fläche` in main.py, as the IDE answers it.
fn flache_definition() -> Value {
    json!({"response": {"locations": [{"path": "geo.py", "range": wire(0, 4, 10)}], "truncated": false, "total": 1}})
}

#[test]
fn a_window_indexing_refusing_or_hanging_passes_the_call_on_and_ide_only_calls_wait_for_it() {
    let (env, root) = world_with("timeout = \"1s\"\n");
    let indexing = json!({"error": {"code": "INDEXING", "message": "indexing (dumb mode)"}});
    let script = json!({"routes": {
        "/definition": [
            {"times": 1, "error": {"code": "INDEXING", "message": "indexing (dumb mode)"}},
            {"times": 1, "error": {"code": "UNSUPPORTED_LANGUAGE", "message": "no Python plugin in this IDE"}},
            {"times": 1, "delay_ms": 20_000, "response": flache_definition()["response"]},
            flache_definition()
        ],
        "/implementations": indexing,
        "/safeDeletePreview": indexing,
    }});
    let definition = || flache_backing(&env, &root);
    // pylsp warm first: while it starts it answers INDEXING too, and every retry of
    // the shim would use up one of the window's scripted answers.
    assert_eq!(definition(), ("pylsp".to_string(), None));
    let ide = ContractIde::start(&env, &root, &script);
    let passed_over = |want: &str| {
        let (backing, why) = definition();
        assert_eq!(backing, "pylsp");
        let why = why.unwrap_or_default();
        assert!(why.contains(want), "{why:?} lacks {want:?}");
    };
    // Indexing: the language server answers in the same call, and says why.
    passed_over("jetbrains answered INDEXING");
    // A language the IDE refuses: the same.
    passed_over("jetbrains answered UNSUPPORTED_LANGUAGE");
    // A window that hangs past the timeout: the language server answers this call...
    passed_over("jetbrains did not answer");
    // ... and the window is left alone afterwards: asked again it would answer itself
    // (its next rule), yet the language server answers, with nothing passed over.
    assert_eq!(definition(), ("pylsp".to_string(), None));
    let row = ide_row(&env, &root);
    assert_eq!(row["reachable"], false, "{row}");
    assert!(
        row["ignored"]
            .as_str()
            .unwrap_or_default()
            .contains("within 1s"),
        "{row}"
    );
    drop(ide);

    // A restarted window (a new port file) is asked again at once.
    let ide = ContractIde::start(
        &env,
        &root,
        &json!({"routes": {"/definition": flache_definition(), "/implementations": indexing, "/safeDeletePreview": indexing}}),
    );
    assert_eq!(definition(), ("jetbrains".to_string(), None));

    // Kotlin has no language server here ("jetbrains"): the IDE's INDEXING is the
    // answer (wait), not "no backend".
    let kt = env.err(
        &root,
        &[
            "refactor",
            "implementations",
            "src/Main.kt:6:35",
            "--no-wait",
        ],
    );
    assert_eq!(kt["code"], "INDEXING", "{kt}");
    // Operations only the IDE can do keep its INDEXING.
    let del = env.err(
        &root,
        &["refactor", "safe-delete", "src/Main.kt:4:9", "--no-wait"],
    );
    assert_eq!(del["code"], "INDEXING", "{del}");
    drop(ide);
}

/// The daemon tells the plugin its timeout for the call (`X-LeanCtx-Timeout-Ms`,
/// docs/ide-wire.md, Timeouts and retries), so a window whose IDE is busy past it (a
/// modal dialog left open) answers `INDEXING` before the daemon gives up: the call is
/// passed on with the IDE's answer named, and the window is not held off. Without the
/// header the plugin would wait out its default (28 s), the daemon would time out after
/// 3 s and hold the window off, as the hanging window above.
#[test]
fn a_busy_window_answers_within_the_timeout_the_daemon_announces_and_stays_usable() {
    let (env, root) = world_with("timeout = \"3s\"\n");
    let script = json!({"routes": {"/definition": [
        {"times": 1, "busy": true},
        flache_definition()
    ]}});
    let definition = || flache_backing(&env, &root);
    // pylsp warm first, as above: its own INDEXING would use up the scripted answers.
    assert_eq!(definition(), ("pylsp".to_string(), None));
    let ide = ContractIde::start(&env, &root, &script);
    let (backing, why) = definition();
    assert_eq!(backing, "pylsp");
    let why = why.unwrap_or_default();
    assert!(why.contains("jetbrains answered INDEXING"), "{why:?}");
    assert!(why.contains("the IDE is busy"), "{why:?}");
    // Answered, not timed out: the window is asked again at once and answers itself.
    assert_eq!(definition(), ("jetbrains".to_string(), None));
    assert_eq!(ide_row(&env, &root)["reachable"], true);
    drop(ide);
}

#[test]
fn another_worktrees_window_and_stale_or_bad_port_files_are_never_used() {
    let (env, root) = world();
    // A sibling checkout has its own window; ours has none.
    let sibling = env.dir().join("sibling");
    fs::create_dir_all(&sibling).unwrap();
    fs::write(sibling.join("main.py"), MAIN_PY).unwrap();
    let _theirs = ContractIde::start(&env, &fs::canonicalize(&sibling).unwrap(), &script());
    let def = env.ok(&root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(def["backing"], "pylsp", "{def}");

    // A stale port file for our root (its IDE's pid is gone), and garbage beside it.
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let stale = json!({"port": 1, "token": "0".repeat(64), "pid": dead_pid, "project_root": root, "ide_version": "IU-2026.1", "started_at": 1});
    fs::write(
        lean_ctx_shared::ide::port_file(&env.paths.data_dir, &root),
        stale.to_string(),
    )
    .unwrap();
    fs::write(
        env.paths.data_dir.join("jetbrains-0123456789abcdef.port"),
        "{not json",
    )
    .unwrap();
    let def = env.ok(&root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(def["backing"], "pylsp", "{def}");
    let st = env.status_rows(&root, "ides");
    let ours: Vec<&Value> = st
        .iter()
        .filter(|i| i["project_root"] == root.to_str().unwrap())
        .collect();
    assert_eq!(ours.len(), 1, "{st:?}");
    assert_eq!(ours[0]["reachable"], false);
}

#[test]
fn locations_the_ide_returns_outside_the_root_are_dropped_unread_through_the_jail() {
    let (env, root) = world();
    let outside = env.dir().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("Secret.kt"), "fun secretLine4711() = 1\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("src/out")).unwrap();
    std::os::unix::fs::symlink(outside.join("Secret.kt"), root.join("src/Link.kt")).unwrap();
    let o = outside.display();
    let mut s = script();
    // The IDE (or an impostor) names files outside the root every way it can.
    s["routes"]["/references"]["response"]["locations"] = json!([
        {"path": "src/Main.kt", "range": wire(3, 8, 11)},
        {"path": "src/out/Secret.kt", "range": wire(0, 4, 10)},
        {"path": "src/Link.kt", "range": wire(0, 4, 10)},
        {"path": "../outside/Secret.kt", "range": wire(0, 4, 10)},
        {"path": format!("{o}/Secret.kt"), "range": wire(0, 4, 10)},
        {"path": format!("{o}/Gone.kt"), "range": wire(0, 4, 10)},
        {"path": "/proc/self/root/etc/passwd", "range": wire(0, 0, 4)}
    ]);
    let _ide = ContractIde::start(&env, &root, &s);
    let refs = env.ok(&root, &["refactor", "references", "src/Main.kt:6:35"]);
    assert_eq!(refs["backing"], "jetbrains", "{refs}");
    assert_eq!(spots(&refs), ["src/Main.kt 4:8"], "{refs}");
    let text = refs.to_string();
    assert!(
        !text.contains("secretLine4711") && !text.contains("root:"),
        "{refs}"
    );
}

/// A tiny HTTP listener (python3's `http.server`) that records every request it gets
/// (request line, headers, body) and answers `/health` like an IDE and every POST with
/// one fixed JSON answer. Run as another local user (uid 65534 through `setpriv`) it
/// is a squatter or a planted impostor; run as us, an impostor that lies.
const RECORDER: &str = r#"
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
answer = sys.argv[1].encode()
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def record(self, body):
        print(json.dumps({"line": self.requestline, "headers": dict(self.headers),
                          "body": body.decode("utf-8", "replace")}), flush=True)
    def reply(self, data):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.record(b"")
        self.reply(b'{"status":"ok","ideVersion":"impostor","project":"p"}')
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.record(self.rfile.read(n))
        self.reply(answer)
s = HTTPServer(("127.0.0.1", 0), H)
print("PORT", s.server_address[1], flush=True)
s.serve_forever()
"#;

struct Recorder {
    child: std::process::Child,
    port: u16,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl Recorder {
    /// `as_other_user`: run as uid/gid 65534 with no groups, as another local user.
    fn start(as_other_user: bool, answer: &Value) -> Recorder {
        use std::io::BufRead;
        let mut cmd = if as_other_user {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
            ]);
            c
        } else {
            std::process::Command::new("/usr/bin/python3")
        };
        let mut child = cmd
            .args(["-c", RECORDER])
            .arg(answer.to_string())
            .current_dir("/")
            .env_clear()
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let port = first.strip_prefix("PORT ").unwrap().parse().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock()
                    .unwrap()
                    .push(serde_json::from_str(&line).unwrap());
            }
        });
        Recorder { child, port, seen }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn seen(&self) -> Vec<Value> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port file for `root` in the data dir, written with `mode` (0600 is what the
/// plugin writes).
fn plant_port_file(
    env: &TestEnv,
    root: &Path,
    port: u16,
    pid: u32,
    token: &str,
    mode: u32,
) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = lean_ctx_shared::ide::port_file(&env.paths.data_dir, root);
    let file = json!({"port": port, "token": token, "pid": pid, "project_root": root,
                      "ide_version": "IU-2026.1", "started_at": 1});
    fs::write(&path, file.to_string()).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    path
}

const FLACHE_BODY: &str = "def fläche(a, b):\n    return b * a";

/// The calls that would reach an IDE serving `root`: a navigation and a symbol edit.
/// Both answer as without any IDE (pylsp, our own writer), so the edit lands.
fn calls_answer_as_without_an_ide(env: &TestEnv, root: &Path) {
    let def = env.ok(root, &["refactor", "definition", "main.py:2:12"]);
    assert_eq!(def["backing"], "pylsp", "{def}");
    let edit = env.ok(
        root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "fläche",
            "--new-body",
            FLACHE_BODY,
        ],
    );
    assert_ne!(edit["backing"], "jetbrains", "{edit}");
    assert_eq!(
        fs::read_to_string(root.join("geo.py")).unwrap(),
        format!("{FLACHE_BODY}\n")
    );
}

/// The status row of `root`'s IDE port file.
fn ide_row(env: &TestEnv, root: &Path) -> Value {
    let rows = env.status_rows(root, "ides");
    rows.into_iter()
        .find(|r| r["project_root"] == root.to_str().unwrap())
        .unwrap_or_else(|| panic!("no IDE row for {}", root.display()))
}

#[test]
fn a_port_file_another_user_planted_is_never_used_and_the_data_dir_is_made_private() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (env, root) = world();
    // A data dir others can write into (as one created before lean-ctx made it 0700),
    // and another user's listener with a port file for our root: theirs, 0666.
    fs::create_dir_all(&env.paths.data_dir).unwrap();
    fs::set_permissions(&env.paths.data_dir, fs::Permissions::from_mode(0o777)).unwrap();
    let theirs = Recorder::start(true, &json!({"applied": true}));
    let planted = plant_port_file(
        &env,
        &root,
        theirs.port,
        theirs.pid(),
        &"e".repeat(64),
        0o666,
    );
    std::os::unix::fs::chown(&planted, Some(65534), Some(65534)).unwrap();

    calls_answer_as_without_an_ide(&env, &root);
    assert_eq!(
        theirs.seen(),
        Vec::<Value>::new(),
        "the planted listener got requests"
    );
    let row = ide_row(&env, &root);
    assert_eq!(row["reachable"], false, "{row}");
    assert!(
        row["ignored"]
            .as_str()
            .unwrap()
            .contains("owned by uid 65534"),
        "{row}"
    );
    let log = env.log();
    assert!(
        log.contains("ignoring a port file someone else could have written")
            && log.contains("owned by uid 65534"),
        "{log}"
    );
    // The daemon made its data dir private, and what it writes there is 0600.
    let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o777;
    assert_eq!(mode(&env.paths.data_dir), 0o700);
    let stats = env.paths.data_dir.join("stats.json");
    assert!(
        wait_until(Duration::from_secs(10), || stats.exists()),
        "no stats.json"
    );
    assert_eq!(mode(&stats), 0o600);
    assert_eq!(
        fs::metadata(&stats).unwrap().uid(),
        rustix::process::geteuid().as_raw()
    );
}

#[test]
fn a_port_squatted_by_another_user_never_gets_the_token_or_a_body() {
    let (env, root) = world();
    // Our own, proper port file; its IDE (a process of ours) does not hold the port:
    // another user's listener does.
    let squatter = Recorder::start(true, &json!({"applied": true}));
    let mut ours = std::process::Command::new("sleep")
        .arg("120")
        .spawn()
        .unwrap();
    let token = "a".repeat(64);
    fs::create_dir_all(&env.paths.data_dir).unwrap();
    plant_port_file(&env, &root, squatter.port, ours.id(), &token, 0o600);

    calls_answer_as_without_an_ide(&env, &root);
    let seen = squatter.seen();
    let _ = ours.kill();
    let _ = ours.wait();
    assert_eq!(seen, Vec::<Value>::new(), "the squatter got requests");
    let row = ide_row(&env, &root);
    assert_eq!(row["reachable"], false, "{row}");
    assert!(
        row["ignored"]
            .as_str()
            .unwrap()
            .contains("held by uid 65534"),
        "{row}"
    );
    assert!(env.log().contains("held by uid 65534"), "{}", env.log());
}

#[test]
fn an_ide_that_claims_an_edit_it_did_not_make_is_an_error_and_is_not_used_again() {
    let (env, root) = world();
    let before = fs::read_to_string(root.join("geo.py")).unwrap();
    // Ours (same uid, it holds its port, it knows the token), but it lies.
    let liar = Recorder::start(
        false,
        &json!({"applied": true, "newRange": wire(0, 0, 1), "editedText": FLACHE_BODY}),
    );
    let token = "b".repeat(64);
    fs::create_dir_all(&env.paths.data_dir).unwrap();
    plant_port_file(&env, &root, liar.port, liar.pid(), &token, 0o600);
    let edit = [
        "refactor",
        "replace-symbol-body",
        "--name-path",
        "fläche",
        "--new-body",
        FLACHE_BODY,
    ];
    let err = env.err(&root, &edit);
    assert_eq!(err["code"], "CONFLICT", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("geo.py still holds its old content"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(root.join("geo.py")).unwrap(), before);
    let posts = || -> Vec<Value> {
        liar.seen()
            .into_iter()
            .filter(|r| r["line"].as_str().unwrap().starts_with("POST"))
            .collect()
    };
    // The recorder's lines reach the test's reader thread after its answer reached
    // the daemon: wait for them rather than race them (a CI run read none yet).
    wait_until(Duration::from_secs(10), || !posts().is_empty());
    let posts = posts();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert!(
        posts[0]["line"]
            .as_str()
            .unwrap()
            .contains("/replaceSymbolBody")
    );
    // /health carried the token (docs/ide-wire.md, Token), like every request.
    assert!(
        liar.seen()
            .iter()
            .all(|r| r["headers"]["x-leanctx-token"] == token.as_str()),
        "{:?}",
        liar.seen()
    );
    let row = ide_row(&env, &root);
    assert!(
        row["ignored"]
            .as_str()
            .unwrap()
            .contains("answered that it applied the edit"),
        "{row}"
    );
    // The retry is ours to write; the liar hears nothing more.
    let written = env.ok(&root, &edit);
    assert_ne!(written["backing"], "jetbrains", "{written}");
    assert_eq!(
        fs::read_to_string(root.join("geo.py")).unwrap(),
        format!("{FLACHE_BODY}\n")
    );
    let posts = liar
        .seen()
        .into_iter()
        .filter(|r| r["line"].as_str().unwrap().starts_with("POST"))
        .count();
    assert_eq!(posts, 1);
}

#[test]
fn a_rename_the_ide_claims_and_did_not_write_is_an_error_and_the_window_is_left() {
    let (env, root) = world();
    // The contract server writes exactly the script's edits: this one writes none and
    // still answers that the rename was applied to src/Main.kt.
    let mut lying = script();
    lying["routes"]["/renameApply"]
        .as_object_mut()
        .unwrap()
        .remove("edits");
    let _ide = ContractIde::start(&env, &root, &lying);
    let rename = [
        "refactor",
        "rename",
        "src/Main.kt:4:9",
        "--new-name",
        "execute",
    ];
    let err = env.err(&root, &rename);
    assert_eq!(err["code"], "CONFLICT", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("src/Main.kt, which it names as changed, holds the same bytes as before"),
        "{err}"
    );
    assert_eq!(main_kt(&root), MAIN_KT);
    let row = ide_row(&env, &root);
    assert!(
        row["ignored"]
            .as_str()
            .unwrap()
            .contains("answered that the rename was applied"),
        "{row}"
    );
    // Kotlin is "jetbrains only": with the window left, the next call says so.
    let next = env.err(&root, &["refactor", "references", "src/Main.kt:6:35"]);
    assert_eq!(next["code"], "BACKEND_REQUIRED", "{next}");
}

/// Every refactoring option reaches the wire under the plugin's field name, with the
/// value asked: the script's rules match only requests carrying exactly those fields
/// (anything else is an `INTERNAL` answer naming the request).
#[test]
fn every_refactoring_option_reaches_the_wire_under_its_own_name() {
    let (env, root) = world();
    // `class Main` (line 3, column 6) is the move's parent and the reformatted symbol;
    // `caller` (line 6, column 4) is what moves.
    let main = wire(2, 6, 10);
    let caller = wire(5, 4, 10);
    let parent = json!({"kind": "parent", "path": "src/Main.kt", "range": main});
    let comments = json!({"search_comments": true, "search_text_occurrences": true});
    let mut s = script();
    let routes = s["routes"].as_object_mut().unwrap();
    let mut rename_preview = on_main_kt(&wire(3, 8, 11), comments);
    rename_preview["new_name"] = "execute".into();
    let mut rename_apply = rename_preview.clone();
    rename_apply["force"] = false.into();
    routes.insert(
        "/renamePreview".into(),
        json!({"match": rename_preview, "response": {"usages": run_usages(), "conflicts": []}}),
    );
    routes.insert(
        "/renameApply".into(),
        json!({"match": rename_apply,
               "edits": [
                   {"path": "src/Main.kt", "range": wire(3, 8, 11), "text": "execute"},
                   {"path": "src/Main.kt", "range": wire(5, 36, 39), "text": "execute"}],
               "response": {"applied": true, "changed_paths": ["src/Main.kt"]}}),
    );
    routes.insert(
        "/movePreview".into(),
        json!({"match": on_main_kt(&caller, json!({"target": parent})), "response": {"usages": [run_usages()[1]], "conflicts": []}}),
    );
    routes.insert(
        "/moveApply".into(),
        json!({"match": on_main_kt(&caller, json!({"target": parent, "force": false})), "response": {"applied": true, "changed_paths": []}}),
    );
    routes.insert(
        "/safeDeletePreview".into(),
        json!({"match": on_main_kt(&caller, json!({})), "response": {"usages": [], "conflicts": []}}),
    );
    routes.insert(
        "/safeDeleteApply".into(),
        json!({"match": on_main_kt(&caller, json!({"propagate": true, "force": false})), "response": {"applied": true, "changed_paths": []}}),
    );
    routes.insert(
        "/inlinePreview".into(),
        json!({"match": on_main_kt(&caller, json!({"keep_definition": true})), "response": {"usages": [], "conflicts": []}}),
    );
    routes.insert(
        "/inlineApply".into(),
        json!({"match": on_main_kt(&caller, json!({"keep_definition": true})), "response": {"applied": true, "changed_paths": []}}),
    );
    // Lines 3..=4 are `class Main {` and, once renamed, `    fun execute(): Int = 1`
    // (26 characters).
    let region = json!({"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 26}});
    routes.insert(
        "/reformat".into(),
        json!([
            {"match": {"path": "src/Main.kt", "scope": {"kind": "region", "range": region}, "optimize_imports": true},
             "response": {"applied": true, "changed_paths": []}},
            {"match": {"path": "src/Main.kt", "scope": {"kind": "symbol", "range": main}, "optimize_imports": false},
             "response": {"applied": true, "changed_paths": []}}
        ]),
    );
    let _ide = ContractIde::start(&env, &root, &s);

    let rename = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "src/Main.kt:4:9",
            "--new-name",
            "execute",
            "--search-comments",
            "--search-text-occurrences",
        ],
    );
    assert_eq!(rename["changed_paths"], json!(["src/Main.kt"]), "{rename}");
    assert_eq!(main_kt(&root), MAIN_KT.replace("run()", "execute()"));

    let moved = env.ok(
        &root,
        &[
            "refactor",
            "move",
            "src/Main.kt:6:4",
            "--parent",
            "src/Main.kt:3:6",
        ],
    );
    assert_eq!(moved["applied"], true, "{moved}");
    let deleted = env.ok(
        &root,
        &["refactor", "safe-delete", "src/Main.kt:6:4", "--propagate"],
    );
    assert_eq!(deleted["applied"], true, "{deleted}");
    let inlined = env.ok(
        &root,
        &["refactor", "inline", "src/Main.kt:6:4", "--keep-definition"],
    );
    assert_eq!(inlined["applied"], true, "{inlined}");
    let region = env.ok(
        &root,
        &[
            "refactor",
            "reformat",
            "src/Main.kt",
            "--region",
            "3:4",
            "--optimize-imports",
        ],
    );
    assert_eq!(region["backing"], "jetbrains", "{region}");
    let symbol = env.ok(
        &root,
        &["refactor", "reformat", "src/Main.kt", "--symbol", "3:6"],
    );
    assert_eq!(symbol["backing"], "jetbrains", "{symbol}");

    // The values count, not only the names: without --propagate the request is one
    // the script does not know.
    let plain = env.err(&root, &["refactor", "safe-delete", "src/Main.kt:6:4"]);
    assert_eq!(plain["code"], "INTERNAL", "{plain}");
    assert!(
        plain["message"]
            .as_str()
            .unwrap()
            .contains("\"propagate\":false"),
        "{plain}"
    );
}

/// Without an IDE, what only the IDE does is `UNSUPPORTED` with a remedy, before any
/// language server is asked; nothing is written.
#[test]
fn options_a_language_server_cannot_honour_are_unsupported_without_an_ide() {
    let (env, root) = world();
    let refused = [
        vec![
            "refactor",
            "rename",
            "geo.py:1:4",
            "--new-name",
            "area",
            "--search-comments",
        ],
        vec![
            "refactor",
            "rename",
            "geo.py:1:4",
            "--new-name",
            "area",
            "--search-text-occurrences",
            "--preview",
        ],
        vec!["refactor", "reformat", "geo.py", "--optimize-imports"],
        vec!["refactor", "reformat", "geo.py", "--symbol", "1:4"],
    ];
    for args in refused {
        let e = env.err(&root, &args);
        assert_eq!(e["code"], "UNSUPPORTED", "{args:?}: {e}");
        assert!(
            e["remedy"].as_str().unwrap().contains("JetBrains IDE"),
            "{args:?}: {e}"
        );
    }
    assert_eq!(fs::read_to_string(root.join("geo.py")).unwrap(), GEO_PY);
    // The same rename without the IDE's options is the language server's.
    let preview = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "geo.py:1:4",
            "--new-name",
            "area",
            "--preview",
        ],
    );
    assert_eq!(preview["backing"], "pylsp", "{preview}");
}

/// The call hierarchy through the IDE: the request carries the UTF-16 column after
/// `𝔘`, the direction and the depth asked (the script answers only that exact body);
/// the IDE's tree comes back level by level, each node under its parent, positions in
/// characters again, and a node outside the root is dropped unread with the nodes
/// reached through it. A window that refuses the language passes the call on to the
/// language server, which answers as it does without any IDE.
#[test]
fn a_call_hierarchy_goes_to_the_ide_in_utf16_and_its_tree_comes_back_level_by_level() {
    let (env, root) = world();
    let without_ide = env.err(&root, &["refactor", "call-hierarchy", "geo.py:1:4"]);
    assert_eq!(without_ide["code"], "UNSUPPORTED", "{without_ide}");

    let outside = env.dir().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("Lib.kt"), "fun secretLine4711() = run()\n").unwrap();
    let node = |name: &str, path: &str, range: Value, sites: Value, children: Value| json!({"name": name, "kind": "function", "path": path, "range": range, "sites": sites, "children": children});
    // Line 2 holds `𝔘` before `Größe`: column 5 in characters, 6 in UTF-16.
    let grosse = node(
        "größe",
        "src/Main.kt",
        wire(1, 6, 11),
        json!([wire(1, 6, 11)]),
        json!([]),
    );
    let caller = node(
        "caller",
        "src/Main.kt",
        wire(5, 4, 10),
        json!([wire(5, 36, 39)]),
        json!([grosse]),
    );
    let hidden = node("hidden", "src/Main.kt", wire(0, 0, 7), json!([]), json!([]));
    let lib = outside.join("Lib.kt").display().to_string();
    let secret = node(
        "secret",
        &lib,
        wire(0, 4, 18),
        json!([wire(0, 23, 26)]),
        json!([hidden]),
    );
    let mut tree = node(
        "run",
        "src/Main.kt",
        wire(3, 8, 11),
        json!([]),
        json!([caller, secret]),
    );
    tree["kind"] = "method".into();
    let script = json!({"routes": {"/call_hierarchy": [
        {"match": {"path": "src/Main.kt", "line": 5, "character": 36, "direction": "incoming", "depth": 2, "scope": "project"},
         "response": {"tree": tree, "truncated": false}},
        {"match": {"path": "geo.py", "line": 0, "character": 4, "direction": "incoming", "depth": 1},
         "error": {"code": "UNSUPPORTED_LANGUAGE", "message": "no Python call hierarchy in this IDE"}}
    ]}});
    let _ide = ContractIde::start(&env, &root, &script);

    let calls = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "src/Main.kt:6:35",
            "--direction",
            "incoming",
            "--depth",
            "2",
        ],
    );
    assert_eq!(calls["backing"], "jetbrains", "{calls}");
    assert_eq!(calls["direction"], "incoming");
    assert_eq!(calls["truncated"], false);
    let root_item = &calls["root_item"];
    assert_eq!(
        (&root_item["name"], &root_item["kind"], &root_item["depth"]),
        (&json!("run"), &json!("method"), &json!(0))
    );
    assert_eq!(root_item["range"]["start"], json!({"line": 4, "column": 8}));
    let rows: Vec<Value> = calls["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            json!([
                n["depth"],
                n["parent"],
                n["path"],
                n["name"],
                n["range"]["start"],
                n["sites"]
            ])
        })
        .collect();
    assert_eq!(
        rows,
        [
            json!([1, null, "src/Main.kt", "caller", {"line": 6, "column": 4}, [{"line": 6, "column": 35}]]),
            json!([2, 0, "src/Main.kt", "größe", {"line": 2, "column": 5}, [{"line": 2, "column": 5}]]),
        ],
        "{calls}"
    );
    assert!(!calls.to_string().contains("secretLine4711"), "{calls}");

    // The IDE refuses Python: the language server's answer, as without the IDE.
    let passed = env.err(&root, &["refactor", "call-hierarchy", "geo.py:1:4"]);
    assert_eq!(passed["code"], without_ide["code"], "{passed}");
    let why = passed["message"].as_str().unwrap_or_default();
    assert!(
        why.contains("jetbrains answered UNSUPPORTED_LANGUAGE"),
        "{passed}"
    );
}
