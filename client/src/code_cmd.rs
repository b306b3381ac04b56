//! The code verbs: `outline`, `search`, and `refactor <action>` for every
//! `ctx_refactor` action (symbols_overview, the symbol edits, navigation, type
//! hierarchy, inspections, reformat, rename, move, safe_delete, inline). Each validates
//! its arguments into one protocol request, sends it, and prints the answer compactly.
//! While the project's first index (or its language server's first load) runs, they
//! show a progress bar (on a terminal) and retry, unless `--no-wait`.

use std::{
    io::{IsTerminal, Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::{Args, Subcommand};
use lean_ctx_shared::{
    ErrorCode, ErrorDetails, LeanError,
    protocol::{
        Direction, EditAction, EditRequest, EditTarget, FilePosition, InspectionsMode,
        InspectionsRequest, LeanCtxClient, NavigateAction, NavigateRequest, OutlineRequest,
        RefactorKind, RefactorOptions, RefactorPhase, RefactorRequest, ReformatRequest,
        ReformatScope, Scope, SearchSymbolRequest, SymbolKind, SymbolsOverviewRequest,
        TypeHierarchyRequest,
    },
    transport::Connection,
};

use lean_ctx_shared::render;

use crate::{
    calls::Call,
    output::{Output, rpc_error},
};

/// Longest the CLI waits for a first index before giving up.
const MAX_INDEX_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// A file or directory (default: the whole project).
    path: Option<String>,
    /// Levels of children to show.
    #[arg(long, default_value_t = 1)]
    depth: u32,
    /// Most files to list.
    #[arg(long, default_value_t = 200)]
    limit: u32,
    /// Answer INDEXING at once instead of waiting for the first index.
    #[arg(long)]
    no_wait: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// A name, a substring, or a qualified `Type/member`.
    query: String,
    /// Only symbols of this kind (struct, function, method, class, ...).
    #[arg(long, value_parser = parse_kind)]
    kind: Option<SymbolKind>,
    /// Only under this file or directory.
    #[arg(long)]
    path: Option<String>,
    #[arg(long, default_value_t = 50)]
    limit: u32,
    #[arg(long)]
    no_wait: bool,
}

fn parse_kind(s: &str) -> Result<SymbolKind, String> {
    SymbolKind::parse(s).ok_or_else(|| {
        let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind {s:?}; one of: {}", all.join(", "))
    })
}

#[derive(Debug, Subcommand)]
pub enum RefactorCommand {
    /// The symbols of one file.
    SymbolsOverview {
        path: String,
        #[arg(long, default_value_t = 0)]
        depth: u32,
    },
    /// Replace a symbol's whole declaration.
    ReplaceSymbolBody {
        #[command(flatten)]
        target: TargetArgs,
        /// The new declaration; `-` reads it from stdin.
        #[arg(long, value_name = "TEXT")]
        new_body: String,
    },
    /// Insert text on the lines before a symbol.
    InsertBeforeSymbol {
        #[command(flatten)]
        target: TargetArgs,
        /// The text; `-` reads it from stdin.
        #[arg(long)]
        text: String,
    },
    /// Insert text on the lines after a symbol.
    InsertAfterSymbol {
        #[command(flatten)]
        target: TargetArgs,
        #[arg(long)]
        text: String,
    },
    /// Every reference to the symbol at a position (declaration included).
    References(NavArgs),
    /// Where the symbol at a position is defined.
    Definition(NavArgs),
    /// Implementations of the trait, interface or method at a position.
    Implementations(NavArgs),
    /// Where the symbol at a position is declared.
    Declaration(NavArgs),
    /// Supertypes or subtypes of the type at a position.
    TypeHierarchy {
        #[command(flatten)]
        nav: NavArgs,
        #[arg(long, value_enum, default_value_t = DirectionArg::Supertypes)]
        direction: DirectionArg,
    },
    /// A file's diagnostics (`--mode run`) or the diagnostic sources (`--mode list`).
    Inspections {
        path: String,
        #[arg(long, value_enum, default_value_t = ModeArg::Run)]
        mode: ModeArg,
        #[arg(long, default_value_t = 100)]
        limit: u32,
        #[arg(long)]
        no_wait: bool,
    },
    /// Format a file in place with its language server's formatter.
    Reformat {
        path: String,
        /// BLAKE3 hex of the whole file as you last read it.
        #[arg(long)]
        expected_hash: Option<String>,
        #[arg(long)]
        no_wait: bool,
    },
    /// Rename the symbol at a position across the project: applies at once unless
    /// --preview; with --plan-hash only if the plan is still the previewed one.
    Rename {
        #[command(flatten)]
        nav: NavArgs,
        #[arg(long)]
        new_name: String,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Move the symbol at a position to another file or package (needs the IDE).
    Move {
        #[command(flatten)]
        nav: NavArgs,
        /// The target file, directory or package.
        #[arg(long)]
        destination: String,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Delete the symbol at a position if nothing uses it (needs the IDE).
    SafeDelete {
        #[command(flatten)]
        nav: NavArgs,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Inline the symbol at a position into its usages (needs the IDE).
    Inline {
        #[command(flatten)]
        nav: NavArgs,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
}

/// A position and how many results.
#[derive(Debug, Args)]
pub struct NavArgs {
    /// `PATH:LINE:COLUMN` (line 1-based, column 0-based in characters), as grep and
    /// compilers print it.
    #[arg(value_parser = parse_location)]
    at: (String, u32, u32),
    /// `all` includes libraries and the standard library.
    #[arg(long, value_enum, default_value_t = ScopeArg::Project)]
    scope: ScopeArg,
    #[arg(long, default_value_t = 100)]
    limit: u32,
    /// Answer INDEXING at once instead of waiting for the language server.
    #[arg(long)]
    no_wait: bool,
}

impl NavArgs {
    fn position(&self) -> FilePosition {
        FilePosition {
            path: from_cwd(&self.at.0),
            line: self.at.1,
            column: self.at.2,
        }
    }
}

#[derive(Debug, Args)]
pub struct TwoPhaseArgs {
    /// Show usages, conflicts and the plan hash; write nothing.
    #[arg(long)]
    preview: bool,
    /// Apply only if the plan still hashes to this (from a preview).
    #[arg(long, conflicts_with = "preview")]
    plan_hash: Option<String>,
    /// Apply despite conflicts.
    #[arg(long, conflicts_with = "preview")]
    force: bool,
}

impl TwoPhaseArgs {
    fn phase(&self) -> RefactorPhase {
        if self.preview {
            RefactorPhase::Preview
        } else {
            RefactorPhase::Apply {
                plan_hash: self.plan_hash.clone(),
                force: self.force,
            }
        }
    }
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ScopeArg {
    Project,
    All,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum DirectionArg {
    Supertypes,
    Subtypes,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ModeArg {
    Run,
    List,
}

fn parse_location(s: &str) -> Result<(String, u32, u32), String> {
    let mut parts = s.rsplitn(3, ':');
    let (column, line, path) = (parts.next(), parts.next(), parts.next());
    match (
        path,
        line.map(str::parse::<u32>),
        column.map(str::parse::<u32>),
    ) {
        (Some(path), Some(Ok(line)), Some(Ok(column))) if !path.is_empty() && line > 0 => {
            Ok((path.to_string(), line, column))
        }
        _ => Err(format!(
            "{s:?} is not PATH:LINE:COLUMN (line 1-based, column 0-based), e.g. src/lib.rs:12:4"
        )),
    }
}

#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The symbol, e.g. `Point/new` (qualify to disambiguate).
    #[arg(long)]
    name_path: Option<String>,
    /// The file (scopes --name-path; required with --line).
    #[arg(long)]
    path: Option<String>,
    /// 1-based line of the symbol (instead of --name-path).
    #[arg(long, conflicts_with = "name_path")]
    line: Option<u32>,
    /// With --line: address exactly the lines line..=end_line.
    #[arg(long, requires = "line")]
    end_line: Option<u32>,
    /// BLAKE3 hex of the target's current bytes; the edit is refused if they differ.
    #[arg(long)]
    expected_hash: Option<String>,
    /// Write even if the result does not parse.
    #[arg(long)]
    force: bool,
}

impl TargetArgs {
    fn target(&self) -> Result<EditTarget, LeanError> {
        match (&self.name_path, &self.path, self.line) {
            (Some(name_path), path, None) => Ok(EditTarget::NamePath {
                name_path: name_path.clone(),
                path: path.as_deref().map(from_cwd),
            }),
            (None, Some(path), Some(line)) => Ok(EditTarget::Lines {
                path: from_cwd(path),
                line,
                end_line: self.end_line,
            }),
            _ => Err(LeanError::new(ErrorCode::NoSymbol, "no target")
                .with_remedy("give --name-path, or --path with --line")),
        }
    }
}

/// Paths on the command line are relative to where the shim runs (the daemon resolves
/// relative paths against the project root, as agents give them).
fn from_cwd(path: &str) -> String {
    if path.is_empty() || Path::new(path).is_absolute() {
        return path.to_string();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path).to_string_lossy().into_owned(),
        Err(_) => path.to_string(),
    }
}

fn text_arg(text: &str) -> Result<String, LeanError> {
    if text != "-" {
        return Ok(text.to_string());
    }
    let mut buf = String::new();
    std::io::stdin()
        .read_to_string(&mut buf)
        .map_err(|e| LeanError::internal(format!("cannot read stdin: {e}")))?;
    Ok(buf)
}

/// Calls `f` until it answers something other than `INDEXING`, drawing progress.
async fn waiting<T, F, Fut>(out: &Output, no_wait: bool, mut f: F) -> Result<T, LeanError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, LeanError>>,
{
    let started = Instant::now();
    let bar = !out.json && std::io::stderr().is_terminal();
    let mut drew = false;
    loop {
        match f().await {
            Err(e)
                if e.code == ErrorCode::Indexing
                    && !no_wait
                    && started.elapsed() < MAX_INDEX_WAIT =>
            {
                if bar {
                    if let Some(ErrorDetails::Progress(p)) = &e.details {
                        let filled = p.percent as usize / 5;
                        eprint!(
                            "\rindexing [{}{}] {:>3}% {}   ",
                            "#".repeat(filled),
                            " ".repeat(20 - filled),
                            p.percent,
                            p.message
                        );
                        let _ = std::io::stderr().flush();
                        drew = true;
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => {
                if drew {
                    eprint!("\r{}\r", " ".repeat(60));
                }
                return other;
            }
        }
    }
}

/// Each attempt waits this long in the daemon before it answers `INDEXING`.
const WAIT_SLICE_MS: u32 = 250;

pub async fn outline(
    conn: &Connection,
    root: PathBuf,
    args: OutlineArgs,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let client = &conn.client;
    let resp = waiting(out, args.no_wait, || {
        call_outline(
            client,
            OutlineRequest {
                root: root.clone(),
                path: args
                    .path
                    .as_deref()
                    .map(from_cwd)
                    .unwrap_or_else(|| from_cwd(".")),
                depth: args.depth,
                limit: args.limit,
                wait_ms: if args.no_wait { 0 } else { WAIT_SLICE_MS },
            },
        )
    })
    .await?;
    out.emit(&resp, || render::outline(&resp));
    Ok(ExitCode::SUCCESS)
}

async fn call_outline(
    client: &LeanCtxClient,
    req: OutlineRequest,
) -> Result<lean_ctx_shared::protocol::OutlineResponse, LeanError> {
    client
        .outline(tarpc::context::current(), req)
        .await
        .map_err(rpc_error)?
}

pub async fn search(
    conn: &Connection,
    root: PathBuf,
    args: SearchArgs,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let client = &conn.client;
    let resp = waiting(out, args.no_wait, || async {
        client
            .search_symbol(
                tarpc::context::current(),
                SearchSymbolRequest {
                    root: root.clone(),
                    query: args.query.clone(),
                    kind: args.kind,
                    path: args.path.as_deref().map(from_cwd),
                    limit: args.limit,
                    wait_ms: if args.no_wait { 0 } else { WAIT_SLICE_MS },
                },
            )
            .await
            .map_err(rpc_error)?
    })
    .await?;
    out.emit(&resp, || render::search(&resp, &args.query));
    Ok(ExitCode::SUCCESS)
}

pub async fn refactor(
    conn: &Connection,
    root: PathBuf,
    cmd: RefactorCommand,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let client = &conn.client;
    let (action, target, text) = match cmd {
        RefactorCommand::SymbolsOverview { path, depth } => {
            let resp = client
                .symbols_overview(
                    tarpc::context::current(),
                    SymbolsOverviewRequest {
                        root,
                        path: from_cwd(&path),
                        depth,
                    },
                )
                .await
                .map_err(rpc_error)??;
            out.emit(&resp, || render::symbols_overview(&resp));
            return Ok(ExitCode::SUCCESS);
        }
        RefactorCommand::ReplaceSymbolBody { target, new_body } => {
            (EditAction::ReplaceSymbolBody, target, new_body)
        }
        RefactorCommand::InsertBeforeSymbol { target, text } => {
            (EditAction::InsertBeforeSymbol, target, text)
        }
        RefactorCommand::InsertAfterSymbol { target, text } => {
            (EditAction::InsertAfterSymbol, target, text)
        }
        other => return language_server_action(client, root, other, out).await,
    };
    let req = EditRequest {
        root,
        action,
        target: target.target()?,
        text: text_arg(&text)?,
        expected_hash: target.expected_hash.clone(),
        force: target.force,
        wait_ms: WAIT_SLICE_MS,
    };
    let resp = waiting(out, false, || async {
        let mut ctx = tarpc::context::current();
        ctx.deadline = Instant::now() + Duration::from_secs(60);
        client
            .edit_symbol(ctx, req.clone())
            .await
            .map_err(rpc_error)?
    })
    .await?;
    out.emit(&resp, || render::edit(action, &resp));
    Ok(ExitCode::SUCCESS)
}

/// Language servers and refactorings may work a while on a big workspace; the shim's
/// default tarpc deadline (10 s) is for quick calls.
fn long_call() -> tarpc::context::Context {
    let mut ctx = tarpc::context::current();
    ctx.deadline = Instant::now() + Duration::from_secs(180);
    ctx
}

/// The actions a language server (or the IDE) answers.
async fn language_server_action(
    client: &LeanCtxClient,
    root: PathBuf,
    cmd: RefactorCommand,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let wait = |no_wait: bool| if no_wait { 0 } else { WAIT_SLICE_MS };
    let navigate = |action, nav: &NavArgs| NavigateRequest {
        root: root.clone(),
        action,
        at: nav.position(),
        scope: match nav.scope {
            ScopeArg::Project => Scope::Project,
            ScopeArg::All => Scope::All,
        },
        limit: nav.limit,
        wait_ms: wait(nav.no_wait),
    };
    let refactor = |kind, nav: &NavArgs, two: &TwoPhaseArgs| RefactorRequest {
        root: root.clone(),
        kind,
        at: nav.position(),
        phase: two.phase(),
        limit: nav.limit,
        wait_ms: wait(nav.no_wait),
        options: RefactorOptions::default(),
    };
    let (no_wait, call) = match &cmd {
        RefactorCommand::References(nav) => (
            nav.no_wait,
            Call::Navigate(navigate(NavigateAction::References, nav)),
        ),
        RefactorCommand::Definition(nav) => (
            nav.no_wait,
            Call::Navigate(navigate(NavigateAction::Definition, nav)),
        ),
        RefactorCommand::Implementations(nav) => (
            nav.no_wait,
            Call::Navigate(navigate(NavigateAction::Implementations, nav)),
        ),
        RefactorCommand::Declaration(nav) => (
            nav.no_wait,
            Call::Navigate(navigate(NavigateAction::Declaration, nav)),
        ),
        RefactorCommand::TypeHierarchy { nav, direction } => (
            nav.no_wait,
            Call::TypeHierarchy(TypeHierarchyRequest {
                root: root.clone(),
                at: nav.position(),
                direction: match direction {
                    DirectionArg::Supertypes => Direction::Supertypes,
                    DirectionArg::Subtypes => Direction::Subtypes,
                },
                scope: Scope::Project,
                limit: nav.limit,
                wait_ms: wait(nav.no_wait),
            }),
        ),
        RefactorCommand::Inspections {
            path,
            mode,
            limit,
            no_wait,
        } => (
            *no_wait,
            Call::Inspections(InspectionsRequest {
                root: root.clone(),
                path: from_cwd(path),
                mode: match mode {
                    ModeArg::Run => InspectionsMode::Run,
                    ModeArg::List => InspectionsMode::List,
                },
                limit: *limit,
                wait_ms: wait(*no_wait),
            }),
        ),
        RefactorCommand::Reformat {
            path,
            expected_hash,
            no_wait,
        } => (
            *no_wait,
            Call::Reformat(ReformatRequest {
                root: root.clone(),
                path: from_cwd(path),
                expected_hash: expected_hash.clone(),
                wait_ms: wait(*no_wait),
                scope: ReformatScope::File,
                optimize_imports: false,
            }),
        ),
        RefactorCommand::Rename {
            nav,
            new_name,
            two_phase,
        } => (
            nav.no_wait,
            Call::Refactor(refactor(
                RefactorKind::Rename {
                    new_name: new_name.clone(),
                },
                nav,
                two_phase,
            )),
        ),
        RefactorCommand::Move {
            nav,
            destination,
            two_phase,
        } => (
            nav.no_wait,
            Call::Refactor(refactor(
                RefactorKind::Move {
                    destination: destination.clone(),
                },
                nav,
                two_phase,
            )),
        ),
        RefactorCommand::SafeDelete { nav, two_phase } => (
            nav.no_wait,
            Call::Refactor(refactor(RefactorKind::SafeDelete, nav, two_phase)),
        ),
        RefactorCommand::Inline { nav, two_phase } => (
            nav.no_wait,
            Call::Refactor(refactor(RefactorKind::Inline, nav, two_phase)),
        ),
        RefactorCommand::SymbolsOverview { .. }
        | RefactorCommand::ReplaceSymbolBody { .. }
        | RefactorCommand::InsertBeforeSymbol { .. }
        | RefactorCommand::InsertAfterSymbol { .. } => unreachable!("answered by refactor()"),
    };
    let answer = waiting(out, no_wait, || async {
        call.send(client, long_call()).await.map_err(rpc_error)?
    })
    .await?;
    out.emit(&answer.json, || answer.text.clone());
    Ok(ExitCode::SUCCESS)
}
