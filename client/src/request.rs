//! The one request builder of both front doors. The CLI (`outline`, `tree`, `search`,
//! `read`, `refactor <verb>`) and the MCP tools (`ctx_outline`, `ctx_tree`,
//! `ctx_search`, `ctx_read`, `ctx_refactor`)
//! each parse their own input (clap arguments, a tool call's JSON arguments) into the
//! same neutral [`Input`] and nothing more; [`build`] alone validates it, applies the
//! defaults and turns it into the protocol request ([`Call`]). So an action has one
//! set of defaults, one validation and one error (code, message, remedy) whichever
//! door it came through; the test below drives both doors' real parsing for every
//! action and compares what they build.
//!
//! Limits are passed as `0` when not given: the daemon owns the default limits.
//!
//! Paths are resolved against [`Ctx`]: relative paths start at the working directory
//! when it lies inside the root, else at the root; MCP, which has no working
//! directory, always starts at the root.

use std::path::PathBuf;

use lean_ctx_shared::{
    ErrorCode, LeanError,
    protocol::{
        CallDirection, CallHierarchyRequest, Direction, EditAction, EditRequest, EditTarget,
        FilePosition, InspectionsMode, InspectionsRequest, NavigateAction, NavigateRequest,
        OutlineRequest, ReadMode, ReadRequest, ReadSession, RefactorKind, RefactorOptions,
        RefactorPhase, RefactorRequest, ReformatRequest, ReformatScope, Scope, SearchSymbolRequest,
        SearchTextRequest, SymbolKind, SymbolsOverviewRequest, TreeRequest, TypeHierarchyRequest,
    },
};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

use crate::calls::Call;

/// What either door was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Outline,
    Tree,
    /// Symbols by name.
    Search,
    /// Lines holding a literal text.
    SearchText,
    /// Lines matching a regex.
    SearchRegex,
    /// Files, a window, a symbol, declarations or a map, hashed.
    Read,
    Refactor(RefactorAction),
}

/// The actions of `ctx_navigate` (those that only read) and `ctx_refactor` (those
/// that write), and the CLI's `refactor` verbs (kebab-case there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefactorAction {
    /// The symbols of one file (`path`; `depth` levels of children, default 0: the
    /// top-level symbols).
    SymbolsOverview,
    /// Replace a symbol's whole declaration with `new_body`.
    ReplaceSymbolBody,
    /// Insert `text` on the lines before a symbol.
    InsertBeforeSymbol,
    /// Insert `text` on the lines after a symbol.
    InsertAfterSymbol,
    /// Replace the whole lines `line..=end_line` of any text file with `text`,
    /// guarded by the hash of those lines or of a view holding them.
    ReplaceLines,
    /// Write a new file `path` with `text` (its directories made); an existing one
    /// only under its `expected_hash`.
    CreateFile,
    /// Every reference to the symbol at `path`+`line`+`column` (declaration included).
    References,
    /// Where the symbol at the position is defined.
    Definition,
    /// Implementations of the trait/interface/method at the position.
    Implementations,
    /// Where the symbol at the position is declared.
    Declaration,
    /// Supertypes or subtypes (`direction`) of the type at the position.
    TypeHierarchy,
    /// Who calls the function at the position (`direction=incoming`), or what it
    /// calls (`outgoing`), `depth` levels deep.
    CallHierarchy,
    /// `mode=run`: the file's diagnostics; `mode=list`: the diagnostic sources.
    Inspections,
    /// Format the file at `path` in place (`reformat_scope`: the file, a region of
    /// lines, or one symbol; `optimize_imports`).
    Reformat,
    /// Rename the symbol at the position to `new_name` in every file; `preview=true`
    /// only shows usages, conflicts and the plan_hash.
    Rename,
    /// Move the symbol at the position to `destination`, or into the declaration at
    /// `parent` (needs the IDE).
    Move,
    /// Delete the symbol at the position if unused (needs the IDE).
    SafeDelete,
    /// Inline the symbol at the position into its usages (needs the IDE).
    Inline,
}

impl RefactorAction {
    /// Whether the action only reads (`ctx_navigate`'s), or may write.
    pub fn reads_only(self) -> bool {
        matches!(
            self,
            RefactorAction::SymbolsOverview
                | RefactorAction::References
                | RefactorAction::Definition
                | RefactorAction::Implementations
                | RefactorAction::Declaration
                | RefactorAction::TypeHierarchy
                | RefactorAction::CallHierarchy
                | RefactorAction::Inspections
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RefactorAction::SymbolsOverview => "symbols_overview",
            RefactorAction::ReplaceSymbolBody => "replace_symbol_body",
            RefactorAction::InsertBeforeSymbol => "insert_before_symbol",
            RefactorAction::InsertAfterSymbol => "insert_after_symbol",
            RefactorAction::ReplaceLines => "replace_lines",
            RefactorAction::CreateFile => "create_file",
            RefactorAction::References => "references",
            RefactorAction::Definition => "definition",
            RefactorAction::Implementations => "implementations",
            RefactorAction::Declaration => "declaration",
            RefactorAction::TypeHierarchy => "type_hierarchy",
            RefactorAction::CallHierarchy => "call_hierarchy",
            RefactorAction::Inspections => "inspections",
            RefactorAction::Reformat => "reformat",
            RefactorAction::Rename => "rename",
            RefactorAction::Move => "move",
            RefactorAction::SafeDelete => "safe_delete",
            RefactorAction::Inline => "inline",
        }
    }
}

/// An action's arguments as given, before validation: the MCP tools' parameters, which
/// the CLI's arguments map onto one to one (`PATH:LINE:COLUMN` is `path`, `line`,
/// `column`; `--region A:B` is `reformat_scope=region`, `line`, `end_line`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Input {
    pub path: Option<String>,
    pub query: Option<String>,
    pub kind: Option<String>,
    pub name_path: Option<String>,
    pub line: Option<u32>,
    pub end_line: Option<u32>,
    pub column: Option<u32>,
    pub depth: Option<u32>,
    pub limit: Option<u32>,
    pub new_body: Option<String>,
    pub text: Option<String>,
    pub expected_hash: Option<String>,
    pub force: bool,
    pub scope: Option<String>,
    pub direction: Option<String>,
    pub mode: Option<String>,
    pub new_name: Option<String>,
    pub destination: Option<String>,
    /// `PATH:LINE:COLUMN` of the declaration a move goes into.
    pub parent: Option<String>,
    pub preview: bool,
    pub plan_hash: Option<String>,
    pub search_comments: bool,
    pub search_text_occurrences: bool,
    pub propagate: bool,
    pub keep_definition: bool,
    pub reformat_scope: Option<String>,
    pub optimize_imports: bool,
    /// Text and regex searches: ignore case.
    pub ignore_case: bool,
    /// Text and regex searches: only files matching these globs (`!` excludes).
    pub globs: Vec<String>,
    /// Text and regex searches: lines of context before and after each match.
    pub before: Option<u32>,
    pub after: Option<u32>,
    /// Text and regex searches: only the matching files.
    pub files_only: bool,
    /// Searches: hits skipped first (where the last answer stopped).
    pub skip: Option<u32>,
    /// read: several files at once (besides or instead of `path`).
    pub paths: Vec<String>,
    /// read mode=lines: the first line.
    pub start_line: Option<u32>,
    /// read: send the content even if this session has it already.
    pub fresh: bool,
    /// read: the session id given on the command line (`--session`).
    pub session: Option<String>,
}

