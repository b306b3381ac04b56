//! Backing A's operations: navigation, type hierarchy, inspections, reformat and the
//! two-phase rename through the warm language server of (root, language). Each one
//! picks the server, waits for it to be ready (or answers `INDEXING`), syncs the
//! document from disk, converts the position once, and jails every path the server
//! returns (ARCHITECTURE.md, `jail::resolve`): results outside the root appear only
//! with `scope=all`, and edits outside the root are conflicts, never written.
//!
//! Rename's plan: the server's `WorkspaceEdit` read against the disk: one usage per
//! text edit with its current text, hashed and gated as every backing's plans are
//! ([`answer`](super::answer)); apply recomputes the plan and refuses on any
//! difference, then writes all files or none.
//!
//! A reformat of a region goes through `rangeFormatting`. A rename's usages must each
//! hold the name the usage at the call's own freshly synced position holds; one that
//! does not comes from the server's stale view of its file, which is sent the disk's
//! bytes before the rename is planned again, and what is still stale then is a conflict
//! with its path and range. What only an IDE can honour (a rename's search options,
//! `optimize_imports`, a symbol's reformat) is `UNSUPPORTED` here, never done by
//! halves. A position on no name (a keyword, punctuation, blank, a comment, a number,
//! by the file's own tree-sitter parse) is `NO_SYMBOL_AT_POSITION` before any server
//! is asked: servers answer it each in their own words, or with an empty list.

use std::{
    collections::{BTreeMap, HashMap},
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    ErrorCode, LeanError, Position, Range,
    protocol::{
        CallDirection, CallHierarchyRequest, CallHierarchyResponse, CallNode, Conflict,
        DiagnosticHit, Direction, FilePosition, InspectionSource, InspectionsMode,
        InspectionsRequest, InspectionsResponse, LocationHit, NavigateAction, NavigateRequest,
        NavigateResponse, RefactorKind, RefactorPhase, RefactorRequest, RefactorResponse,
        ReformatRequest, ReformatResponse, ReformatScope, Scope, TypeHierarchyItem,
        TypeHierarchyRequest, TypeHierarchyResponse, Usage,
    },
};
use lsp_types::{
    DocumentFormattingParams, DocumentRangeFormattingParams, FormattingOptions,
    GotoDefinitionParams, GotoDefinitionResponse, PartialResultParams, ReferenceContext,
    ReferenceParams, RenameParams, TextDocumentIdentifier, TextDocumentPositionParams, TextEdit,
    WorkDoneProgressParams, request as req,
};

use lean_ctx_syntax::{Lang, text::LineIndex};

use super::{
    Cx,
    answer::{Files, conflict, may_apply, operation, plan_hash},
    blocking, limit,
};
use crate::{
    declarations::{Wire, position},
    edit::{self, FileWrite},
    jail::{Jailed, Want},
    language_servers::{
        edits::{self, Span},
        pool::Choice,
        positions::{DocText, Encoding, path_to_uri, uri_to_path},
        server::{Server, Synced},
    },
    registry::Project,
};

