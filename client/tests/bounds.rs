//! What `lean-ctx daemon status` says about bounded watching: a root the daemon
//! cannot watch (its inotify watch limit, lowered for that daemon alone in a user
//! namespace of its own) is shown as such, in the human table and in `--json`.

use std::fs;

use lean_ctx_testkit::TestEnv;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

#[test]
fn daemon_status_shows_a_root_that_cannot_be_watched() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config("[index]\nrescan_interval = \"1s\"\n");
    // Two watches for the whole daemon: its directories past those are unwatched.
    let _daemon = env.start_foreground_with_inotify_limits(2, 128);
    let root = fs::canonicalize(env.dir()).unwrap().join("proj");
    for dir in ["a", "b", "c"] {
        fs::create_dir_all(root.join(dir)).unwrap();
        fs::write(root.join(dir).join("m.rs"), format!("fn in_{dir}() {{}}\n")).unwrap();
    }
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    env.ok(&root, &["search", "in_c"]);

    let rows = env.status_rows(&root, "projects");
    let unwatched = rows[0]["index"]["unwatched"].as_str().unwrap_or_else(|| {
        panic!("not shown as unwatched: {}", rows[0]);
    });
    assert!(unwatched.contains("No space left on device"), "{unwatched}");
    assert_eq!(rows[0]["index"]["rescan_interval_ms"], 1000);

    let human = env
        .shim()
        .current_dir(&root)
        .args(["daemon", "status"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("WATCHED"), "{text}");
    assert!(text.contains("NO, rescanned every 1s ("), "{text}");
}
