//! The code verbs: `outline`, `tree`, `search`, `read`, and `refactor <action>` for every
//! `ctx_refactor` action (symbols_overview, the symbol edits, navigation, type
//! hierarchy, inspections, reformat, rename, move, safe_delete, inline). Each parses
//! its arguments into `request::Input` (nothing more: `request::build` validates and
//! builds the request, as for the MCP tools), sends it, and prints the answer
//! compactly. While the project's first index (or its language server's first load)
//! runs, they show a progress bar (on a terminal) and retry, unless `--no-wait`.

use std::{
    io::{IsTerminal, Read, Write},
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::{Args, Subcommand};
use lean_ctx_shared::{
    ErrorCode, ErrorDetails, LeanError, protocol::ReadSession, transport::Connection,
};

use crate::{
    calls::Outcome,
    output::{Output, rpc_error},
    request::{self, Action, Ctx, Input, RefactorAction, parse_location},
};

/// Longest the CLI waits for a first index before giving up.
const MAX_INDEX_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// A file or directory (default: the working directory; at the project root, the
    /// whole project).
    path: Option<String>,
    /// Levels of children to show (default 1).
    #[arg(long)]
    depth: Option<u32>,
    /// Most files to list (default 200).
    #[arg(long)]
    limit: Option<u32>,
    /// Answer INDEXING at once instead of waiting for the first index.
    #[arg(long)]
    no_wait: bool,
}

impl OutlineArgs {
    /// The neutral form `request::build` takes, and `--no-wait`.
    pub fn input(self) -> (Action, Input, bool) {
        let input = Input::located(self.path, self.depth, self.limit);
        (Action::Outline, input, self.no_wait)
    }
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// A directory (default: the working directory; at the project root, the whole
    /// project).
    path: Option<String>,
    /// Levels of directories to list (default 2); deeper ones show their counts.
    #[arg(long)]
    depth: Option<u32>,
    /// Most entries to list (default 400).
    #[arg(long)]
    limit: Option<u32>,
    /// Answer INDEXING at once instead of waiting for the first index.
    #[arg(long)]
    no_wait: bool,
}

impl TreeArgs {
    /// The neutral form `request::build` takes, and `--no-wait`.
    pub fn input(self) -> (Action, Input, bool) {
        let input = Input::located(self.path, self.depth, self.limit);
        (Action::Tree, input, self.no_wait)
    }
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// One or more files (none with --name-path: the one file holding that symbol).
    #[arg(required_unless_present = "name_path")]
    paths: Vec<String>,
    /// full (default), lines (default with --start-line/--end-line), symbol (default
    /// with --name-path), signatures, map, diff.
    #[arg(long)]
    mode: Option<String>,
    /// mode=lines: the first line (1-based).
    #[arg(long)]
    start_line: Option<u32>,
    /// mode=lines: the last line (inclusive).
    #[arg(long)]
    end_line: Option<u32>,
    /// mode=symbol: the symbol, e.g. `Point/new`.
    #[arg(long)]
    name_path: Option<String>,
    /// Print the content even if this session has it already.
    #[arg(long)]
    fresh: bool,
    /// The session whose reads the daemon remembers (default: $LEAN_CTX_SESSION;
    /// without either, every read is answered in full).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
}

