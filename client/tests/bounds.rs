//! What `lean-ctx daemon status` says about bounded watching: a root the daemon
//! cannot watch (its inotify watch limit, lowered for that daemon alone in a user
//! namespace of its own) is shown as such, in the human table and in `--json`; and
//! memory bounded per request: concurrent reads of a large file do not multiply it.

use std::{fs, io::Write};

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

/// The daemon's peak resident memory (`VmHWM`), in MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    kib / 1024
}

/// Eight concurrent windows of a 250 MB file: each read streams the file and holds
/// only its window; the call's gain baseline is counted from the disk a piece at a
/// time (in the background: the bound leaves it room). Before, the daemon peaked at
/// 2.3 GB (a copy of the file per read and another per gain baseline).
#[test]
fn eight_concurrent_windows_of_a_250_mb_file_hold_only_their_windows() {
    let env = TestEnv::with_shim(SHIM);
    let root = fs::canonicalize(env.dir()).unwrap().join("proj");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    let mut big = std::io::BufWriter::new(fs::File::create(root.join("big.txt")).unwrap());
    let line = format!("{}\n", "x".repeat(99));
    for _ in 0..(250 << 20) / 100 {
        big.write_all(line.as_bytes()).unwrap();
    }
    big.into_inner().unwrap().sync_all().unwrap();
    env.ok(&root, &["tree"]);
    let pid = env.daemons()[0];
    let before = peak_mib(pid);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let v = env.ok(
                    &root,
                    &[
                        "read",
                        "big.txt",
                        "--mode",
                        "lines",
                        "--start-line",
                        "5",
                        "--end-line",
                        "6",
                    ],
                );
                assert_eq!(v["files"][0]["total_lines"], 2_621_440, "{v}");
            });
        }
    });
    let peak = peak_mib(pid);
    assert!(
        peak < before + 600,
        "eight reads of a 250 MB file took the daemon from {before} MiB to {peak} MiB"
    );
    // The whole file is answered a page at a time, holding only the page.
    let page = env.ok(&root, &["read", "big.txt"]);
    let lines = &page["files"][0]["content"]["Lines"];
    assert_eq!(lines["start_line"], 1, "{page}");
    assert_eq!(
        lines["more"],
        lines["end_line"].as_u64().unwrap() + 1,
        "{page}"
    );
    let after = peak_mib(pid);
    assert!(
        after < before + 600,
        "a paged whole read took the daemon from {before} MiB to {after} MiB"
    );
}