impl Input {
    /// A path with how deep and how many (outline and tree take just these).
    pub fn located(path: Option<String>, depth: Option<u32>, limit: Option<u32>) -> Input {
        Input {
            path,
            depth,
            limit,
            ..Input::default()
        }
    }
}

/// What a front door adds to every request.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub root: PathBuf,
    /// How long the daemon may wait for a first index or a loading server before it
    /// answers `INDEXING` (the MCP server waits once, long; the CLI waits in short
    /// slices and draws progress between them).
    pub wait_ms: u32,
    /// The shim's working directory for the CLI; `None` for MCP, which has none of
    /// its own (its paths are root-relative).
    pub cwd: Option<PathBuf>,
    /// The read session: the MCP server's own (ends with its connection), or the
    /// CLI's `LEAN_CTX_SESSION`; a CLI `--session` overrides it.
    pub session: Option<ReadSession>,
}

impl Ctx {
    /// A path as the daemon takes it: relative paths start at the working directory
    /// when it lies inside the root, else at the root (`--root DIR` from elsewhere,
    /// and MCP); the result is root-relative when it lies inside the root, absolute
    /// otherwise (the daemon jails both).
    fn path(&self, given: &str) -> String {
        let base = self
            .cwd
            .as_deref()
            .filter(|cwd| cwd.starts_with(&self.root))
            .unwrap_or(&self.root);
        let abs = base.join(given);
        match abs.strip_prefix(&self.root) {
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    }

    /// The directory the caller is in, as a path (`""`: the root, also for a caller
    /// outside it).
    fn here(&self) -> String {
        self.path("")
    }
}

/// Levels of directories a tree lists unless asked otherwise: enough to see a
/// project's layout, few enough to stay a screenful.
const DEFAULT_TREE_DEPTH: u32 = 2;

/// The allowed spellings of the enumerated parameters; the first is the default.
const SCOPES: &[(&str, Scope)] = &[("project", Scope::Project), ("all", Scope::All)];
const DIRECTIONS: &[(&str, Direction)] = &[
    ("supertypes", Direction::Supertypes),
    ("subtypes", Direction::Subtypes),
];
const CALL_DIRECTIONS: &[(&str, CallDirection)] = &[
    ("incoming", CallDirection::Incoming),
    ("outgoing", CallDirection::Outgoing),
];
const MODES: &[(&str, InspectionsMode)] = &[
    ("run", InspectionsMode::Run),
    ("list", InspectionsMode::List),
];
const REFORMAT_SCOPES: &[&str] = &["file", "region", "symbol"];
const READ_MODES: &[(&str, ReadMode)] = &[
    ("full", ReadMode::Full),
    ("lines", ReadMode::Lines),
    ("symbol", ReadMode::Symbol),
    ("signatures", ReadMode::Signatures),
    ("map", ReadMode::Map),
    ("diff", ReadMode::Diff),
];

/// A required parameter is missing. The catalog's `INVALID_TARGET` ("fix the target
/// or scope kind, or the destination path") is the code for a request that does not
/// say what to act on, e.g. a move without its destination; `NO_SYMBOL` is the
/// answer of a lookup that ran and matched nothing, which never happened here.
fn missing(param: &str, action: &str) -> LeanError {
    LeanError::new(
        ErrorCode::InvalidTarget,
        format!("{action} needs `{param}`"),
    )
    .with_remedy(format!(
        "pass `{param}` (see the tool's input schema, or the command's --help)"
    ))
}

fn invalid(message: String, remedy: &str) -> LeanError {
    LeanError::new(ErrorCode::InvalidTarget, message).with_remedy(remedy)
}

/// One of the allowed spellings of an enumerated parameter, any case (the first is
/// the default).
fn choose<T: Copy>(
    given: Option<&str>,
    param: &str,
    allowed: &[(&str, T)],
) -> Result<T, LeanError> {
    let Some(given) = given else {
        return Ok(allowed[0].1);
    };
    allowed
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(given.trim()))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
            invalid(
                format!("{param} {given:?} is not one of {}", names.join(", ")),
                &format!("pass one of: {}", names.join(", ")),
            )
        })
}

/// `PATH:LINE:COLUMN` (line 1-based, column 0-based), as grep and compilers print it;
/// the path may itself hold colons.
pub fn parse_location(s: &str) -> Result<(String, u32, u32), String> {
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

/// The protocol request for `action` with `input`, or why there is none.
pub fn build(action: Action, input: Input, ctx: &Ctx) -> Result<Call, LeanError> {
    let (root, limit, wait_ms) = (ctx.root.clone(), input.limit.unwrap_or(0), ctx.wait_ms);
    let here = |input: &Input| {
        input
            .path
            .as_deref()
            .map_or_else(|| ctx.here(), |p| ctx.path(p))
    };
    match action {
        Action::Outline => Ok(Call::Outline(OutlineRequest {
            path: here(&input),
            depth: input.depth.unwrap_or(1),
            root,
            limit,
            wait_ms,
        })),
        Action::Tree => Ok(Call::Tree(TreeRequest {
            path: here(&input),
            depth: input.depth.unwrap_or(DEFAULT_TREE_DEPTH),
            root,
            limit,
            wait_ms,
        })),
        Action::SearchText | Action::SearchRegex => search_text(action, input, ctx),
        Action::Search => search_symbol(input, ctx),
        Action::Read => read(input, ctx),
        Action::Refactor(a) => Refactor {
            action: a,
            name: a.as_str(),
            input: &input,
            ctx,
        }
        .call(),
    }
}

/// `search` for text or a regular expression.
fn search_text(action: Action, input: Input, ctx: &Ctx) -> Result<Call, LeanError> {
    if input.kind.is_some() {
        return Err(invalid(
            "kind applies to symbol searches only".into(),
            "leave kind out of a text or regex search, or search symbols (action=symbol)",
        ));
    }
    Ok(Call::SearchText(SearchTextRequest {
        root: ctx.root.clone(),
        pattern: input.query.ok_or_else(|| missing("query", "search"))?,
        regex: action == Action::SearchRegex,
        case_insensitive: input.ignore_case,
        path: input.path.as_deref().map(|p| ctx.path(p)),
        globs: input.globs,
        before: input.before.unwrap_or(0),
        after: input.after.unwrap_or(0),
        files_only: input.files_only,
        limit: input.limit.unwrap_or(0),
        skip: input.skip.unwrap_or(0),
        wait_ms: ctx.wait_ms,
    }))
}

/// `search` for symbols by name, of a kind if given.
fn search_symbol(input: Input, ctx: &Ctx) -> Result<Call, LeanError> {
    if input.ignore_case {
        return Err(invalid(
            "ignore_case applies to text and regex searches".into(),
            "symbol searches match names regardless of case already (exact case ranks first)",
        ));
    }
    if !input.globs.is_empty()
        || input.before.is_some()
        || input.after.is_some()
        || input.files_only
    {
        return Err(invalid(
            "glob, context and files_only apply to text and regex searches".into(),
            "search lines with action=text or action=regex, or narrow a symbol search by path or kind",
        ));
    }
    let kind = match input.kind.as_deref() {
        Some(k) => Some(SymbolKind::parse(k.trim()).ok_or_else(|| {
            let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
            invalid(
                format!("unknown kind {k:?}"),
                &format!("one of: {}", all.join(", ")),
            )
        })?),
        None => None,
    };
    Ok(Call::Search(SearchSymbolRequest {
        root: ctx.root.clone(),
        query: input.query.ok_or_else(|| missing("query", "search"))?,
        kind,
        path: input.path.as_deref().map(|p| ctx.path(p)),
        limit: input.limit.unwrap_or(0),
        skip: input.skip.unwrap_or(0),
        wait_ms: ctx.wait_ms,
    }))
}

/// One `refactor` action's request, from the parameters it takes.
struct Refactor<'a> {
    action: RefactorAction,
    name: &'static str,
    input: &'a Input,
    ctx: &'a Ctx,
}

