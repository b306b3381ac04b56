//! Backing B against the PUBLISHED plugin's wire: real shims and the real daemon
//! against the test kit's strict double of the plugin users have installed
//! (`PluginDouble`: docs/ide-wire.md). The double holds every request to the
//! published plugin's fields, types and positions and answers in its shapes
//! (`{applied, changed_paths}` for `/reformat`, `newRange`/`editedText` for edits), so
//! these tests fail where our own core's contract server (client/tests/ide.rs) would
//! forgive a drift.

use std::{fs, path::PathBuf};

use lean_ctx_testkit::{
    PluginDouble, Reply, TestEnv, git, go_calls_fixture, gopls_env,
    plugin_double::{Token, beyond_published, insert_symbol, replace_symbol_body, routes},
    spots,
};
use serde_json::{Value, json};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// Line 6 holds `𝔘ü` before `total`: its column is 38 in characters, 39 in UTF-16
/// units (what the wire carries) and 42 in UTF-8 bytes.
const CART_KT: &str = concat!(
    "package shop\n",
    "// Größe 𝔘\n",
    "class Cart {\n",
    "    fun total(): Int = 1\n",
    "}\n",
    "fun checkout() = \"𝔘ü\".length + Cart().total()\n",
);

fn wire(line: u32, from: u32, to: u32) -> Value {
    json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}})
}

/// `total`'s declaration (line 4) and its call (line 6), as the wire has them.
fn total_usages() -> Value {
    json!([
        {"path": "src/Cart.kt", "range": wire(3, 8, 13)},
        {"path": "src/Cart.kt", "range": wire(5, 39, 44), "context": "Cart().total()"}
    ])
}

/// The window's rename of `total` to `sum`: its preview lists both usages, its apply
/// writes them. The daemon sends a rename's search options to `/renameApply` as well,
/// on purpose (backing/ide.rs says why): the published plugin's Gson drops them.
fn renames_total_to_sum(ide: &PluginDouble) {
    ide.tolerate("/renameApply", "search_comments");
    ide.tolerate("/renameApply", "search_text_occurrences");
    ide.on("/renamePreview", |_| {
        Reply::Json(json!({"usages": total_usages(), "conflicts": []}))
    });
    ide.on("/renameApply", |call| {
        let edits = [(wire(3, 8, 13), "sum"), (wire(5, 39, 44), "sum")];
        match call.write("src/Cart.kt", &edits) {
            Ok(()) => Reply::Json(json!({"applied": true, "changed_paths": ["src/Cart.kt"]})),
            Err(e) => Reply::error("POSITION_OUT_OF_RANGE", e),
        }
    });
}

/// A Kotlin project only the IDE answers for, with the published plugin's window.
fn world() -> (TestEnv, PathBuf, PluginDouble) {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[lsp]\nkotlin = \"jetbrains\"\n");
    let root = env.dir().join("shop");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/Cart.kt"), CART_KT).unwrap();
    let root = fs::canonicalize(root).unwrap();
    let ide = PluginDouble::start(&env, &root);
    (env, root, ide)
}

fn cart(root: &std::path::Path) -> String {
    fs::read_to_string(root.join("src/Cart.kt")).unwrap()
}

