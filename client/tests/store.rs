//! The persisted index (issue 20) against the real daemon: a restarted daemon answers
//! from the store and re-parses only what changed; a store of another build, a torn
//! or bit-flipped one and one that lies are never served; a kill -9 during a write
//! loses at most the batch in flight; a full disk leaves the store whole and the
//! daemon serving; `daemon clear-cache` removes it with or without a daemon; a
//! starting daemon prewarms the roots last called for.
//!
//! The tests read the store file themselves (the layout in `daemon/src/index/store/persist.rs`:
//! a 76-byte header, then `[len u32][kind u8][body][mac 16]` records sealed with the
//! keyed BLAKE3 of `index.key`) to damage it the way a disk or a bug would.

use std::{
    collections::BTreeMap,
    fs,
    os::unix::ffi::OsStrExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

use lean_ctx_shared::index_store;
use lean_ctx_testkit::{TestEnv, git, wait_until};
use serde_json::Value;

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");
const HEADER: usize = 76;
const MAC: usize = 16;
const K_SYMBOLS: u8 = 3;

/// A git repository `proj` holding `files`, committed.
fn project(files: &[(&str, String)]) -> (TestEnv, PathBuf) {
    let env = TestEnv::with_shim(SHIM);
    let root = env.dir().join("proj");
    for (path, text) in files {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "files"]);
    (env, fs::canonicalize(root).unwrap())
}