/// Navigation and diagnostics answer within this, or fail with a retryable error.
const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// Rename, formatting: servers may work a while on a big workspace.
const REFACTOR_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `inspections` waits for a server that publishes (rather than answers
/// pulls) to publish a file's diagnostics after we sent its text.
const PUBLISH_WAIT: Duration = Duration::from_secs(5);
/// A call's file, its server (ready) and the server's copy of the file.
struct Target {
    project: Arc<Project>,
    file: Jailed,
    server: Arc<Server>,
    synced: Synced,
    /// The end of the wait the caller allowed (`wait_ms`): for the server's readiness,
    /// then for a load it reports while a request waits.
    wait_until: Instant,
}

impl Target {
    /// A request to the server, `INDEXING` if it is loading past the caller's wait.
    async fn request<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, LeanError>
    where
        R::Params: Clone,
    {
        self.server
            .request::<R>(params, timeout, self.wait_until)
            .await
    }

    fn enc(&self) -> Encoding {
        self.server.encoding()
    }

    fn lsp_position(&self, at: &FilePosition) -> Result<lsp_types::Position, LeanError> {
        self.synced
            .text
            .to_lsp(Position::new(at.line, at.column), self.enc())
            .ok_or_else(|| LeanError::position_out_of_range(&self.file.rel, at.line, at.column))
    }

    fn position_params(&self, at: &FilePosition) -> Result<TextDocumentPositionParams, LeanError> {
        Ok(TextDocumentPositionParams {
            text_document: TextDocumentIdentifier::new(path_to_uri(&self.file.abs)),
            position: self.lsp_position(at)?,
        })
    }

    /// `NO_SYMBOL_AT_POSITION` unless the position touches a name, decided by the
    /// file's own tree-sitter parse before a server is asked: the token at the
    /// position (or the one just before it: a caret right after a name) must be a
    /// named leaf (an identifier, `self`, a string's text) that is not a comment or a
    /// number. A keyword, punctuation, a blank,
    /// a comment or a number holds no symbol, whatever a server makes of it: most
    /// answer no locations, gopls an error (`language_servers/server/mod.rs`'s `no_symbol_here`, the last
    /// resort for what the tree cannot tell).
    fn require_word(&self, at: &FilePosition) -> Result<(), LeanError> {
        let text = self.synced.text.text();
        let named = Lang::from_path(&self.file.abs).and_then(|lang| {
            let src = text.as_bytes();
            let offset =
                LineIndex::new(src).offset(src, position(Position::new(at.line, at.column)))?;
            let tree = lang.parse(src, &[])?;
            let names = |b: usize| {
                tree.root_node()
                    .descendant_for_byte_range(b, b + 1)
                    .is_some_and(|n| {
                        n.byte_range().contains(&b)
                            && n.child_count() == 0
                            && n.is_named()
                            && !no_symbol_kind(n.kind())
                    })
            };
            Some(names(offset) || offset.checked_sub(1).is_some_and(names))
        });
        if named != Some(false) {
            return Ok(());
        }
        let line = text
            .split('\n')
            .nth((at.line as usize).saturating_sub(1))
            .unwrap_or("");
        Err(LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            format!(
                "no symbol at {}:{}:{} ({:?})",
                self.file.rel,
                at.line,
                at.column,
                line.trim()
            ),
        )
        .with_remedy("point at a symbol's name (line 1-based, column 0-based in characters)"))
    }

    /// `NO_SYMBOL_AT_POSITION`: the server prepares no hierarchy of a `what` at `at`.
    fn nothing_at(&self, at: &FilePosition, what: &str) -> LeanError {
        LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            format!("no {what} at {}:{}:{}", self.file.rel, at.line, at.column),
        )
        .with_remedy(format!("point at a {what}'s name, or give its name_path"))
    }

    fn require(&self, capability: &str, action: &str) -> Result<(), LeanError> {
        if self.server.offers(capability) {
            Ok(())
        } else {
            Err(LeanError::new(
                ErrorCode::Unsupported,
                format!("{} does not offer {action} ({capability})", self.server.name()),
            )
            .with_remedy(format!(
                "open the project in a JetBrains IDE with the lean-ctx plugin, or configure another server for {}",
                self.server.spec.language
            )))
        }
    }
}

/// The ready server for `file`, with the file synced.
async fn target(cx: &Cx<'_>, file: &Jailed, wait_ms: u32) -> Result<Target, LeanError> {
    let (d, project) = (cx.d, &cx.project);
    let lang = Lang::from_path(&file.abs)
        .filter(|lang| lang.is_code())
        .ok_or_else(|| {
            LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{}: no language server for this file type", file.rel),
            )
        })?;
    let spec = match d.lsp.choice(lang) {
        Choice::Server(spec) => spec,
        Choice::JetBrainsOnly => {
            return Err(LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "lsp.{} is \"jetbrains\" and no JetBrains IDE window serves {}",
                    lang.name(),
                    project.root.display()
                ),
            ));
        }
        Choice::None => {
            return Err(LeanError::new(
                ErrorCode::BackendRequired,
                format!("no language server is configured for {}", lang.name()),
            )
            .with_remedy(format!("set lsp.{} in config.toml", lang.name())));
        }
        Choice::Refused(e) => return Err(e),
    };
    let server = d.lsp.server(&project.root, spec, &project.index)?;
    let wait_until = Instant::now() + Duration::from_millis(wait_ms.into());
    // A server whose load starts with its first file (clangd) is given the file
    // first; the others are waited for first, so the file reaches a loaded server.
    // Synced again after the wait either way (nothing is sent if it is unchanged).
    if server.loads_on_open() {
        // Not before its handshake: a file opened earlier is never added.
        server
            .wait_started(wait_until.saturating_duration_since(Instant::now()))
            .await?;
        server.sync(&file.abs, &super::read(file).await?).await;
    }
    server
        .wait_ready(wait_until.saturating_duration_since(Instant::now()))
        .await?;
    let bytes = super::read(file).await?;
    let synced = server.sync(&file.abs, &bytes).await;
    Ok(Target {
        project: project.clone(),
        file: file.clone(),
        server,
        synced,
        wait_until,
    })
}

/// Tree-sitter node kinds that are named but hold no symbol: comments and numbers
/// (`integer_literal`, `int_literal`, `number`, `float`, …) in every grammar here.
fn no_symbol_kind(kind: &str) -> bool {
    kind.contains("comment")
        || kind.contains("integer")
        || kind.contains("float")
        || matches!(
            kind,
            "number" | "int_literal" | "imaginary_literal" | "rune_literal"
        )
}

