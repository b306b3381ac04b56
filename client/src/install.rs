//! `lean-ctx daemon install|uninstall [--systemd|--launchd] [--dry-run]`: the daemon
//! as a background service. Units come from `systemd/` and `launchd/` in this
//! repository, written with the real path of `lean-ctxd`; every file carries a marker
//! so uninstall removes exactly what install wrote and never a unit of the user's.
//!
//! One service per wire schema (`shared::daemons`: a daemon per schema), so that an
//! upgrade never breaks a running session and never blocks a new one:
//! - systemd: template units `lean-ctx@.socket`/`lean-ctx@.service`, the instance
//!   being the schema's short form (the socket `lean-ctxd-<short>.sock`). Install
//!   enables and starts `lean-ctx@<this schema>.socket`, and disables and stops the
//!   socket of every other instance it finds enabled: the old build's daemon is not
//!   stopped (the service has no `Requires=` on its socket and keeps its copy of the
//!   listening socket), it serves its sessions until they end and then exits,
//!   superseded. A unit of the single-socket layout (`lean-ctx.socket`, before
//!   schemas had their own) is disabled without `--now`: its service requires its
//!   socket, so stopping it would stop the old daemon under its sessions; it stops
//!   at logout, and uninstall removes its files.
//! - launchd: a label per schema (`com.leanctx.daemon.<short>`). Install bootstraps the
//!   new one and removes the other schemas' plists without `bootout` (so they do not
//!   load at the next login, while their daemons exit on their own once superseded).
//!
//! Where the shim finds the activation socket of its schema listening it connects and
//! never spawns, and a spawned daemon never replaces a socket something accepts on
//! (`instance.rs`), so the socket-activated daemon and an auto-spawned one never fight
//! over a path.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, ExitCode},
};

use clap::Args;
use lean_ctx_shared::{LeanError, Paths, daemons};
use serde::Serialize;

use crate::{connect, output::Output};

const SOCKET_UNIT: &str = include_str!("../../systemd/lean-ctx@.socket");
const SERVICE_UNIT: &str = include_str!("../../systemd/lean-ctx@.service");
const PLIST: &str = include_str!("../../launchd/com.leanctx.daemon.plist");
/// The launchd label's prefix; the schema's short form follows.
const LABEL_PREFIX: &str = "com.leanctx.daemon";
/// The systemd units of the single-socket layout that preceded a socket per schema.
const LEGACY_UNITS: [&str; 2] = ["lean-ctx.socket", "lean-ctx.service"];

/// Marks files install wrote; uninstall removes only files that carry it.
const MARKER: &str = "Installed by lean-ctx";

#[derive(Debug, Default, Args)]
pub struct ServiceArgs {
    /// systemd user units (default on Linux).
    #[arg(long, conflicts_with = "launchd")]
    systemd: bool,
    /// A launchd LaunchAgent (default on macOS).
    #[arg(long)]
    launchd: bool,
    /// Show what would be written and run, change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Write (or remove) the files only; do not talk to systemctl/launchctl.
    #[arg(long)]
    no_start: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Manager {
    Systemd,
    Launchd,
}

impl ServiceArgs {
    fn manager(&self) -> Manager {
        match (self.systemd, self.launchd) {
            (true, _) => Manager::Systemd,
            (_, true) => Manager::Launchd,
            _ if cfg!(target_os = "macos") => Manager::Launchd,
            _ => Manager::Systemd,
        }
    }
}

#[derive(Debug, Serialize)]
struct FilePlan {
    path: PathBuf,
    content: String,
}

/// What install or uninstall does, shown by `--dry-run` and reported after the fact.
#[derive(Debug, Serialize)]
struct Plan {
    manager: Manager,
    dry_run: bool,
    write: Vec<FilePlan>,
    remove: Vec<PathBuf>,
    /// Run after the files are written (install) or before they are removed (uninstall).
    commands: Vec<Vec<String>>,
    /// Run after the files are removed (uninstall).
    after: Vec<Vec<String>>,
    /// Commands that failed, and why (best-effort steps of uninstall).
    warnings: Vec<String>,
}

impl Plan {
    fn new(manager: Manager, dry_run: bool) -> Plan {
        Plan {
            manager,
            dry_run,
            write: vec![],
            remove: vec![],
            commands: vec![],
            after: vec![],
            warnings: vec![],
        }
    }
}

pub(crate) fn home() -> Result<PathBuf, LeanError> {
    directories::BaseDirs::new()
        .map(|b| b.home_dir().to_path_buf())
        .ok_or_else(|| {
            LeanError::internal("cannot determine the home directory").with_remedy("set HOME")
        })
}

fn systemd_dir() -> Result<PathBuf, LeanError> {
    let config = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home()?.join(".config"),
    };
    Ok(config.join("systemd/user"))
}

