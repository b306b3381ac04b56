//! The router: for every operation, which backings are asked and in what order, what
//! makes it ask the next one, the one gain record and the call log's root and
//! backing. The backings ([`crate::backing`]) know nothing of each other; this is the
//! only place that knows all three.
//!
//! | operation | order |
//! |---|---|
//! | `navigate`, `type_hierarchy`, `call_hierarchy`, `inspections`, `reformat`, `rename` | IDE, then language server (the published plugin has no `/call_hierarchy`: its 404 passes on) |
//! | `navigate` `references`, incoming `call_hierarchy` | then the index by name, where neither may answer at all (`backing/by_name.rs`) |
//! | `move`, `safe_delete`, `inline` | IDE only |
//! | symbol edits | IDE (one undo entry there), then our own writer |
//! | `symbols_overview`, `outline` of a file | headless index, then IDE (file types tree-sitter does not parse) |
//! | `outline` of a directory, `tree`, `search_symbol`, `search_text` | headless index |
//! | `read` | headless (the disk through the jail, the session's reads) |
//!
//! Fallback: a backing that is absent (no IDE window serves the root) or does not
//! answer (the connection fails, or it hangs past its timeout: the window is then
//! left alone until its port file changes or a health check passes again) passes the
//! call on; so does one that answers `INDEXING`, `UNSUPPORTED_LANGUAGE` or
//! `UNSUPPORTED` when another backing follows. Any other error is the answer; but
//! `references` or incoming calls none may answer (`BACKEND_REQUIRED`: an untrusted
//! root, no server) are answered by name, said to be unresolved, with that error as
//! their `fallback`. A
//! write the
//! IDE may have started is never passed on: a hung refactoring apply is an error, and
//! a hung symbol edit passes on only while its file still holds its old bytes. The
//! answer names the backing that answered and why the ones before it did not. When
//! none answers, the most useful error is given: `INDEXING` (wait, and it will)
//! before "cannot do this". An operation only the IDE can do keeps the IDE's
//! `INDEXING`, or answers `BACKEND_REQUIRED` when no window serves the root.
//!
//! Every call looks its project up once ([`Cx`]) and jails its file once, before any
//! backing sees it.

use std::{future::Future, path::Path, pin::Pin};

use lean_ctx_shared::{
    ErrorCode, LeanError, Position,
    protocol::{
        CallHierarchyRequest, CallHierarchyResponse, EditRequest, EditResponse, EditTarget,
        Enclosing, FileOutline, InspectionsRequest, InspectionsResponse, NavigateRequest,
        NavigateResponse, OutlineRequest, OutlineResponse, ReadRequest, ReadResponse, RefactorKind,
        RefactorRequest, RefactorResponse, ReformatRequest, ReformatResponse, SearchSymbolRequest,
        SearchSymbolResponse, SearchTextRequest, SearchTextResponse, SymbolsOverviewRequest,
        SymbolsOverviewResponse, TreeRequest, TreeResponse, TypeHierarchyRequest,
        TypeHierarchyResponse,
    },
    render,
};

use crate::{
    accounting::{Accounted, Baseline},
    backing::{self, Cx, Miss, Outcome, by_name, headless, ide, lsp, pointed, resolve},
    call_log::{note_backing, note_root},
    edit::Written,
    jail::{Jailed, Want},
    state::Daemon,
};

/// What the IDE backing's answers name as their backing.
const IDE: &str = ide::BACKING;
/// How the language-server backing is named when it passes a call on (its answers
/// name the server itself, e.g. `rust-analyzer`).
const LSP: &str = "language server";

/// An answer that names its backing.
trait Backed {
    fn backing(&self) -> &str;
    fn set_fallback(&mut self, why: String);
}

macro_rules! backed {
    ($($t:ty),*) => {$(
        impl Backed for $t {
            fn backing(&self) -> &str {
                &self.backing
            }
            fn set_fallback(&mut self, why: String) {
                self.fallback = Some(why);
            }
        }
    )*};
}
backed!(
    NavigateResponse,
    TypeHierarchyResponse,
    CallHierarchyResponse,
    InspectionsResponse,
    ReformatResponse,
    RefactorResponse,
    SymbolsOverviewResponse,
    EditResponse
);

