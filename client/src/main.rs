//! `lean-ctx`: the thin shim (ARCHITECTURE.md, `client/`). It parses and validates
//! arguments, resolves the project root from where it runs, forwards one call to
//! `lean-ctxd` (spawning it when needed) and prints the answer: for people by default,
//! as JSON with `--json`. It holds no index and starts no language server.

mod calls;
mod code_cmd;
mod connect;
mod daemon_cmd;
mod dashboard_cmd;
mod doctor;
mod gain_cmd;
mod install;
mod mcp;
mod output;
mod request;
mod root;
mod setup;
mod trust_cmd;

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};
use lean_ctx_shared::{
    LeanError, Paths,
    editor_signal::{self, EditorSignal},
    protocol::{LanguageServerOp, LanguageServersRequest, OpenProjectRequest},
};

use crate::output::Output;

#[derive(Debug, Parser)]
#[command(name = "lean-ctx", version = lean_ctx_shared::protocol::VERSION, about = "Code intelligence for AI coding agents, served by one warm per-user daemon")]
struct Cli {
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Project root (default: the innermost git worktree around the working directory,
    /// else the nearest Cargo.toml/package.json/pyproject.toml/go.mod/pom.xml/build.gradle, else it).
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Manage the lean-ctxd daemon.
    #[command(subcommand)]
    Daemon(daemon_cmd::DaemonCommand),
    /// Register this project with the daemon and show what it knows about it.
    Project,
    /// The symbols of a file, or of every indexed file under a directory.
    Outline(code_cmd::OutlineArgs),
    /// The project's indexed files as a tree, with per-directory file counts and
    /// languages.
    Tree(code_cmd::TreeArgs),
    /// Find symbols across the project by name, substring or `Type/member`.
    Search(code_cmd::SearchArgs),
    /// Read files (whole, a window of lines, one symbol, signatures or a map), each
    /// with the hash that guards the next edit; with a session, re-reads are short.
    Read(code_cmd::ReadArgs),
    /// Symbol-level reads and edits (the MCP tool `ctx_refactor`'s actions).
    #[command(subcommand)]
    Refactor(code_cmd::RefactorCommand),
    /// The warm language servers of this project (`--all`: of every project), and the
    /// server each of its languages gets (found on PATH or configured); evict or
    /// restart them.
    Servers {
        #[arg(value_enum, default_value_t = ServersOp::List)]
        op: ServersOp,
        /// Only this language (rust, python, ...).
        #[arg(long)]
        language: Option<String>,
        /// Every project's servers, not only this one's.
        #[arg(long)]
        all: bool,
    },
    /// Serve MCP over stdio for an agent session (tools ctx_outline, ctx_tree,
    /// ctx_search, ctx_read, ctx_refactor) in the project around the working directory.
    Mcp,
    /// Record the file an editor focused, so search ranks it first (path only, never
    /// content; editors call this on focus changes).
    EditorSignal {
        #[arg(long, value_name = "PATH")]
        file: PathBuf,
    },
    /// Configure agents to use `lean-ctx mcp` (prints; --write merges into their files
    /// and trusts the project).
    Setup(setup::SetupArgs),
    /// Let language servers run in a project (they run its code): trust DIR, default
    /// the project root; --remove withdraws it, --list shows the list.
    Trust(trust_cmd::TrustArgs),
    /// Check the daemon, directories, socket, rust-analyzer, IDE port files and config.
    Doctor,
    /// Tokens saved against reading the raw material (from stats.json).
    Gain(gain_cmd::GainArgs),
    /// Open the daemon's live web dashboard (--no-open prints a one-time link instead).
    Dashboard(dashboard_cmd::DashboardArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff), generated from these very definitions:
    /// `lean-ctx man | man -l -`, or save it as lean-ctx.1.
    Man,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ServersOp {
    List,
    Evict,
    Restart,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let out = Output {
        json: cli.json,
        quiet: false,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return out.error(&LeanError::internal(format!("cannot start runtime: {e}"))),
    };
    match runtime.block_on(run(cli, &out)) {
        Ok(code) => code,
        Err(e) => out.error(&e),
    }
}

async fn run(cli: Cli, out: &Output) -> Result<ExitCode, LeanError> {
    let paths = Paths::from_env().map_err(connect::paths_error)?;
    let command = match cli.command {
        Command::Daemon(cmd) => return daemon_cmd::run(cmd, &paths, out).await,
        Command::EditorSignal { file } => return editor_signal(&paths, &file, out),
        Command::Gain(args) => return gain_cmd::run(args, &paths, out),
        Command::Dashboard(args) => return dashboard_cmd::run(args, &paths, out).await,
        Command::Completions { shell } => {
            // Written whole, then printed: `| head` must not panic the generator.
            let mut script = Vec::new();
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "lean-ctx",
                &mut script,
            );
            output::print(String::from_utf8_lossy(&script).trim_end());
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut page)
                .map_err(|e| LeanError::internal(format!("cannot render the manual: {e}")))?;
            output::print(String::from_utf8_lossy(&page).trim_end());
            return Ok(ExitCode::SUCCESS);
        }
        command => command,
    };
    // Every other verb is about the project around the working directory.
    let cwd = std::env::current_dir()
        .map_err(|e| LeanError::internal(format!("cannot read the working directory: {e}")))?;
    let home = lean_ctx_shared::paths::canonical_home();
    let root = root::resolve(&cwd, cli.root.as_deref(), home.as_deref())?;
    match command {
        // Answers `initialize` before the daemon is even reached.
        Command::Mcp => return mcp::serve(paths, root).await,
        Command::Setup(args) => return setup::run(args, &root, &paths, out).await,
        Command::Doctor => return doctor::run(&paths, &root, out).await,
        Command::Trust(args) => return trust_cmd::run(args, &root, &paths, out),
        _ => {}
    }
    let conn = connect::connect_or_spawn(&paths, "lean-ctx cli", Some(&root)).await?;
    match command {
        Command::Daemon(_)
        | Command::Mcp
        | Command::Setup(_)
        | Command::Trust(_)
        | Command::Doctor
        | Command::Man
        | Command::Gain(_)
        | Command::Dashboard(_)
        | Command::EditorSignal { .. }
        | Command::Completions { .. } => unreachable!("handled above"),
        Command::Outline(args) => code_cmd::outline(&conn, root, args, out).await,
        Command::Tree(args) => code_cmd::tree(&conn, root, args, out).await,
        Command::Search(args) => code_cmd::search(&conn, root, args, out).await,
        Command::Read(args) => code_cmd::read(&conn, root, args, out).await,
        Command::Refactor(cmd) => code_cmd::refactor(&conn, root, cmd, out).await,
        Command::Servers { op, language, all } => {
            let root = std::fs::canonicalize(&root).unwrap_or(root);
            let resp = conn
                .client
                .language_servers(
                    tarpc::context::current(),
                    LanguageServersRequest {
                        op: match op {
                            ServersOp::List => LanguageServerOp::List,
                            ServersOp::Evict => LanguageServerOp::Evict,
                            ServersOp::Restart => LanguageServerOp::Restart,
                        },
                        root: (!all).then_some(root),
                        language,
                    },
                )
                .await
                .map_err(output::rpc_error)??;
            out.servers(&resp, matches!(op, ServersOp::List));
            Ok(ExitCode::SUCCESS)
        }
        Command::Project => {
            let project = conn
                .client
                .open_project(tarpc::context::current(), OpenProjectRequest { root })
                .await
                .map_err(output::rpc_error)??;
            out.project(&project);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes the editor signal file; no daemon involved, so an editor's focus change
/// costs one small file write.
fn editor_signal(
    paths: &Paths,
    file: &std::path::Path,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let file = std::fs::canonicalize(cwd.join(file))
        .ok()
        .filter(|f| f.is_file())
        .ok_or_else(|| {
            LeanError::new(
                lean_ctx_shared::ErrorCode::FileNotFound,
                format!("{} is not an existing file", file.display()),
            )
            .with_remedy("pass the focused file's path")
        })?;
    let mut signal = EditorSignal::read(&paths.data_dir);
    signal.focus(file.clone(), editor_signal::now_ms());
    signal.write(&paths.data_dir).map_err(|e| {
        LeanError::internal(format!(
            "cannot write the editor signal in {}: {e}",
            paths.data_dir.display()
        ))
    })?;
    out.emit(&serde_json::json!({"active_file": file}), || {
        format!("focused {}", file.display())
    });
    Ok(ExitCode::SUCCESS)
}
