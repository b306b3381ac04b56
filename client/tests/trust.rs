//! Workspace trust and hardened spawns (ARCHITECTURE.md, the invariant on trust),
//! against real servers: a repository written the way a hostile author would (its own
//! toolchain file and `bin/`, cargo configurations in it and above it, a committed
//! `node_modules/typescript`, a Go module whose `toolchain` lines, `bin/go` and
//! `go/env` file try to steer the go command gopls runs) gets none of its code run by anything lean-ctx starts,
//! the daemon's language servers never inherit the environment of the shim that
//! spawned it, and nothing starts in a root the user did not trust. Each hostile
//! program appends its name to a marker file; the marker must stay empty.

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
};

use lean_ctx_testkit::{
    TestEnv, as_another_user, git, gopls_env, pylsp, python_fixture, rust_analyzer, spots,
    typescript_language_server,
};

const SHIM: &str = env!("CARGO_BIN_EXE_lean-ctx");

const LIB_RS: &str = "pub fn größe() -> u32 { 1 }\npub fn twice() -> u32 { größe() + größe() }\n";

fn executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// What the hostile programs wrote: one line per run.
fn marked(marker: &Path) -> String {
    fs::read_to_string(marker).unwrap_or_default()
}

/// The real toolchain's `bin/` (what the hostile wrappers forward to, so a leak shows
/// in the marker and not as a broken build).
fn toolchain_bin() -> PathBuf {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir("/")
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join("bin")
}

/// A crate in `<env>/hostile` (a git repository) that tries every known way to run
/// its code through rust-analyzer and rustup: `rust-toolchain.toml` pointing rustup at
/// its own `bin/` (through `/proc/self/cwd`), its own `cargo`, `rustc` and
/// `rust-analyzer` there, `build.rustc-wrapper` in its `.cargo/config.toml`, and
/// `build.rustc` in a `.cargo/config.toml` of the directory above it.
fn hostile_crate(env: &TestEnv, marker: &Path) -> PathBuf {
    let root = env.dir().join("hostile");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"hostile\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    fs::write(root.join("src/lib.rs"), LIB_RS).unwrap();
    let real = toolchain_bin();
    for tool in ["cargo", "rustc"] {
        executable(
            &root.join("bin").join(tool),
            &format!(
                "#!/bin/sh\necho {tool} >> {}\nexec {} \"$@\"\n",
                marker.display(),
                real.join(tool).display()
            ),
        );
    }
    executable(
        &root.join("bin/rust-analyzer"),
        &format!(
            "#!/bin/sh\necho rust-analyzer >> {}\nexit 1\n",
            marker.display()
        ),
    );
    executable(
        &root.join("bin/wrap"),
        &format!(
            "#!/bin/sh\necho wrapper >> {}\nexec \"$@\"\n",
            marker.display()
        ),
    );
    fs::write(
        root.join("rust-toolchain.toml"),
        "[toolchain]\npath = \"/proc/self/cwd\"\n",
    )
    .unwrap();
    fs::create_dir_all(root.join(".cargo")).unwrap();
    fs::write(
        root.join(".cargo/config.toml"),
        "[build]\nrustc-wrapper = \"bin/wrap\"\n",
    )
    .unwrap();
    fs::create_dir_all(env.dir().join(".cargo")).unwrap();
    fs::write(
        env.dir().join(".cargo/config.toml"),
        format!(
            "[build]\nrustc = \"{}\"\n",
            root.join("bin/rustc").display()
        ),
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "hostile"]);
    let root = fs::canonicalize(root).unwrap();

    // The fixture is live: plain cargo in it runs its code (else this file proves
    // nothing).
    let out = cargo_metadata(env, &root);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = marked(marker);
    for tool in ["cargo", "rustc", "wrapper"] {
        assert!(
            seen.lines().any(|l| l == tool),
            "the fixture ran no {tool}: {seen:?}"
        );
    }
    fs::remove_file(marker).unwrap();
    root
}

/// Plain `cargo metadata` in `root`, in the test's environment: what rust-analyzer
/// runs, for a fixture to prove it is live.
fn cargo_metadata(env: &TestEnv, root: &Path) -> std::process::Output {
    Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .env_clear()
        .envs(env.envs())
        .current_dir(root)
        .output()
        .unwrap()
}

/// An environment whose rust-analyzer is the real one.
fn rust_env() -> TestEnv {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\nrust = [{:?}]\n",
        rust_analyzer().display().to_string()
    ));
    env
}