/// One backing asked: its name and its answer (not yet run: futures are lazy, so a
/// backing after the one that answers never runs).
type Ask<'a, T> = (
    &'static str,
    Pin<Box<dyn Future<Output = Outcome<T>> + Send + 'a>>,
);

fn ask<'a, T>(
    name: &'static str,
    answer: impl Future<Output = Outcome<T>> + Send + 'a,
) -> Ask<'a, T> {
    (name, Box::pin(answer))
}

/// A backing whose every miss is an error it answered (language servers, headless).
async fn answered<T>(answer: impl Future<Output = Result<T, LeanError>>) -> Outcome<T> {
    Ok(answer.await?)
}

/// Codes that say "not this backing, not now" rather than "not this request".
fn passes_on(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Indexing | ErrorCode::UnsupportedLanguage | ErrorCode::Unsupported
    )
}

/// Asks `order` in turn; the first answer wins. `nobody` is the error when every
/// backing is absent.
async fn first<T>(
    order: Vec<Ask<'_, T>>,
    nobody: impl FnOnce() -> LeanError,
) -> Result<T, LeanError>
where
    T: Backed,
{
    let mut passed: Vec<String> = Vec::new();
    let mut errors: Vec<LeanError> = Vec::new();
    let count = order.len();
    for (i, (name, answer)) in order.into_iter().enumerate() {
        match answer.await {
            Ok(mut resp) => {
                if !passed.is_empty() {
                    resp.set_fallback(passed.join("; "));
                }
                note_backing(resp.backing());
                return Ok(resp);
            }
            Err(Miss::Absent) => {}
            Err(Miss::Unreachable(why)) => passed.push(format!("{name} did not answer: {why}")),
            Err(Miss::Failed(e)) if i + 1 < count && passes_on(e.code) => {
                passed.push(format!("{name} answered {}: {}", e.code, e.message));
                errors.push(e);
            }
            Err(Miss::Failed(e)) => {
                errors.push(e);
                break;
            }
        }
    }
    Err(settle(errors, passed).unwrap_or_else(nobody))
}

/// The error to give when no backing answered: an `INDEXING` (it will answer soon)
/// before the last backing's "cannot", else the last error; the other backings'
/// reasons appended.
fn settle(mut errors: Vec<LeanError>, passed: Vec<String>) -> Option<LeanError> {
    let last = errors.pop()?;
    let mut e = match errors.into_iter().find(|e| e.code == ErrorCode::Indexing) {
        Some(indexing) if last.code != ErrorCode::Indexing && cannot(last.code) => indexing,
        _ => last,
    };
    let others: Vec<&String> = passed.iter().filter(|p| !p.ends_with(&e.message)).collect();
    if !others.is_empty() {
        e.message = format!(
            "{} (also: {})",
            e.message,
            others
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    Some(e)
}

/// "This backing cannot do this at all": codes a wait would not change.
fn cannot(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::BackendRequired | ErrorCode::UnsupportedLanguage | ErrorCode::Unsupported
    )
}

/// The call's project (looked up once), its index started, noted for the call log.
fn cx<'a>(d: &'a Daemon, root: &Path) -> Result<Cx<'a>, LeanError> {
    note_root(root);
    let project = d.registry.enter(root)?;
    Ok(Cx { d, project })
}

fn ide_required(what: &str) -> LeanError {
    LeanError::new(
        ErrorCode::BackendRequired,
        format!("{what} needs the JetBrains IDE: no language server offers it, and no IDE window serves this project"),
    )
    .with_remedy("open the project in a JetBrains IDE with the lean-ctx plugin installed")
}

fn record(
    d: &Daemon,
    action: &'static str,
    file: Option<&Path>,
    baseline: Baseline,
    output: String,
) {
    d.gain.record(Accounted {
        action,
        file: file.map(Path::to_path_buf),
        baseline,
        output,
    });
}