pub async fn navigate(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &NavigateRequest,
) -> Result<NavigateResponse, LeanError> {
    let t = target(cx, file, req.wait_ms).await?;
    let position = t.position_params(&req.at)?;
    t.require_word(&req.at)?;
    let work = WorkDoneProgressParams::default();
    let partial = PartialResultParams::default();
    let mut fallback = None;
    let raw: Vec<(lsp_types::Uri, lsp_types::Range)> = match req.action {
        NavigateAction::References => {
            t.require("referencesProvider", "references")?;
            let params = ReferenceParams {
                text_document_position: position,
                work_done_progress_params: work,
                partial_result_params: partial,
                context: ReferenceContext {
                    include_declaration: true,
                },
            };
            t.request::<req::References>(params, QUERY_TIMEOUT)
                .await?
                .unwrap_or_default()
                .into_iter()
                .map(|l| (l.uri, l.range))
                .collect()
        }
        action => {
            let params = GotoDefinitionParams {
                text_document_position_params: position,
                work_done_progress_params: work,
                partial_result_params: partial,
            };
            let answer = match action {
                NavigateAction::Definition => {
                    t.require("definitionProvider", "definition")?;
                    t.request::<req::GotoDefinition>(params, QUERY_TIMEOUT)
                        .await?
                }
                NavigateAction::Implementations => {
                    t.require("implementationProvider", "implementations")?;
                    t.request::<req::GotoImplementation>(params, QUERY_TIMEOUT)
                        .await?
                }
                _ if t.server.offers("declarationProvider") => {
                    t.request::<req::GotoDeclaration>(params, QUERY_TIMEOUT)
                        .await?
                }
                // Where a language has no declaration apart from the definition
                // (pylsp, gopls offer none), the definition is its declaration; the
                // answer says so.
                _ => {
                    t.require("definitionProvider", "declaration")?;
                    fallback = Some(format!(
                        "{} has no declaration apart from the definition: answered with the definition",
                        t.server.name()
                    ));
                    t.request::<req::GotoDefinition>(params, QUERY_TIMEOUT)
                        .await?
                }
            };
            goto_locations(answer)
        }
    };
    let (root, scope, enc) = (t.project.clone(), req.scope, t.enc());
    let mut hits = blocking(move || {
        let mut files = Files::new(&root);
        let mut hits: Vec<LocationHit> = raw
            .into_iter()
            .filter_map(|(uri, range)| files.location(&uri_to_path(&uri)?, range, enc, scope))
            .collect();
        hits.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
        hits.dedup();
        Ok(hits)
    })
    .await?;
    let total = hits.len() as u32;
    let truncated = hits.len() > limit(req.limit);
    hits.truncate(limit(req.limit));
    Ok(NavigateResponse {
        locations: hits,
        total,
        truncated,
        backing: t.server.name(),
        fallback,
    })
}

fn goto_locations(
    answer: Option<GotoDefinitionResponse>,
) -> Vec<(lsp_types::Uri, lsp_types::Range)> {
    match answer {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range)],
        Some(GotoDefinitionResponse::Array(ls)) => {
            ls.into_iter().map(|l| (l.uri, l.range)).collect()
        }
        Some(GotoDefinitionResponse::Link(links)) => links
            .into_iter()
            .map(|l| (l.target_uri, l.target_selection_range))
            .collect(),
    }
}