#[test]
fn navigation_and_inspections_send_the_published_fields_and_read_its_answers() {
    let (env, root, ide) = world();
    ide.on("/references", |_| {
        Reply::Json(json!({"locations": total_usages(), "truncated": false, "total": 2}))
    });
    ide.on("/type_hierarchy", |_| {
        let sub = json!({"name": "BigCart", "path": "src/Cart.kt", "line": 3, "children": []});
        let tree = json!({"name": "Cart", "path": "src/Cart.kt", "line": 3, "children": [sub]});
        Reply::Json(json!({"tree": tree, "truncated": false}))
    });
    ide.on("/inspections", |_| {
        let unused = json!({"path": "src/Cart.kt", "line": 6, "severity": "WARNING",
                            "message": "Function \"checkout\" is never used"});
        Reply::Json(json!({"diagnostics": [unused], "truncated": false, "total": 1}))
    });
    ide.on("/list_inspections", |_| {
        let unused =
            json!({"id": "UnusedSymbol", "name": "Unused declaration", "severity": "WARNING"});
        Reply::Json(json!({"inspections": [unused], "truncated": false, "total": 1}))
    });

    let refs = env.ok(
        &root,
        &[
            "refactor",
            "references",
            "src/Cart.kt:6:38",
            "--scope",
            "all",
        ],
    );
    assert_eq!(refs["backing"], "jetbrains", "{refs}");
    assert_eq!(spots(&refs), ["src/Cart.kt 4:8", "src/Cart.kt 6:38"]);
    // 0-based line, the column in UTF-16 units (not 38 characters, not 42 bytes).
    assert_eq!(
        ide.bodies("/references"),
        [json!({"path": "src/Cart.kt", "line": 5, "character": 39, "scope": "all"})]
    );

    let th = env.ok(
        &root,
        &[
            "refactor",
            "type-hierarchy",
            "src/Cart.kt:3:6",
            "--direction",
            "subtypes",
        ],
    );
    assert_eq!(th["items"][0]["name"], "BigCart", "{th}");
    assert_eq!(
        ide.bodies("/type_hierarchy"),
        [json!({"path": "src/Cart.kt", "line": 2, "character": 6,
                "direction": "subtypes", "scope": "project"})]
    );

    let diags = env.ok(&root, &["refactor", "inspections", "src/Cart.kt"]);
    assert_eq!(
        diags["diagnostics"][0]["range"]["start"]["line"], 6,
        "{diags}"
    );
    let list = env.ok(
        &root,
        &["refactor", "inspections", "src/Cart.kt", "--mode", "list"],
    );
    assert_eq!(list["sources"][0]["id"], "UnusedSymbol", "{list}");
    assert_eq!(list["sources"][0]["name"], "Unused declaration", "{list}");
    assert_eq!(list["sources"][0]["severity"], "WARNING", "{list}");
    for route in ["/inspections", "/list_inspections"] {
        assert_eq!(
            ide.bodies(route),
            [json!({"path": "src/Cart.kt"})],
            "{route}"
        );
    }

    // Every request carried the token, `GET /health` (the reachability probe) too:
    // the published plugin answers 401 to a probe without it.
    let requests = ide.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.method == "GET" && r.route == "/health"),
        "no health check: {requests:?}"
    );
    assert!(
        requests.iter().all(|r| r.token == Token::Right),
        "{requests:?}"
    );
    ide.assert_clean();
}