/// An environment whose rust-analyzer is the real one, with [`hostile_crate`] (not
/// yet trusted) and its marker file.
fn hostile_rust_world() -> (TestEnv, PathBuf, PathBuf) {
    let env = rust_env();
    let marker = env.dir().join("marker");
    let root = hostile_crate(&env, &marker);
    (env, marker, root)
}

#[test]
fn an_untrusted_root_starts_no_language_server_and_names_the_command_that_trusts_it() {
    let (env, marker, root) = hostile_rust_world();
    let refused = env.err(&root, &["refactor", "definition", "src/lib.rs:1:8"]);
    assert_eq!(refused["code"], "BACKEND_REQUIRED", "{refused}");
    let remedy = refused["remedy"].as_str().unwrap();
    let trust_it = format!("lean-ctx trust {}", root.display());
    assert!(remedy.contains(&trust_it), "{refused}");
    // References still answer, from the index by name, labelled as such (never as
    // the server's), with why no server answered and the command that lets one.
    let by_name = env.ok(&root, &["refactor", "references", "src/lib.rs:1:8"]);
    assert_eq!(by_name["backing"], "by name, unresolved", "{by_name}");
    assert!(
        by_name["fallback"].as_str().unwrap().contains(&trust_it),
        "{by_name}"
    );
    assert_eq!(
        spots(&by_name),
        ["src/lib.rs 1:7", "src/lib.rs 2:24", "src/lib.rs 2:34"]
    );
    let out = env
        .shim()
        .current_dir(&root)
        .args(["refactor", "references", "src/lib.rs:1:8"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("by name, unresolved"), "{text}");
    // So do its callers: the declaration each call by name lies in, with its sites.
    let callers = env.ok(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "src/lib.rs:1:8",
            "--direction",
            "incoming",
        ],
    );
    assert_eq!(callers["backing"], "by name, unresolved", "{callers}");
    let calls = callers["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{callers}");
    assert_eq!(calls[0]["symbol"]["name_path"], "twice", "{callers}");
    assert_eq!(
        calls[0]["sites"],
        serde_json::json!([{"line": 2, "column": 24}, {"line": 2, "column": 34}]),
        "{callers}"
    );
    let outgoing = env.err(
        &root,
        &[
            "refactor",
            "call-hierarchy",
            "src/lib.rs:2:8",
            "--direction",
            "outgoing",
        ],
    );
    assert_eq!(outgoing["code"], "BACKEND_REQUIRED", "{outgoing}");
    assert!(env.language_servers().is_empty(), "a server started");
    // The headless backing answers in every root.
    let outline = env.ok(&root, &["outline", "src/lib.rs"]);
    assert!(outline.to_string().contains("twice"), "{outline}");

    // The user trusts it (the default directory is the project around the cwd).
    let out = env.shim().current_dir(&root).arg("trust").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = env.ok(&root, &["trust", "--list"]);
    assert_eq!(listed["roots"], serde_json::json!([root]), "{listed}");
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:1:8"]);
    assert_eq!(
        spots(&refs),
        ["src/lib.rs 1:7", "src/lib.rs 2:24", "src/lib.rs 2:34"]
    );

    // Withdrawn: refused again, by the running daemon, without a restart.
    let out = env
        .shim()
        .current_dir(&root)
        .args(["trust", "--remove"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let again = env.err(&root, &["refactor", "definition", "src/lib.rs:1:8"]);
    assert_eq!(again["code"], "BACKEND_REQUIRED", "{again}");
    assert_eq!(marked(&marker), "", "the repository's code ran");
}

/// `lean-ctx trust DIR` trusts that directory as written: glob characters in its
/// name are its name's (`proj[1]` never trusts `proj1`, `team*` never `teamX/…`),
/// and a pattern is trusted only when asked for as one (`--glob`), `*` within one
/// directory name.
#[test]
fn trust_entries_are_exact_paths_and_patterns_only_by_name() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\n",
        pylsp().display().to_string()
    ));
    let project = |name: &str| python_fixture(&env.dir().join(name));
    let (bracket, digit) = (project("proj[1]"), project("proj1"));
    let (star, deep) = (project("team*"), project("teamX/deep/evil"));
    let (braces, plain) = (project("app{a,b}"), project("appa"));
    for dir in [&bracket, &star, &braces] {
        env.trust(dir);
    }
    let listed = env.ok(env.dir(), &["trust", "--list"]);
    assert_eq!(
        listed["roots"],
        serde_json::json!([bracket, star, braces]),
        "{listed}"
    );
    let refused = |root: &Path| {
        let answer = env.err(root, &["refactor", "definition", "geo.py:2:4"]);
        answer["code"] == "BACKEND_REQUIRED"
    };
    for (root, trusted) in [
        (&bracket, true),
        (&digit, false),
        (&star, true),
        (&deep, false),
        (&braces, true),
        (&plain, false),
    ] {
        if trusted {
            env.ok(root, &["refactor", "definition", "geo.py:2:4"]);
        } else {
            assert!(refused(root), "{} is trusted", root.display());
        }
    }
    // A pattern, asked for by name: `*` stays within one directory name.
    let pattern = format!("{}/app*", env.dir().display());
    let out = env
        .shim()
        .args(["trust", "--glob", &pattern])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let listed = env.ok(env.dir(), &["trust", "--list"]);
    assert_eq!(listed["globs"], serde_json::json!([pattern]), "{listed}");
    env.ok(&plain, &["refactor", "references", "geo.py:2:4"]);
    assert!(refused(&deep), "{} is trusted", deep.display());
}

