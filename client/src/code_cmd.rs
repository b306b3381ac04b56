//! The code verbs: `outline`, `search`, and `refactor symbols_overview|
//! replace_symbol_body|insert_before_symbol|insert_after_symbol`. Each validates its
//! arguments into one protocol request, sends it, and prints the answer compactly.
//! While the project's first index runs, they show a progress bar (on a terminal) and
//! retry, unless `--no-wait`.

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
        EditAction, EditRequest, EditTarget, LeanCtxClient, OutlineRequest, SearchSymbolRequest,
        SymbolKind, SymbolsOverviewRequest,
    },
    transport::Connection,
};

use lean_ctx_shared::render;

use crate::output::{Output, rpc_error};

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