#[test]
fn refactorings_reformat_and_edits_write_through_the_published_answers() {
    let (env, root, ide) = world();
    renames_total_to_sum(&ide);
    ide.on("/safeDeletePreview", |_| {
        let blocking = json!({"path": "src/Cart.kt", "range": wire(5, 39, 42),
                              "message": "sum() is used in checkout()"});
        Reply::Json(json!({"usages": [total_usages()[0]], "conflicts": [blocking]}))
    });
    // The published plugin answers `/reformat` like an apply, not `{reformatted}`.
    ide.on("/reformat", |call| {
        match call.write("src/Cart.kt", &[(wire(3, 0, 4), "  ")]) {
            Ok(()) => Reply::Json(json!({"applied": true, "changed_paths": ["src/Cart.kt"]})),
            Err(e) => Reply::error("POSITION_OUT_OF_RANGE", e),
        }
    });
    ide.on("/replaceSymbolBody", replace_symbol_body);

    let rename = ["refactor", "rename", "src/Cart.kt:4:8", "--new-name", "sum"];
    let preview = env.ok(&root, &[&rename[..], &["--preview"]].concat());
    assert_eq!(
        preview["usages"][1]["range"]["start"]["column"], 38,
        "{preview}"
    );
    assert_eq!(preview["usages"][1]["text"], "total");
    let plan = preview["plan_hash"].as_str().unwrap().to_string();
    let applied = env.ok(&root, &[&rename[..], &["--plan-hash", &plan]].concat());
    assert_eq!(
        applied["changed_paths"],
        json!(["src/Cart.kt"]),
        "{applied}"
    );
    assert_eq!(cart(&root), CART_KT.replace("total()", "sum()"));
    // Previewed twice (the apply plans again), applied once; the fields the plugin
    // reads, whatever else the daemon sends (the double holds it to that).
    let (previews, applies) = (ide.bodies("/renamePreview"), ide.bodies("/renameApply"));
    assert_eq!((previews.len(), applies.len()), (2, 1));
    let at = json!({"path": "src/Cart.kt", "range": wire(3, 8, 13), "new_name": "sum"});
    for sent in previews.iter().chain(&applies) {
        for (key, want) in at.as_object().unwrap() {
            assert_eq!(&sent[key], want, "{key}: {sent}");
        }
    }
    assert_eq!(applies[0]["force"], false, "{}", applies[0]);

    // A preview's conflict keeps its range (UTF-16 39 after `𝔘` is character 38)...
    let shown = env.ok(
        &root,
        &["refactor", "safe-delete", "src/Cart.kt:4:8", "--preview"],
    );
    let c = &shown["conflicts"][0];
    assert_eq!(c["path"], "src/Cart.kt", "{shown}");
    assert_eq!(
        c["range"]["start"],
        json!({"line": 6, "column": 38}),
        "{shown}"
    );
    assert_eq!(c["message"], "sum() is used in checkout()", "{shown}");
    // ... and blocks the apply; nothing is sent.
    let blocked = env.err(&root, &["refactor", "safe-delete", "src/Cart.kt:4:8"]);
    assert_eq!(blocked["code"], "CONFLICT", "{blocked}");
    assert!(
        blocked.to_string().contains("sum() is used in checkout()"),
        "{blocked}"
    );
    let at = json!({"path": "src/Cart.kt", "range": wire(3, 8, 11)});
    assert_eq!(ide.bodies("/safeDeletePreview"), [at.clone(), at]);
    assert_eq!(ide.bodies("/safeDeleteApply"), Vec::<Value>::new());

    let formatted = env.ok(&root, &["refactor", "reformat", "src/Cart.kt"]);
    assert_eq!(formatted["reformatted"], true, "{formatted}");
    assert!(
        cart(&root).contains("\n  fun sum(): Int = 1\n"),
        "{}",
        cart(&root)
    );
    assert_eq!(
        ide.bodies("/reformat"),
        [json!({"path": "src/Cart.kt", "scope": {"kind": "file"}, "optimize_imports": false})]
    );

    let before = cart(&root);
    let body = "fun sum(): Int = \"ü𝔘\".length";
    let replaced = env.ok(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Cart/sum",
            "--new-body",
            body,
        ],
    );
    assert_eq!(replaced["backing"], "jetbrains", "{replaced}");
    assert_eq!(replaced["new_range"]["start"]["line"], 4, "{replaced}");
    assert_eq!(
        cart(&root),
        before.replace("fun sum(): Int = 1", body),
        "the double wrote the daemon's bytes"
    );
    assert_eq!(
        ide.bodies("/replaceSymbolBody"),
        [json!({"path": "src/Cart.kt", "range": wire(3, 2, 20), "text": body})]
    );
    ide.assert_clean();
}

#[test]
fn move_safe_delete_inline_and_structure_send_only_what_the_published_plugin_reads() {
    let (env, root, ide) = world();
    fs::create_dir_all(root.join("src/other")).unwrap();
    fs::write(root.join("src/Util.groovy"), "class Util {\n}\n").unwrap();
    let declaration = || Reply::Json(json!({"usages": [total_usages()[0]], "conflicts": []}));
    let nothing_changed = || Reply::Json(json!({"applied": true, "changed_paths": []}));
    for route in ["/movePreview", "/safeDeletePreview", "/inlinePreview"] {
        ide.on(route, move |_| declaration());
    }
    for route in ["/moveApply", "/safeDeleteApply", "/inlineApply"] {
        ide.on(route, move |_| nothing_changed());
    }
    ide.on("/symbols_overview", |_| {
        let util = json!({"name": "Util", "kind": "object", "line": 1});
        Reply::Json(json!({"symbols": [util], "truncated": false, "total": 1}))
    });

    let at = "src/Cart.kt:4:8";
    let moved = env.ok(
        &root,
        &["refactor", "move", at, "--destination", "src/other"],
    );
    assert_eq!(moved["applied"], true, "{moved}");
    let deleted = env.ok(&root, &["refactor", "safe-delete", at]);
    assert_eq!(deleted["applied"], true, "{deleted}");
    let inlined = env.ok(&root, &["refactor", "inline", at]);
    assert_eq!(inlined["applied"], true, "{inlined}");
    let range = wire(3, 8, 13);
    let target = json!({"kind": "path", "path": "src/other"});
    for (route, body) in [
        (
            "/movePreview",
            json!({"path": "src/Cart.kt", "range": range, "target": target}),
        ),
        (
            "/moveApply",
            json!({"path": "src/Cart.kt", "range": range, "target": target, "force": false}),
        ),
        (
            "/safeDeletePreview",
            json!({"path": "src/Cart.kt", "range": range}),
        ),
        (
            "/safeDeleteApply",
            json!({"path": "src/Cart.kt", "range": range, "force": false, "propagate": false}),
        ),
        (
            "/inlinePreview",
            json!({"path": "src/Cart.kt", "range": range, "keep_definition": false}),
        ),
        // No `force`: the published plugin's inline takes none.
        (
            "/inlineApply",
            json!({"path": "src/Cart.kt", "range": range, "keep_definition": false}),
        ),
    ] {
        let sent = ide.bodies(route);
        assert!(
            !sent.is_empty() && sent.iter().all(|s| *s == body),
            "{route}: {sent:?}"
        );
    }

    // No grammar here reads Groovy: the IDE's structure answers.
    let overview = env.ok(&root, &["refactor", "symbols-overview", "src/Util.groovy"]);
    assert_eq!(overview["symbols"][0]["name"], "Util", "{overview}");
    assert_eq!(
        ide.bodies("/symbols_overview"),
        [json!({"path": "src/Util.groovy"})]
    );
    ide.assert_clean();
}