/// `n` files `src/m{i}.rs`, each with a function `f{i}` and a struct `S{i}`.
fn small_files(n: usize) -> (TestEnv, PathBuf) {
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            (
                format!("src/m{i}.rs"),
                format!("fn f{i}() {{}}\nstruct S{i};\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    project(&refs)
}

fn three() -> Vec<(&'static str, String)> {
    vec![
        ("src/a.rs", "fn alpha() {}\nstruct Apple;\n".into()),
        ("src/b.rs", "fn beta() {}\nenum Banana { B }\n".into()),
        ("src/c.py", "def gamma():\n    pass\n".into()),
    ]
}

fn ok(env: &TestEnv, cwd: &Path, args: &[&str]) -> Value {
    let (out, v) = env.shim_json_in(cwd, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {v}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

/// Every file's top-level symbol names, by `outline` of the whole root.
fn names(env: &TestEnv, root: &Path) -> BTreeMap<String, Vec<String>> {
    let v = ok(env, root, &["outline", "."]);
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let names = f["symbols"].as_array().unwrap().iter();
            (
                f["path"].as_str().unwrap().to_string(),
                names
                    .map(|s| s["name"].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn status(env: &TestEnv) -> Value {
    ok(env, env.dir(), &["daemon", "status"])
}

fn store_of(st: &Value) -> &Value {
    &st["store"]
}

/// The root's own cache counters: (symbols cached, symbols parsed).
fn symbol_counts(st: &Value, root: &Path) -> (u64, u64) {
    cache_counts(st, root, "symbol_cache")
}

/// The root's own counters of cache `cache`: (hits, misses).
fn cache_counts(st: &Value, root: &Path, cache: &str) -> (u64, u64) {
    let p = st["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["root"].as_str() == root.to_str())
        .expect("the root's row");
    let c = &p["index"][cache];
    (c["hits"].as_u64().unwrap(), c["misses"].as_u64().unwrap())
}

fn stop(env: &TestEnv) {
    daemon(env, "stop");
}

fn start(env: &TestEnv) {
    daemon(env, "start");
}

/// `lean-ctx daemon <step>`, which must succeed.
fn daemon(env: &TestEnv, step: &str) {
    let out = env.shim().args(["daemon", step]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// This build's store: the one directory in the index dir (one per running build),
/// once a daemon made it.
fn store_dir(env: &TestEnv) -> PathBuf {
    let index = env.paths.index_store_dir();
    store_dir_if_any(env).unwrap_or_else(|| panic!("no build's store in {}", index.display()))
}

fn store_dir_if_any(env: &TestEnv) -> Option<PathBuf> {
    let builds: Vec<PathBuf> = fs::read_dir(env.paths.index_store_dir())
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(index_store::is_build_dir)
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(builds.len() <= 1, "more than one build's store: {builds:?}");
    builds.into_iter().next()
}

fn key(env: &TestEnv) -> [u8; 32] {
    fs::read(store_dir(env).join("index.key"))
        .unwrap()
        .try_into()
        .unwrap()
}

/// One record of the store: where it starts and what it holds.
#[derive(Clone, Debug)]
struct Record {
    off: usize,
    kind: u8,
    body: Vec<u8>,
}

/// The store's records that verify under `key`, in order, and whether the file ends
/// exactly after the last of them (no torn or unverifiable tail).
fn records(bytes: &[u8], key: &[u8; 32]) -> (Vec<Record>, bool) {
    let mut out = Vec::new();
    let mut at = HEADER;
    while at + 4 <= bytes.len() {
        let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let end = at + 4 + n + MAC;
        if n == 0 || end > bytes.len() {
            break;
        }
        let sealed = &bytes[at + 4..at + 4 + n];
        if blake3::keyed_hash(key, sealed).as_bytes()[..MAC] != bytes[at + 4 + n..end] {
            break;
        }
        out.push(Record {
            off: at,
            kind: sealed[0],
            body: sealed[1..].to_vec(),
        });
        at = end;
    }
    (out, at == bytes.len())
}

fn seal(key: &[u8; 32], kind: u8, body: &[u8]) -> Vec<u8> {
    let mut sealed = vec![kind];
    sealed.extend_from_slice(body);
    let mut out = (sealed.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(&sealed);
    out.extend_from_slice(&blake3::keyed_hash(key, &sealed).as_bytes()[..MAC]);
    out
}

fn store_bytes(env: &TestEnv) -> Vec<u8> {
    fs::read(store_dir(env).join("index.store")).unwrap()
}

#[test]
fn a_restarted_daemon_answers_from_the_store_and_parses_only_what_changed() {
    let (env, root) = project(&three());
    let first = names(&env, &root);
    assert_eq!(first["src/a.rs"], ["alpha", "Apple"]);
    stop(&env);
    // Changed while no daemon ran, a while ago: a file changed within the last 2 s
    // is read again at every look until then (its identity is not settled), which
    // would count its parse once more here.
    fs::write(root.join("src/b.rs"), "fn bravo() {}\n").unwrap();
    std::thread::sleep(Duration::from_millis(2100));

    let again = names(&env, &root);
    assert_eq!(again["src/a.rs"], first["src/a.rs"]);
    assert_eq!(again["src/c.py"], first["src/c.py"]);
    assert_eq!(again["src/b.rs"], ["bravo"]);
    let st = status(&env);
    assert_eq!(
        symbol_counts(&st, &root),
        (2, 1),
        "two parses from disk, one file parsed: {st}"
    );
    assert_eq!(store_of(&st)["hits"], 2, "{st}");
    assert!(store_of(&st)["note"].is_null(), "{st}");
    let mode = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&store_dir(&env)), 0o700);
    assert_eq!(mode(&store_dir(&env).join("index.store")), 0o600);
    assert_eq!(mode(&store_dir(&env).join("index.key")), 0o600);
}

/// The text index outlives the daemon: kept when it stops, restored when the next
/// one starts, so the first search after a restart reads only the files it cannot
/// rule out (as a warm daemon's does) and still sees what changed meanwhile;
/// `clear-cache` takes the snapshot with the rest. A daemon killed before it kept
/// one reads every file (slower, never wrong).
#[test]
fn a_restarted_daemon_searches_from_the_kept_text_index() {
    let (env, root) = small_files(300);
    let search = |pattern: &str| ok(&env, &root, &["search", "--text", pattern]);
    let v = search("f17()");
    assert_eq!(
        (v["total"].as_u64(), v["searched"]["read"].as_u64()),
        (Some(1), Some(1)),
        "{v}"
    );
    stop(&env);
    let snapshot = store_dir(&env).join(index_store::TEXT);
    assert!(snapshot.exists(), "not kept at stop");
    fs::write(root.join("src/m5.rs"), "fn changed_meanwhile() {}\n").unwrap();

    let v = search("f17()");
    assert_eq!(
        (v["total"].as_u64(), v["searched"]["read"].as_u64()),
        (Some(1), Some(1)),
        "{v}"
    );
    assert!(v["searched"]["files"].as_u64() >= Some(300), "{v}");
    let v = search("changed_meanwhile");
    assert_eq!(
        (v["total"].as_u64(), v["searched"]["read"].as_u64()),
        (Some(1), Some(1)),
        "{v}"
    );
    let st = status(&env);
    let text = st["caches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "text_index")
        .cloned()
        .unwrap();
    assert!(text["entries"].as_u64() >= Some(300), "{st}");
    assert!(text["hits"].as_u64() >= Some(598), "files ruled out: {st}");

    // Killed: what it learned since is not kept, the snapshot before stays true.
    env.kill9(env.daemon_pid().unwrap());
    assert!(snapshot.exists());
    let v = search("changed_meanwhile");
    assert_eq!(v["total"], 1, "{v}");
    ok(&env, env.dir(), &["daemon", "clear-cache"]);
    assert!(!snapshot.exists(), "clear-cache leaves it");
}

/// A restart whose text snapshot is gone (not kept: over its share of the cap; or
/// dropped) knows the unchanged files by identity and reads none of them: the text
/// index is filled in from them after the walk, so searches rule files out again.
#[test]
fn a_restart_without_the_text_snapshot_fills_the_text_index_in_again() {
    let (env, root) = small_files(300);
    let search = |pattern: &str| ok(&env, &root, &["search", "--text", pattern]);
    assert_eq!(search("f17()")["searched"]["read"], 1);
    stop(&env);
    let snapshot = store_dir(&env).join(index_store::TEXT);
    fs::remove_file(&snapshot).unwrap();

    let v = search("f17()");
    assert_eq!(v["total"], 1, "{v}");
    let filled = wait_until(Duration::from_secs(30), || {
        search("f17()")["searched"]["read"] == 1
    });
    assert!(filled, "{}", search("f17()"));
    assert!(env.log().contains("text index filled in"), "{}", env.log());
    // And kept again for the next start.
    assert!(wait_until(Duration::from_secs(30), || snapshot.exists()));
}

/// Sets the mtime of every directory under `root` (and its own, `.git` left alone)
/// to long ago, and with `files` every file's too: a directory changed within
/// seconds of a walk is listed again on the next start, whatever its identity
/// says, and git vouches for no file changed as late as its index (both racy
/// rules), so a test that wants a restart to trust a listing, or a walk to trust
/// git, makes the tree old first. (Aging a file changes its ctime: an aged ignore
/// file is a changed one.)
fn age_tree(root: &Path, files: bool) {
    let old = rustix::fs::Timespec {
        tv_sec: 1_600_000_000,
        tv_nsec: 0,
    };
    let times = rustix::fs::Timestamps {
        last_access: old,
        last_modification: old,
    };
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else if files {
                age(&entry.path(), &times);
            }
        }
        age(&dir, &times);
    }
}

fn age(path: &Path, times: &rustix::fs::Timestamps) {
    let nofollow = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
    rustix::fs::utimensat(rustix::fs::CWD, path, times, nofollow).unwrap();
}

/// Waits until the store holds listings of `roots` roots: a walk keeps its
/// listing after its answer, so a daemon stopped at once may not have written it yet.
fn wait_for_listings(env: &TestEnv, roots: usize) {
    let kept = wait_until(Duration::from_secs(30), || {
        store_dir_if_any(env).is_some_and(|d| {
            let listings = fs::read_dir(d).unwrap().flatten().filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("listing-") && !name.ends_with(".tmp")
            });
            listings.count() >= roots
        })
    });
    assert!(kept, "fewer than {roots} listings kept: {}", env.log());
}

/// How many times the daemon's log says a root was answered from its last walk's
/// listing.
fn warm_starts(env: &TestEnv) -> usize {
    env.log()
        .matches("how=\"from the last walk's listing\"")
        .count()
}

#[test]
fn a_restart_checks_the_last_walks_listing_and_sees_everything_that_changed_meanwhile() {
    let rs = |name: &str| format!("fn {name}() {{}}\n");
    let (env, root) = project(&[
        ("src/a.rs", rs("alpha")),
        ("src/sub/b.rs", rs("beta")),
        ("keep/e.rs", rs("echo")),
        ("gone/d.rs", rs("delta")),
        ("py/c.py", "def gamma():\n    pass\n".into()),
        ("deep/x/y/z.rs", rs("zulu")),
        ("ignored/i.rs", rs("india")),
        (".gitignore", "ignored/\n".into()),
    ]);
    let outside = env.dir().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("evil.py"), "def evil():\n    pass\n").unwrap();
    age_tree(&root, false);
    names(&env, &root);
    wait_for_listings(&env, 1);
    stop(&env);
    // Unchanged: a daemon answers from the listing, and answers the same.
    let truth = names(&env, &root);
    assert_eq!(warm_starts(&env), 1, "{}", env.log());
    assert_eq!(truth["deep/x/y/z.rs"], ["zulu"]);
    assert!(!truth.contains_key("ignored/i.rs"));
    stop(&env);

    // Changed while no daemon ran: a file added to a known directory, one removed,
    // one rewritten in place, a directory removed, a new subtree, a directory
    // swapped for a symlink leading outside, a nested repository made of one (whose
    // subdirectory `y` is unchanged: its files, entered where it was checked, leave
    // with the repository; no aging since the listing, which would change every
    // directory's ctime and so have them all listed again).
    fs::write(root.join("src/new.rs"), rs("november")).unwrap();
    fs::remove_file(root.join("keep/e.rs")).unwrap();
    fs::write(root.join("src/sub/b.rs"), rs("bravo")).unwrap();
    fs::remove_dir_all(root.join("gone")).unwrap();
    fs::create_dir_all(root.join("fresh/one")).unwrap();
    fs::write(root.join("fresh/one/f.rs"), rs("foxtrot")).unwrap();
    fs::remove_dir_all(root.join("py")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("py")).unwrap();
    git(&root.join("deep/x"), &["init", "-q"]);
    let again = names(&env, &root);
    assert_eq!(warm_starts(&env), 2, "{}", env.log());
    let mut expected = truth.clone();
    expected.insert("src/new.rs".into(), vec!["november".into()]);
    expected.remove("keep/e.rs");
    expected.insert("src/sub/b.rs".into(), vec!["bravo".into()]);
    expected.remove("gone/d.rs");
    expected.insert("fresh/one/f.rs".into(), vec!["foxtrot".into()]);
    expected.remove("py/c.py");
    expected.remove("deep/x/y/z.rs");
    assert_eq!(again, expected);
    stop(&env);
    // What a daemon with no store finds.
    ok(&env, env.dir(), &["daemon", "clear-cache"]);
    assert_eq!(names(&env, &root), expected);
    stop(&env);

    // An ignore file that changed: the rules may differ anywhere, so the root is
    // walked in full before the answer.
    let before = warm_starts(&env);
    fs::write(root.join(".gitignore"), "src/sub/\n").unwrap();
    let ignored = names(&env, &root);
    assert_eq!(warm_starts(&env), before, "{}", env.log());
    assert!(!ignored.contains_key("src/sub/b.rs"));
    assert_eq!(ignored["ignored/i.rs"], ["india"]);
}

/// The nice values of daemon `pid`'s threads named `name` (`/proc/PID/task/*/stat`:
/// the 19th field; the name may hold spaces, so fields are counted after its `)`).
fn nice_of_threads(pid: u64, name: &str) -> Vec<i64> {
    let mut nice = Vec::new();
    for task in fs::read_dir(format!("/proc/{pid}/task")).unwrap().flatten() {
        let comm = fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        let stat = fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let field = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(16));
        if let (true, Some(n)) = (comm.trim_end() == name, field) {
            nice.push(n.parse().unwrap());
        }
    }
    nice
}

/// Work that follows an answer runs at a lower priority than the calls: the walk
/// behind a restart's answer (and its rescans after it) and gain accounting. A first
/// index, which its caller waits for, does not.
#[test]
fn the_walk_behind_a_restarts_answer_and_gain_accounting_yield_to_calls() {
    let (env, root) = project(&three());
    age_tree(&root, false);
    names(&env, &root);
    wait_for_listings(&env, 1);
    let pid = status(&env)["pid"].as_u64().unwrap();
    let base = nice_of_threads(pid, "lean-ctxd")[0];
    // The root's index thread, and any walk it is running (its threads inherit the
    // name and the priority).
    let first = nice_of_threads(pid, "lean-ctx-index");
    assert!(
        !first.is_empty() && first.iter().all(|&n| n == base),
        "the first index's threads, niced: {first:?} {}",
        env.log()
    );
    let niced = |pid: u64, name: &str| {
        wait_until(Duration::from_secs(10), || {
            let nice = nice_of_threads(pid, name);
            !nice.is_empty() && nice.iter().all(|&n| n >= 10.max(base))
        })
    };
    assert!(
        niced(pid, "lean-ctx-gain"),
        "{:?}",
        nice_of_threads(pid, "lean-ctx-gain")
    );
    stop(&env);

    names(&env, &root);
    assert_eq!(warm_starts(&env), 1, "{}", env.log());
    let pid = status(&env)["pid"].as_u64().unwrap();
    assert!(
        niced(pid, "lean-ctx-index"),
        "{:?}",
        nice_of_threads(pid, "lean-ctx-index")
    );
}

#[test]
fn a_restart_reads_no_file_that_git_vouched_for_in_a_second_worktree_or_as_a_copy() {
    let twin = "fn same() {}\nstruct Twin;\n".to_string();
    let (env, root) = project(&[
        ("src/a.rs", twin.clone()),
        ("src/copy.rs", twin),
        ("src/b.rs", "fn beta() {}\n".into()),
    ]);
    let second = env.dir().join("second");
    git(&root, &["worktree", "add", "-q", second.to_str().unwrap()]);
    let second = fs::canonicalize(second).unwrap();
    // Old files, and indexes written after them: git vouches for every file.
    for tree in [&root, &second] {
        age_tree(tree, true);
        git(tree, &["update-index", "-q", "--refresh"]);
    }
    let truth = [names(&env, &root), names(&env, &second)];
    let st = status(&env);
    assert_eq!(
        cache_counts(&st, &second, "hash_cache"),
        (3, 0),
        "the second worktree's contents are known from git: {st}"
    );
    wait_for_listings(&env, 2);
    stop(&env);

    // A restart reads no git index: it knows each file by its identity, the copy
    // and the second worktree's files (whose contents git vouched for) included.
    assert_eq!([names(&env, &root), names(&env, &second)], truth);
    assert_eq!(warm_starts(&env), 2, "{}", env.log());
    let st = status(&env);
    for tree in [&root, &second] {
        assert_eq!(
            cache_counts(&st, tree, "hash_cache"),
            (3, 0),
            "{} read again at the restart: {st}",
            tree.display()
        );
    }
}

/// The root's row of `daemon status`: its index's symbol count.
fn indexed_symbols(st: &Value, root: &Path) -> u64 {
    let rows = st["projects"].as_array().unwrap();
    let row = rows.iter().find(|p| p["root"].as_str() == root.to_str());
    row.expect("the root's row")["index"]["symbols"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_restarted_daemon_lists_a_root_without_reading_its_parses_until_they_are_asked_for() {
    let (env, root) = small_files(100);
    let truth = names(&env, &root);
    let symbols = indexed_symbols(&status(&env), &root);
    assert_eq!(symbols, 200);
    stop(&env);

    // `tree` waits for the walk and asks for no symbol: the walk lists every file
    // from the store (its symbol count included) and reads none of their parses
    // but the few the walk's sample check compares with fresh parses.
    ok(&env, &root, &["tree", "."]);
    let st = status(&env);
    assert_eq!(symbol_counts(&st, &root), (100, 0), "{st}");
    assert_eq!(indexed_symbols(&st, &root), symbols, "{st}");
    let read = store_of(&st)["hits"].as_u64().unwrap();
    assert!(read <= 32, "{read} parses read to list the root: {st}");
    // Asked for: each read once, and the same symbols.
    assert_eq!(names(&env, &root), truth);
    assert_eq!(names(&env, &root), truth);
    assert_eq!(store_of(&status(&env))["hits"], 100);
}

/// The roots in the index dir's `recent-roots` (`daemon/src/index/store/recent.rs`: a
/// magic, then per root its last call in unix ms (u64), its path's length (u32) and
/// the path, most recent first, then a BLAKE3 of all that), or `None` if the file is
/// missing or does not check.
fn recent_roots(env: &TestEnv) -> Option<Vec<PathBuf>> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = fs::read(env.paths.index_store_dir().join("recent-roots")).ok()?;
    let (body, sum) = bytes.split_at(bytes.len().checked_sub(32)?);
    if blake3::hash(body).as_bytes() != sum {
        return None;
    }
    let mut rest = body.strip_prefix(b"LCTXRCT1")?;
    let mut roots = Vec::new();
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest[8..12].try_into().unwrap()) as usize;
        roots.push(PathBuf::from(std::ffi::OsStr::from_bytes(
            &rest[12..12 + len],
        )));
        rest = &rest[12 + len..];
    }
    Some(roots)
}

fn set_prewarm(env: &TestEnv, roots: usize) {
    fs::create_dir_all(&env.paths.config_dir).unwrap();
    fs::write(
        env.paths.config_file(),
        format!("[index]\nprewarm_roots = {roots}\n"),
    )
    .unwrap();
}

/// The roots the daemon has registered, each with whether its index is ready and
/// how many calls it got.
fn projects(env: &TestEnv) -> Vec<(PathBuf, bool, u64)> {
    let st = status(env);
    st["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                PathBuf::from(p["root"].as_str().unwrap()),
                p["backings"][0]["state"] == "ready",
                p["calls"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// How many times the daemon's log says it started the root its spawning shim
/// named before that shim's call.
fn early_starts(env: &TestEnv) -> usize {
    env.log()
        .matches("starting the spawning shim's root")
        .count()
}

/// An auto-spawned daemon starts the root its shim is about to call for (written on
/// the daemon's stdin) as soon as the store is loaded, so the check runs while the
/// shim connects; only a root with a listing, as a prewarm (off here).
#[test]
fn an_auto_spawned_daemon_starts_its_shims_root_before_the_call() {
    let (env, root) = project(&three());
    set_prewarm(&env, 0);
    age_tree(&root, false);
    // No listing yet: a first index is left to the call.
    let truth = names(&env, &root);
    assert_eq!(early_starts(&env), 0, "{}", env.log());
    wait_for_listings(&env, 1);
    stop(&env);
    assert_eq!(names(&env, &root), truth);
    assert_eq!(
        (early_starts(&env), warm_starts(&env)),
        (1, 1),
        "{}",
        env.log()
    );
    stop(&env);
    // `daemon start` names no root; a call from a directory without a listing
    // starts nothing before it.
    start(&env);
    stop(&env);
    let elsewhere = env.dir().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("e.rs"), "fn e() {}\n").unwrap();
    names(&env, &fs::canonicalize(&elsewhere).unwrap());
    assert_eq!(early_starts(&env), 1, "{}", env.log());
    stop(&env);

    // Whatever a spawner writes there: the listed root itself is started with no
    // call at all; once swapped for a symlink (to where it moved), it is not.
    let mut daemon = spawn_naming(&env, root.as_os_str().as_bytes());
    let started = wait_until(Duration::from_secs(10), || {
        projects(&env).iter().any(|(r, _, _)| *r == root)
    });
    assert!(started, "{:?} {}", projects(&env), env.log());
    stop(&env);
    daemon.wait().unwrap();
    let moved = env.dir().join("moved");
    fs::rename(&root, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &root).unwrap();
    let mut daemon = spawn_naming(&env, root.as_os_str().as_bytes());
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(projects(&env), [], "{}", env.log());
    assert_eq!(early_starts(&env), 2, "{}", env.log());
    stop(&env);
    daemon.wait().unwrap();
}

/// Starts `lean-ctxd --auto-spawned` as a shim would, with `root` on its stdin, and
/// waits for its `READY`; the caller waits for it after stopping it.
fn spawn_naming(env: &TestEnv, root: &[u8]) -> std::process::Child {
    use std::io::{BufRead, Write};
    let mut daemon = env
        .daemon()
        .arg("--auto-spawned")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    daemon.stdin.take().unwrap().write_all(root).unwrap();
    let mut line = String::new();
    std::io::BufReader::new(daemon.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("READY "), "{line}");
    daemon
}

#[test]
fn a_starting_daemon_prewarms_the_roots_last_called_for_most_recent_first() {
    let (env, a) = project(&three());
    let other = |name: &str| {
        let root = env.dir().join(name);
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/lib.rs"), format!("fn in_{name}() {{}}\n")).unwrap();
        fs::canonicalize(root).unwrap()
    };
    let (b, c) = (other("b"), other("c"));
    set_prewarm(&env, 2);
    for root in [&a, &b, &c] {
        names(&env, root);
    }
    // Stopping drains the store's writer: the file names all three.
    stop(&env);
    assert_eq!(
        recent_roots(&env),
        Some(vec![c.clone(), b.clone(), a.clone()])
    );
    // Now a symlink to a directory nobody called for: skipped (not followed), and
    // the next one prewarmed in its place.
    fs::remove_dir_all(&c).unwrap();
    let elsewhere = env.dir().join("elsewhere");
    fs::create_dir_all(elsewhere.join("src")).unwrap();
    fs::write(elsewhere.join("src/lib.rs"), "fn elsewhere() {}\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, &c).unwrap();
    // Changed while no daemon ran: the prewarm's check finds it.
    fs::write(b.join("src/lib.rs"), "fn changed() {}\n").unwrap();

    start(&env);
    let warmed = wait_until(Duration::from_secs(30), || {
        let rows = projects(&env);
        rows.len() == 2 && rows.iter().all(|(_, ready, _)| *ready)
    });
    assert!(warmed, "{:?}\n{}", projects(&env), env.log());
    let rows = projects(&env);
    let roots: Vec<&PathBuf> = rows.iter().map(|(r, ..)| r).collect();
    assert_eq!(roots, [&b, &a], "sorted by root");
    assert!(rows.iter().all(|(.., calls)| *calls == 0), "{rows:?}");
    let log = env.log();
    let at = |root: &Path| log.find(&format!("prewarming root={} ", root.display()));
    assert!(
        at(&b).unwrap() < at(&a).unwrap(),
        "most recent first: {log}"
    );
    assert_eq!(
        log.matches("how=\"from the last walk's listing\"").count(),
        2,
        "both checked against their listings: {log}"
    );
    assert_eq!(names(&env, &b)["src/lib.rs"], ["changed"]);
    stop(&env);
}

#[test]
fn no_root_is_prewarmed_when_turned_off_unlisted_or_when_the_recent_roots_are_damaged() {
    let (env, root) = project(&three());
    names(&env, &root);
    stop(&env);
    assert_eq!(recent_roots(&env), Some(vec![root.clone()]));
    let file = env.paths.index_store_dir().join("recent-roots");
    let mut bytes = fs::read(&file).unwrap();
    bytes[12] ^= 0x01;
    fs::write(&file, &bytes).unwrap();
    // What a prewarm would have done by now: the control below shows it.
    let idle_a_while = |env: &TestEnv| {
        start(env);
        std::thread::sleep(Duration::from_millis(1500));
        let rows = projects(env);
        stop(env);
        rows
    };
    assert_eq!(idle_a_while(&env), [], "a damaged file: {}", env.log());
    // The next call writes it whole again.
    names(&env, &root);
    stop(&env);
    assert_eq!(recent_roots(&env), Some(vec![root.clone()]));
    // A whole file behind a symlink is not read either.
    let aside = env.dir().join("recent-roots-aside");
    fs::rename(&file, &aside).unwrap();
    std::os::unix::fs::symlink(&aside, &file).unwrap();
    assert_eq!(idle_a_while(&env), [], "through a symlink: {}", env.log());
    fs::remove_file(&file).unwrap();
    fs::rename(&aside, &file).unwrap();
    // Whole, but writable by others, or another user's: not ours alone.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).unwrap();
    assert_eq!(idle_a_while(&env), [], "writable by others: {}", env.log());
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    // Only root may give a file away (CI runs as root here).
    if rustix::process::geteuid().is_root() {
        let nobody = rustix::process::Uid::from_raw(65534);
        rustix::fs::chown(&file, Some(nobody), None).unwrap();
        assert_eq!(idle_a_while(&env), [], "another user's: {}", env.log());
        rustix::fs::chown(&file, Some(rustix::process::geteuid()), None).unwrap();
    }
    set_prewarm(&env, 0);
    assert_eq!(idle_a_while(&env), [], "turned off");
    set_prewarm(&env, 4);
    // No listing of the root's last walk (a new build's store, a clear): a prewarm
    // would be a whole first index, left to the first call.
    let listings: Vec<PathBuf> = fs::read_dir(store_dir(&env))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("listing-"))
        .map(|e| e.path())
        .collect();
    assert!(!listings.is_empty());
    let kept: Vec<Vec<u8>> = listings.iter().map(|p| fs::read(p).unwrap()).collect();
    for path in &listings {
        fs::remove_file(path).unwrap();
    }
    assert_eq!(idle_a_while(&env), [], "no listing: {}", env.log());
    for (path, bytes) in listings.iter().zip(&kept) {
        fs::write(path, bytes).unwrap();
    }
    // The control: the listing back, the same start prewarms the root.
    start(&env);
    let warmed = wait_until(Duration::from_secs(30), || {
        projects(&env) == [(root.clone(), true, 0)]
    });
    assert!(warmed, "{:?}\n{}", projects(&env), env.log());
    stop(&env);
}

#[test]
fn a_store_written_by_another_build_is_rebuilt_and_never_served() {
    let (env, root) = project(&three());
    let truth = names(&env, &root);
    stop(&env);
    // What another build leaves: a well-sealed header carrying another tag.
    let key = key(&env);
    let mut bytes = store_bytes(&env);
    bytes[12..44].copy_from_slice(&[0x5a; 32]);
    let mac = *blake3::keyed_hash(&key, &bytes[..44]).as_bytes();
    bytes[44..76].copy_from_slice(&mac);
    fs::write(store_dir(&env).join("index.store"), &bytes).unwrap();

    assert_eq!(names(&env, &root), truth);
    let st = status(&env);
    assert_eq!(store_of(&st)["hits"], 0, "{st}");
    assert_eq!(symbol_counts(&st, &root), (0, 3), "{st}");
    let note = store_of(&st)["note"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(note.contains("another build"), "{st}");
    assert_ne!(self::key(&env), key, "a rebuilt store has a new key");
}

#[test]
fn a_torn_or_bit_flipped_store_is_cut_at_the_damage_and_never_served() {
    let (env, root) = project(&three());
    let truth = names(&env, &root);
    stop(&env);
    let key = key(&env);
    let bytes = store_bytes(&env);
    let (recs, whole) = records(&bytes, &key);
    assert!(whole);
    let syms: Vec<&Record> = recs.iter().filter(|r| r.kind == K_SYMBOLS).collect();
    assert_eq!(syms.len(), 3);
    // One bit of the second parse's symbols flipped: reading it finds the seal
    // broken and discards the store; only the first parse may have been served (if
    // it was read first).
    let mut flipped = bytes.clone();
    flipped[syms[1].off + 4 + 1 + 40] ^= 0x10;
    fs::write(store_dir(&env).join("index.store"), &flipped).unwrap();
    assert_eq!(names(&env, &root), truth);
    let st = status(&env);
    assert!(store_of(&st)["hits"].as_u64().unwrap() <= 1, "{st}");
    let note = store_of(&st)["note"].as_str().unwrap().to_string();
    assert!(note.contains("no longer verifies"), "{st}");
    stop(&env);
    // A flipped bit in a small record (a hash, a blob) is caught by the load: the
    // file is cut there.
    let key = self::key(&env);
    let bytes = store_bytes(&env);
    let (recs, whole) = records(&bytes, &key);
    assert!(whole);
    let small = recs.iter().find(|r| r.kind != K_SYMBOLS).unwrap();
    let mut flipped = bytes.clone();
    flipped[small.off + 4 + 1 + 3] ^= 0x10;
    fs::write(store_dir(&env).join("index.store"), &flipped).unwrap();
    assert_eq!(names(&env, &root), truth);
    let st = status(&env);
    let note = store_of(&st)["note"].as_str().unwrap().to_string();
    assert!(note.contains("does not verify"), "{st}");
    stop(&env);

    // Torn: the file ends in the middle of its last record.
    let bytes = store_bytes(&env);
    let (recs, whole) = records(&bytes, &key);
    assert!(whole, "the cut store was rewritten whole");
    let last = recs.last().unwrap();
    fs::write(store_dir(&env).join("index.store"), &bytes[..last.off + 7]).unwrap();
    assert_eq!(names(&env, &root), truth);
    let st = status(&env);
    assert!(
        store_of(&st)["note"]
            .as_str()
            .unwrap()
            .contains("does not verify"),
        "{st}"
    );
}

#[test]
fn a_store_that_lies_is_found_out_by_a_fresh_parse_and_discarded() {
    let (env, root) = project(&three());
    let truth = names(&env, &root);
    stop(&env);
    // Well formed and correctly sealed, but each Rust file's content hash now names
    // the other file's symbols: no checksum can tell.
    let key = key(&env);
    let bytes = store_bytes(&env);
    let (recs, _) = records(&bytes, &key);
    let rust: Vec<&Record> = recs
        .iter()
        .filter(|r| r.kind == K_SYMBOLS && r.body[0] == 0)
        .collect();
    assert_eq!(rust.len(), 2);
    let mut lying = bytes[..HEADER].to_vec();
    for r in &recs {
        let mut body = r.body.clone();
        if r.kind == K_SYMBOLS && r.body[0] == 0 {
            let other = if r.off == rust[0].off {
                rust[1]
            } else {
                rust[0]
            };
            body[1..33].copy_from_slice(&other.body[1..33]);
        }
        lying.extend(seal(&key, r.kind, &body));
    }
    fs::write(store_dir(&env).join("index.store"), &lying).unwrap();

    // The lie may be served until the walk's sample check; then never again.
    let settled = wait_until(Duration::from_secs(60), || names(&env, &root) == truth);
    assert!(settled, "{}", env.log());
    assert!(env.log().contains("contradicts"), "{}", env.log());
    let st = status(&env);
    assert!(
        store_of(&st)["note"]
            .as_str()
            .unwrap()
            .contains("contradicts"),
        "{st}"
    );
    // The writer starts the new store once the walks it waits for are done (at most
    // 5 s each).
    let rekeyed = wait_until(Duration::from_secs(30), || {
        store_dir_if_any(&env)
            .and_then(|d| fs::read(d.join("index.key")).ok())
            .is_some_and(|now| now != key)
    });
    assert!(rekeyed, "the discarded store's key is gone: {}", env.log());
    // What the new store learned is the truth: a restart serves it.
    stop(&env);
    assert_eq!(names(&env, &root), truth);
    assert_eq!(store_of(&status(&env))["hits"], 3);
}

/// Many files with many symbols, so the writer's batches take a while to write.
/// The files of [`big_project`], each a distinct content: one parse record each.
const FILES: usize = 300;

fn big_project() -> (TestEnv, PathBuf) {
    let files: Vec<(String, String)> = (0..FILES)
        .map(|f| {
            let body: String = (0..150)
                .map(|i| {
                    format!(
                        "pub fn function_{f}_{i}_{}(x: u32) -> u32 {{ x }}\n",
                        "n".repeat(40)
                    )
                })
                .collect();
            (format!("src/m{f}.rs"), body)
        })
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    project(&refs)
}

/// Counts in the daemon's last "loaded" log line: (symbols, hashes, blobs).
fn loaded(log: &str) -> Option<(usize, usize, usize)> {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains(" loaded ") || l.ends_with(" loaded"))?;
    let field = |name: &str| -> Option<usize> {
        let at = line.find(&format!("{name}="))? + name.len() + 1;
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some((field("symbols")?, field("hashes")?, field("blobs")?))
}

#[test]
fn kill_9_during_a_write_loses_at_most_the_batch_in_flight() {
    let (env, root) = big_project();
    let (mut torn, mut mid_write) = (0, 0);
    for round in 0..20 {
        let _ = fs::remove_dir_all(env.paths.index_store_dir());
        // Auto-spawned by the outline, which waits for the whole index.
        let mut outline = env.shim();
        outline
            .current_dir(&root)
            .args(["outline", "src/m0.rs"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = outline.spawn().unwrap();
        // Kill the moment the file is seen growing past a threshold (a batch of
        // megabytes is being copied in, page by page): mid-write, often.
        let threshold = 256 * 1024 * (1 + round % 4) as u64;
        let mut pid = None;
        let started = wait_until(Duration::from_secs(30), || {
            pid = env.daemon_pid();
            pid.is_some()
        });
        assert!(started, "no daemon: {}", env.log());
        let pid = pid.unwrap();
        let target = rustix::process::Pid::from_raw(pid as i32).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let mut last = 0;
        // The build's directory is looked up until it exists, then only its file's
        // size is polled: a tight loop is what lands a kill mid-write.
        let mut file = None;
        let path = loop {
            if file.is_none() {
                file = store_dir_if_any(&env).map(|d| d.join("index.store"));
            }
            let size = file
                .as_ref()
                .and_then(|f| fs::metadata(f).ok())
                .map_or(0, |m| m.len());
            if size > threshold && last > 0 && size != last {
                // The shim first: seeing its daemon die mid-call it would spawn
                // another, whose writes would land in the file read below.
                let _ = child.kill();
                let _ = rustix::process::kill_process(target, rustix::process::Signal::KILL);
                break file.expect("a store file has a size");
            }
            last = size;
            assert!(
                std::time::Instant::now() < deadline,
                "the store never grew: {}",
                env.log()
            );
        };
        env.kill9(pid);
        let _ = child.wait();
        assert_eq!(
            env.daemons(),
            Vec::<u32>::new(),
            "round {round}: a daemon was spawned again"
        );
        let bytes = fs::read(&path).unwrap();
        let key = key(&env);
        let (recs, whole) = records(&bytes, &key);
        if !whole {
            torn += 1;
        }
        let count = |k: u8| recs.iter().filter(|r| r.kind == k).count();
        // Each key is written once, so records and loaded entries agree.
        let expected = (count(K_SYMBOLS), count(1), count(2));
        // Inside the writing: a run cut short, or some of the files' parses written
        // and not all (the rest were in flight or still to come).
        if !whole || (1..FILES).contains(&count(K_SYMBOLS)) {
            mid_write += 1;
        }
        eprintln!("round {round}: whole {whole}, {expected:?}");

        // The next daemon keeps every whole record and drops only the torn tail.
        let mut outline = env.shim();
        outline
            .current_dir(&root)
            .args(["--json", "outline", "src/m7.rs"]);
        let out = outline.output().unwrap();
        assert!(
            out.status.success(),
            "round {round}: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            env.log()
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["files"][0]["symbols"].as_array().unwrap().len(), 150);
        assert_eq!(
            loaded(&env.log()),
            Some(expected),
            "round {round}: {}",
            env.log()
        );
        stop(&env);
        if mid_write == 3 {
            break;
        }
    }
    // A run is one 64 KiB write: a kill seldom tears one (`torn` counts those), and
    // the torn tail's truncation is made deterministically by
    // `a_torn_or_bit_flipped_store_is_cut_at_the_damage_and_never_served`. What
    // this test needs is kills inside the writing of the index's records, between
    // its runs, where the next daemon must keep exactly the whole ones.
    eprintln!("{torn} of the rounds tore a run");
    assert_eq!(
        mid_write, 3,
        "too few kills landed while the store was written"
    );
}

/// A tmpfs of `size` mounted at `dir` for the life of the guard (as root; lazily
/// unmounted on drop, even after a failed assertion).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mounting a tmpfs needs root (the suite runs this test as root): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs(dir.to_path_buf())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_leaves_the_store_whole_and_the_daemon_serving_from_memory() {
    let (env, root) = big_project();
    let _disk = Tmpfs::mount(&env.paths.index_store_dir(), "256k");
    let outline = ok(&env, &root, &["outline", "src"]);
    assert!(!outline["files"].as_array().unwrap().is_empty());
    let full = wait_until(Duration::from_secs(60), || {
        store_of(&status(&env))["note"]
            .as_str()
            .is_some_and(|n| n.contains("cannot write"))
    });
    assert!(full, "{}", status(&env));
    assert!(env.log().contains("WARN"), "{}", env.log());
    // Still answering, from memory.
    let one = ok(&env, &root, &["outline", "src/m299.rs"]);
    assert_eq!(one["files"][0]["symbols"].as_array().unwrap().len(), 150);
    // The file on the full disk is whole records only.
    assert!(store_dir(&env).join("index.store").exists());
    stop(&env);
    let (recs, whole) = records(&store_bytes(&env), &key(&env));
    assert!(whole, "a torn tail left on the full disk");
    assert!(!recs.is_empty());
    // A daemon started on it serves what fitted.
    names(&env, &root);
    let st = status(&env);
    assert!(store_of(&st)["hits"].as_u64().unwrap() > 0, "{st}");
}

#[test]
fn clear_cache_removes_the_store_with_or_without_a_daemon() {
    let (env, root) = project(&three());
    let truth = names(&env, &root);
    // The writer done with the first index (its entries no longer change), so
    // nothing refills the store between the clear and the checks below.
    let mut last = None;
    let settled = wait_until(Duration::from_secs(30), || {
        let n = store_of(&status(&env))["entries"].as_u64().unwrap();
        let same = n > 0 && last == Some(n);
        last = Some(n);
        same
    });
    assert!(settled, "{}", status(&env));
    // With a daemon: it notices and starts a new, empty store.
    let v = ok(&env, env.dir(), &["daemon", "clear-cache"]);
    assert!(v["freed_bytes"].as_u64().unwrap() > 0, "{v}");
    let store_file = || store_dir_if_any(&env).is_some_and(|d| d.join("index.store").exists());
    assert!(!store_file());
    // Its status notices at once; its writer starts the new file.
    let st = status(&env);
    assert_eq!(store_of(&st)["entries"], 0, "{st}");
    let new = wait_until(Duration::from_secs(30), store_file);
    assert!(new, "no new store: {}", env.log());
    fs::write(root.join("src/a.rs"), "fn alpha2() {}\n").unwrap();
    let a = ok(&env, &root, &["outline", "src/a.rs"]);
    assert_eq!(a["files"][0]["symbols"][0]["name"], "alpha2");
    stop(&env);
    // Without one.
    ok(&env, env.dir(), &["daemon", "clear-cache"]);
    assert_eq!(store_dir_if_any(&env), None);
    assert_eq!(names(&env, &root)["src/b.rs"], truth["src/b.rs"]);
    assert_eq!(store_of(&status(&env))["hits"], 0);
}

/// A state dir pointed at the wrong place loses nothing of anyone else's: a starting
/// daemon removes only another build's store (its directory's name, beside its lock
/// file) and in it only the files a store writes; `clear-cache` likewise, naming
/// what it kept.
#[test]
fn the_store_directory_loses_only_what_lean_ctx_wrote_there() {
    let (env, root) = project(&three());
    stop(&env);
    let index = env.paths.index_store_dir();
    let theirs = index.join("fedcba9876543210");
    let lookalike = index.join("0123456789abcdef");
    for dir in [index.join("notes"), theirs.clone(), lookalike.clone()] {
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("mine.txt"), "the user's").unwrap();
    }
    fs::write(index.join("notes.txt"), "the user's").unwrap();
    fs::write(index.join("fedcba9876543210.lock"), "").unwrap();
    fs::write(theirs.join("index.store"), "an old build's store").unwrap();
    let users = [
        index.join("notes/mine.txt"),
        index.join("notes.txt"),
        theirs.join("mine.txt"),
        lookalike.join("mine.txt"),
    ];
    let users_kept = || {
        for file in &users {
            let kept = fs::read_to_string(file).unwrap();
            assert_eq!(kept, "the user's", "{}", file.display());
        }
    };
    start(&env);
    ok(&env, &root, &["outline", "src/a.rs"]);
    let ours = fs::read_dir(&index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            index_store::is_build_dir(name) && *p != theirs && *p != lookalike
        })
        .expect("this build's store");
    let stored = wait_until(Duration::from_secs(30), || {
        ours.join("index.store").exists()
    });
    assert!(stored, "no store: {}", env.log());
    assert!(
        !theirs.join("index.store").exists(),
        "the old build's store stayed"
    );
    users_kept();
    // Stopped first: a running daemon's writer makes a new store the moment it
    // finds its file gone (`clear_cache_while_the_writer_writes_succeeds`).
    stop(&env);
    let v = ok(&env, env.dir(), &["daemon", "clear-cache"]);
    assert!(v["freed_bytes"].as_u64().unwrap() > 0, "{v}");
    assert!(!ours.join("index.store").exists());
    users_kept();
    let mut kept: Vec<_> = v["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [lookalike.join("mine.txt"), theirs.join("mine.txt")].map(|p| p.display().to_string()),
        "{v}"
    );
}

/// The writer makes a new store the moment it finds its file gone, so clears that
/// land while it writes race it for the directory: each clear still succeeds, and
/// the daemon ends with one store of this build that it serves from.
#[test]
fn clear_cache_while_the_writer_writes_succeeds() {
    let (env, root) = small_files(600);
    // All 600 in one outline: past the answer's default cap.
    env.write_config("[answers]\nmax_bytes = 1000000\n");
    std::thread::scope(|s| {
        let index = s.spawn(|| {
            let v = ok(&env, &root, &["outline", ".", "--limit", "1000"]);
            v["files"].as_array().unwrap().len()
        });
        for _ in 0..8 {
            ok(&env, env.dir(), &["daemon", "clear-cache"]);
            std::thread::sleep(Duration::from_millis(15));
        }
        assert_eq!(index.join().unwrap(), 600);
    });
    // Another change makes the writer write again; it must find a store to write to.
    fs::write(root.join("src/m0.rs"), "fn zeta() {}\n").unwrap();
    let a = ok(&env, &root, &["outline", "src/m0.rs"]);
    assert_eq!(a["files"][0]["symbols"][0]["name"], "zeta");
    let new = wait_until(Duration::from_secs(30), || {
        store_dir_if_any(&env).is_some_and(|d| d.join("index.store").exists())
    });
    assert!(new, "no store after the clears: {}", env.log());
    let left: Vec<_> = fs::read_dir(env.paths.index_store_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".cleared-"))
        .collect();
    assert!(left.is_empty(), "renamed stores left behind: {left:?}");
}

#[test]
fn a_store_directory_others_can_write_is_refused_and_the_daemon_still_answers() {
    use std::os::unix::fs::PermissionsExt;
    a_store_directory_refused_for("writable by others", |index| {
        fs::set_permissions(index, fs::Permissions::from_mode(0o777)).unwrap();
    });
}

/// A store directory another user owns (mode 0700, nobody else may write it: only
/// its owner is wrong) is refused the same way: never read, never written.
#[test]
fn a_store_directory_another_user_owns_is_refused_and_the_daemon_still_answers() {
    a_store_directory_refused_for("65534", |index| {
        rustix::fs::chown(
            index,
            Some(rustix::fs::Uid::from_raw(65534)),
            Some(rustix::fs::Gid::from_raw(65534)),
        )
        .expect("chown to another uid (the test suite runs as root)");
    });
}

/// The index store directory made unsafe by `spoil`: the daemon answers from memory,
/// its status note says why (naming `why`), and nothing is written there.
fn a_store_directory_refused_for(why: &str, spoil: impl FnOnce(&Path)) {
    let (env, root) = project(&three());
    let index = env.paths.index_store_dir();
    fs::create_dir_all(&index).unwrap();
    spoil(&index);
    assert_eq!(names(&env, &root)["src/a.rs"], ["alpha", "Apple"]);
    let st = status(&env);
    let note = store_of(&st)["note"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        note.contains("not persisting") && note.contains(why),
        "{st}"
    );
    assert!(
        fs::read_dir(&index).unwrap().next().is_none(),
        "nothing written"
    );
}