impl ReadArgs {
    /// The neutral form `request::build` takes (reads never wait for the index).
    pub fn input(self) -> (Action, Input, bool) {
        // A symbol found by name waits for the index; a file read never does.
        let no_wait = !self.paths.is_empty();
        let input = Input {
            paths: self.paths,
            mode: self.mode,
            start_line: self.start_line,
            end_line: self.end_line,
            name_path: self.name_path,
            fresh: self.fresh,
            session: self.session,
            ..Input::default()
        };
        (Action::Read, input, no_wait)
    }
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// A symbol's name, a substring, or a qualified `Type/member` (`::` and `.` too;
    /// a leading separator: top level only).
    #[arg(required_unless_present_any = ["text", "regex"], conflicts_with_all = ["text", "regex"])]
    query: Option<String>,
    /// Instead of a symbol: the lines holding this literal text.
    #[arg(
        long,
        value_name = "TEXT",
        allow_hyphen_values = true,
        conflicts_with = "regex"
    )]
    text: Option<String>,
    /// Instead of a symbol: the lines matching this regex (Rust regex syntax, as
    /// ripgrep's).
    #[arg(long, value_name = "REGEX", allow_hyphen_values = true)]
    regex: Option<String>,
    /// With --text or --regex: ignore case.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Only symbols of this kind: module, class, struct, enum, interface, trait, impl,
    /// function, method, constructor, field, property, constant, static, variable,
    /// type_alias, macro, ...
    #[arg(long)]
    kind: Option<String>,
    /// Only under this file or directory.
    #[arg(long)]
    path: Option<String>,
    /// With --text or --regex: only files matching this glob (as ripgrep's -g:
    /// `*.toml`, `src/**/*.rs`; `!GLOB` excludes); repeatable.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    globs: Vec<String>,
    /// With --text or --regex: never files matching this glob; repeatable.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// With --text or --regex: lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "LINES")]
    context: Option<u32>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "LINES")]
    before_context: Option<u32>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "LINES")]
    after_context: Option<u32>,
    /// With --text or --regex: only the files that match, with their counts.
    #[arg(short = 'l', long)]
    files_with_matches: bool,
    /// Most hits (default 50).
    #[arg(long)]
    limit: Option<u32>,
    /// Skip this many hits first: where the last answer stopped.
    #[arg(long)]
    skip: Option<u32>,
    /// Answer INDEXING at once instead of waiting for the first index.
    #[arg(long)]
    no_wait: bool,
}

impl SearchArgs {
    /// The neutral form `request::build` takes, and `--no-wait`.
    pub fn input(self) -> (Action, Input, bool) {
        let (action, query) = match (self.text, self.regex) {
            (Some(text), _) => (Action::SearchText, Some(text)),
            (None, Some(regex)) => (Action::SearchRegex, Some(regex)),
            (None, None) => (Action::Search, self.query),
        };
        let mut globs = self.globs;
        globs.extend(self.exclude.iter().map(|g| format!("!{g}")));
        let input = Input {
            query,
            ignore_case: self.ignore_case,
            kind: self.kind,
            path: self.path,
            limit: self.limit,
            globs,
            before: self.before_context.or(self.context),
            after: self.after_context.or(self.context),
            files_only: self.files_with_matches,
            skip: self.skip,
            ..Input::default()
        };
        (action, input, self.no_wait)
    }
}