/// Every route the daemon's IDE backing can send reaches the double once, each held
/// to the published plugin's fields: the four navigations, the structure, both
/// inspections, the three symbol edits (the inserts too), each refactoring's preview
/// and apply, and reformat; and the call hierarchy, which the published plugin lacks
/// (404: the call goes on to the language server, none here for Kotlin). A route the
/// daemon stopped sending fails here (`plugin_double::routes`, `beyond_published`), a
/// route it sends that the plugin lacks fails the double.
#[test]
fn every_route_the_daemon_sends_reaches_the_double_in_the_published_shape() {
    let (env, root, ide) = world();
    fs::create_dir_all(root.join("src/other")).unwrap();
    fs::write(root.join("src/Util.groovy"), "class Util {\n}\n").unwrap();
    let located =
        || Reply::Json(json!({"locations": total_usages(), "truncated": false, "total": 2}));
    for route in [
        "/references",
        "/definition",
        "/implementations",
        "/declaration",
    ] {
        ide.on(route, move |_| located());
    }
    ide.on("/type_hierarchy", |_| {
        let tree = json!({"name": "Cart", "path": "src/Cart.kt", "line": 3, "children": []});
        Reply::Json(json!({"tree": tree, "truncated": false}))
    });
    ide.on("/symbols_overview", |_| {
        let util = json!({"name": "Util", "kind": "object", "line": 1});
        Reply::Json(json!({"symbols": [util], "truncated": false, "total": 1}))
    });
    ide.on("/inspections", |_| {
        Reply::Json(json!({"diagnostics": [], "truncated": false, "total": 0}))
    });
    ide.on("/list_inspections", |_| {
        Reply::Json(json!({"inspections": [], "truncated": false, "total": 0}))
    });
    ide.on("/replaceSymbolBody", replace_symbol_body);
    for route in ["/insertBeforeSymbol", "/insertAfterSymbol"] {
        ide.on(route, insert_symbol);
    }
    let declaration = || Reply::Json(json!({"usages": [total_usages()[0]], "conflicts": []}));
    let nothing_changed = || Reply::Json(json!({"applied": true, "changed_paths": []}));
    renames_total_to_sum(&ide);
    for name in ["move", "safeDelete", "inline"] {
        ide.on(&format!("/{name}Preview"), move |_| declaration());
        ide.on(&format!("/{name}Apply"), move |_| nothing_changed());
    }
    ide.on("/reformat", move |_| nothing_changed());

    let at = "src/Cart.kt:4:8";
    for action in ["references", "definition", "implementations", "declaration"] {
        let answer = env.ok(&root, &["refactor", action, at]);
        assert_eq!(answer["backing"], "jetbrains", "{action}: {answer}");
    }
    env.ok(&root, &["refactor", "type-hierarchy", "src/Cart.kt:3:6"]);
    env.ok(&root, &["refactor", "symbols-overview", "src/Util.groovy"]);
    env.ok(&root, &["refactor", "inspections", "src/Cart.kt"]);
    env.ok(
        &root,
        &["refactor", "inspections", "src/Cart.kt", "--mode", "list"],
    );
    env.ok(&root, &["refactor", "rename", at, "--new-name", "sum"]);
    env.ok(
        &root,
        &["refactor", "move", at, "--destination", "src/other"],
    );
    env.ok(&root, &["refactor", "safe-delete", at]);
    env.ok(&root, &["refactor", "inline", at]);
    env.ok(&root, &["refactor", "reformat", "src/Cart.kt"]);
    let calls = env.err(&root, &["refactor", "call-hierarchy", at]);
    assert_eq!(calls["code"], "BACKEND_REQUIRED", "{calls}");
    let why = calls["message"].as_str().unwrap_or_default();
    assert!(why.contains("has no /call_hierarchy"), "{calls}");
    let name = ["--name-path", "Cart/sum"];
    let edits: [(&str, &str, &str); 3] = [
        ("insert-before-symbol", "--text", "    // before"),
        ("insert-after-symbol", "--text", "    // after"),
        ("replace-symbol-body", "--new-body", "fun sum(): Int = 2"),
    ];
    for (action, flag, text) in edits {
        let edited = env.ok(
            &root,
            &[&["refactor", action], &name[..], &[flag, text]].concat(),
        );
        assert_eq!(edited["backing"], "jetbrains", "{action}: {edited}");
        assert!(cart(&root).contains(text), "{action}: {}", cart(&root));
    }

    let mut sent: Vec<String> = ide
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.route)
        .collect();
    sent.sort();
    sent.dedup();
    let mut routes: Vec<String> = routes()
        .chain(beyond_published())
        .map(String::from)
        .collect();
    routes.sort();
    assert_eq!(sent, routes);
    ide.assert_clean();
}