#[test]
fn a_hostile_crate_runs_none_of_its_code_through_rust_analyzer_cargo_or_doctor() {
    let (env, marker, root) = hostile_rust_world();
    env.trust(&root);
    // rust-analyzer loads the crate (cargo metadata, rustc's sysroot and target
    // queries) and answers: all through the user's toolchain.
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:1:8"]);
    assert_eq!(
        spots(&refs),
        ["src/lib.rs 1:7", "src/lib.rs 2:24", "src/lib.rs 2:34"]
    );
    let server = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap();
    let environ = fs::read(format!("/proc/{server}/environ")).unwrap();
    assert!(
        !String::from_utf8_lossy(&environ).contains("/hostile/"),
        "the server's environment names the repository"
    );

    let out = env
        .shim()
        .current_dir(&root)
        .args(["--json", "doctor"])
        .output()
        .unwrap();
    let doctor: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        doctor["findings"].to_string().contains("rust-analyzer"),
        "{doctor}"
    );
    assert_eq!(marked(&marker), "", "the repository's code ran");
}

#[test]
fn the_default_rust_analyzer_is_the_users_never_the_repositorys() {
    let env = TestEnv::with_shim(SHIM);
    // No lsp.rust: `rust-analyzer` from PATH, which on a rustup machine is rustup's
    // proxy: the one that obeys a toolchain file.
    let proxy = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("rust-analyzer"))
        .find(|p| p.is_file())
        .expect("rustup's rust-analyzer proxy must be on PATH for this test");
    let marker = env.dir().join("marker");
    let root = hostile_crate(&env, &marker);
    // The proxy left to itself runs the repository's rust-analyzer.
    let _ = Command::new(&proxy)
        .arg("--version")
        .env_clear()
        .envs(env.envs())
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(
        marked(&marker),
        "rust-analyzer\n",
        "the fixture is not live"
    );
    fs::remove_file(&marker).unwrap();

    env.trust(&root);
    // Whatever the user's toolchain has (here: no rust-analyzer component, so the
    // proxy fails and the call says so), it is never the repository's.
    let _ = env.shim_json_in(&root, &["refactor", "references", "src/lib.rs:1:8"]);
    let out = env
        .shim()
        .current_dir(&root)
        .args(["--json", "doctor"])
        .output()
        .unwrap();
    assert!(!out.stdout.is_empty());
    assert_eq!(marked(&marker), "", "the repository's code ran");
}

#[test]
fn a_cargo_config_another_user_planted_above_the_root_stops_rust_analyzer() {
    let (env, marker, root) = hostile_rust_world();
    env.trust(&root);
    let planted = env.dir().join(".cargo/config.toml");
    // Another local user (uid 65534) owns the configuration above the project.
    rustix::fs::chown(
        &planted,
        Some(rustix::fs::Uid::from_raw(65534)),
        Some(rustix::fs::Gid::from_raw(65534)),
    )
    .unwrap();
    let refused = env.err(&root, &["refactor", "definition", "src/lib.rs:1:8"]);
    assert_eq!(refused["code"], "BACKEND_REQUIRED", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains(&planted.display().to_string()),
        "{refused}"
    );
    assert!(env.language_servers().is_empty(), "a server started");
    assert_eq!(marked(&marker), "");
}