/// The declaration each place of an answer lies in, with its hash
/// ([`backing::answer::enclosing`]), on the blocking pool.
async fn enclosing(
    d: &Daemon,
    cx: &Cx<'_>,
    places: Vec<(String, Position)>,
) -> Result<Vec<Option<Enclosing>>, LeanError> {
    let (project, reads) = (cx.project.clone(), d.reads.clone());
    backing::blocking(move || {
        let texts = reads.of(&project.root);
        Ok(backing::answer::enclosing(&project, texts, &places))
    })
    .await
}

pub async fn navigate(d: &Daemon, req: NavigateRequest) -> Result<NavigateResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let (file, at) = pointed(&cx, &req.at, req.name_path.as_deref(), req.wait_ms).await?;
    let req = NavigateRequest {
        at,
        name_path: None,
        ..req
    };
    let resp = first(
        vec![
            ask(IDE, ide::navigate(&cx, &file, &req)),
            ask(LSP, answered(lsp::navigate(&cx, &file, &req))),
        ],
        || ide_required(req.action.as_str()),
    )
    .await;
    // No backing may answer at all (not one still loading: that one answers soon):
    // references by name, said to be unresolved.
    let mut resp = match resp {
        Err(e) if e.code == ErrorCode::BackendRequired => {
            by_name::references(&cx, &file, &req, e).await?
        }
        other => other?,
    };
    let places = resp
        .locations
        .iter()
        .map(|l| (l.path.clone(), l.range.start));
    let named = enclosing(d, &cx, places.collect()).await?;
    for (l, symbol) in resp.locations.iter_mut().zip(named) {
        l.symbol = symbol;
    }
    // The alternative: a grep printing one line per hit; no claim beyond that.
    let grep = resp
        .locations
        .iter()
        .map(|l| format!("{}:{}:{}\n", l.path, l.range.start.line, l.context))
        .collect();
    record(
        d,
        req.action.as_str(),
        Some(&file.abs),
        Baseline::Text(grep),
        render::locations(&resp),
    );
    Ok(resp)
}

pub async fn type_hierarchy(
    d: &Daemon,
    req: TypeHierarchyRequest,
) -> Result<TypeHierarchyResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let (file, at) = pointed(&cx, &req.at, req.name_path.as_deref(), req.wait_ms).await?;
    let req = TypeHierarchyRequest {
        at,
        name_path: None,
        ..req
    };
    let resp = first(
        vec![
            ask(IDE, ide::type_hierarchy(&cx, &file, &req)),
            ask(LSP, answered(lsp::type_hierarchy(&cx, &file, &req))),
        ],
        || ide_required("type_hierarchy"),
    )
    .await?;
    let output = render::type_hierarchy(&resp);
    record(
        d,
        "type_hierarchy",
        Some(&file.abs),
        Baseline::NoClaim,
        output,
    );
    Ok(resp)
}

pub async fn call_hierarchy(
    d: &Daemon,
    req: CallHierarchyRequest,
) -> Result<CallHierarchyResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let (file, at) = pointed(&cx, &req.at, req.name_path.as_deref(), req.wait_ms).await?;
    let req = CallHierarchyRequest {
        at,
        name_path: None,
        ..req
    };
    let resp = first(
        vec![
            ask(IDE, ide::call_hierarchy(&cx, &file, &req)),
            ask(LSP, answered(lsp::call_hierarchy(&cx, &file, &req))),
        ],
        || ide_required("call_hierarchy"),
    )
    .await;
    // As `navigate`: callers by name where no backing may answer at all.
    let mut resp = match resp {
        Err(e) if e.code == ErrorCode::BackendRequired => {
            by_name::incoming_calls(&cx, &file, &req, e).await?
        }
        other => other?,
    };
    let nodes = std::iter::once(&resp.root_item).chain(&resp.calls);
    let places = nodes.map(|n| (n.path.clone(), n.range.start));
    let mut named = enclosing(d, &cx, places.collect()).await?.into_iter();
    resp.root_item.symbol = named.next().flatten();
    for (node, symbol) in resp.calls.iter_mut().zip(named) {
        node.symbol = symbol;
    }
    let output = render::call_hierarchy(&resp);
    record(
        d,
        "call_hierarchy",
        Some(&file.abs),
        Baseline::NoClaim,
        output,
    );
    Ok(resp)
}