/// The published plugin has no `/call_hierarchy`: its 404 passes the call on to the
/// language server within the same call, which answers as it does without any IDE,
/// and the answer says why the IDE did not.
#[test]
fn a_call_hierarchy_the_published_plugin_lacks_is_answered_by_the_language_server() {
    let env = gopls_env(SHIM);
    let root = go_calls_fixture(&env.dir().join("calls"));
    env.trust(&root);
    let ide = PluginDouble::start(&env, &root);
    let callers = env.ok(
        &root,
        &["refactor", "call-hierarchy", "--name-path", "leaf"],
    );
    assert_eq!(callers["backing"], "gopls", "{callers}");
    assert_eq!(callers["calls"][0]["name"], "mid", "{callers}");
    let why = callers["fallback"].as_str().unwrap_or_default();
    assert!(
        why.contains("jetbrains answered UNSUPPORTED") && why.contains("/call_hierarchy"),
        "{callers}"
    );
    // `leaf` is line 3, column 5 (0-based: 2, 5), in the published request shape;
    // asked again when gopls answered `INDEXING` first (a loaded machine) and the
    // call waited and was made again.
    let bodies = ide.bodies("/call_hierarchy");
    let want = json!({"path": "calls.go", "line": 2, "character": 5, "scope": "project", "direction": "incoming", "depth": 1});
    assert!(
        !bodies.is_empty() && bodies.iter().all(|b| *b == want),
        "{bodies:?}"
    );
    ide.assert_clean();
}

/// CPU time (user + system, in clock ticks) `pid` has used so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[test]
fn a_known_window_costs_the_daemon_no_cpu_between_calls() {
    let (env, root, ide) = world();
    ide.on("/references", |_| {
        Reply::Json(json!({"locations": total_usages(), "truncated": false, "total": 2}))
    });
    let refs = env.ok(&root, &["refactor", "references", "src/Cart.kt:6:38"]);
    assert_eq!(refs["backing"], "jetbrains", "{refs}");
    // Reading the port file is itself an event on the watched data dir: a watcher that
    // reloaded on it read the file again, forever, one core spent on nothing (100 or
    // more clock ticks of 10 ms a second). The call's own aftermath (accounting loads
    // its tokenizer) takes a moment, so the quietest of three seconds counts: idle,
    // the daemon uses next to nothing.
    let pid = env.daemon_pid().expect("the daemon runs");
    let mut ticks = vec![cpu_ticks(pid)];
    for _ in 0..3 {
        std::thread::sleep(std::time::Duration::from_secs(1));
        ticks.push(cpu_ticks(pid));
    }
    let quietest = ticks.windows(2).map(|w| w[1] - w[0]).min().unwrap();
    assert!(
        quietest < 30,
        "the idle daemon used {ticks:?} ticks, second by second"
    );
    ide.assert_clean();
}