/// The attack waits out the start check: a trusted crate in a shared directory
/// (mode 1777, like `/tmp`), rust-analyzer started clean, then another uid plants
/// `../.cargo/config.toml` with a `force`d `LD_PRELOAD` of a library that writes a
/// marker. The watch above the root stops the server the moment the file appears,
/// with nothing asked of it; the crate's manifest then changes (what would make
/// rust-analyzer run cargo again), the library never runs inside anything, and the
/// next call names the planted file.
#[test]
fn a_cargo_config_planted_after_rust_analyzer_started_stops_it_before_cargo_runs_again() {
    let env = rust_env();
    fs::set_permissions(env.dir(), fs::Permissions::from_mode(0o711)).unwrap();
    let shared = env.dir().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let root = shared.join("proj");
    fs::create_dir_all(root.join("src")).unwrap();
    let manifest = "[package]\nname = \"proj\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    fs::write(root.join("Cargo.toml"), manifest).unwrap();
    fs::write(root.join("src/lib.rs"), LIB_RS).unwrap();
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    // The library: a constructor that appends to the marker in whatever loads it.
    let marker = shared.join("marker");
    let source = shared.join("preload.c");
    fs::write(
        &source,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void ran(void) {{ FILE *f = fopen({:?}, \"a\"); if (f) {{ fputs(\"preload\\n\", f); fclose(f); }} }}\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let library = shared.join("preload.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .status()
        .unwrap();
    assert!(built.success());
    fs::set_permissions(&library, fs::Permissions::from_mode(0o755)).unwrap();
    env.trust(&root);
    let refs = env.ok(&root, &["refactor", "references", "src/lib.rs:1:8"]);
    assert_eq!(spots(&refs).len(), 3, "{refs}");
    assert_eq!(env.language_servers().len(), 1);

    let planted = shared.join(".cargo/config.toml");
    let plant = as_another_user()
        .args(["sh", "-c", "mkdir \"$0/.cargo\" && printf '[env]\\nLD_PRELOAD = { value = \"%s\", force = true }\\n' \"$1\" > \"$0/.cargo/config.toml\""])
        .arg(&shared)
        .arg(&library)
        .status()
        .unwrap();
    assert!(
        plant.success(),
        "the other uid could not plant {}",
        planted.display()
    );
    // The library is live: plain cargo with that config runs it.
    let probe = cargo_metadata(&env, &root);
    assert!(probe.status.success(), "{probe:?}");
    assert!(
        marked(&marker).contains("preload"),
        "the planted config runs nothing"
    );
    fs::remove_file(&marker).unwrap();
    let stopped = lean_ctx_testkit::wait_until(std::time::Duration::from_secs(30), || {
        env.language_servers().is_empty()
    });
    assert!(
        stopped,
        "rust-analyzer kept running with the config planted"
    );

    fs::write(
        root.join("Cargo.toml"),
        format!("{manifest}\n[features]\nx = []\n"),
    )
    .unwrap();
    let refused = env.err(&root, &["refactor", "definition", "src/lib.rs:1:8"]);
    assert_eq!(refused["code"], "BACKEND_REQUIRED", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains(&format!(
            "read {}, which belongs to another user",
            shared.join(".cargo").display()
        )),
        "{refused}"
    );
    assert_eq!(marked(&marker), "", "the planted library ran");
}

/// A repository that points lean-ctx's configuration into itself (its `.envrc` sets
/// `LEAN_CTX_CONFIG_DIR`, or `XDG_CONFIG_HOME`, to a `config.toml` it ships that
/// trusts the repository and names its own binary as the Python server) trusts
/// nothing and runs nothing: not through the daemon its shim spawns, not through
/// `doctor`, and `doctor` says why.
#[test]
fn a_config_a_repository_points_lean_ctx_at_is_ignored() {
    let env = TestEnv::with_shim(SHIM);
    let root = python_fixture(&env.dir().join("hostile-config"));
    git(&root, &["init", "-q"]);
    let marker = env.dir().join("marker");
    let evil = root.join("bin/evil-server");
    executable(
        &evil,
        &format!("#!/bin/sh\necho evil >> {}\nexit 1\n", marker.display()),
    );
    for (var, dir) in [
        ("LEAN_CTX_CONFIG_DIR", root.join(".lean-ctx")),
        ("XDG_CONFIG_HOME", root.join(".config")),
    ] {
        let config = if var == "XDG_CONFIG_HOME" {
            dir.join("lean-ctx")
        } else {
            dir.clone()
        };
        fs::create_dir_all(&config).unwrap();
        fs::write(
            config.join("config.toml"),
            format!(
                "[trust]\nroots = [{:?}]\n[lsp]\npython = [{:?}]\nrust = [{:?}]\n",
                root.display().to_string(),
                evil.display().to_string(),
                evil.display().to_string()
            ),
        )
        .unwrap();
        let shim = |args: &[&str]| {
            let mut cmd = env.shim();
            cmd.current_dir(&root).env_remove("LEAN_CTX_CONFIG_DIR");
            if var == "XDG_CONFIG_HOME" {
                cmd.env("XDG_CONFIG_HOME", &dir);
            } else {
                cmd.env(var, &dir);
            }
            cmd.args(args).output().unwrap()
        };
        let out = shim(&["--json", "refactor", "definition", "geo.py:2:4"]);
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            answer["error"]["code"], "BACKEND_REQUIRED",
            "{var}: {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not a trusted root"),
            "{var}: {answer}"
        );
        let doctor = shim(&["doctor"]);
        let said = String::from_utf8_lossy(&doctor.stdout);
        assert!(
            said.contains("is ignored") && said.contains("inside the git worktree"),
            "{var}: {said}"
        );
        assert_eq!(
            marked(&marker),
            "",
            "{var}: the repository's binary ran (doctor)"
        );
        let status = shim(&["daemon", "status"]);
        let said = String::from_utf8_lossy(&status.stdout);
        assert!(
            said.contains("config       IGNORED") && said.contains("inside the git worktree"),
            "{var}: {said}"
        );
        let _ = env.shim().args(["daemon", "stop"]).output();
    }
}

/// Build scripts and proc macros stay off in a trusted root (their code would run
/// at analysis): a crate whose `build.rs` and whose proc-macro dependency each write
/// a marker, analysed by the real rust-analyzer through several calls and a
/// manifest change, leaves no marker; `cargo build` in the same crate does (the
/// fixture is live).
#[test]
fn build_scripts_and_proc_macros_never_run_in_a_trusted_root() {
    let env = rust_env();
    let marker = env.dir().join("marker");
    let root = env.dir().join("builds");
    let mac = root.join("mac");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(mac.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"builds\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nmac = { path = \"mac\" }\n\n[workspace]\n",
    )
    .unwrap();
    let append = |what: &str| {
        format!(
            "std::fs::OpenOptions::new().create(true).append(true).open({:?}).and_then(|mut f| std::io::Write::write_all(&mut f, b\"{what}\\n\")).unwrap();",
            marker.display().to_string()
        )
    };
    fs::write(
        root.join("build.rs"),
        format!("fn main() {{ {} }}\n", append("build.rs")),
    )
    .unwrap();
    fs::write(
        root.join("src/lib.rs"),
        format!("#[mac::mark]\npub fn marked() {{}}\n{LIB_RS}"),
    )
    .unwrap();
    fs::write(
        mac.join("Cargo.toml"),
        "[package]\nname = \"mac\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\nproc-macro = true\n",
    )
    .unwrap();
    fs::write(
        mac.join("src/lib.rs"),
        format!(
            "extern crate proc_macro;\nuse proc_macro::TokenStream;\n#[proc_macro_attribute]\npub fn mark(_: TokenStream, item: TokenStream) -> TokenStream {{ {} item }}\n",
            append("proc-macro")
        ),
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    let at = "src/lib.rs:3:8";
    let refs = env.ok(&root, &["refactor", "references", at]);
    assert_eq!(spots(&refs).len(), 3, "{refs}");
    env.ok(&root, &["refactor", "inspections", "src/lib.rs"]);
    fs::write(
        root.join("Cargo.toml"),
        fs::read_to_string(root.join("Cargo.toml")).unwrap() + "\n",
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    env.ok(&root, &["refactor", "references", at]);
    assert_eq!(marked(&marker), "", "a build script or proc macro ran");

    // Live: building it runs both.
    let built = Command::new("cargo")
        .args(["build", "--quiet", "--offline"])
        .env_clear()
        .envs(env.envs())
        .env("CARGO_TARGET_DIR", env.dir().join("target"))
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let ran = marked(&marker);
    assert!(
        ran.contains("build.rs") && ran.contains("proc-macro"),
        "{ran:?}"
    );
}

/// A language server's answers reach beyond the root (a path dependency outside
/// it): no location outside reaches the answer, and a rename that would edit a file
/// outside writes nothing anywhere.
#[test]
fn locations_and_rename_edits_outside_the_root_never_reach_the_answer_or_the_disk() {
    let env = rust_env();
    let dep = env.dir().join("dep");
    let app = env.dir().join("app");
    for dir in [&dep, &app] {
        fs::create_dir_all(dir.join("src")).unwrap();
    }
    let dep_lib = "pub fn shared() -> u32 { 1 }\n";
    fs::write(
        dep.join("Cargo.toml"),
        "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    fs::write(dep.join("src/lib.rs"), dep_lib).unwrap();
    fs::write(
        app.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndep = { path = \"../dep\" }\n\n[workspace]\n",
    )
    .unwrap();
    let app_lib = "pub fn twice() -> u32 {\n    dep::shared() + dep::shared()\n}\n";
    fs::write(app.join("src/lib.rs"), app_lib).unwrap();
    git(&app, &["init", "-q"]);
    let app = fs::canonicalize(app).unwrap();
    env.trust(&app);
    let at = "src/lib.rs:2:10";
    let refs = env.ok(&app, &["refactor", "references", at]);
    let found = spots(&refs);
    assert_eq!(found, ["src/lib.rs 2:9", "src/lib.rs 2:25"], "{refs}");
    let definition = env.ok(&app, &["refactor", "definition", at]);
    assert!(
        !definition.to_string().contains("dep/src/lib.rs"),
        "{definition}"
    );
    let renamed = env.shim_json_in(&app, &["refactor", "rename", at, "--new-name", "common"]);
    assert!(!renamed.0.status.success(), "{}", renamed.1);
    assert_eq!(fs::read_to_string(dep.join("src/lib.rs")).unwrap(), dep_lib);
    assert_eq!(fs::read_to_string(app.join("src/lib.rs")).unwrap(), app_lib);
}

/// The environ of process `pid`, a variable a line.
fn environ(pid: u64) -> Vec<String> {
    fs::read(format!("/proc/{pid}/environ"))
        .unwrap()
        .split(|b| *b == 0)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect()
}

#[test]
fn neither_the_daemon_nor_its_language_servers_inherit_the_shell_of_the_shim_that_spawned_it() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\npython = [{:?}]\n",
        pylsp().display().to_string()
    ));
    // The first shim runs in some repository, with that repository's bin/ first on
    // PATH (direnv), its own daemon named, and variables that select code.
    let first = env.dir().join("first");
    let marker = env.dir().join("marker");
    fs::create_dir_all(first.join("bin")).unwrap();
    fs::write(first.join("a.py"), "def a():\n    pass\n").unwrap();
    let planted = first.join("bin/lean-ctxd");
    executable(
        &planted,
        &format!(
            "#!/bin/sh\necho lean-ctxd >> {}\nexec {} \"$@\"\n",
            marker.display(),
            env.daemon_bin().display()
        ),
    );
    git(&first, &["init", "-q"]);
    let path = format!(
        "{}:{}",
        first.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let out = env
        .shim()
        .current_dir(&first)
        .env("PATH", &path)
        .env("LEAN_CTX_DAEMON_BIN", &planted)
        .env("GOFLAGS", "-toolexec=/nonexistent/evil")
        .env("NODE_OPTIONS", "--require /nonexistent/evil.js")
        .env("LEAN_CTX_LEAK", "1")
        .args(["--json", "outline", "a.py"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("is ignored: it lies inside the git worktree"),
        "{stderr}"
    );
    assert_eq!(marked(&marker), "");
    let daemon = env.daemon_pid().unwrap();
    assert_eq!(
        fs::read_link(format!("/proc/{daemon}/cwd")).unwrap(),
        Path::new("/")
    );
    let vars = environ(daemon.into());
    for leak in ["GOFLAGS=", "NODE_OPTIONS=", "LEAN_CTX_DAEMON_BIN="] {
        assert!(!vars.iter().any(|v| v.starts_with(leak)), "{vars:?}");
    }
    let daemon_path = vars.iter().find(|v| v.starts_with("PATH=")).unwrap();
    assert!(!daemon_path.contains("/first/"), "{daemon_path}");

    let other = python_fixture(&env.dir().join("other"));
    env.trust(&other);
    env.ok(&other, &["refactor", "definition", "main.py:3:26"]);
    let server = env.status_rows(&other, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap();
    let vars = environ(server);
    assert!(!vars.iter().any(|v| v.starts_with("GOFLAGS=")), "{vars:?}");
    assert!(
        !vars.iter().any(|v| v.starts_with("LEAN_CTX_LEAK=")),
        "{vars:?}"
    );
    let server_path = vars.iter().find(|v| v.starts_with("PATH=")).unwrap();
    assert!(!server_path.contains("/first/"), "{server_path}");
    assert!(vars.iter().any(|v| v == "GOTOOLCHAIN=local"), "{vars:?}");
    assert_eq!(fs::read_link(format!("/proc/{server}/cwd")).unwrap(), other);
}

#[test]
fn typescript_language_server_never_runs_the_workspaces_typescript() {
    let env = TestEnv::with_shim(SHIM);
    env.write_config(&format!(
        "[lsp]\ntypescript = [{:?}, \"--stdio\"]\n",
        typescript_language_server().display().to_string()
    ));
    let marker = env.dir().join("marker");
    let root = env.dir().join("ts");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("package.json"),
        "{\"name\": \"ts\", \"devDependencies\": {\"typescript\": \"5.9.3\"}}\n",
    )
    .unwrap();
    fs::write(
        root.join("tsconfig.json"),
        "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n",
    )
    .unwrap();
    fs::write(
        root.join("src/a.ts"),
        "export function grüße(n: string): string { return n; }\n",
    )
    .unwrap();
    fs::write(
        root.join("src/b.ts"),
        "import { grüße } from \"./a\";\nfunction örtlich(): string { return grüße(\"ü\"); }\nexport const x = örtlich();\n",
    )
    .unwrap();
    // A committed TypeScript whose server and library only record that they ran.
    let ts = root.join("node_modules/typescript");
    fs::create_dir_all(ts.join("lib")).unwrap();
    fs::write(
        ts.join("package.json"),
        "{\"name\": \"typescript\", \"version\": \"5.9.3\", \"main\": \"lib/typescript.js\"}\n",
    )
    .unwrap();
    for file in ["tsserver.js", "typescript.js", "tsserverlibrary.js"] {
        fs::write(
            ts.join("lib").join(file),
            format!(
                "require('fs').appendFileSync({:?}, {:?});\n",
                marker.display().to_string(),
                format!("{file}\n")
            ),
        )
        .unwrap();
    }
    git(&root, &["init", "-q"]);
    let root = fs::canonicalize(root).unwrap();
    env.trust(&root);
    // Answered by a working TypeScript: the one beside the server.
    let def = env.ok(&root, &["refactor", "definition", "src/b.ts:3:19"]);
    assert_eq!(spots(&def), ["src/b.ts 2:9"], "{def}");
    assert_eq!(marked(&marker), "", "the workspace's TypeScript ran");
}

/// The go command on the test's `PATH` (what the hostile wrappers forward to).
fn real_go() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("go"))
        .find(|p| p.is_file())
        .expect("go must be on PATH for the gopls tests")
}

/// A Go module in `<env>/hostile-go` (a git repository) that tries every way to run
/// its code through the go command gopls runs, and the environment of a shim started
/// in it (direnv-style: its `bin/` first on `PATH`, `GOFLAGS`, its own
/// `XDG_CONFIG_HOME`). Each program appends its own name to `marker`:
/// - `repo-go`: `bin/go`, found first on that `PATH`;
/// - `toolexec`: `GOFLAGS=-toolexec=bin/toolexec` in that environment;
/// - `go-env`: `GOFLAGS=-toolexec=bin/toolexec-env` in `.config/go/env`, the go
///   command's configuration file once `XDG_CONFIG_HOME` points there;
/// - `toolchain`: the `toolchain go1.99.0` lines of `go.mod` and `go.work` switch a
///   go command that may switch (the user's own `go/env` says `GOTOOLCHAIN=auto`, a
///   stock Go's default) to the `go1.99.0` the user has on `PATH`, outside any
///   repository.
fn hostile_go_module(env: &TestEnv, marker: &Path) -> (PathBuf, Vec<(&'static str, String)>) {
    let root = env.dir().join("hostile-go");
    let go = real_go();
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("go.mod"),
        "module example.com/hostile\n\ngo 1.26\n\ntoolchain go1.99.0\n",
    )
    .unwrap();
    fs::write(
        root.join("go.work"),
        "go 1.26\n\ntoolchain go1.99.0\n\nuse .\n",
    )
    .unwrap();
    fs::write(
        root.join("geo.go"),
        "package hostile\n\n// Größe\nfunc Fläche(a, b int) int { return a * b }\n\nvar Größe = Fläche(2, 3) + Fläche(4, 5)\n",
    )
    .unwrap();
    let mark = |name: &str, then: &str| {
        format!("#!/bin/sh\necho {name} >> {}\n{then}\n", marker.display())
    };
    executable(
        &root.join("bin/go"),
        &mark("repo-go", &format!("exec {} \"$@\"", go.display())),
    );
    executable(&root.join("bin/toolexec"), &mark("toolexec", "exec \"$@\""));
    executable(
        &root.join("bin/toolexec-env"),
        &mark("go-env", "exec \"$@\""),
    );
    fs::create_dir_all(root.join(".config/go")).unwrap();
    fs::write(
        root.join(".config/go/env"),
        format!(
            "GOFLAGS=-toolexec={}\nGOTOOLCHAIN=auto\n",
            root.join("bin/toolexec-env").display()
        ),
    )
    .unwrap();
    let sdk = env.dir().join("sdk/bin");
    executable(
        &sdk.join("go1.99.0"),
        &mark(
            "toolchain",
            // The real go, told neither to switch again nor that it was switched to
            // (it would refuse to stand in for 1.99.0).
            &format!(
                "exec env -u GOTOOLCHAIN_INTERNAL_SWITCH_VERSION GOTOOLCHAIN=local {} \"$@\"",
                go.display()
            ),
        ),
    );
    let user_config = env.dir().join("home/.config/go");
    fs::create_dir_all(&user_config).unwrap();
    fs::write(user_config.join("env"), "GOTOOLCHAIN=auto\n").unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "hostile"]);
    let root = fs::canonicalize(root).unwrap();
    let shim_env = vec![
        (
            "PATH",
            format!(
                "{}:{}:{}",
                root.join("bin").display(),
                sdk.display(),
                std::env::var("PATH").unwrap()
            ),
        ),
        (
            "GOFLAGS",
            format!("-toolexec={}", root.join("bin/toolexec").display()),
        ),
        (
            "XDG_CONFIG_HOME",
            root.join(".config").display().to_string(),
        ),
    ];

    // The fixture is live: plain `go list` in that environment runs each program
    // (`go-env` only where `GOFLAGS` does not override the file's).
    for without in [None, Some("GOFLAGS")] {
        let out = Command::new("go")
            .args(["list", "-e", "-compiled", "-deps", "./..."])
            .env_clear()
            .envs(env.envs())
            .envs(
                shim_env
                    .iter()
                    .filter(|(k, _)| Some(*k) != without)
                    .cloned(),
            )
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let seen = marked(marker);
    for program in ["repo-go", "toolexec", "go-env", "toolchain"] {
        assert!(
            seen.lines().any(|l| l == program),
            "the fixture ran no {program}: {seen:?}"
        );
    }
    fs::remove_file(marker).unwrap();
    (root, shim_env)
}

#[test]
fn a_hostile_go_module_runs_none_of_its_code_through_gopls() {
    let env = gopls_env(SHIM);
    let marker = env.dir().join("marker");
    let (root, shim_env) = hostile_go_module(&env, &marker);

    // The shim started in the repository spawns the daemon, which keeps its
    // environment; the root is not trusted: nothing starts.
    let out = env
        .shim()
        .current_dir(&root)
        .envs(shim_env.iter().cloned())
        .args(["--json", "refactor", "definition", "geo.go:6:15"])
        .output()
        .unwrap();
    let refused: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(refused["error"]["code"], "BACKEND_REQUIRED", "{refused}");
    assert!(env.language_servers().is_empty(), "a server started");
    assert_eq!(marked(&marker), "", "the repository's code ran");

    // Trusted: gopls loads the module (`go env`, `go list` of it and the standard
    // library) and answers, all through the user's go with the neutral environment.
    env.trust(&root);
    let def = env.ok(&root, &["refactor", "definition", "geo.go:6:15"]);
    assert_eq!(spots(&def), ["geo.go 4:5"], "{def}");
    assert_eq!(def["backing"], "gopls");
    let refs = env.ok(&root, &["refactor", "references", "geo.go:4:7"]);
    assert_eq!(
        spots(&refs),
        ["geo.go 4:5", "geo.go 6:12", "geo.go 6:27"],
        "{refs}"
    );
    assert_eq!(marked(&marker), "", "the repository's code ran");
    let server = env.status_rows(&root, "language_servers")[0]["pid"]
        .as_u64()
        .unwrap();
    let environ = fs::read(format!("/proc/{server}/environ")).unwrap();
    assert!(
        !String::from_utf8_lossy(&environ).contains("/hostile-go/"),
        "the server's environment names the repository"
    );
}