pub async fn inspections(
    d: &Daemon,
    req: InspectionsRequest,
) -> Result<InspectionsResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let file = resolve(&cx, &req.path, Want::File).await?;
    let mut resp = first(
        vec![
            ask(IDE, ide::inspections(&cx, &file, &req)),
            ask(LSP, answered(lsp::inspections(&cx, &file, &req))),
        ],
        || ide_required("inspections"),
    )
    .await?;
    let places = resp
        .diagnostics
        .iter()
        .map(|d| (d.path.clone(), d.range.start));
    let named = enclosing(d, &cx, places.collect()).await?;
    for (diagnostic, symbol) in resp.diagnostics.iter_mut().zip(named) {
        diagnostic.symbol = symbol;
    }
    let output = render::inspections(&resp);
    record(d, "inspections", Some(&file.abs), Baseline::NoClaim, output);
    Ok(resp)
}

pub async fn reformat(d: &Daemon, req: ReformatRequest) -> Result<ReformatResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let file = resolve(&cx, &req.path, Want::File).await?;
    let resp = first(
        vec![
            ask(IDE, ide::reformat(&cx, &file, &req)),
            ask(LSP, answered(lsp::reformat(&cx, &file, &req))),
        ],
        || ide_required("reformat"),
    )
    .await?;
    let output = render::reformat(&resp);
    record(d, "reformat", Some(&file.abs), Baseline::NoClaim, output);
    Ok(resp)
}

pub async fn refactor(d: &Daemon, req: RefactorRequest) -> Result<RefactorResponse, LeanError> {
    if let RefactorKind::Rename { new_name } = &req.kind
        && new_name.trim().is_empty()
    {
        return Err(
            LeanError::new(ErrorCode::InvalidTarget, "new_name is empty")
                .with_remedy("give the new name"),
        );
    }
    let cx = cx(d, &req.root)?;
    let (file, at) = pointed(&cx, &req.at, req.name_path.as_deref(), req.wait_ms).await?;
    let req = RefactorRequest {
        at,
        name_path: None,
        ..req
    };
    let mut order = vec![ask(IDE, ide::refactor(&cx, &file, &req))];
    if matches!(req.kind, RefactorKind::Rename { .. }) {
        order.push(ask(LSP, answered(lsp::refactor(&cx, &file, &req))));
    }
    let resp = first(order, || ide_required(req.kind.as_str())).await?;
    // Applied: against one string-replace edit per usage; a preview claims nothing.
    let baseline = if resp.applied {
        Baseline::Text(
            resp.usages
                .iter()
                .map(|u| format!("{}{}{}", u.path, u.text, u.new_text))
                .collect(),
        )
    } else {
        Baseline::NoClaim
    };
    record(
        d,
        req.kind.as_str(),
        None,
        baseline,
        render::refactor(&resp),
    );
    Ok(resp)
}

/// A file's symbols: the index, else (a file type tree-sitter does not parse) the
/// IDE's PSI.
async fn file_symbols(
    cx: &Cx<'_>,
    file: &Jailed,
    depth: u32,
) -> Result<SymbolsOverviewResponse, LeanError> {
    first(
        vec![
            ask(
                headless::BACKING,
                headless::symbols_overview(cx, file, depth),
            ),
            ask(IDE, ide::symbols_overview(cx, file)),
        ],
        || unreachable_absent("symbols_overview"),
    )
    .await
}

/// The headless backing is never absent, so the router's "nobody answered" cannot
/// happen where it is asked; still an answer, not a panic.
fn unreachable_absent(op: &str) -> LeanError {
    LeanError::internal(format!("no backing answered {op}"))
}

pub async fn symbols_overview(
    d: &Daemon,
    req: SymbolsOverviewRequest,
) -> Result<SymbolsOverviewResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let file = resolve(&cx, &req.path, Want::File).await?;
    let resp = file_symbols(&cx, &file, req.depth).await?;
    let output = render::symbols_overview(&resp);
    record(
        d,
        "symbols_overview",
        Some(&file.abs),
        Baseline::File(file.clone()),
        output,
    );
    Ok(resp)
}