impl Refactor<'_> {
    fn call(&self) -> Result<Call, LeanError> {
        let (input, root) = (self.input, self.ctx.root.clone());
        let (limit, wait_ms) = (input.limit.unwrap_or(0), self.ctx.wait_ms);
        match self.action {
            RefactorAction::SymbolsOverview => Ok(Call::SymbolsOverview(SymbolsOverviewRequest {
                root,
                path: self.path()?,
                // `symbols_overview` lists a file's top-level symbols (docs/ide-wire.md,
                // Routes), and the IDE answers exactly those: depth 0 is what every
                // backing answers alike.
                depth: input.depth.unwrap_or(0),
            })),
            RefactorAction::ReplaceSymbolBody => self.edit(
                EditAction::ReplaceSymbolBody,
                input.new_body.as_ref(),
                "new_body",
            ),
            RefactorAction::InsertBeforeSymbol => {
                self.edit(EditAction::InsertBeforeSymbol, input.text.as_ref(), "text")
            }
            RefactorAction::InsertAfterSymbol => {
                self.edit(EditAction::InsertAfterSymbol, input.text.as_ref(), "text")
            }
            RefactorAction::ReplaceLines => self.edit(
                EditAction::ReplaceLines,
                input.text.as_ref().or(input.new_body.as_ref()),
                "text",
            ),
            RefactorAction::CreateFile => self.edit(
                EditAction::CreateFile,
                input.text.as_ref().or(input.new_body.as_ref()),
                "text",
            ),
            RefactorAction::References => self.navigate(NavigateAction::References),
            RefactorAction::Definition => self.navigate(NavigateAction::Definition),
            RefactorAction::Implementations => self.navigate(NavigateAction::Implementations),
            RefactorAction::Declaration => self.navigate(NavigateAction::Declaration),
            RefactorAction::TypeHierarchy => {
                let (at, name_path) = self.position()?;
                Ok(Call::TypeHierarchy(TypeHierarchyRequest {
                    root,
                    at,
                    name_path,
                    direction: choose(input.direction.as_deref(), "direction", DIRECTIONS)?,
                    scope: self.scope()?,
                    limit,
                    wait_ms,
                }))
            }
            RefactorAction::CallHierarchy => {
                let (at, name_path) = self.position()?;
                Ok(Call::Callgraph(CallHierarchyRequest {
                    root,
                    at,
                    name_path,
                    direction: choose(input.direction.as_deref(), "direction", CALL_DIRECTIONS)?,
                    depth: input.depth.unwrap_or(0),
                    scope: self.scope()?,
                    limit,
                    wait_ms,
                }))
            }
            RefactorAction::Inspections => Ok(Call::Inspections(InspectionsRequest {
                root,
                path: self.path()?,
                mode: choose(input.mode.as_deref(), "mode", MODES)?,
                limit,
                wait_ms,
            })),
            RefactorAction::Reformat => Ok(Call::Reformat(ReformatRequest {
                root,
                path: self.path()?,
                expected_hash: input.expected_hash.clone(),
                wait_ms,
                scope: reformat_scope(input)?,
                optimize_imports: input.optimize_imports,
            })),
            RefactorAction::Rename => self.refactoring(RefactorKind::Rename {
                new_name: input
                    .new_name
                    .clone()
                    .ok_or_else(|| missing("new_name", self.name))?,
            }),
            RefactorAction::Move => self.refactoring(move_kind(input, self.ctx)?),
            RefactorAction::SafeDelete => self.refactoring(RefactorKind::SafeDelete),
            RefactorAction::Inline => self.refactoring(RefactorKind::Inline),
        }
    }

    fn path(&self) -> Result<String, LeanError> {
        (self.input.path.as_deref())
            .map(|p| self.ctx.path(p))
            .ok_or_else(|| missing("path", self.name))
    }

    /// Where a navigation or refactoring points: `path`, `line` and `column`, or a
    /// `name_path` (its `path` a file, a directory, or none: the project) whose
    /// name's position the daemon finds.
    fn position(&self) -> Result<(FilePosition, Option<String>), LeanError> {
        let input = self.input;
        let path = input.path.as_deref().map(|p| self.ctx.path(p));
        if let Some(name_path) = &input.name_path {
            if input.line.is_some() || input.column.is_some() {
                return Err(invalid(
                    format!("{}: a name_path, or a line and column, not both", self.name),
                    "give the symbol's name_path alone (with the file or directory holding it as path)",
                ));
            }
            let at = FilePosition {
                path: path.unwrap_or_default(),
                line: 0,
                column: 0,
            };
            return Ok((at, Some(name_path.clone())));
        }
        let needs = |what| {
            missing(what, self.name).with_remedy(format!(
                "pass `{what}`, or the symbol's `name_path` instead of a position"
            ))
        };
        let at = FilePosition {
            path: path.ok_or_else(|| needs("path"))?,
            line: input.line.ok_or_else(|| needs("line"))?,
            column: input.column.ok_or_else(|| needs("column"))?,
        };
        Ok((at, None))
    }

    fn scope(&self) -> Result<Scope, LeanError> {
        choose(self.input.scope.as_deref(), "scope", SCOPES)
    }

    fn navigate(&self, action: NavigateAction) -> Result<Call, LeanError> {
        let (at, name_path) = self.position()?;
        Ok(Call::Navigate(NavigateRequest {
            root: self.ctx.root.clone(),
            action,
            at,
            name_path,
            scope: self.scope()?,
            limit: self.input.limit.unwrap_or(0),
            wait_ms: self.ctx.wait_ms,
        }))
    }

    fn edit(
        &self,
        action: EditAction,
        text: Option<&String>,
        param: &str,
    ) -> Result<Call, LeanError> {
        let input = self.input;
        let target = match self.action {
            RefactorAction::CreateFile => EditTarget::File { path: self.path()? },
            RefactorAction::ReplaceLines => {
                let line = input.line.ok_or_else(|| missing("line", self.name))?;
                EditTarget::Lines {
                    path: self.path()?,
                    line,
                    end_line: Some(input.end_line.unwrap_or(line)),
                }
            }
            _ => edit_target(input, self.ctx, self.name)?,
        };
        Ok(Call::Edit(EditRequest {
            root: self.ctx.root.clone(),
            action,
            target,
            text: text.cloned().ok_or_else(|| missing(param, self.name))?,
            expected_hash: input.expected_hash.clone(),
            force: input.force,
            wait_ms: self.ctx.wait_ms,
            session: self.ctx.session.clone(),
        }))
    }

    /// A refactoring (rename, move, safe delete, inline): its preview, or its apply.
    fn refactoring(&self, kind: RefactorKind) -> Result<Call, LeanError> {
        let (input, a, name) = (self.input, self.action, self.name);
        let phase = if input.preview {
            if input.plan_hash.is_some() || input.force {
                return Err(invalid(
                    format!(
                        "{name}: a preview writes nothing; plan_hash and force are for the apply"
                    ),
                    "preview without them, then apply with the plan_hash the preview answered",
                ));
            }
            RefactorPhase::Preview
        } else {
            RefactorPhase::Apply {
                plan_hash: input.plan_hash.clone(),
                force: input.force,
            }
        };
        // Each option only where its refactoring has it (the wire's bodies).
        let options = RefactorOptions {
            search_comments: a == RefactorAction::Rename && input.search_comments,
            search_text_occurrences: a == RefactorAction::Rename && input.search_text_occurrences,
            propagate: a == RefactorAction::SafeDelete && input.propagate,
            keep_definition: a == RefactorAction::Inline && input.keep_definition,
        };
        let (at, name_path) = self.position()?;
        Ok(Call::Refactor(RefactorRequest {
            root: self.ctx.root.clone(),
            at,
            name_path,
            kind,
            phase,
            limit: input.limit.unwrap_or(0),
            wait_ms: self.ctx.wait_ms,
            options,
        }))
    }
}