pub async fn type_hierarchy(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &TypeHierarchyRequest,
) -> Result<TypeHierarchyResponse, LeanError> {
    let t = target(cx, file, req.wait_ms).await?;
    t.require("typeHierarchyProvider", "type_hierarchy")?;
    let params = lsp_types::TypeHierarchyPrepareParams {
        text_document_position_params: t.position_params(&req.at)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let prepared = t
        .request::<req::TypeHierarchyPrepare>(params, QUERY_TIMEOUT)
        .await?
        .unwrap_or_default();
    let Some(item) = prepared.into_iter().next() else {
        return Err(t.nothing_at(&req.at, "type"));
    };
    let related = match req.direction {
        Direction::Supertypes => {
            t.request::<req::TypeHierarchySupertypes>(
                lsp_types::TypeHierarchySupertypesParams {
                    item: item.clone(),
                    work_done_progress_params: WorkDoneProgressParams::default(),
                    partial_result_params: PartialResultParams::default(),
                },
                QUERY_TIMEOUT,
            )
            .await?
        }
        Direction::Subtypes => {
            t.request::<req::TypeHierarchySubtypes>(
                lsp_types::TypeHierarchySubtypesParams {
                    item: item.clone(),
                    work_done_progress_params: WorkDoneProgressParams::default(),
                    partial_result_params: PartialResultParams::default(),
                },
                QUERY_TIMEOUT,
            )
            .await?
        }
    }
    .unwrap_or_default();
    let (project, enc, scope) = (t.project.clone(), t.enc(), req.scope);
    let (root_item, mut items) = blocking(move || {
        let mut files = Files::new(&project);
        let mut convert = |i: lsp_types::TypeHierarchyItem| {
            let hit = files.location(&uri_to_path(&i.uri)?, i.selection_range, enc, scope)?;
            Some(TypeHierarchyItem {
                name: i.name,
                kind: format!("{:?}", i.kind).to_lowercase(),
                path: hit.path,
                line: hit.range.start.line,
                detail: i.detail,
            })
        };
        let root_item = convert(item).ok_or_else(|| {
            LeanError::new(
                ErrorCode::NoSymbolAtPosition,
                "the type lies outside the project root",
            )
        })?;
        let items: Vec<_> = related.into_iter().filter_map(&mut convert).collect();
        Ok((root_item, items))
    })
    .await?;
    let total = items.len() as u32;
    let truncated = items.len() > limit(req.limit);
    items.truncate(limit(req.limit));
    Ok(TypeHierarchyResponse {
        root_item,
        items,
        total,
        truncated,
        backing: t.server.name(),
        fallback: None,
    })
}

/// Levels of calls a call hierarchy follows at most, whatever is asked.
const MAX_CALL_DEPTH: u32 = 5;

/// The levels of calls `req` gets: 0 asks for the default (1), and no more than
/// [`MAX_CALL_DEPTH`]; the IDE backing sends the same number.
pub fn call_depth(req: &CallHierarchyRequest) -> u32 {
    if req.depth == 0 {
        1
    } else {
        req.depth.min(MAX_CALL_DEPTH)
    }
}

/// A function a call hierarchy reached, as the server named it.
struct Reached {
    item: lsp_types::CallHierarchyItem,
    depth: u32,
    /// Its index in the list of those reached, of the one it was reached from.
    parent: Option<u32>,
    /// The call sites, and the file they lie in.
    sites: Vec<lsp_types::Range>,
    sites_in: lsp_types::Uri,
}

/// Who calls the function at `req.at`, or what it calls, level by level to
/// `req.depth` (LSP call hierarchy): each function reached is listed under the one it
/// was reached from and expanded once; calls into files outside the root are left
/// out unless the scope is `all`, and not followed.
pub async fn call_hierarchy(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &CallHierarchyRequest,
) -> Result<CallHierarchyResponse, LeanError> {
    let t = target(cx, file, req.wait_ms).await?;
    let position = t.position_params(&req.at)?;
    t.require_word(&req.at)?;
    t.require("callHierarchyProvider", "call_hierarchy")?;
    let params = lsp_types::CallHierarchyPrepareParams {
        text_document_position_params: position,
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let prepared = t
        .request::<req::CallHierarchyPrepare>(params, QUERY_TIMEOUT)
        .await?
        .unwrap_or_default();
    let Some(item) = prepared.into_iter().next() else {
        return Err(t.nothing_at(&req.at, "function or method"));
    };
    let root = t.project.root.clone();
    let inside = |i: &lsp_types::CallHierarchyItem| {
        req.scope == Scope::All || uri_to_path(&i.uri).is_some_and(|p| p.starts_with(&root))
    };
    let most = limit(req.limit);
    let depth = call_depth(req);
    let mut found: Vec<Reached> = Vec::new();
    // Where a function's name is: each is expanded once.
    let key = |i: &lsp_types::CallHierarchyItem| {
        let at = i.selection_range.start;
        (i.uri.as_str().to_string(), at.line, at.character)
    };
    let mut expanded = std::collections::HashSet::from([key(&item)]);
    let mut frontier = vec![(item.clone(), None::<u32>)];
    let mut truncated = false;
    'levels: for level in 1..=depth {
        let mut next = Vec::new();
        for (from, parent) in frontier {
            let calls: Vec<(
                lsp_types::CallHierarchyItem,
                Vec<lsp_types::Range>,
                lsp_types::Uri,
            )> = match req.direction {
                CallDirection::Incoming => t
                    .request::<req::CallHierarchyIncomingCalls>(
                        lsp_types::CallHierarchyIncomingCallsParams {
                            item: from,
                            work_done_progress_params: WorkDoneProgressParams::default(),
                            partial_result_params: PartialResultParams::default(),
                        },
                        QUERY_TIMEOUT,
                    )
                    .await?
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| {
                        let uri = c.from.uri.clone();
                        (c.from, c.from_ranges, uri)
                    })
                    .collect(),
                CallDirection::Outgoing => t
                    .request::<req::CallHierarchyOutgoingCalls>(
                        lsp_types::CallHierarchyOutgoingCallsParams {
                            item: from.clone(),
                            work_done_progress_params: WorkDoneProgressParams::default(),
                            partial_result_params: PartialResultParams::default(),
                        },
                        QUERY_TIMEOUT,
                    )
                    .await?
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| (c.to, c.from_ranges, from.uri.clone()))
                    .collect(),
            };
            for (call, sites, sites_in) in calls.into_iter().filter(|(c, ..)| inside(c)) {
                if found.len() == most {
                    truncated = true;
                    break 'levels;
                }
                let index = found.len() as u32;
                if expanded.insert(key(&call)) {
                    next.push((call.clone(), Some(index)));
                }
                found.push(Reached {
                    item: call,
                    depth: level,
                    parent,
                    sites,
                    sites_in,
                });
            }
        }
        frontier = next;
    }
    let (project, enc, scope, direction) = (t.project.clone(), t.enc(), req.scope, req.direction);
    let (root_item, calls) = blocking(move || {
        let mut files = Files::new(&project);
        let mut node = |i: lsp_types::CallHierarchyItem,
                        depth: u32,
                        parent: Option<u32>,
                        sites: (Vec<lsp_types::Range>, lsp_types::Uri)| {
            let hit = files.location(&uri_to_path(&i.uri)?, i.selection_range, enc, scope)?;
            let sites_in = uri_to_path(&sites.1)?;
            let sites = sites
                .0
                .into_iter()
                .filter_map(|r| Some(files.location(&sites_in, r, enc, scope)?.range.start))
                .collect();
            Some(CallNode {
                name: i.name,
                kind: format!("{:?}", i.kind).to_lowercase(),
                path: hit.path,
                range: hit.range,
                symbol: None,
                depth,
                parent,
                sites,
            })
        };
        let uri = item.uri.clone();
        let root_item = node(item, 0, None, (Vec::new(), uri)).ok_or_else(|| {
            LeanError::new(
                ErrorCode::NoSymbolAtPosition,
                "the function lies outside the project root",
            )
        })?;
        // A node that cannot be shown (its file gone since) takes the ones reached
        // through it along: the indexes of the rest are renumbered.
        let mut kept: Vec<Option<u32>> = Vec::with_capacity(found.len());
        let mut calls = Vec::new();
        for Reached {
            item: i,
            depth,
            parent,
            sites,
            sites_in,
        } in found
        {
            let parent = match parent {
                Some(p) => match kept[p as usize] {
                    Some(p) => Some(p),
                    None => {
                        kept.push(None);
                        continue;
                    }
                },
                None => None,
            };
            match node(i, depth, parent, (sites, sites_in)) {
                Some(n) => {
                    kept.push(Some(calls.len() as u32));
                    calls.push(n);
                }
                None => kept.push(None),
            }
        }
        Ok((root_item, calls))
    })
    .await?;
    Ok(CallHierarchyResponse {
        root_item,
        direction,
        calls,
        truncated,
        backing: t.server.name(),
        fallback: None,
    })
}

