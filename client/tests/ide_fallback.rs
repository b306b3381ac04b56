//! Fallback from an IDE window that cannot answer (issue 18), against the strict
//! double of the published plugin: a window still indexing, one that refuses a
//! language or an operation, and one that hangs past the daemon's `[ide] timeout`,
//! while a warm language server (pylsp) could answer. The router passes the call on
//! to the language server in the same call, the answer naming the backing that
//! answered and, in `fallback`, why the IDE did not; a window that timed out is held
//! off, so the next call does not wait again. Operations only the IDE can do keep its
//! `INDEXING`.

use std::{
    fs,
    path::PathBuf,
    time::{Duration, Instant},
};

use lean_ctx_testkit::{PluginDouble, Reply, TestEnv, pylsp, python_fixture, spots};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

/// `fläche` in main.py, defined in geo.py (line 2, column 4). `--no-wait`: an
/// `INDEXING` answer comes back at once rather than being retried by the shim.
const DEFINITION: &[&str] = &["refactor", "definition", "main.py:3:26", "--no-wait"];

/// The daemon's IDE timeout for reads, configured (`[ide] timeout`, 30 s by default)
/// so that the hang costs seconds, not half a minute.
const IDE_TIMEOUT: Duration = Duration::from_secs(10);

/// A Python project pylsp serves, warm before the IDE window opens (the IDE is the
/// only backing that may be slow here), and a Kotlin file only the IDE answers for.
fn world() -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\nkotlin = \"jetbrains\"\n[ide]\ntimeout = \"{}s\"\n",
        pylsp().display().to_string(),
        IDE_TIMEOUT.as_secs()
    ));
    let root = python_fixture(&env.dir().join("proj"));
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/Main.kt"), "fun main() = 1\n").unwrap();
    env.trust(&root);
    let warm = env.ok(&root, &DEFINITION[..3]);
    assert_eq!(warm["backing"], "pylsp", "{warm}");
    (env, root)
}

/// Why the backings before the one that answered did not (empty when none was passed).
fn fallback(answer: &Value) -> &str {
    answer["fallback"].as_str().unwrap_or_default()
}

#[test]
fn a_window_still_indexing_hands_the_call_to_the_warm_language_server() {
    let (env, root) = world();
    let ide = PluginDouble::start(&env, &root);
    ide.set_indexing(true);

    let def = env.ok(&root, DEFINITION);
    assert_eq!(def["backing"], "pylsp", "{def}");
    assert_eq!(spots(&def), ["geo.py 2:4"]);
    assert!(
        fallback(&def).contains("jetbrains") && fallback(&def).contains("INDEXING"),
        "the answer says why the IDE did not answer: {def}"
    );
    assert_eq!(
        ide.bodies("/definition").len(),
        1,
        "the IDE was asked first"
    );

    // Kotlin is "jetbrains only": nothing else can answer, so INDEXING stays.
    let kt = env.err(
        &root,
        &["refactor", "references", "src/Main.kt:1:4", "--no-wait"],
    );
    assert_eq!(kt["code"], "INDEXING", "{kt}");
    ide.assert_clean();
}

#[test]
fn a_window_refusing_a_language_or_an_operation_hands_it_to_the_language_server() {
    let (env, root) = world();
    let ide = PluginDouble::start(&env, &root);
    ide.on("/definition", |_| {
        Reply::error(
            "UNSUPPORTED_LANGUAGE",
            "no PSI processor for Python in this IDE",
        )
    });
    ide.on("/renamePreview", |_| {
        Reply::error(
            "UNSUPPORTED",
            "the refactoring engine refused the operation",
        )
    });

    let def = env.ok(&root, DEFINITION);
    assert_eq!(def["backing"], "pylsp", "{def}");
    assert_eq!(spots(&def), ["geo.py 2:4"]);
    assert!(fallback(&def).contains("UNSUPPORTED_LANGUAGE"), "{def}");

    let preview = env.ok(
        &root,
        &[
            "refactor",
            "rename",
            "main.py:3:26",
            "--new-name",
            "area",
            "--preview",
        ],
    );
    assert_eq!(preview["backing"], "pylsp", "{preview}");
    assert!(preview["total"].as_u64().unwrap() >= 3, "{preview}");
    assert!(fallback(&preview).contains("UNSUPPORTED"), "{preview}");
    assert_eq!(ide.bodies("/definition").len(), 1);
    assert_eq!(ide.bodies("/renamePreview").len(), 1);
    ide.assert_clean();
}

#[test]
fn a_window_that_hangs_is_left_after_one_timeout() {
    let (env, root) = world();
    let ide = PluginDouble::start(&env, &root);
    // Its /health still answers at once, as an IDE busy in a long write action does.
    ide.on("/definition", |_| Reply::Hang);

    // The call that meets the hang falls through once the timeout passes.
    let started = Instant::now();
    let first = env.ok(&root, DEFINITION);
    let first_took = started.elapsed();
    assert_eq!(first["backing"], "pylsp", "{first}");
    assert!(
        first_took >= IDE_TIMEOUT && fallback(&first).contains("jetbrains"),
        "{first_took:?}: {first}"
    );

    // Not asked again (its requests are counted below), so not waited for.
    let second = env.ok(&root, DEFINITION);
    assert_eq!(second["backing"], "pylsp", "{second}");
    assert_eq!(spots(&second), ["geo.py 2:4"]);
    assert_eq!(
        ide.bodies("/definition").len(),
        1,
        "the hung window was asked again"
    );
    ide.assert_clean();
}