pub async fn outline(d: &Daemon, req: OutlineRequest) -> Result<OutlineResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let path = if req.path.is_empty() { "." } else { &req.path };
    let target = resolve(&cx, path, Want::FileOrDir).await?;
    if target.is_dir() {
        let resp = match headless::outline_dir(&cx, &target, &req).await {
            Ok(resp) => resp,
            Err(Miss::Failed(e)) => return Err(e),
            Err(Miss::Absent | Miss::Unreachable(_)) => {
                return Err(unreachable_absent("outline"));
            }
        };
        note_backing(headless::BACKING);
        record(
            d,
            "outline",
            None,
            Baseline::NoClaim,
            render::outline(&resp),
        );
        return Ok(resp);
    }
    let file = file_symbols(&cx, &target, req.depth).await?;
    let resp = OutlineResponse {
        files: vec![FileOutline {
            path: file.path,
            language: file.language,
            symbols: file.symbols,
        }],
        total_files: 1,
        truncated: false,
    };
    record(
        d,
        "outline",
        Some(&target.abs),
        Baseline::File(target.clone()),
        render::outline(&resp),
    );
    Ok(resp)
}

pub async fn tree(d: &Daemon, req: TreeRequest) -> Result<TreeResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let path = if req.path.is_empty() { "." } else { &req.path };
    let target = resolve(&cx, path, Want::FileOrDir).await?;
    let resp = match headless::tree(&cx, &target.rel, &req).await {
        Ok(resp) => resp,
        Err(Miss::Failed(e)) => return Err(e),
        Err(Miss::Absent | Miss::Unreachable(_)) => return Err(unreachable_absent("tree")),
    };
    note_backing(headless::BACKING);
    // The alternative: a listing of every file under the path (`git ls-files`, one
    // path a line): what a collapsed directory stands for counts as listed.
    let (files, _) = cx.project.index.langs_under(&target.rel, usize::MAX);
    let listing = files.into_iter().map(|(p, _)| p + "\n").collect();
    record(
        d,
        "tree",
        None,
        Baseline::Text(listing),
        render::files_tree(&resp),
    );
    Ok(resp)
}

pub async fn search_symbol(
    d: &Daemon,
    req: SearchSymbolRequest,
) -> Result<SearchSymbolResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let resp = match headless::search_symbol(&cx, &req).await {
        Ok(resp) => resp,
        Err(Miss::Failed(e)) => return Err(e),
        Err(Miss::Absent | Miss::Unreachable(_)) => return Err(unreachable_absent("search")),
    };
    note_backing(headless::BACKING);
    record(
        d,
        "search_symbol",
        None,
        Baseline::NoClaim,
        render::search(&resp, &req.query, req.skip),
    );
    Ok(resp)
}

pub async fn search_text(
    d: &Daemon,
    req: SearchTextRequest,
) -> Result<SearchTextResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let resp = match headless::search_text(&cx, &req).await {
        Ok(resp) => resp,
        Err(Miss::Failed(e)) => return Err(e),
        Err(Miss::Absent | Miss::Unreachable(_)) => return Err(unreachable_absent("search")),
    };
    note_backing(headless::BACKING);
    // The alternative: grep printing the same lines, `path:line:text` each.
    let grep = resp
        .hits
        .iter()
        .map(|h| format!("{}:{}:{}\n", h.path, h.line, h.text))
        .collect();
    record(
        d,
        if req.regex {
            "search_regex"
        } else {
            "search_text"
        },
        None,
        Baseline::Text(grep),
        render::search_text(&resp, &req.pattern, req.skip),
    );
    Ok(resp)
}

/// `read`: headless only (the disk is the truth; no backing reads better), each file
/// jailed by the backing; gain against the whole file each first read stands in for,
/// and for a re-read against what it would have sent again.
pub async fn read(d: &Daemon, req: ReadRequest) -> Result<ReadResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    let answered = backing::read::files(&cx, &req).await?;
    note_backing(headless::BACKING);
    let file = match answered.as_slice() {
        [one] => one.abs.clone(),
        _ => None,
    };
    let truncated = answered.len() < req.paths.len();
    let (files, baselines) = answered.into_iter().map(|a| (a.read, a.baseline)).unzip();
    let resp = ReadResponse { truncated, files };
    record(
        d,
        "read",
        file.as_deref(),
        Baseline::Sum(baselines),
        render::read(render::Asked::of(&req), &resp),
    );
    Ok(resp)
}