/// Longest an edit waits for its file's diagnostics, before and after: a check the
/// server cannot give at once is left out rather than slowing the edit.
const EDIT_CHECK_WAIT: Duration = Duration::from_secs(2);

/// `file`'s diagnostics from the language server of `lang` when one is up and ready
/// for the root (none is started), within [`EDIT_CHECK_WAIT`]; `None` otherwise.
pub async fn diagnostics_if_warm(
    cx: &Cx<'_>,
    file: &Jailed,
    lang: Lang,
) -> Option<Vec<DiagnosticHit>> {
    cx.d.lsp.warm(&cx.project.root, lang)?;
    let req = InspectionsRequest {
        root: cx.project.root.clone(),
        path: file.rel.clone(),
        mode: InspectionsMode::Run,
        limit: 0,
        wait_ms: 0,
    };
    let asked = tokio::time::timeout(EDIT_CHECK_WAIT, inspections(cx, file, &req));
    Some(asked.await.ok()?.ok()?.diagnostics)
}

/// The diagnostics of `after` that `before` did not have: compared by severity,
/// message and code (an edit moves the lines of what it did not cause), each as many
/// times as it is new.
pub fn introduced(before: &[DiagnosticHit], after: Vec<DiagnosticHit>) -> Vec<DiagnosticHit> {
    let key = |d: &DiagnosticHit| (d.severity.clone(), d.message.clone(), d.code.clone());
    let mut had: HashMap<_, usize> = HashMap::new();
    for d in before {
        *had.entry(key(d)).or_default() += 1;
    }
    after
        .into_iter()
        .filter(|d| match had.get_mut(&key(d)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

pub async fn inspections(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &InspectionsRequest,
) -> Result<InspectionsResponse, LeanError> {
    let t = target(cx, file, req.wait_ms).await?;
    let raw = if t.server.offers("diagnosticProvider") {
        let params = lsp_types::DocumentDiagnosticParams {
            text_document: TextDocumentIdentifier::new(path_to_uri(&t.file.abs)),
            identifier: None,
            previous_result_id: None,
            work_done_progress_params: WorkDoneProgressParams::default(),
            partial_result_params: PartialResultParams::default(),
        };
        match t
            .request::<req::DocumentDiagnosticRequest>(params, QUERY_TIMEOUT)
            .await?
        {
            lsp_types::DocumentDiagnosticReportResult::Report(
                lsp_types::DocumentDiagnosticReport::Full(full),
            ) => full.full_document_diagnostic_report.items,
            // We never send a previous result id, so "unchanged" and partial results
            // carry nothing for us: fall back to what was published.
            _ => t
                .server
                .published_diagnostics(&t.file.abs, &t.synced, PUBLISH_WAIT)
                .await
                .unwrap_or_default(),
        }
    } else {
        t.server
            .published_diagnostics(&t.file.abs, &t.synced, PUBLISH_WAIT)
            .await
            .unwrap_or_default()
    };
    let enc = t.enc();
    let mut diagnostics: Vec<DiagnosticHit> = raw
        .into_iter()
        .map(|diag| DiagnosticHit {
            path: t.file.rel.clone(),
            range: t.synced.text.range_from_lsp(diag.range, enc),
            severity: match diag.severity {
                Some(lsp_types::DiagnosticSeverity::ERROR) => "ERROR",
                Some(lsp_types::DiagnosticSeverity::INFORMATION) => "INFO",
                Some(lsp_types::DiagnosticSeverity::HINT) => "HINT",
                _ => "WARNING",
            }
            .into(),
            message: diag.message,
            source: diag.source,
            code: diag.code.map(|c| match c {
                lsp_types::NumberOrString::Number(n) => n.to_string(),
                lsp_types::NumberOrString::String(s) => s,
            }),
            symbol: None,
        })
        .collect();
    diagnostics.sort_by_key(|d| d.range);
    if req.mode == InspectionsMode::List {
        // The sources seen published for open files, and this file's (pulled ones
        // are never published).
        let mut seen: BTreeMap<String, u32> = t.server.diagnostic_sources().into_iter().collect();
        if t.server.offers("diagnosticProvider") {
            for d in &diagnostics {
                let id = d.source.clone().unwrap_or_else(|| t.server.name());
                *seen.entry(id).or_default() += 1;
            }
        }
        seen.entry(t.server.name()).or_default();
        let sources: Vec<InspectionSource> = seen
            .into_iter()
            .map(|(id, seen)| InspectionSource {
                id,
                seen,
                name: None,
                severity: None,
            })
            .collect();
        return Ok(InspectionsResponse {
            diagnostics: Vec::new(),
            total: sources.len() as u32,
            sources,
            truncated: false,
            backing: t.server.name(),
            fallback: None,
        });
    }
    let total = diagnostics.len() as u32;
    let truncated = diagnostics.len() > limit(req.limit);
    diagnostics.truncate(limit(req.limit));
    Ok(InspectionsResponse {
        diagnostics,
        sources: Vec::new(),
        total,
        truncated,
        backing: t.server.name(),
        fallback: None,
    })
}

pub async fn reformat(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &ReformatRequest,
) -> Result<ReformatResponse, LeanError> {
    if req.optimize_imports {
        return Err(needs_ide("optimizing imports", "optimize_imports"));
    }
    if let ReformatScope::Symbol { .. } = req.scope {
        return Err(needs_ide(
            "reformatting one symbol",
            "reformat_scope=symbol (reformat_scope=region formats lines)",
        ));
    }
    let t = target(cx, file, req.wait_ms).await?;
    let text_document = TextDocumentIdentifier::new(path_to_uri(&t.file.abs));
    let options = FormattingOptions {
        tab_size: 4,
        insert_spaces: true,
        ..FormattingOptions::default()
    };
    let work_done_progress_params = WorkDoneProgressParams::default();
    let edits = match req.scope {
        ReformatScope::Region { line, end_line } => {
            t.require("documentRangeFormattingProvider", "reformat of a region")?;
            let at = |line, column| FilePosition {
                path: req.path.clone(),
                line,
                column,
            };
            let last = (end_line as usize)
                .checked_sub(1)
                .and_then(|i| t.synced.text.text().lines().nth(i))
                .ok_or_else(|| LeanError::position_out_of_range(&t.file.rel, end_line, 0))?;
            let range = lsp_types::Range::new(
                t.lsp_position(&at(line, 0))?,
                t.lsp_position(&at(end_line, last.chars().count() as u32))?,
            );
            let params = DocumentRangeFormattingParams {
                text_document,
                range,
                options,
                work_done_progress_params,
            };
            t.request::<req::RangeFormatting>(params, REFACTOR_TIMEOUT)
                .await?
        }
        _ => {
            t.require("documentFormattingProvider", "reformat")?;
            let params = DocumentFormattingParams {
                text_document,
                options,
                work_done_progress_params,
            };
            t.request::<req::Formatting>(params, REFACTOR_TIMEOUT)
                .await?
        }
    }
    .unwrap_or_default();
    let bytes = super::read(&t.file).await?;
    let expected = blake3::hash(&bytes);
    if let Some(want) = &req.expected_hash
        && !edit::hash_matches(expected.to_hex().as_str(), want)
    {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "{} changed since you read it (hash mismatch); file untouched",
                t.file.rel
            ),
        ));
    }
    // The edits were computed on the server's copy; it must be the disk's.
    if expected != t.synced.hash {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "{} changed while it was being formatted; file untouched",
                t.file.rel
            ),
        ));
    }
    let content = edits::splice(&bytes, &edits::spans(&t.synced.text, &edits, t.enc()));
    let reformatted = content != bytes;
    if reformatted {
        let write = FileWrite {
            file: t.file.clone(),
            expected,
            content: content.clone(),
        };
        let locks = cx.d.locks.clone();
        blocking(move || edit::apply_many(&locks, &[write])).await?;
        t.project.index.wrote(&t.file, &content, None);
        cx.d.lsp
            .wrote(&t.project.root, std::slice::from_ref(&t.file.abs))
            .await;
    }
    Ok(ReformatResponse {
        path: t.file.rel.clone(),
        reformatted,
        hash: blake3::hash(&content).to_hex().to_string(),
        backing: t.server.name(),
        fallback: None,
    })
}