/// This build's launchd label.
fn label() -> String {
    format!("{LABEL_PREFIX}.{}", daemons::schema_short())
}

fn launch_agents() -> Result<PathBuf, LeanError> {
    Ok(home()?.join("Library/LaunchAgents"))
}

fn plist_path(label: &str) -> Result<PathBuf, LeanError> {
    Ok(launch_agents()?.join(format!("{label}.plist")))
}

/// The labels of the lean-ctx plists in `dir` other than `ours` (other schemas', and
/// the single label of the layout before), sorted.
fn other_labels(dir: &Path, ours: &str) -> Vec<String> {
    let mut labels: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let label = name.strip_suffix(".plist")?;
            (label == LABEL_PREFIX || label.starts_with(&format!("{LABEL_PREFIX}.")))
                .then(|| label.to_string())
        })
        .filter(|l| l != ours)
        .collect();
    labels.sort();
    labels
}

/// The schemas (instances) whose `lean-ctx@<short>.socket` is enabled in the user's
/// systemd directory `dir`, sorted: what `systemctl --user enable` linked into
/// `sockets.target.wants`.
fn enabled_instances(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = fs::read_dir(dir.join("sockets.target.wants"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            Some(
                name.strip_prefix("lean-ctx@")?
                    .strip_suffix(".socket")?
                    .to_string(),
            )
        })
        .filter(|i| !i.is_empty())
        .collect();
    found.sort();
    found
}

/// `systemctl --user ARGS`.
fn systemctl(args: &[&str]) -> Vec<String> {
    let mut argv = cmd(&["systemctl", "--user"]);
    argv.extend(args.iter().map(|a| a.to_string()));
    argv
}

fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