/// `read`: `path` and/or `paths`; the mode given, else `symbol` with a name path,
/// `lines` with a line, `full` otherwise; the window's parameters only with `lines`,
/// the name path only with `symbol`.
fn read(input: Input, ctx: &Ctx) -> Result<Call, LeanError> {
    let paths: Vec<String> = input
        .path
        .iter()
        .chain(&input.paths)
        .map(|p| ctx.path(p))
        .collect();
    if paths.is_empty() && input.name_path.is_none() {
        return Err(missing("path (or paths, or a name_path to find)", "read"));
    }
    let window = input.start_line.is_some() || input.end_line.is_some();
    let mode = match input.mode.as_deref() {
        Some(_) => choose(input.mode.as_deref(), "mode", READ_MODES)?,
        None if input.name_path.is_some() => ReadMode::Symbol,
        None if window => ReadMode::Lines,
        None => ReadMode::Full,
    };
    if window && mode != ReadMode::Lines {
        return Err(invalid(
            format!(
                "read mode={}: start_line and end_line are for mode=lines",
                mode.as_str()
            ),
            "pass mode=lines with start_line/end_line, or leave them out",
        ));
    }
    if input.name_path.is_some() != (mode == ReadMode::Symbol) {
        return Err(match input.name_path {
            Some(_) => invalid(
                format!("read mode={}: name_path is for mode=symbol", mode.as_str()),
                "pass mode=symbol with name_path, or leave name_path out",
            ),
            None => missing("name_path", "read mode=symbol"),
        });
    }
    let session = match input.session {
        Some(id) => Some(ReadSession {
            id,
            ends_with_connection: false,
        }),
        None => ctx.session.clone(),
    };
    Ok(Call::Read(ReadRequest {
        root: ctx.root.clone(),
        paths,
        mode,
        start_line: input.start_line,
        end_line: input.end_line,
        name_path: input.name_path,
        fresh: input.fresh,
        session,
        wait_ms: ctx.wait_ms,
    }))
}

/// Which code a symbol edit addresses: a name path (optionally in one file), or the
/// symbol starting on a line (`end_line`: exactly those whole lines).
fn edit_target(input: &Input, ctx: &Ctx, name: &str) -> Result<EditTarget, LeanError> {
    let path = input.path.as_deref().map(|p| ctx.path(p));
    match (&input.name_path, path, input.line) {
        (Some(_), _, Some(_)) => Err(invalid(
            format!("{name}: give name_path or path+line, not both"),
            "address the symbol by name_path, or by path and line",
        )),
        (Some(_), _, None) if input.end_line.is_some() => Err(invalid(
            format!("{name}: end_line needs line"),
            "pass path, line and end_line, or name_path alone",
        )),
        (Some(name_path), path, None) => Ok(EditTarget::NamePath {
            name_path: name_path.clone(),
            path,
        }),
        (None, Some(path), Some(line)) => Ok(EditTarget::Lines {
            path,
            line,
            end_line: input.end_line,
        }),
        _ => Err(missing("name_path (or path and line)", name)),
    }
}

/// Where a move goes: `destination` (a file, directory or package) or `parent` (the
/// declaration at `PATH:LINE:COLUMN`), exactly one of them.
fn move_kind(input: &Input, ctx: &Ctx) -> Result<RefactorKind, LeanError> {
    match (&input.destination, &input.parent) {
        (Some(destination), None) => Ok(RefactorKind::Move {
            destination: destination.clone(),
        }),
        (None, Some(parent)) => {
            let (path, line, column) = parse_location(parent).map_err(|why| {
                invalid(
                    format!("parent: {why}"),
                    "name the declaration to move into by the position of its name, PATH:LINE:COLUMN",
                )
            })?;
            Ok(RefactorKind::MoveInto {
                parent: FilePosition {
                    path: ctx.path(&path),
                    line,
                    column,
                },
            })
        }
        (Some(_), Some(_)) => Err(invalid(
            "move: give destination or parent, not both".into(),
            "destination moves to a file, directory or package; parent into a declaration",
        )),
        (None, None) => Err(missing("destination (or parent)", "move")),
    }
}