/// A symbol edit as a backing wrote it, with its answer.
struct Edited {
    resp: EditResponse,
    written: Written,
}

impl Backed for Edited {
    fn backing(&self) -> &str {
        &self.resp.backing
    }
    fn set_fallback(&mut self, why: String) {
        self.resp.fallback = Some(why);
    }
}

async fn edited(
    backing: &'static str,
    file: &Jailed,
    written: impl Future<Output = Outcome<Written>>,
) -> Outcome<Edited> {
    let written = written.await?;
    Ok(Edited {
        resp: EditResponse {
            path: file.rel.clone(),
            applied: true,
            new_range: written.new_range,
            hash: written.hash.clone(),
            file_hash: (backing == headless::BACKING)
                .then(|| blake3::hash(&written.content).to_hex().to_string()),
            backing: backing.into(),
            fallback: None,
            introduced: None,
        },
        written,
    })
}

/// `create_file`, written by our own writer: an IDE picks the new file up from the
/// disk, and has no undo entry to give a file it did not have.
async fn create_file(
    d: &Daemon,
    cx: &Cx<'_>,
    req: &EditRequest,
    path: &str,
) -> Result<EditResponse, LeanError> {
    let (file, lang, written) = headless::create_file(cx, req, path).await?;
    note_backing(headless::BACKING);
    let resp = EditResponse {
        path: file.rel.clone(),
        applied: true,
        new_range: written.new_range,
        hash: written.hash.clone(),
        file_hash: Some(written.hash.clone()),
        backing: headless::BACKING.into(),
        fallback: None,
        introduced: None,
    };
    let replaced = written.replaced.clone();
    backing::written::settle(cx, req, &file, lang, written).await?;
    // The alternative: a write tool sending the whole text.
    record(
        d,
        req.action.as_str(),
        Some(&file.abs),
        Baseline::Text(format!("{replaced}{}", req.text)),
        render::edit(req.action, &resp),
    );
    Ok(resp)
}

pub async fn edit_symbol(d: &Daemon, req: EditRequest) -> Result<EditResponse, LeanError> {
    let cx = cx(d, &req.root)?;
    if let EditTarget::File { path } = &req.target {
        return create_file(d, &cx, &req, path).await;
    }
    let (file, lang) = headless::edit_target(&cx, &req).await?;
    // What the file's language server reports before the edit, when one is up: the
    // edit's answer says what it reports new after.
    let before = lsp::diagnostics_if_warm(&cx, &file, lang).await;
    let edited = first(
        vec![
            ask(
                IDE,
                edited(IDE, &file, ide::edit_symbol(&cx, &file, lang, &req)),
            ),
            ask(
                headless::BACKING,
                edited(
                    headless::BACKING,
                    &file,
                    headless::edit_symbol(&cx, &file, lang, &req),
                ),
            ),
        ],
        || unreachable_absent("edit_symbol"),
    )
    .await;
    let Edited { mut resp, written } = match edited {
        Ok(edited) => edited,
        Err(e) => return Err(backing::written::what_changed(&cx, &file, lang, &req, e).await),
    };
    let replaced = written.replaced.clone();
    backing::written::settle(&cx, &req, &file, lang, written).await?;
    if let Some(before) = before
        && let Some(after) = lsp::diagnostics_if_warm(&cx, &file, lang).await
    {
        let mut introduced = lsp::introduced(&before, after);
        // Each named by its declaration, with the hash that guards fixing it.
        let places = introduced.iter().map(|d| (d.path.clone(), d.range.start));
        let named = enclosing(d, &cx, places.collect()).await?;
        for (diagnostic, symbol) in introduced.iter_mut().zip(named) {
            diagnostic.symbol = symbol;
        }
        resp.introduced = Some(introduced);
    }
    // The alternative: a string-replace edit sending the old and the new text.
    record(
        d,
        req.action.as_str(),
        Some(&file.abs),
        Baseline::Text(format!("{replaced}{}", req.text)),
        format!("{}{}", req.text, render::edit(req.action, &resp)),
    );
    Ok(resp)
}