fn cmd(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn install_plan(
    manager: Manager,
    paths: &Paths,
    dry_run: bool,
    start: bool,
) -> Result<Plan, LeanError> {
    let daemon = connect::daemon_binary()?;
    let daemon = fs::canonicalize(&daemon).unwrap_or(daemon);
    let header = format!(
        "{MARKER} {}; `lean-ctx daemon uninstall` removes it.",
        lean_ctx_shared::protocol::VERSION
    );
    let mut plan = Plan::new(manager, dry_run);
    match manager {
        Manager::Systemd => {
            let dir = systemd_dir()?;
            let exec = format!("ExecStart={} --foreground", daemon.display());
            plan.write.push(FilePlan {
                path: dir.join("lean-ctx@.socket"),
                content: format!("# {header}\n{SOCKET_UNIT}"),
            });
            plan.write.push(FilePlan {
                path: dir.join("lean-ctx@.service"),
                content: format!(
                    "# {header}\n{}",
                    SERVICE_UNIT.replace("ExecStart=lean-ctxd --foreground", &exec)
                ),
            });
            if start {
                let ours = daemons::schema_short();
                plan.commands.push(systemctl(&["daemon-reload"]));
                plan.commands.push(systemctl(&[
                    "enable",
                    "--now",
                    &format!("lean-ctx@{ours}.socket"),
                ]));
                // The other schemas' sockets stop taking new sessions; their daemons
                // serve the running ones and exit once those end (module doc).
                for old in enabled_instances(&dir).iter().filter(|i| *i != ours) {
                    plan.commands.push(systemctl(&[
                        "disable",
                        "--now",
                        &format!("lean-ctx@{old}.socket"),
                    ]));
                }
                if ours_legacy(&dir).next().is_some() {
                    plan.commands.push(systemctl(&["disable", LEGACY_UNITS[0]]));
                }
            }
        }
        Manager::Launchd => {
            let label = label();
            let content = PLIST
                .replace("@LABEL@", &label)
                .replace("@LEAN_CTXD@", &xml_escape(&daemon.display().to_string()))
                .replace(
                    "@LOG_DIR@",
                    &xml_escape(&paths.state_dir.display().to_string()),
                )
                .replacen("<plist ", &format!("<!-- {header} -->\n<plist "), 1);
            let path = plist_path(&label)?;
            if start {
                plan.commands.push(vec![
                    "launchctl".into(),
                    "bootstrap".into(),
                    format!("gui/{}", uid()),
                    path.display().to_string(),
                ]);
            }
            plan.write.push(FilePlan { path, content });
            // Not loaded at the next login; the running job is left to exit on its own.
            for old in other_labels(&launch_agents()?, &label) {
                let path = plist_path(&old)?;
                if fs::read_to_string(&path).is_ok_and(|t| t.contains(MARKER)) {
                    plan.remove.push(path);
                }
            }
        }
    }
    Ok(plan)
}

fn uninstall_plan(manager: Manager, dry_run: bool, stop: bool) -> Result<Plan, LeanError> {
    let mut plan = Plan::new(manager, dry_run);
    let candidates = match manager {
        Manager::Systemd => {
            let dir = systemd_dir()?;
            if stop {
                let mut instances = enabled_instances(&dir);
                let ours = daemons::schema_short().to_string();
                if !instances.contains(&ours) {
                    instances.push(ours);
                }
                let mut argv = systemctl(&["disable", "--now"]);
                for i in &instances {
                    argv.push(format!("lean-ctx@{i}.socket"));
                    argv.push(format!("lean-ctx@{i}.service"));
                }
                plan.commands.push(argv);
                if ours_legacy(&dir).next().is_some() {
                    let mut argv = systemctl(&["disable", "--now"]);
                    argv.extend(LEGACY_UNITS.iter().map(|u| u.to_string()));
                    plan.commands.push(argv);
                }
            }
            ["lean-ctx@.socket", "lean-ctx@.service"]
                .iter()
                .chain(&LEGACY_UNITS)
                .map(|u| dir.join(u))
                .collect()
        }
        Manager::Launchd => {
            let ours = label();
            let mut labels = other_labels(&launch_agents()?, &ours);
            labels.insert(0, ours);
            if stop {
                for l in &labels {
                    plan.commands.push(vec![
                        "launchctl".into(),
                        "bootout".into(),
                        format!("gui/{}/{l}", uid()),
                    ]);
                }
            }
            labels
                .iter()
                .map(|l| plist_path(l))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    for path in candidates {
        match fs::read_to_string(&path) {
            Ok(text) if text.contains(MARKER) => plan.remove.push(path),
            Ok(_) => plan.warnings.push(format!(
                "{} was not written by lean-ctx; left in place",
                path.display()
            )),
            Err(_) => {}
        }
    }
    if stop && manager == Manager::Systemd {
        plan.after
            .push(cmd(&["systemctl", "--user", "daemon-reload"]));
    }
    Ok(plan)
}

/// The single-socket layout's units in `dir` that install wrote (carrying the marker).
fn ours_legacy(dir: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    LEGACY_UNITS
        .iter()
        .map(|u| dir.join(u))
        .filter(|p| fs::read_to_string(p).is_ok_and(|t| t.contains(MARKER)))
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn run_command(argv: &[String]) -> Result<(), String> {
    match Command::new(&argv[0]).args(&argv[1..]).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "`{}` failed ({}): {}",
            argv.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("`{}` could not run: {e}", argv.join(" "))),
    }
}

fn write_file(path: &Path, content: &str) -> Result<(), LeanError> {
    let fail =
        |e: std::io::Error| LeanError::internal(format!("cannot write {}: {e}", path.display()));
    if let Ok(existing) = fs::read_to_string(path)
        && !existing.contains(MARKER)
    {
        return Err(LeanError::internal(format!(
            "{} exists and was not written by lean-ctx",
            path.display()
        ))
        .with_remedy("move it away (it is yours), then install again"));
    }
    lean_ctx_shared::paths::write_atomic(path, content.as_bytes()).map_err(fail)
}

pub async fn install(
    args: ServiceArgs,
    paths: &Paths,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let mut plan = install_plan(args.manager(), paths, args.dry_run, !args.no_start)?;
    if !args.dry_run {
        for file in &plan.write {
            write_file(&file.path, &file.content)?;
        }
        if !plan.commands.is_empty() {
            // A daemon the shim started holds the socket path the service manager is
            // about to take over: hand over by stopping it first.
            if let Ok(Some(conn)) = connect::connect_running(paths, "lean-ctx daemon install").await
            {
                let _ = conn
                    .client
                    .shutdown(
                        tarpc::context::current(),
                        lean_ctx_shared::protocol::ShutdownRequest {
                            reason: "handing over to the service manager".into(),
                        },
                    )
                    .await;
                connect::wait_for_exit(conn.server.pid, std::time::Duration::from_secs(35)).await;
            }
        }
        for argv in &plan.commands {
            if let Err(e) = run_command(argv) {
                let rest: Vec<String> = plan.commands.iter().map(|c| c.join(" ")).collect();
                return Err(LeanError::internal(format!(
                    "wrote {}, but {e}",
                    plan.write
                        .iter()
                        .map(|f| f.path.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .with_remedy(format!(
                    "start it yourself: {} (or `lean-ctx daemon uninstall` to undo)",
                    rest.join(" && ")
                )));
            }
        }
    }
    plan.warnings.clear();
    report(&plan, out, "install");
    Ok(ExitCode::SUCCESS)
}

pub async fn uninstall(args: ServiceArgs, out: &Output) -> Result<ExitCode, LeanError> {
    let mut plan = uninstall_plan(args.manager(), args.dry_run, !args.no_start)?;
    if !args.dry_run {
        // Stopping is best effort (the manager may not run, the unit may not be
        // loaded); the files go regardless.
        let mut warnings: Vec<String> = plan
            .commands
            .iter()
            .filter_map(|argv| run_command(argv).err())
            .collect();
        for path in &plan.remove {
            fs::remove_file(path).map_err(|e| {
                LeanError::internal(format!("cannot remove {}: {e}", path.display()))
            })?;
        }
        warnings.extend(plan.after.iter().filter_map(|argv| run_command(argv).err()));
        plan.warnings.extend(warnings);
    }
    report(&plan, out, "uninstall");
    Ok(ExitCode::SUCCESS)
}

fn report(plan: &Plan, out: &Output, verb: &str) {
    out.emit(plan, || {
        let would = if plan.dry_run { "would " } else { "" };
        let mut s = format!(
            "{verb} ({}){}\n",
            match plan.manager {
                Manager::Systemd => "systemd user units",
                Manager::Launchd => "launchd agent",
            },
            if plan.dry_run { ", dry run" } else { "" }
        );
        for f in &plan.write {
            s.push_str(&format!("  {would}write {}\n", f.path.display()));
            if plan.dry_run {
                for line in f.content.lines() {
                    s.push_str(&format!("    | {line}\n"));
                }
            }
        }
        for p in &plan.remove {
            s.push_str(&format!("  {would}remove {}\n", p.display()));
        }
        for c in plan.commands.iter().chain(&plan.after) {
            s.push_str(&format!("  {would}run {}\n", c.join(" ")));
        }
        for w in &plan.warnings {
            s.push_str(&format!("  warning: {w}\n"));
        }
        if plan.write.is_empty()
            && plan.remove.is_empty()
            && plan.commands.is_empty()
            && plan.after.is_empty()
        {
            s.push_str("  nothing to do\n");
        }
        s.trim_end().to_string()
    });
}