#[test]
fn a_window_on_another_git_worktree_of_the_repository_is_never_used() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[lsp]\nkotlin = \"jetbrains\"\n");
    let ours = env.dir().join("shop");
    fs::create_dir_all(ours.join("src")).unwrap();
    fs::write(ours.join("src/Cart.kt"), CART_KT).unwrap();
    git(&ours, &["init", "-q"]);
    git(&ours, &["add", "."]);
    git(&ours, &["commit", "-q", "-m", "cart"]);
    let theirs = env.dir().join("shop-feature");
    git(&ours, &["worktree", "add", "-q", theirs.to_str().unwrap()]);
    let (ours, theirs) = (
        fs::canonicalize(ours).unwrap(),
        fs::canonicalize(theirs).unwrap(),
    );
    // The window has the other worktree open: same repository, same files.
    let ide = PluginDouble::start(&env, &theirs);
    ide.on("/references", |_| {
        Reply::Json(json!({"locations": total_usages(), "truncated": false, "total": 2}))
    });
    let refs = ["refactor", "references", "src/Cart.kt:6:38", "--no-wait"];
    let ours_err = env.err(&ours, &refs);
    assert_eq!(ours_err["code"], "BACKEND_REQUIRED", "{ours_err}");
    assert_eq!(ide.bodies("/references"), Vec::<Value>::new());
    // Its own worktree it serves.
    let answered = env.ok(&theirs, &refs);
    assert_eq!(answered["backing"], "jetbrains", "{answered}");
    assert_eq!(ide.bodies("/references").len(), 1);
    ide.assert_clean();
}

#[test]
fn an_edit_is_handed_on_after_a_hang_only_while_the_file_is_untouched() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[lsp]\nkotlin = \"jetbrains\"\n[ide]\napply_timeout = \"1s\"\n");
    let root = env.dir().join("shop");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/Cart.kt"), CART_KT).unwrap();
    let root = fs::canonicalize(root).unwrap();
    let ide = PluginDouble::start(&env, &root);
    let edit = |body: &str| {
        let args = [
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Cart/total",
            "--new-body",
            body,
        ];
        env.shim_json_in(&root, &args).1
    };

    // The window hangs before writing anything: our own writer takes the edit over,
    // and the answer says why.
    ide.on("/replaceSymbolBody", |_| Reply::Hang);
    let done = edit("fun total(): Int = 2");
    assert_eq!(done["backing"], "headless", "{done}");
    assert!(
        done["fallback"]
            .as_str()
            .unwrap_or_default()
            .contains("did not answer"),
        "{done}"
    );
    assert_eq!(cart(&root), CART_KT.replace("Int = 1", "Int = 2"));

    // A new window writes something else and hangs: nobody writes over what it left.
    drop(ide);
    let ide = PluginDouble::start(&env, &root);
    ide.on("/replaceSymbolBody", |call| {
        let _ = call.write("src/Cart.kt", &[(wire(3, 4, 7), "var")]);
        Reply::Hang
    });
    let refused = edit("fun total(): Int = 3");
    assert_eq!(refused["error"]["code"], "CONFLICT", "{refused}");
    let left = cart(&root);
    assert!(left.contains("    var total(): Int = 2"), "{left}");
    assert!(!left.contains("Int = 3"), "{left}");
    ide.assert_clean();
}

/// Issue 16: through an IDE window too, a name path matching two overloads is
/// `AMBIGUOUS_SYMBOL` naming both `[n]` addresses; the window never receives an edit.
#[test]
fn an_ambiguous_name_path_never_reaches_the_window() {
    let (env, root, ide) = world();
    let overloads = CART_KT.replace(
        "    fun total(): Int = 1\n",
        "    fun total(): Int = 1\n    fun total(x: Int): Int = x\n",
    );
    fs::write(root.join("src/Cart.kt"), &overloads).unwrap();
    let e = env.err(
        &root,
        &[
            "refactor",
            "replace-symbol-body",
            "--name-path",
            "Cart/total",
            "--new-body",
            "fun total(): Int = 2",
        ],
    );
    assert_eq!(e["code"], "AMBIGUOUS_SYMBOL", "{e}");
    let named: Vec<&str> = e["details"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name_path"].as_str().unwrap())
        .collect();
    // Each as the address that names it alone (the first overload as `[0]`).
    assert_eq!(named, ["Cart/total[0]", "Cart/total[1]"], "{e}");
    assert!(ide.bodies("/replaceSymbolBody").is_empty());
    assert_eq!(cart(&root), overloads);
    ide.assert_clean();
}