/// `reformat_scope`: `file` (default), `region` (`line`, `end_line` default `line`)
/// or `symbol` (`line`, `column` of its name).
fn reformat_scope(input: &Input) -> Result<ReformatScope, LeanError> {
    let line = || input.line.ok_or_else(|| missing("line", "reformat"));
    let kind = match input.reformat_scope.as_deref().map(str::trim) {
        None if input.line.is_some() || input.column.is_some() => {
            return Err(invalid(
                "reformat: line or column without reformat_scope".into(),
                "pass reformat_scope=region (line, end_line) or reformat_scope=symbol (line, column); without them the whole file is formatted",
            ));
        }
        None => "file",
        Some(k) => REFORMAT_SCOPES
            .iter()
            .copied()
            .find(|s| s.eq_ignore_ascii_case(k))
            .ok_or_else(|| {
                invalid(
                    format!("reformat_scope {k:?} is not one of file, region, symbol"),
                    "pass one of: file, region, symbol",
                )
            })?,
    };
    match kind {
        "file" => Ok(ReformatScope::File),
        "region" => {
            let line = line()?;
            let end_line = input.end_line.unwrap_or(line);
            if line == 0 || end_line < line {
                return Err(LeanError::new(
                    ErrorCode::PositionOutOfRange,
                    format!(
                        "reformat region {line}..={end_line}: lines are 1-based and end_line >= line"
                    ),
                ));
            }
            Ok(ReformatScope::Region { line, end_line })
        }
        _ => Ok(ReformatScope::Symbol {
            line: line()?,
            column: input.column.ok_or_else(|| missing("column", "reformat"))?,
        }),
    }
}

#[cfg(test)]
mod tests {
    //! Both front doors, driven through their real parsing (clap's `try_parse_from`
    //! for the CLI, serde of the tools' JSON arguments for MCP), build the same
    //! request for the same input: one row per case, every action covered.

    use std::collections::BTreeSet;

    use clap::{CommandFactory, Parser};
    use serde_json::{Value, json};

    use super::*;
    use crate::{
        Cli, Command,
        mcp::{
            NavigateParams, OutlineParams, ReadParams, RefactorParams, SearchParams, ToolParams,
            TreeParams,
        },
    };

    const ROOT: &str = "/home/dev/proj";

    /// The MCP tool a row calls.
    #[derive(Clone, Copy, Debug)]
    enum Tool {
        Outline,
        Tree,
        Search,
        Read,
        Navigate,
        Refactor,
    }