/// `what` only the JetBrains IDE does, asked of a language server because no IDE
/// window serves the root; `option` is what to leave out instead.
fn needs_ide(what: &str, option: &str) -> LeanError {
    LeanError::new(
        ErrorCode::Unsupported,
        format!("{what} needs the JetBrains IDE: language servers have no such feature, and no IDE window serves this root"),
    )
    .with_remedy(format!(
        "open the project in a JetBrains IDE with the lean-ctx plugin, or leave out {option}"
    ))
}

/// A rename's plan: usages read from disk, per-file edits, conflicts.
struct Plan {
    usages: Vec<Usage>,
    conflicts: Vec<Conflict>,
    writes: Vec<FileWrite>,
    hash: String,
}

/// A rename (the one refactoring language servers do).
pub async fn refactor(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &RefactorRequest,
) -> Result<RefactorResponse, LeanError> {
    let new_name = match &req.kind {
        RefactorKind::Rename { new_name } => new_name.clone(),
        other => {
            return Err(LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "{} needs the JetBrains IDE: no language server offers it",
                    other.as_str()
                ),
            ));
        }
    };
    // LSP renames references only: the IDE's comment and text searches have no
    // equivalent, and a rename that silently skipped them would not be the one asked.
    let o = &req.options;
    if o.search_comments || o.search_text_occurrences {
        return Err(needs_ide(
            "renaming in comments and text",
            "search_comments and search_text_occurrences",
        ));
    }
    let t = target(cx, file, req.wait_ms).await?;
    t.require("renameProvider", "rename")?;
    let position = t.position_params(&req.at)?;
    if prepare_supported(&t.server) {
        let prepared = t
            .request::<req::PrepareRenameRequest>(position.clone(), QUERY_TIMEOUT)
            .await;
        match prepared {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(LeanError::new(
                    ErrorCode::NoSymbolAtPosition,
                    format!(
                        "nothing to rename at {}:{}:{}",
                        t.file.rel, req.at.line, req.at.column
                    ),
                ));
            }
            Err(e) if e.code == ErrorCode::Internal => {
                return Err(LeanError::new(
                    ErrorCode::NoSymbolAtPosition,
                    format!(
                        "cannot rename at {}:{}:{}: {}",
                        t.file.rel, req.at.line, req.at.column, e.message
                    ),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    let mut found = rename_plan(&t, req, &position, &new_name).await?;
    // Usages whose disk text is not the name: the server's view of their files is
    // older than the disk (a write it has not heard of yet). Hand it the disk's
    // bytes of exactly those files and ask once more, so an answer never rests on a
    // view the caller cannot see; what is still stale after that is a conflict.
    if !found.stale.is_empty() {
        for rel in found.stale.iter().filter_map(|c| c.path.as_deref()) {
            if let Ok(file) = super::resolve(cx, rel, Want::File).await
                && let Ok(bytes) = super::read(&file).await
            {
                t.server.sync(&file.abs, &bytes).await;
            }
        }
        found = rename_plan(&t, req, &position, &new_name).await?;
    }
    let RenamePlan { mut plan, stale } = found;
    plan.conflicts.extend(stale);
    let limit = limit(req.limit);
    let mut resp = RefactorResponse {
        total: plan.usages.len() as u32,
        truncated: plan.usages.len() > limit,
        usages: plan.usages.iter().take(limit).cloned().collect(),
        conflicts: plan.conflicts.clone(),
        plan_hash: plan.hash.clone(),
        applied: false,
        changed_paths: Vec::new(),
        backing: t.server.name(),
        fallback: None,
    };
    let RefactorPhase::Apply { plan_hash, force } = &req.phase else {
        return Ok(resp);
    };
    may_apply(&resp, plan_hash.as_deref(), *force)?;
    let writes = plan.writes;
    let locks = cx.d.locks.clone();
    let writes = blocking(move || edit::apply_many(&locks, &writes).map(|()| writes)).await?;
    for w in &writes {
        t.project.index.wrote(&w.file, &w.content, None);
    }
    let written: Vec<PathBuf> = writes.iter().map(|w| w.file.abs.clone()).collect();
    cx.d.lsp.wrote(&t.project.root, &written).await;
    resp.applied = true;
    resp.changed_paths = writes.iter().map(|w| w.file.rel.clone()).collect();
    resp.changed_paths.sort();
    Ok(resp)
}

/// A rename's plan read against the disk, its stale usages ([`stale_usages`]) apart.
struct RenamePlan {
    plan: Plan,
    stale: Vec<Conflict>,
}

/// Asks the server for the rename and reads its edit against the disk.
async fn rename_plan(
    t: &Target,
    req: &RefactorRequest,
    position: &TextDocumentPositionParams,
    new_name: &str,
) -> Result<RenamePlan, LeanError> {
    let params = RenameParams {
        text_document_position: position.clone(),
        new_name: new_name.to_string(),
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let edit = t
        .request::<req::Rename>(params, REFACTOR_TIMEOUT)
        .await
        .map_err(|e| match e.code {
            ErrorCode::Internal if e.message.contains("answered") => {
                LeanError::new(ErrorCode::InvalidTarget, e.message)
                    .with_remedy("pick another name or position")
            }
            _ => e,
        })?
        .ok_or_else(|| {
            LeanError::new(
                ErrorCode::NoSymbolAtPosition,
                format!(
                    "nothing to rename at {}:{}:{}",
                    t.file.rel, req.at.line, req.at.column
                ),
            )
        })?;
    let (project, enc) = (t.project.clone(), t.enc());
    let op = operation(req);
    let plan = blocking(move || Ok(plan(&project, &op, edit, enc))).await?;
    let stale = stale_usages(&plan.usages, &t.file.rel, &req.at);
    Ok(RenamePlan { plan, stale })
}

/// Usages whose text on disk is not the name being renamed: the server computed them
/// from an older view of their file (one changed behind its back that it has not
/// caught up with), so their ranges point elsewhere now. The name is the text of the
/// usage at the call's own position, in the file that was synced for this request.
fn stale_usages(usages: &[Usage], rel: &str, at: &FilePosition) -> Vec<Conflict> {
    let here = Position::new(at.line, at.column);
    let Some(name) = usages
        .iter()
        .find(|u| u.path == rel && u.range.start <= here && here <= u.range.end)
        .map(|u| u.text.as_str())
    else {
        return Vec::new();
    };
    usages
        .iter()
        .filter(|u| u.text != name)
        .map(|u| Conflict {
            path: Some(u.path.clone()),
            range: Some(u.range),
            message: format!(
                "holds {:?} where the language server renames {name:?}: its view of this file is older than the disk (retry once it has caught up)",
                u.text
            ),
        })
        .collect()
}

/// `renameProvider: {prepareProvider: true}`; a bare `true` has no prepare step.
fn prepare_supported(server: &Server) -> bool {
    server.offers("renameProvider/prepareProvider")
}

/// Reads a `WorkspaceEdit` against the disk.
fn plan(project: &Project, operation: &str, edit: lsp_types::WorkspaceEdit, enc: Encoding) -> Plan {
    let mut per_file: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
    let mut conflicts = Vec::new();
    if let Some(changes) = edit.changes {
        for (uri, edits) in changes {
            match uri_to_path(&uri) {
                Some(p) => per_file.entry(p).or_default().extend(edits),
                None => conflicts.push(conflict(
                    None,
                    &format!("an edit to {} (not a file)", uri.as_str()),
                )),
            }
        }
    }
    if let Some(changes) = edit.document_changes {
        let ops = match changes {
            lsp_types::DocumentChanges::Edits(edits) => edits
                .into_iter()
                .map(lsp_types::DocumentChangeOperation::Edit)
                .collect(),
            lsp_types::DocumentChanges::Operations(ops) => ops,
        };
        for op in ops {
            match op {
                lsp_types::DocumentChangeOperation::Edit(e) => {
                    match uri_to_path(&e.text_document.uri) {
                        Some(p) => per_file
                            .entry(p)
                            .or_default()
                            .extend(e.edits.into_iter().map(|e| match e {
                                lsp_types::OneOf::Left(e) => e,
                                lsp_types::OneOf::Right(annotated) => annotated.text_edit,
                            })),
                        None => conflicts.push(conflict(
                            None,
                            &format!("an edit to {} (not a file)", e.text_document.uri.as_str()),
                        )),
                    }
                }
                lsp_types::DocumentChangeOperation::Op(op) => {
                    conflicts.push(conflict(
                        None,
                        &format!("a file operation lean-ctx does not apply: {op:?}"),
                    ));
                }
            }
        }
    }
    let files = Files::new(project);
    let mut usages = Vec::new();
    let mut writes = Vec::new();
    for (abs, edits) in per_file {
        let Some(inside) = files.jail(&abs) else {
            let outside = abs.display().to_string();
            conflicts.push(conflict(Some(&outside), "lies outside the project root"));
            continue;
        };
        let Ok(bytes) = inside.read() else {
            conflicts.push(conflict(Some(&inside.rel), "cannot be read"));
            continue;
        };
        let lines = LineIndex::new(&bytes);
        let spans: Vec<Span> = edits::spans(&DocText::new(&bytes), &edits, enc)
            .into_iter()
            .flat_map(|span| edits::narrow(&bytes, span))
            .collect();
        for span in &spans {
            usages.push(Usage {
                path: inside.rel.clone(),
                range: Range::new(
                    lines.position(&bytes, span.start).wire(),
                    lines.position(&bytes, span.end).wire(),
                ),
                text: String::from_utf8_lossy(&bytes[span.start..span.end]).into_owned(),
                new_text: span.text.clone(),
            });
        }
        writes.push(FileWrite {
            content: edits::splice(&bytes, &spans),
            expected: blake3::hash(&bytes),
            file: inside,
        });
    }
    usages.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
    let hash = plan_hash(operation, &usages);
    Plan {
        usages,
        conflicts,
        writes,
        hash,
    }
}