#[derive(Debug, Subcommand)]
pub enum RefactorCommand {
    /// The top-level symbols of one file (--depth: levels of children too).
    SymbolsOverview {
        path: String,
        /// Levels of children (default 0).
        #[arg(long)]
        depth: Option<u32>,
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
        /// The text; `-` reads it from stdin.
        #[arg(long)]
        text: String,
    },
    /// Replace whole lines of any text file.
    ReplaceLines {
        /// The file.
        path: String,
        /// The first line replaced (1-based).
        #[arg(long)]
        line: u32,
        /// The last line replaced (default: --line).
        #[arg(long)]
        end_line: Option<u32>,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Write a new file (its directories made); an existing one only with
    /// --expected-hash, its whole content's hash.
    CreateFile {
        /// The file, relative to the project root.
        path: String,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Every reference to the symbol at a position or by --name-path, declaration included.
    References(NavArgs),
    /// Where the symbol at a position (or --name-path) is defined.
    Definition(NavArgs),
    /// Implementations of the trait, interface or method at a position (or --name-path).
    Implementations(NavArgs),
    /// Where the symbol at a position (or --name-path) is declared.
    Declaration(NavArgs),
    /// Supertypes or subtypes of the type at a position (or --name-path).
    TypeHierarchy {
        #[command(flatten)]
        nav: NavArgs,
        /// `supertypes` (default) or `subtypes`.
        #[arg(long)]
        direction: Option<String>,
    },
    /// Who calls the function or method at a position (or --name-path), or what it
    /// calls: a tree, `--depth` levels deep.
    CallHierarchy {
        #[command(flatten)]
        nav: NavArgs,
        /// `incoming` (default: its callers) or `outgoing` (what it calls).
        #[arg(long)]
        direction: Option<String>,
        /// Levels of calls (default 1, at most 5).
        #[arg(long)]
        depth: Option<u32>,
    },
    /// A file's diagnostics (`--mode run`) or the diagnostic sources (`--mode list`).
    Inspections {
        path: String,
        /// `run` (default) or `list`.
        #[arg(long)]
        mode: Option<String>,
        /// Most diagnostics (default 100).
        #[arg(long)]
        limit: Option<u32>,
        /// Answer INDEXING at once instead of waiting for the language server.
        #[arg(long)]
        no_wait: bool,
    },
    /// Format a file in place (the IDE's code style, else its language server's
    /// formatter): the whole file, --region lines, or --symbol (IDE only).
    Reformat {
        path: String,
        /// BLAKE3 hex of the whole file as you last read it.
        #[arg(long)]
        expected_hash: Option<String>,
        /// Only the whole lines LINE..=END_LINE (language servers: where they offer
        /// range formatting).
        #[arg(long, value_name = "LINE[:END_LINE]", value_parser = parse_region, conflicts_with = "symbol")]
        region: Option<(u32, Option<u32>)>,
        /// Only the declaration whose name is at LINE:COLUMN (needs the IDE).
        #[arg(long, value_name = "LINE:COLUMN", value_parser = parse_line_column)]
        symbol: Option<(u32, u32)>,
        /// Also optimize the file's imports (needs the IDE).
        #[arg(long)]
        optimize_imports: bool,
        /// Answer INDEXING at once instead of waiting for the language server.
        #[arg(long)]
        no_wait: bool,
    },
    /// Rename the symbol at a position (or --name-path) across the project: applies at
    /// once unless --preview; with --plan-hash only if the plan is still the previewed
    /// one.
    Rename {
        #[command(flatten)]
        at: AtArgs,
        #[arg(long)]
        new_name: String,
        /// Also rename the name in comments and string literals (needs the IDE).
        #[arg(long)]
        search_comments: bool,
        /// Also rename its occurrences in plain-text files (needs the IDE).
        #[arg(long)]
        search_text_occurrences: bool,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Move the symbol at a position (or --name-path) to another file, directory or
    /// package, or into a class (needs the IDE).
    Move {
        #[command(flatten)]
        at: AtArgs,
        /// The target file, directory or package.
        #[arg(long)]
        destination: Option<String>,
        /// Instead of --destination: the class or object to move into, as the
        /// PATH:LINE:COLUMN of its name.
        #[arg(long, value_name = "PATH:LINE:COLUMN", value_parser = location_text)]
        parent: Option<String>,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Delete the symbol at a position (or --name-path) if nothing uses it (needs the IDE).
    SafeDelete {
        #[command(flatten)]
        at: AtArgs,
        /// Also delete what only this symbol used (e.g. parameters that become unused).
        #[arg(long)]
        propagate: bool,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
    /// Inline the symbol at a position (or --name-path) into its usages (needs the IDE).
    Inline {
        #[command(flatten)]
        at: AtArgs,
        /// Keep the declaration after inlining it.
        #[arg(long)]
        keep_definition: bool,
        #[command(flatten)]
        two_phase: TwoPhaseArgs,
    },
}

/// A position and how many results.
#[derive(Debug, Args)]
pub struct AtArgs {
    /// `PATH:LINE:COLUMN` (line 1-based, column 0-based in characters), as grep and
    /// compilers print it; with --name-path the file or directory holding the symbol
    /// (default: the project).
    #[arg(required_unless_present = "name_path", value_name = "PATH:LINE:COLUMN")]
    at: Option<String>,
    /// The symbol by name instead of a position, e.g. `Point/new`.
    #[arg(long)]
    name_path: Option<String>,
    /// Most results (default 100).
    #[arg(long)]
    limit: Option<u32>,
    /// Answer INDEXING at once instead of waiting for the language server.
    #[arg(long)]
    no_wait: bool,
}

impl AtArgs {
    fn input(self) -> Result<(Input, bool), LeanError> {
        let (path, line, column) = match (self.at, &self.name_path) {
            (path, Some(_)) => (path, None, None),
            (Some(at), None) => {
                let (path, line, column) = parse_location(&at).map_err(|why| {
                    LeanError::new(ErrorCode::InvalidTarget, why)
                        .with_remedy("give PATH:LINE:COLUMN, or --name-path NAME [PATH]")
                })?;
                (Some(path), Some(line), Some(column))
            }
            // clap requires one of them.
            (None, None) => (None, None, None),
        };
        let input = Input {
            path,
            name_path: self.name_path,
            line,
            column,
            limit: self.limit,
            ..Input::default()
        };
        Ok((input, self.no_wait))
    }
}

/// A position to search from, and where to search.
#[derive(Debug, Args)]
pub struct NavArgs {
    #[command(flatten)]
    at: AtArgs,
    /// `project` (default) or `all` (libraries and the standard library too).
    #[arg(long)]
    scope: Option<String>,
}

impl NavArgs {
    fn input(self) -> Result<(Input, bool), LeanError> {
        let (input, no_wait) = self.at.input()?;
        let scope = self.scope;
        Ok((Input { scope, ..input }, no_wait))
    }
}

#[derive(Debug, Args)]
pub struct TwoPhaseArgs {
    /// Show usages, conflicts and the plan hash; write nothing.
    #[arg(long)]
    preview: bool,
    /// Apply only if the plan still hashes to this (from a preview).
    #[arg(long)]
    plan_hash: Option<String>,
    /// Apply despite conflicts.
    #[arg(long)]
    force: bool,
}

/// `LINE[:END_LINE]`.
fn parse_region(s: &str) -> Result<(u32, Option<u32>), String> {
    let bad = || format!("{s:?} is not LINE or LINE:END_LINE (1-based), e.g. 10:14");
    match s.split_once(':') {
        None => Ok((s.parse().map_err(|_| bad())?, None)),
        Some((a, b)) => Ok((
            a.parse().map_err(|_| bad())?,
            Some(b.parse().map_err(|_| bad())?),
        )),
    }
}

/// `LINE:COLUMN`.
fn parse_line_column(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not LINE:COLUMN (line 1-based, column 0-based), e.g. 12:4");
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

/// A well-formed `PATH:LINE:COLUMN`, kept as given (`request::build` reads it).
fn location_text(s: &str) -> Result<String, String> {
    parse_location(s).map(|_| s.to_string())
}

#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The symbol, e.g. `Point/new`: any symbol whose path ends with it; `/name`: top
    /// level only; `name[1]`: the second of that name. More than one match is an error.
    #[arg(long)]
    name_path: Option<String>,
    /// The file (scopes --name-path; required with --line).
    #[arg(long)]
    path: Option<String>,
    /// 1-based line of the symbol (instead of --name-path).
    #[arg(long)]
    line: Option<u32>,
    /// With --line: address exactly the lines line..=end_line.
    #[arg(long)]
    end_line: Option<u32>,
    /// BLAKE3 hex of the target's current bytes; the edit is refused if they differ.
    #[arg(long)]
    expected_hash: Option<String>,
    /// Write even if the result does not parse.
    #[arg(long)]
    force: bool,
    /// Answer INDEXING at once instead of waiting for the first index.
    #[arg(long)]
    no_wait: bool,
}

/// What a line edit or a new file writes, and its guard.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The new lines, or the file's content; `-` reads it from stdin.
    #[arg(long)]
    text: String,
    /// The hash `read` answered for what is replaced: the lines, a window or a
    /// symbol holding them, or the whole file; refused (CONFLICT) if it changed.
    #[arg(long)]
    expected_hash: Option<String>,
    /// Write even if the result does not parse.
    #[arg(long)]
    force: bool,
}

impl WriteArgs {
    fn input(self, path: String) -> Result<Input, LeanError> {
        Ok(Input {
            path: Some(path),
            text: Some(text_arg(&self.text)?),
            expected_hash: self.expected_hash,
            force: self.force,
            ..Input::default()
        })
    }
}

impl TargetArgs {
    fn input(self) -> (Input, bool) {
        let input = Input {
            name_path: self.name_path,
            path: self.path,
            line: self.line,
            end_line: self.end_line,
            expected_hash: self.expected_hash,
            force: self.force,
            ..Input::default()
        };
        (input, self.no_wait)
    }
}

impl RefactorCommand {
    /// The neutral form `request::build` takes, and `--no-wait`; `-` as an edit's
    /// text is read from stdin here.
    pub fn input(self) -> Result<(Action, Input, bool), LeanError> {
        use RefactorAction as A;
        let two_phase = |input: Input, t: TwoPhaseArgs| Input {
            preview: t.preview,
            plan_hash: t.plan_hash,
            force: t.force,
            ..input
        };
        let (action, input, no_wait) = match self {
            RefactorCommand::SymbolsOverview { path, depth } => {
                let input = Input {
                    path: Some(path),
                    depth,
                    ..Input::default()
                };
                (A::SymbolsOverview, input, false)
            }
            RefactorCommand::ReplaceSymbolBody { target, new_body } => {
                let (input, no_wait) = target.input();
                let new_body = Some(text_arg(&new_body)?);
                (A::ReplaceSymbolBody, Input { new_body, ..input }, no_wait)
            }
            RefactorCommand::InsertBeforeSymbol { target, text } => {
                let (input, no_wait) = target.input();
                let text = Some(text_arg(&text)?);
                (A::InsertBeforeSymbol, Input { text, ..input }, no_wait)
            }
            RefactorCommand::InsertAfterSymbol { target, text } => {
                let (input, no_wait) = target.input();
                let text = Some(text_arg(&text)?);
                (A::InsertAfterSymbol, Input { text, ..input }, no_wait)
            }
            RefactorCommand::ReplaceLines {
                path,
                line,
                end_line,
                write,
            } => {
                let input = Input {
                    line: Some(line),
                    end_line,
                    ..write.input(path)?
                };
                (A::ReplaceLines, input, true)
            }
            RefactorCommand::CreateFile { path, write } => {
                (A::CreateFile, write.input(path)?, true)
            }
            RefactorCommand::References(nav) => with(A::References, nav.input()?),
            RefactorCommand::Definition(nav) => with(A::Definition, nav.input()?),
            RefactorCommand::Implementations(nav) => with(A::Implementations, nav.input()?),
            RefactorCommand::Declaration(nav) => with(A::Declaration, nav.input()?),
            RefactorCommand::TypeHierarchy { nav, direction } => {
                let (input, no_wait) = nav.input()?;
                (A::TypeHierarchy, Input { direction, ..input }, no_wait)
            }
            RefactorCommand::CallHierarchy {
                nav,
                direction,
                depth,
            } => {
                let (input, no_wait) = nav.input()?;
                let input = Input {
                    direction,
                    depth,
                    ..input
                };
                (A::CallHierarchy, input, no_wait)
            }
            RefactorCommand::Inspections {
                path,
                mode,
                limit,
                no_wait,
            } => {
                let input = Input {
                    path: Some(path),
                    mode,
                    limit,
                    ..Input::default()
                };
                (A::Inspections, input, no_wait)
            }
            RefactorCommand::Reformat {
                path,
                expected_hash,
                region,
                symbol,
                optimize_imports,
                no_wait,
            } => {
                let (reformat_scope, line, end_line, column) = match (region, symbol) {
                    (Some((line, end_line)), _) => (Some("region"), Some(line), end_line, None),
                    (None, Some((line, column))) => {
                        (Some("symbol"), Some(line), None, Some(column))
                    }
                    (None, None) => (None, None, None, None),
                };
                let input = Input {
                    path: Some(path),
                    expected_hash,
                    reformat_scope: reformat_scope.map(String::from),
                    line,
                    end_line,
                    column,
                    optimize_imports,
                    ..Input::default()
                };
                (A::Reformat, input, no_wait)
            }
            RefactorCommand::Rename {
                at,
                new_name,
                search_comments,
                search_text_occurrences,
                two_phase: t,
            } => {
                let (input, no_wait) = at.input()?;
                let input = Input {
                    new_name: Some(new_name),
                    search_comments,
                    search_text_occurrences,
                    ..input
                };
                (A::Rename, two_phase(input, t), no_wait)
            }
            RefactorCommand::Move {
                at,
                destination,
                parent,
                two_phase: t,
            } => {
                let (input, no_wait) = at.input()?;
                let input = Input {
                    destination,
                    parent,
                    ..input
                };
                (A::Move, two_phase(input, t), no_wait)
            }
            RefactorCommand::SafeDelete {
                at,
                propagate,
                two_phase: t,
            } => {
                let (input, no_wait) = at.input()?;
                let input = Input { propagate, ..input };
                (A::SafeDelete, two_phase(input, t), no_wait)
            }
            RefactorCommand::Inline {
                at,
                keep_definition,
                two_phase: t,
            } => {
                let (input, no_wait) = at.input()?;
                let input = Input {
                    keep_definition,
                    ..input
                };
                (A::Inline, two_phase(input, t), no_wait)
            }
        };
        Ok((Action::Refactor(action), input, no_wait))
    }
}

fn with(action: RefactorAction, (input, no_wait): (Input, bool)) -> (RefactorAction, Input, bool) {
    (action, input, no_wait)
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
        let asked = Instant::now();
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
                // The daemon waited its slice before answering; asking again at once
                // loses nothing (a sleep here was up to 100 ms added to every first
                // index). An answer that came sooner is not asked again before the
                // slice is over.
                let slice = Duration::from_millis(WAIT_SLICE_MS.into());
                tokio::time::sleep(slice.saturating_sub(asked.elapsed())).await;
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
    let (action, input, no_wait) = args.input();
    run(conn, root, action, input, no_wait, out).await
}

pub async fn tree(
    conn: &Connection,
    root: PathBuf,
    args: TreeArgs,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let (action, input, no_wait) = args.input();
    run(conn, root, action, input, no_wait, out).await
}

pub async fn search(
    conn: &Connection,
    root: PathBuf,
    args: SearchArgs,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let (action, input, no_wait) = args.input();
    run(conn, root, action, input, no_wait, out).await
}

pub async fn read(
    conn: &Connection,
    root: PathBuf,
    args: ReadArgs,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let (action, input, no_wait) = args.input();
    run(conn, root, action, input, no_wait, out).await
}

pub async fn refactor(
    conn: &Connection,
    root: PathBuf,
    cmd: RefactorCommand,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let (action, input, no_wait) = cmd.input()?;
    run(conn, root, action, input, no_wait, out).await
}

/// The context of a CLI call: paths from the working directory; short waits in the
/// daemon, retried here with progress (none with `--no-wait`).
pub fn ctx(root: PathBuf, no_wait: bool) -> Result<Ctx, LeanError> {
    let cwd = std::env::current_dir()
        .map_err(|e| LeanError::internal(format!("cannot read the working directory: {e}")))?;
    Ok(Ctx {
        root,
        wait_ms: if no_wait { 0 } else { WAIT_SLICE_MS },
        cwd: Some(cwd),
        session: std::env::var("LEAN_CTX_SESSION")
            .ok()
            .filter(|id| !id.trim().is_empty())
            .map(|id| ReadSession {
                id,
                ends_with_connection: false,
            }),
    })
}

/// Builds the request (`request::build`, as the MCP tools do), sends it until it is
/// answered by more than `INDEXING`, and prints the answer.
async fn run(
    conn: &Connection,
    root: PathBuf,
    action: Action,
    input: Input,
    no_wait: bool,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let call = request::build(action, input, &ctx(root, no_wait)?)?;
    let answer = waiting(out, no_wait, || async {
        let mut ctx = tarpc::context::current();
        ctx.deadline = Instant::now() + call.timeout();
        call.send(&conn.client, ctx).await.map_err(rpc_error)?
    })
    .await?;
    out.emit(&answer.json, || answer.text.clone());
    Ok(match answer.outcome {
        Outcome::Found => ExitCode::SUCCESS,
        // grep's and ripgrep's code for "nothing matched".
        Outcome::Nothing => ExitCode::from(1),
        Outcome::Failed(e) => out.exit_code(&e),
    })
}