    /// The same request asked of both doors.
    struct Row {
        cli: &'static [&'static str],
        tool: Tool,
        mcp: Value,
    }

    fn row(cli: &'static [&'static str], tool: Tool, mcp: Value) -> Row {
        Row { cli, tool, mcp }
    }

    fn name(action: Action) -> &'static str {
        match action {
            Action::Outline => "outline",
            Action::Tree => "tree",
            Action::Search => "search",
            Action::SearchText => "search_text",
            Action::SearchRegex => "search_regex",
            Action::Read => "read",
            Action::Refactor(a) => a.as_str(),
        }
    }

    /// The CLI at the project root: what `lean-ctx <args>` builds.
    fn cli(args: &[&str]) -> (Action, Result<Call, LeanError>) {
        let parsed = Cli::try_parse_from(std::iter::once("lean-ctx").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("lean-ctx {args:?}: {e}"));
        let (action, input, _no_wait) = match parsed.command {
            Command::Outline(a) => a.input(),
            Command::Tree(a) => a.input(),
            Command::Search(a) => a.input(),
            Command::Read(a) => a.input(),
            Command::Refactor(c) => c.input().unwrap(),
            other => panic!("not a code verb: {other:?}"),
        };
        let ctx = Ctx {
            root: ROOT.into(),
            wait_ms: WAIT,
            cwd: Some(ROOT.into()),
            session: None,
        };
        (action, build(action, input, &ctx))
    }

    /// The MCP server: what a tool call with `args` builds.
    fn mcp(tool: Tool, args: &Value) -> (Action, Result<Call, LeanError>) {
        fn parse<P: ToolParams>(args: &Value) -> (Action, Input) {
            serde_json::from_value::<P>(args.clone())
                .map_err(|e| e.to_string())
                .and_then(|p| p.input().map_err(|e| format!("{e:?}")))
                .unwrap_or_else(|e| panic!("{args}: {e}"))
        }
        let (action, input) = match tool {
            Tool::Outline => parse::<OutlineParams>(args),
            Tool::Tree => parse::<TreeParams>(args),
            Tool::Search => parse::<SearchParams>(args),
            Tool::Read => parse::<ReadParams>(args),
            Tool::Navigate => parse::<NavigateParams>(args),
            Tool::Refactor => parse::<RefactorParams>(args),
        };
        let ctx = Ctx {
            root: ROOT.into(),
            wait_ms: WAIT,
            cwd: None,
            session: None,
        };
        (action, build(action, input, &ctx))
    }

    /// The same wait for both: how long each door lets the daemon wait is its own
    /// policy (the CLI retries short waits with a progress bar), not the request's.
    const WAIT: u32 = 250;

    fn rows() -> Vec<Row> {
        use Tool::*;
        vec![
            row(&["outline"], Outline, json!({})),
            row(
                &["outline", "src", "--depth", "2", "--limit", "5"],
                Outline,
                json!({"path": "src", "depth": 2, "limit": "5"}),
            ),
            row(&["tree"], Tree, json!({})),
            row(&["read", "src/lib.rs"], Read, json!({"path": "src/lib.rs"})),
            row(
                &[
                    "read",
                    "src/lib.rs",
                    "src/main.rs",
                    "--mode",
                    "map",
                    "--fresh",
                ],
                Read,
                json!({"paths": ["src/lib.rs", "src/main.rs"], "mode": "map", "fresh": "true"}),
            ),
            row(
                &["read", "src/lib.rs", "--start-line", "3", "--end-line", "9"],
                Read,
                json!({"path": "src/lib.rs", "start_line": 3, "end_line": "9"}),
            ),
            row(
                &["read", "src/lib.rs", "--name-path", "Point/new"],
                Read,
                json!({"path": "src/lib.rs", "name_path": "Point/new"}),
            ),
            row(
                &["read", "src/lib.rs", "--mode", "diff"],
                Read,
                json!({"path": "src/lib.rs", "mode": "diff"}),
            ),
            // The same refusals from both: a window outside mode=lines, an unknown
            // mode, a symbol read without its name path.
            row(
                &["read", "src/lib.rs", "--mode", "map", "--start-line", "3"],
                Read,
                json!({"path": "src/lib.rs", "mode": "map", "start_line": 3}),
            ),
            row(
                &["read", "src/lib.rs", "--mode", "everything"],
                Read,
                json!({"path": "src/lib.rs", "mode": "everything"}),
            ),
            row(
                &["read", "src/lib.rs", "--mode", "symbol"],
                Read,
                json!({"path": "src/lib.rs", "mode": "symbol"}),
            ),
            row(
                &["tree", "src", "--depth", "4", "--limit", "30"],
                Tree,
                json!({"path": "src", "depth": "4", "limit": 30}),
            ),
            row(
                &["search", "Point/new"],
                Search,
                json!({"query": "Point/new"}),
            ),
            row(
                &[
                    "search", "run", "--kind", "method", "--path", "src", "--limit", "3",
                ],
                Search,
                json!({"action": "symbol", "query": "run", "kind": "method", "path": "src", "limit": 3}),
            ),
            row(
                &["search", "--text", "a.b(", "--path", "src"],
                Search,
                json!({"action": "text", "query": "a.b(", "path": "src"}),
            ),
            row(
                &[
                    "search",
                    "--text",
                    "serde",
                    "-g",
                    "*.toml",
                    "--exclude",
                    "vendor/**",
                    "-C",
                    "2",
                    "-l",
                ],
                Search,
                json!({"action": "text", "query": "serde", "glob": ["*.toml", "!vendor/**"], "context": 2, "files_only": true}),
            ),
            row(
                &["search", "--text", "x", "--limit", "10", "--skip", "20"],
                Search,
                json!({"action": "text", "query": "x", "limit": 10, "skip": "20"}),
            ),
            row(
                &["search", "Point", "--skip", "5"],
                Search,
                json!({"query": "Point", "skip": 5}),
            ),
            // A glob alone, as a string; context only after (the CLI's -A).
            row(
                &[
                    "search", "--regex", "^x", "-g", "*.md", "-A", "1", "-B", "1",
                ],
                Search,
                json!({"action": "regex", "query": "^x", "glob": "*.md", "context": "1"}),
            ),
            // Symbol searches refuse what only line searches take: the same error.
            row(
                &["search", "Point", "-g", "*.rs"],
                Search,
                json!({"query": "Point", "glob": ["*.rs"]}),
            ),
            row(
                &["search", "--text", "Größe", "-i", "--limit", "5"],
                Search,
                json!({"action": "text", "query": "Größe", "ignore_case": "true", "limit": 5}),
            ),
            row(
                &["search", "--regex", r"fn \w+_args"],
                Search,
                json!({"action": "regex", "query": r"fn \w+_args"}),
            ),
            // A kind is for symbols: the same error from both.
            row(
                &["search", "--regex", "x", "--kind", "function"],
                Search,
                json!({"action": "regex", "query": "x", "kind": "function"}),
            ),
            row(
                &["refactor", "symbols-overview", "src/lib.rs"],
                Navigate,
                json!({"action": "symbols_overview", "path": "src/lib.rs"}),
            ),
            row(
                &["refactor", "symbols-overview", "src/lib.rs", "--depth", "2"],
                Navigate,
                json!({"action": "symbols_overview", "path": "src/lib.rs", "depth": 2}),
            ),
            row(
                &[
                    "refactor",
                    "replace-symbol-body",
                    "--name-path",
                    "Point/new",
                    "--new-body",
                    "fn new() {}",
                    "--expected-hash",
                    "ab12",
                    "--force",
                ],
                Refactor,
                json!({"action": "replace_symbol_body", "name_path": "Point/new", "new_body": "fn new() {}", "expected_hash": "ab12", "force": true}),
            ),
            // No target: the same error from both.
            row(
                &[
                    "refactor",
                    "replace-symbol-body",
                    "--new-body",
                    "fn new() {}",
                ],
                Refactor,
                json!({"action": "replace_symbol_body", "new_body": "fn new() {}"}),
            ),
            row(
                &[
                    "refactor",
                    "insert-before-symbol",
                    "--path",
                    "src/lib.rs",
                    "--line",
                    "3",
                    "--end-line",
                    "5",
                    "--text",
                    "// x",
                ],
                Refactor,
                json!({"action": "insert_before_symbol", "path": "src/lib.rs", "line": 3, "end_line": 5, "text": "// x"}),
            ),
            row(
                &[
                    "refactor",
                    "insert-after-symbol",
                    "--name-path",
                    "helper",
                    "--path",
                    "src/lib.rs",
                    "--text",
                    "fn x() {}",
                ],
                Refactor,
                json!({"action": "insert_after_symbol", "name_path": "helper", "path": "src/lib.rs", "text": "fn x() {}"}),
            ),
            row(
                &[
                    "refactor",
                    "replace-lines",
                    "Cargo.toml",
                    "--line",
                    "4",
                    "--end-line",
                    "5",
                    "--text",
                    "rust-version = \"1.75\"",
                    "--expected-hash",
                    "ab12",
                ],
                Refactor,
                json!({"action": "replace_lines", "path": "Cargo.toml", "line": 4, "end_line": 5, "text": "rust-version = \"1.75\"", "expected_hash": "ab12"}),
            ),
            // One line when end_line is left out.
            row(
                &[
                    "refactor",
                    "replace-lines",
                    "a.md",
                    "--line",
                    "2",
                    "--text",
                    "x",
                ],
                Refactor,
                json!({"action": "replace_lines", "path": "a.md", "line": 2, "text": "x"}),
            ),
            row(
                &["refactor", "create-file", "docs/new.md", "--text", "# New"],
                Refactor,
                json!({"action": "create_file", "path": "docs/new.md", "text": "# New"}),
            ),
            row(
                &["refactor", "references", "src/lib.rs:3:9"],
                Navigate,
                json!({"action": "references", "path": "src/lib.rs", "line": 3, "column": 9}),
            ),
            // By name: in a file, a directory, or the project.
            row(
                &["refactor", "references", "--name-path", "Point/new", "src"],
                Navigate,
                json!({"action": "references", "name_path": "Point/new", "path": "src"}),
            ),
            row(
                &["refactor", "implementations", "--name-path", "Shape"],
                Navigate,
                json!({"action": "implementations", "name_path": "Shape"}),
            ),
            row(
                &[
                    "refactor",
                    "call-hierarchy",
                    "--name-path",
                    "leaf",
                    "--direction",
                    "outgoing",
                    "--depth",
                    "2",
                ],
                Navigate,
                json!({"action": "call_hierarchy", "name_path": "leaf", "direction": "outgoing", "depth": 2}),
            ),
            row(
                &[
                    "refactor",
                    "definition",
                    "src/lib.rs:3:9",
                    "--scope",
                    "all",
                    "--limit",
                    "7",
                ],
                Navigate,
                json!({"action": "definition", "path": "src/lib.rs", "line": 3, "column": 9, "scope": "all", "limit": 7}),
            ),
            row(
                &["refactor", "implementations", "src/lib.rs:1:11"],
                Navigate,
                json!({"action": "implementations", "path": "src/lib.rs", "line": 1, "column": 11}),
            ),
            row(
                &["refactor", "declaration", "src/lib.rs:3:9"],
                Navigate,
                json!({"action": "declaration", "path": "src/lib.rs", "line": "3", "column": "9"}),
            ),
            row(
                &["refactor", "type-hierarchy", "src/lib.rs:1:11"],
                Navigate,
                json!({"action": "type_hierarchy", "path": "src/lib.rs", "line": 1, "column": 11}),
            ),
            row(
                &[
                    "refactor",
                    "type-hierarchy",
                    "src/lib.rs:1:11",
                    "--direction",
                    "subtypes",
                    "--scope",
                    "all",
                ],
                Navigate,
                json!({"action": "type_hierarchy", "path": "src/lib.rs", "line": 1, "column": 11, "direction": "subtypes", "scope": "all"}),
            ),
            row(
                &["refactor", "inspections", "src/lib.rs"],
                Navigate,
                json!({"action": "inspections", "path": "src/lib.rs"}),
            ),
            row(
                &[
                    "refactor",
                    "inspections",
                    "src/lib.rs",
                    "--mode",
                    "list",
                    "--limit",
                    "4",
                ],
                Navigate,
                json!({"action": "inspections", "path": "src/lib.rs", "mode": "list", "limit": 4}),
            ),
            row(
                &["refactor", "reformat", "src/lib.rs"],
                Refactor,
                json!({"action": "reformat", "path": "src/lib.rs"}),
            ),
            row(
                &[
                    "refactor",
                    "reformat",
                    "src/lib.rs",
                    "--region",
                    "3:5",
                    "--optimize-imports",
                    "--expected-hash",
                    "ab12",
                ],
                Refactor,
                json!({"action": "reformat", "path": "src/lib.rs", "reformat_scope": "region", "line": 3, "end_line": 5, "optimize_imports": true, "expected_hash": "ab12"}),
            ),
            row(
                &["refactor", "reformat", "src/lib.rs", "--symbol", "4:9"],
                Refactor,
                json!({"action": "reformat", "path": "src/lib.rs", "reformat_scope": "symbol", "line": 4, "column": 9}),
            ),
            row(
                &[
                    "refactor",
                    "rename",
                    "src/lib.rs:3:9",
                    "--new-name",
                    "area",
                    "--preview",
                    "--search-comments",
                    "--search-text-occurrences",
                ],
                Refactor,
                json!({"action": "rename", "path": "src/lib.rs", "line": 3, "column": 9, "new_name": "area", "preview": true, "search_comments": true, "search_text_occurrences": "true"}),
            ),
            row(
                &[
                    "refactor",
                    "rename",
                    "src/lib.rs:3:9",
                    "--new-name",
                    "area",
                    "--plan-hash",
                    "cd34",
                    "--force",
                    "--limit",
                    "9",
                ],
                Refactor,
                json!({"action": "rename", "path": "src/lib.rs", "line": 3, "column": 9, "new_name": "area", "plan_hash": "cd34", "force": true, "limit": 9}),
            ),
            row(
                &[
                    "refactor",
                    "move",
                    "src/lib.rs:3:9",
                    "--destination",
                    "src/other",
                ],
                Refactor,
                json!({"action": "move", "path": "src/lib.rs", "line": 3, "column": 9, "destination": "src/other"}),
            ),
            row(
                &[
                    "refactor",
                    "move",
                    "src/lib.rs:3:9",
                    "--parent",
                    "src/shapes.rs:2:11",
                    "--preview",
                ],
                Refactor,
                json!({"action": "move", "path": "src/lib.rs", "line": 3, "column": 9, "parent": "src/shapes.rs:2:11", "preview": true}),
            ),
            row(
                &[
                    "refactor",
                    "safe-delete",
                    "src/lib.rs:3:9",
                    "--propagate",
                    "--force",
                ],
                Refactor,
                json!({"action": "safe_delete", "path": "src/lib.rs", "line": 3, "column": 9, "propagate": true, "force": true}),
            ),
            row(
                &["refactor", "inline", "src/lib.rs:3:9", "--keep-definition"],
                Refactor,
                json!({"action": "inline", "path": "src/lib.rs", "line": 3, "column": 9, "keep_definition": true}),
            ),
        ]
    }

    #[test]
    fn both_front_doors_build_the_same_request_for_every_action() {
        let mut failures = Vec::new();
        let mut covered = BTreeSet::new();
        for r in rows() {
            let (cli_action, from_cli) = cli(r.cli);
            let (mcp_action, from_mcp) = mcp(r.tool, &r.mcp);
            assert_eq!(cli_action, mcp_action, "{:?} vs {}", r.cli, r.mcp);
            covered.insert(name(cli_action));
            if from_cli != from_mcp {
                failures.push(format!(
                    "{:?} / {}:
  CLI: {from_cli:?}
  MCP: {from_mcp:?}",
                    r.cli, r.mcp
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "the doors differ:
{}",
            failures.join(
                "
"
            )
        );

        // Every action either door offers has a row.
        let mut cli_actions: BTreeSet<String> = [
            "outline",
            "tree",
            "search",
            "search_text",
            "search_regex",
            "read",
        ]
        .map(String::from)
        .into();
        cli_actions.extend(
            Cli::command()
                .find_subcommand("refactor")
                .unwrap()
                .get_subcommands()
                .map(|c| c.get_name().replace('-', "_")),
        );
        let mut mcp_actions: BTreeSet<String> = [
            "outline",
            "tree",
            "search",
            "search_text",
            "search_regex",
            "read",
        ]
        .map(String::from)
        .into();
        mcp_actions.extend(crate::mcp::advertised_actions().into_iter().map(|(_, a)| a));
        // Taken, not advertised: ctx_outline does it.
        mcp_actions.insert("symbols_overview".into());
        let covered: BTreeSet<String> = covered.into_iter().map(String::from).collect();
        assert_eq!(
            covered, cli_actions,
            "a CLI verb without a row (or a row without a verb)"
        );
        assert_eq!(covered, mcp_actions, "an MCP action without a row");
        assert_eq!(covered.len(), 24);
    }

    #[test]
    fn what_the_requests_hold() {
        let refactor = |args: &[&str]| cli(args).1;
        // The defaults: the daemon's limits (0), top-level symbols, the root.
        let Ok(Call::SymbolsOverview(o)) = refactor(&["refactor", "symbols-overview", "a.rs"])
        else {
            panic!()
        };
        assert_eq!(o.depth, 0);
        let Ok(Call::Outline(o)) = refactor(&["outline"]) else {
            panic!()
        };
        assert_eq!((o.path.as_str(), o.depth, o.limit), ("", 1, 0));
        let Ok(Call::Tree(t)) = refactor(&["tree"]) else {
            panic!()
        };
        assert_eq!((t.path.as_str(), t.depth, t.limit), ("", 2, 0));
        // type-hierarchy takes its scope.
        let Ok(Call::TypeHierarchy(t)) =
            refactor(&["refactor", "type-hierarchy", "a.rs:1:2", "--scope", "all"])
        else {
            panic!()
        };
        assert_eq!(t.scope, Scope::All);
        // By name: no path is the project; the position is the daemon's to find.
        let Ok(Call::Navigate(n)) =
            refactor(&["refactor", "references", "--name-path", "Point/new"])
        else {
            panic!()
        };
        assert_eq!(
            (n.at.path.as_str(), n.at.line, n.name_path.as_deref()),
            ("", 0, Some("Point/new"))
        );
        // Each option reaches its own refactoring only.
        let Ok(Call::Refactor(r)) =
            refactor(&["refactor", "safe-delete", "a.rs:1:2", "--propagate"])
        else {
            panic!()
        };
        assert_eq!(
            r.options,
            RefactorOptions {
                propagate: true,
                ..RefactorOptions::default()
            }
        );
        let (_, moved) = mcp(
            Tool::Refactor,
            &json!({"action": "move", "path": "a.rs", "line": 1, "column": 2, "parent": "b/c:d.kt:3:4", "search_comments": true}),
        );
        let Ok(Call::Refactor(r)) = moved else {
            panic!()
        };
        assert_eq!(r.options, RefactorOptions::default());
        assert_eq!(
            r.kind,
            RefactorKind::MoveInto {
                parent: FilePosition {
                    path: "b/c:d.kt".into(),
                    line: 3,
                    column: 4
                }
            }
        );
        let Ok(Call::Reformat(f)) = refactor(&["refactor", "reformat", "a.rs", "--region", "7"])
        else {
            panic!()
        };
        assert_eq!(
            f.scope,
            ReformatScope::Region {
                line: 7,
                end_line: 7
            }
        );
    }

    #[test]
    fn read_modes_default_from_what_is_given_and_sessions_come_from_the_door() {
        let read = |args: Value, session: Option<ReadSession>| {
            let (action, input) = serde_json::from_value::<ReadParams>(args)
                .unwrap()
                .input()
                .unwrap();
            let ctx = Ctx {
                root: ROOT.into(),
                wait_ms: 0,
                cwd: None,
                session,
            };
            match build(action, input, &ctx) {
                Ok(Call::Read(r)) => Ok(r),
                Ok(other) => panic!("{other:?}"),
                Err(e) => Err(e.code),
            }
        };
        let mode = |args: Value| read(args, None).map(|r| r.mode);
        assert_eq!(mode(json!({"path": "a"})), Ok(ReadMode::Full));
        assert_eq!(
            mode(json!({"path": "a", "end_line": 4})),
            Ok(ReadMode::Lines)
        );
        assert_eq!(
            mode(json!({"path": "a", "name_path": "x"})),
            Ok(ReadMode::Symbol)
        );
        assert_eq!(mode(json!({"path": "a", "mode": "MAP"})), Ok(ReadMode::Map));
        assert_eq!(mode(json!({})), Err(ErrorCode::InvalidTarget));
        assert_eq!(
            mode(json!({"path": "a", "mode": "lines", "name_path": "x"})),
            Err(ErrorCode::InvalidTarget)
        );
        let mcp = ReadSession {
            id: "mcp-1".into(),
            ends_with_connection: true,
        };
        assert_eq!(
            read(json!({"path": "a"}), Some(mcp.clone()))
                .unwrap()
                .session,
            Some(mcp)
        );
        // The CLI's --session names a session that outlives the connection.
        let Ok(Call::Read(r)) = cli(&["read", "a", "--session", "s1"]).1 else {
            panic!()
        };
        assert_eq!(
            r.session,
            Some(ReadSession {
                id: "s1".into(),
                ends_with_connection: false
            })
        );
    }

    #[test]
    fn both_doors_refuse_alike() {
        let code = |args: Value| mcp(Tool::Refactor, &args).1.unwrap_err();
        let missing_target = code(json!({"action": "insert_after_symbol", "text": "x"}));
        assert_eq!(missing_target.code, ErrorCode::InvalidTarget);
        assert!(missing_target.remedy.is_some());
        for bad in [
            json!({"action": "references", "path": "a.rs", "line": 1, "column": 2, "scope": "galaxy"}),
            json!({"action": "rename", "path": "a.rs", "line": 1, "column": 2, "new_name": "b", "preview": true, "plan_hash": "ab"}),
            json!({"action": "move", "path": "a.rs", "line": 1, "column": 2}),
            json!({"action": "move", "path": "a.rs", "line": 1, "column": 2, "destination": "d", "parent": "b.kt:1:2"}),
            json!({"action": "move", "path": "a.rs", "line": 1, "column": 2, "parent": "b.kt:1"}),
            json!({"action": "reformat", "path": "a.rs", "line": 3}),
            json!({"action": "reformat", "path": "a.rs", "reformat_scope": "page"}),
            json!({"action": "reformat", "path": "a.rs", "reformat_scope": "symbol", "line": 3}),
            json!({"action": "replace_symbol_body", "name_path": "a", "line": 3, "new_body": "x"}),
            json!({"action": "rename", "name_path": "a", "line": 3, "column": 1, "new_name": "b"}),
            json!({"action": "rename", "path": "a.rs", "new_name": "b"}),
        ] {
            assert_eq!(code(bad.clone()).code, ErrorCode::InvalidTarget, "{bad}");
        }
        let inverted = code(
            json!({"action": "reformat", "path": "a.rs", "reformat_scope": "region", "line": 5, "end_line": 3}),
        );
        assert_eq!(inverted.code, ErrorCode::PositionOutOfRange);
        // The CLI reaches the same errors: its flags are parsed, not validated, by clap.
        assert_eq!(
            cli(&["refactor", "rename", "a.rs:1:2", "--new-name", "b", "--preview", "--force"]).1,
            mcp(
                Tool::Refactor,
                &json!({"action": "rename", "path": "a.rs", "line": 1, "column": 2, "new_name": "b", "preview": true, "force": true})
            )
            .1
        );
        assert_eq!(
            cli(&["refactor", "references", "a.rs:1:2", "--scope", "galaxy"]).1,
            mcp(
                Tool::Refactor,
                &json!({"action": "references", "path": "a.rs", "line": 1, "column": 2, "scope": "galaxy"})
            )
            .1
        );
    }

    #[test]
    fn paths_start_at_the_working_directory_inside_the_root_else_at_the_root() {
        let ctx = |cwd: &str| Ctx {
            root: ROOT.into(),
            wait_ms: 0,
            cwd: Some(cwd.into()),
            session: None,
        };
        assert_eq!(ctx(ROOT).path("src/a.rs"), "src/a.rs");
        assert_eq!(ctx(&format!("{ROOT}/src")).path("a.rs"), "src/a.rs");
        assert_eq!(ctx(&format!("{ROOT}/src")).here(), "src");
        assert_eq!(ctx(ROOT).here(), "");
        assert_eq!(ctx(ROOT).path("/tmp/x"), "/tmp/x");
        // Issue 16: from outside the root (`--root DIR` run elsewhere), relative paths
        // start at the root, as MCP's do.
        assert_eq!(ctx("/elsewhere").path("a.rs"), "a.rs");
        assert_eq!(ctx("/elsewhere").here(), "");
        assert_eq!(ctx("/elsewhere").path(&format!("{ROOT}/b.rs")), "b.rs");
        let mcp = Ctx {
            cwd: None,
            ..ctx(ROOT)
        };
        assert_eq!(
            (mcp.path("src/a.rs"), mcp.here()),
            ("src/a.rs".into(), String::new())
        );
    }
}
