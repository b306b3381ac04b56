//! `lean-ctx doctor`: checks what lean-ctx needs, each finding with its fix; exits
//! non-zero when something is broken (warnings alone do not fail).
//!
//! It checks the config's syntax, the data and runtime dirs, that the daemon answers
//! (its version, the socket's mode), rust-analyzer and rust-src, every other language
//! server as configured (or by default) on PATH, each agent's MCP configuration that
//! exists (its lean-ctx entry and the program it names), whether the project around
//! the working directory is trusted (the daemon judges), and the IDE port files (pid
//! alive, `GET /health` within 300 ms). Tool probes run from `/` with the neutral
//! environment (`shared::tool_env`), so a repository's toolchain file never picks what
//! they run.

use std::{
    fs,
    io::{Read, Write},
    net::TcpStream,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::Path,
    process::{Command, ExitCode},
    time::Duration,
};

use lean_ctx_shared::{
    LeanError, Paths,
    ide::{PORT_FILE_PREFIX, PORT_FILE_SUFFIX, PortFileError, read_port_file, verify_listener},
    process::pid_alive,
    protocol::{OpenProjectRequest, StatusRequest, StatusResponse, VERSION},
    servers,
};
use serde::Serialize;

use crate::{connect, output::Output};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Level {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
struct Finding {
    check: &'static str,
    level: Level,
    detail: String,
    /// What to do about a warning or failure.
    fix: Option<String>,
}

fn ok(check: &'static str, detail: impl Into<String>) -> Finding {
    Finding {
        check,
        level: Level::Ok,
        detail: detail.into(),
        fix: None,
    }
}

fn bad(
    check: &'static str,
    level: Level,
    detail: impl Into<String>,
    fix: impl Into<String>,
) -> Finding {
    Finding {
        check,
        level,
        detail: detail.into(),
        fix: Some(fix.into()),
    }
}

pub async fn run(paths: &Paths, root: &Path, out: &Output) -> Result<ExitCode, LeanError> {
    let mut findings = vec![config(paths), data_dir(paths), runtime_dir(paths)];
    let (reached, st) = daemon(paths).await;
    findings.push(reached);
    findings.push(index_store(paths, st.as_ref()));
    findings.push(socket(paths));
    if st.is_some() {
        findings.push(trust(paths, root).await);
    }
    let lsp = lsp_table(paths);
    findings.extend(rust_analyzer(&server_program(
        lsp.as_ref(),
        "rust",
        "rust-analyzer",
    )));
    findings.extend(language_servers(lsp.as_ref()));
    findings.extend(agents(root));
    findings.extend(ide_port_files(paths));
    let failed = findings.iter().any(|f| f.level == Level::Fail);
    out.emit(
        &serde_json::json!({"ok": !failed, "findings": findings}),
        || {
            let mut s = String::new();
            for f in &findings {
                let mark = match f.level {
                    Level::Ok => "ok  ",
                    Level::Warn => "warn",
                    Level::Fail => "FAIL",
                };
                s.push_str(&format!("{mark}  {:<14} {}\n", f.check, f.detail));
                if let Some(fix) = &f.fix {
                    s.push_str(&format!("      {:<14} fix: {fix}\n", ""));
                }
            }
            s.push_str(if failed {
                "lean-ctx is not healthy"
            } else {
                "lean-ctx is healthy"
            });
            s
        },
    );
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn config(paths: &Paths) -> Finding {
    let path = paths.config_file();
    let home = lean_ctx_shared::paths::canonical_home();
    if let Some(why) = lean_ctx_shared::paths::not_the_users_own(&path, home.as_deref()) {
        return bad(
            "config",
            Level::Warn,
            format!(
                "{} is ignored (defaults apply, nothing is trusted): {why}",
                path.display()
            ),
            "keep config.toml in your own config dir (unset XDG_CONFIG_HOME or LEAN_CTX_CONFIG_DIR where a repository set them), yours alone (chmod go-w)",
        );
    }
    match fs::read_to_string(&path) {
        Err(_) => ok(
            "config",
            format!("{} absent: defaults apply", path.display()),
        ),
        Ok(text) => match text.parse::<toml::Table>() {
            Ok(_) => ok("config", format!("{} parses", path.display())),
            Err(e) => bad(
                "config",
                Level::Fail,
                format!("{} does not parse: {e}", path.display()),
                "fix the TOML syntax (README: Configuration)",
            ),
        },
    }
}

fn data_dir(paths: &Paths) -> Finding {
    let dir = &paths.data_dir;
    // Looked at before anything is created: a missing dir is created 0700 below.
    let before = fs::symlink_metadata(dir).ok();
    let probe = dir.join(format!(".doctor.{}", std::process::id()));
    let written = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .and_then(|()| lean_ctx_shared::paths::write_private(&probe, b"x"))
        .and_then(|()| fs::remove_file(&probe));
    if let Err(e) = written {
        return bad(
            "data dir",
            Level::Fail,
            format!("{}: {e}", dir.display()),
            "make it writable, or set LEAN_CTX_DATA_DIR",
        );
    }
    let uid = rustix::process::geteuid().as_raw();
    match before {
        Some(meta) if meta.uid() != uid => bad(
            "data dir",
            Level::Warn,
            format!(
                "{} belongs to uid {}, not to us: its IDE port files are not used",
                dir.display(),
                meta.uid()
            ),
            "set LEAN_CTX_DATA_DIR to a directory of your own",
        ),
        Some(meta) if meta.mode() & 0o022 != 0 => bad(
            "data dir",
            Level::Warn,
            format!(
                "{} is mode {:o}: other users can plant or replace files in it",
                dir.display(),
                meta.mode() & 0o777
            ),
            format!(
                "chmod 700 {} (the daemon does so when it starts)",
                dir.display()
            ),
        ),
        _ => ok("data dir", format!("{} is writable", dir.display())),
    }
}

fn runtime_dir(paths: &Paths) -> Finding {
    match paths.ensure_runtime_dir() {
        Ok(()) => ok(
            "runtime dir",
            format!("{} is private (0700, ours)", paths.runtime_dir.display()),
        ),
        Err(e) => bad(
            "runtime dir",
            Level::Fail,
            e.to_string(),
            "chmod 700 it (it must be yours), or set LEAN_CTX_RUNTIME_DIR",
        ),
    }
}

/// The persisted index: where it is, how big against its cap, what it served, and
/// the daemon's last word on it (a failed write, a rebuild).
fn index_store(paths: &Paths, st: Option<&StatusResponse>) -> Finding {
    let kib = |b: u64| format!("{} KiB", b / 1024);
    match st.map(|st| st.store.as_ref()) {
        Some(None) => ok("index store", "off (index.store_max_bytes = 0)"),
        Some(Some(store)) => {
            let detail = format!(
                "{}: {} of {}, {} entries, {} parses served",
                store.path.display(),
                kib(store.bytes),
                kib(store.cap_bytes),
                store.entries,
                store.hits
            );
            match &store.note {
                None => ok("index store", detail),
                Some(note) => bad(
                    "index store",
                    Level::Warn,
                    format!("{detail}; last: {note}"),
                    "a rebuilt store refills itself; on a full disk free space, or `lean-ctx daemon clear-cache`",
                ),
            }
        }
        None => {
            // One directory per build whose daemon runs or ran last (persist.rs).
            let path = paths.index_store_dir();
            let size: u64 = fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| fs::symlink_metadata(e.path().join("index.store")).ok())
                .map(|m| m.len())
                .sum();
            ok(
                "index store",
                format!("{}: {} on disk", path.display(), kib(size)),
            )
        }
    }
}

async fn daemon(paths: &Paths) -> (Finding, Option<StatusResponse>) {
    let reach = async {
        let conn = connect::connect_or_spawn(paths, "lean-ctx doctor", None).await?;
        let st = conn
            .client
            .status(tarpc::context::current(), StatusRequest {})
            .await
            .map_err(crate::output::rpc_error)??;
        Ok::<_, LeanError>(st)
    };
    let reached = tokio::time::timeout(Duration::from_secs(15), reach).await;
    let finding = match &reached {
        Ok(Ok(st)) if st.version == VERSION => ok(
            "daemon",
            format!(
                "lean-ctxd {} answers (pid {}, started by {})",
                st.version,
                st.pid,
                st.started_by.as_str()
            ),
        ),
        Ok(Ok(st)) => bad(
            "daemon",
            Level::Warn,
            format!(
                "lean-ctxd {} answers, this lean-ctx is {VERSION}",
                st.version
            ),
            "`lean-ctx daemon restart` runs this version",
        ),
        Ok(Err(e)) => bad(
            "daemon",
            Level::Fail,
            format!("{}: {}", e.code, e.message),
            e.remedy().to_string(),
        ),
        Err(_) => bad(
            "daemon",
            Level::Fail,
            "no answer within 15 s",
            "`lean-ctx daemon restart`; see `lean-ctx daemon logs`",
        ),
    };
    (finding, reached.ok().and_then(Result::ok))
}

fn socket(paths: &Paths) -> Finding {
    let socket = paths.socket();
    match fs::symlink_metadata(&socket) {
        Err(_) => bad(
            "socket",
            Level::Warn,
            format!("{} absent", socket.display()),
            "it appears when the daemon runs",
        ),
        Ok(meta) => {
            let mode = meta.permissions().mode() & 0o777;
            let uid = rustix::process::getuid().as_raw();
            if meta.uid() != uid || mode & 0o077 != 0 {
                bad(
                    "socket",
                    Level::Fail,
                    format!("{} is mode {mode:o}, uid {}", socket.display(), meta.uid()),
                    "`lean-ctx daemon restart` recreates it as 0600",
                )
            } else {
                ok("socket", format!("{} is 0600 and ours", socket.display()))
            }
        }
    }
}

/// The program the daemon runs for Rust: `lsp.rust` in config.toml (a command line
/// or an argument array; `"jetbrains"` means none), else `rust-analyzer` from PATH.
/// `[lsp]` of the config the daemon reads; a config it ignores chooses nothing here
/// either.
fn lsp_table(paths: &Paths) -> Option<toml::Table> {
    let file = paths.config_file();
    let home = lean_ctx_shared::paths::canonical_home();
    let table = lean_ctx_shared::paths::not_the_users_own(&file, home.as_deref())
        .is_none()
        .then(|| fs::read_to_string(&file).ok())
        .flatten()
        .and_then(|t| t.parse::<toml::Table>().ok())?;
    table.get("lsp")?.as_table().cloned()
}

/// The program of the server of language `key` (`lsp.<key>`, else `default`);
/// `None` for `"jetbrains"` (the IDE or nothing).
fn server_program(lsp: Option<&toml::Table>, key: &str, default: &str) -> Option<String> {
    let program = match lsp.and_then(|t| t.get(key)) {
        Some(toml::Value::String(line)) => line.split_whitespace().next().map(str::to_string),
        Some(toml::Value::Array(argv)) => argv.first().and_then(|a| a.as_str()).map(str::to_string),
        _ => default.split_whitespace().next().map(str::to_string),
    };
    program.filter(|p| p != "jetbrains")
}

/// Each language's server besides rust-analyzer's (its own finding): the one
/// configured, found or not, else the first known one found on the PATH servers run
/// with (`lean_ctx_shared::servers`). Languages with neither share one warning that
/// says what to install: outline, search, reads and symbol edits work without any.
fn language_servers(lsp: Option<&toml::Table>) -> Vec<Finding> {
    let path = lean_ctx_shared::tool_env::neutral_path();
    let path = path.as_deref();
    let mut findings = Vec::new();
    let mut missing = Vec::new();
    for (key, known) in servers::SERVERS.iter().filter(|(k, _)| *k != "rust") {
        let get = known.first().map_or("", |k| k.get);
        let configured = lsp.and_then(|t| t.get(*key)).is_some();
        match server_program(lsp, key, "") {
            None if configured => findings.push(ok(
                key,
                format!("lsp.{key} = \"jetbrains\": the IDE or nothing"),
            )),
            Some(program) if configured => findings.push(match servers::on_path(&program, path) {
                Some(found) => ok(key, format!("{program}: {}", found.display())),
                None => bad(
                    key,
                    Level::Warn,
                    format!("{program} not found: navigation in {key} files needs the IDE"),
                    format!(
                        "{get}; or set lsp.{key} in config.toml to its path, or to \"jetbrains\""
                    ),
                ),
            }),
            _ => match known
                .iter()
                .find_map(|k| Some((k, servers::on_path(servers::program(k.command), path)?)))
            {
                Some((k, found)) => {
                    findings.push(ok(key, format!("{}: {}", k.command, found.display())))
                }
                None => missing.push((key, known)),
            },
        }
    }
    if !missing.is_empty() {
        let names = |known: &[servers::Known]| {
            known
                .iter()
                .map(|k| servers::program(k.command))
                .collect::<Vec<_>>()
                .join(" or ")
        };
        findings.push(bad(
            "language servers",
            Level::Warn,
            format!(
                "no server found for {}: navigation in those files needs the IDE",
                missing
                    .iter()
                    .map(|(key, known)| format!("{key} ({})", names(known)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            missing
                .iter()
                .filter_map(|(key, known)| Some(format!("{key}: {}", known.first()?.get)))
                .collect::<Vec<_>>()
                .join("; "),
        ));
    }
    findings
}

/// Where `program` is, as the user's agent would find it (their PATH).
fn on_path(program: &str) -> Option<std::path::PathBuf> {
    servers::on_path(program, std::env::var_os("PATH").as_deref())
}

/// Whether language servers may start in `root` (the daemon's judgement).
async fn trust(paths: &Paths, root: &Path) -> Finding {
    let asked = async {
        let conn = connect::connect_or_spawn(paths, "lean-ctx doctor", None).await?;
        conn.client
            .open_project(
                tarpc::context::current(),
                OpenProjectRequest {
                    root: root.to_path_buf(),
                },
            )
            .await
            .map_err(crate::output::rpc_error)?
    };
    match tokio::time::timeout(Duration::from_secs(15), asked).await {
        Ok(Ok(p)) if p.trusted => ok("trust", format!("{} is trusted", p.root.display())),
        Ok(Ok(p)) => bad(
            "trust",
            Level::Warn,
            format!(
                "{} is not trusted: no language server starts in it",
                p.root.display()
            ),
            format!(
                "if you trust its code, `lean-ctx trust {}` (an agent cannot)",
                p.root.display()
            ),
        ),
        Ok(Err(e)) => bad(
            "trust",
            Level::Warn,
            e.message.clone(),
            e.remedy().to_string(),
        ),
        Err(_) => bad(
            "trust",
            Level::Warn,
            "the daemon did not answer within 15 s",
            "`lean-ctx daemon restart`",
        ),
    }
}

/// Each agent's MCP configuration that exists (in the project, or the user's): its
/// lean-ctx entry and the program it starts.
fn agents(root: &Path) -> Vec<Finding> {
    let home = crate::install::home().ok();
    let mut configs = vec![
        (
            "claude code",
            root.join(".mcp.json"),
            "mcpServers",
            "claude",
        ),
        (
            "vs code",
            root.join(".vscode/mcp.json"),
            "servers",
            "vscode",
        ),
    ];
    if let Some(home) = &home {
        configs.push((
            "cursor",
            home.join(".cursor/mcp.json"),
            "mcpServers",
            "cursor",
        ));
        configs.push((
            "codex",
            home.join(".codex/config.toml"),
            "mcp_servers",
            "codex",
        ));
    }
    configs
        .into_iter()
        .filter(|(_, file, ..)| file.exists())
        .map(|(check, file, key, agent)| {
            let setup = format!("`lean-ctx setup --write --agent {agent}`");
            let text = fs::read_to_string(&file).unwrap_or_default();
            let command = if agent == "codex" {
                text.parse::<toml::Table>().ok().and_then(|t| {
                    Some(t.get(key)?.get("lean-ctx")?.get("command")?.as_str()?.to_string())
                })
            } else {
                serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| {
                    Some(v.get(key)?.get("lean-ctx")?.get("command")?.as_str()?.to_string())
                })
            };
            match command {
                None => bad(
                    check,
                    Level::Warn,
                    format!("{}: no lean-ctx server", file.display()),
                    setup,
                ),
                Some(command) if on_path(&command).is_none() => bad(
                    check,
                    Level::Fail,
                    format!("{}: lean-ctx runs {command}, which is not there", file.display()),
                    setup,
                ),
                Some(_) if agent == "claude" => ok(
                    check,
                    format!(
                        "{}: lean-ctx configured; Claude Code asks once to approve a project's .mcp.json servers",
                        file.display()
                    ),
                ),
                Some(_) => ok(check, format!("{}: lean-ctx configured", file.display())),
            }
        })
        .collect()
}

/// rust-analyzer (as configured) and the std sources it needs; warnings only: the
/// headless backing works without them.
fn rust_analyzer(program: &Option<String>) -> Vec<Finding> {
    let mut findings = Vec::new();
    let Some(program) = program else {
        findings.push(ok("rust-analyzer", "lsp.rust = \"jetbrains\": not used"));
        return findings;
    };
    match probe(program, &["--version"]) {
        Ok(out) if out.status.success() => findings.push(ok(
            "rust-analyzer",
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
        )),
        Ok(out) => findings.push(bad(
            "rust-analyzer",
            Level::Warn,
            format!(
                "found but does not run: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
            ),
            "rustup component add rust-analyzer (or install it from your package manager)",
        )),
        Err(e) => findings.push(bad(
            "rust-analyzer",
            Level::Warn,
            format!("{program}: {e}"),
            "rustup component add rust-analyzer, or set lsp.rust in config.toml to one that runs",
        )),
    }
    let sysroot = probe("rustc", &["--print", "sysroot"])
        .ok()
        .filter(|o| o.status.success());
    match sysroot {
        Some(out) => {
            let src = Path::new(String::from_utf8_lossy(&out.stdout).trim())
                .join("lib/rustlib/src/rust/library");
            if src.is_dir() {
                findings.push(ok("rust-src", format!("{}", src.display())));
            } else {
                findings.push(bad(
                    "rust-src",
                    Level::Warn,
                    "the rust-src component is missing: std types stay unresolved",
                    "rustup component add rust-src",
                ));
            }
        }
        None => findings.push(bad(
            "rust-src",
            Level::Warn,
            "no rustc on PATH",
            "install Rust with rustup for Rust projects",
        )),
    }
    findings
}

/// Runs a tool the way the daemon would start it: the neutral environment (rustup
/// pinned to the user's default toolchain) and `/` as the working directory. Run
/// inside a repository, rustup's proxies would otherwise obey its
/// `rust-toolchain.toml` and run whatever binaries it points at.
fn probe(program: &str, args: &[&str]) -> std::io::Result<std::process::Output> {
    Command::new(program)
        .args(args)
        .env_clear()
        .envs(lean_ctx_shared::tool_env::neutral(std::env::vars_os()))
        .current_dir("/")
        .output()
}

/// JetBrains port files in the data dir, and whether each IDE answers: the same
/// proofs the daemon asks for (the file ours, 0600, no symlink; the listener the
/// pid's and ours) before `GET /health` carries the token.
fn ide_port_files(paths: &Paths) -> Vec<Finding> {
    let Ok(entries) = fs::read_dir(&paths.data_dir) else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with(PORT_FILE_PREFIX) && name.ends_with(PORT_FILE_SUFFIX)) {
            continue;
        }
        let port_file = match read_port_file(&entry.path()) {
            Ok(p) => p,
            Err(PortFileError::Gone) => continue,
            Err(PortFileError::Bad(why)) => {
                findings.push(bad(
                    "ide",
                    Level::Warn,
                    format!("{name}: not a port file ({why})"),
                    "delete it; the IDE rewrites it",
                ));
                continue;
            }
            Err(PortFileError::Untrusted { reason, .. }) => {
                findings.push(bad(
                    "ide",
                    Level::Warn,
                    format!("{name}: ignored, {reason}"),
                    "delete it if no IDE of yours wrote it; the plugin writes its own as 0600",
                ));
                continue;
            }
        };
        let root = port_file.project_root.display().to_string();
        let (pid, port) = (port_file.pid, port_file.port);
        let listener = verify_listener(port, pid, &[]);
        findings.push(if !pid_alive(pid) {
            bad(
                "ide",
                Level::Warn,
                format!("{root}: IDE pid {pid} is gone"),
                format!("delete {name}"),
            )
        } else if let Err(why) = listener {
            bad(
                "ide",
                Level::Warn,
                format!("{root}: not used, {why}"),
                "restart the IDE window (it writes a new port file)",
            )
        } else if health(port, &port_file.token) {
            ok("ide", format!("{root}: answers on port {port}"))
        } else {
            bad(
                "ide",
                Level::Warn,
                format!("{root}: port {port} does not answer /health within 300 ms"),
                "check the lean-ctx plugin in the IDE",
            )
        });
    }
    findings
}

/// `GET /health` on loopback within 300 ms, with the token (the published plugin
/// answers 401 to anything without it).
fn health(port: u16, token: &str) -> bool {
    let timeout = Duration::from_millis(300);
    let Ok(mut stream) = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), timeout) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let request = format!(
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-LeanCtx-Token: {token}\r\nConnection: close\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}
