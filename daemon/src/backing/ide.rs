//! The operations a JetBrains IDE window answers, when one serves exactly the
//! caller's root: navigation, type and call hierarchy, inspections, reformat, the
//! symbol edits and the two-phase refactorings (rename, move, safe delete, inline),
//! plus `symbols_overview` for files the headless index cannot parse.
//!
//! Every function answers [`Miss::Absent`] when no IDE window serves the root and
//! [`Miss::Unreachable`] when the window stopped answering (the router then asks the
//! next backing in the same call); an error the IDE answers is [`Miss::Failed`].
//! Positions cross the wire as 0-based lines and UTF-16 columns, converted here
//! once from the file's current text; every path sent is jailed first and every path
//! returned is jailed again; refactorings are guarded on this side exactly like the
//! language-server path (`plan_hash` over the usages with their current disk text).
//!
//! Request bodies are exactly the published plugin's (docs/ide-wire.md), plus a
//! rename's search options on `/renameApply`: our plugin must apply what its preview
//! showed, and the published plugin's Gson drops fields it does not know, so sending
//! them costs nothing there. `/call_hierarchy` is a route only our plugin has: the
//! published one answers it 404, which passes the call on ([`Target::post_beyond`]).

use std::{
    collections::{HashMap, VecDeque},
    path::{Path, PathBuf},
    sync::Arc,
};

use lean_ctx_shared::{
    ErrorCode, LeanError, Position, Range,
    protocol::{
        CallDirection, CallHierarchyRequest, CallHierarchyResponse, CallNode, Conflict,
        DiagnosticHit, Direction, EditAction, EditRequest, FilePosition, InspectionSource,
        InspectionsMode, InspectionsRequest, InspectionsResponse, LocationHit, NavigateAction,
        NavigateRequest, NavigateResponse, RefactorKind, RefactorPhase, RefactorRequest,
        RefactorResponse, ReformatRequest, ReformatResponse, ReformatScope, Scope, SymbolInfo,
        SymbolKind, SymbolsOverviewResponse, TypeHierarchyItem, TypeHierarchyRequest,
        TypeHierarchyResponse, Usage,
    },
};
use serde_json::{Value, json};

use super::{
    Cx, Miss, Outcome,
    answer::{Files, conflict, may_apply, operation, plan_hash},
    blocking, limit,
};
use crate::{
    edit::{self, Written},
    ide_windows::{
        backend::{self, CallError},
        discovery::Ide,
    },
    jail::{self, Jailed, Want},
    language_servers::positions::{DocText, Encoding},
    registry::Project,
};

/// What answers name as their backing.
pub const BACKING: &str = "jetbrains";

/// The IDE window serving the root, and the call's file, jailed and read.
struct Target {
    ide: Ide,
    project: Arc<Project>,
    file: Jailed,
    text: DocText,
    hash: blake3::Hash,
}

/// The IDE window serving the root, with the call's file read.
async fn target(cx: &Cx<'_>, file: &Jailed) -> Outcome<Target> {
    let Some(ide) = cx.d.ides.lookup(&cx.project.root).await else {
        return Err(Miss::Absent);
    };
    let bytes = super::read(file).await?;
    Ok(Target {
        ide,
        project: cx.project.clone(),
        file: file.clone(),
        text: DocText::new(&bytes),
        hash: blake3::hash(&bytes),
    })
}

impl Target {
    /// POSTs `body` to `route`, within the configured timeout of a read (`slow`:
    /// of an apply).
    async fn post(&self, cx: &Cx<'_>, route: &str, body: Value, slow: bool) -> Outcome<Value> {
        let timeout = cx.d.ides.timeout(slow);
        match backend::call(&cx.d.ides, &self.ide, route, &body, timeout).await {
            Ok(v) => Ok(v),
            Err(CallError::Unreachable(why)) => {
                tracing::info!(root = %self.project.root.display(), route, %why, "IDE unreachable");
                Err(Miss::Unreachable(why))
            }
            Err(CallError::Answered(e)) => Err(Miss::Failed(e)),
        }
    }

    /// POSTs to a route the published plugin lacks (docs/ide-wire.md, Beyond the
    /// published wire): its 404 is `UNSUPPORTED` here, which passes the call on to the
    /// next backing, as a language the IDE does not serve does.
    async fn post_beyond(&self, cx: &Cx<'_>, route: &str, body: Value) -> Outcome<Value> {
        match self.post(cx, route, body, false).await {
            Err(Miss::Failed(e)) if e.code == ErrorCode::NotFound => Err(LeanError::new(
                ErrorCode::Unsupported,
                format!("the JetBrains plugin has no {route} (the published plugin lacks it)"),
            )
            .with_remedy("update the lean-ctx plugin in the IDE")
            .into()),
            other => other,
        }
    }

    /// An agent position as the wire's 0-based line and UTF-16 column.
    fn wire(&self, at: &FilePosition) -> Result<Value, LeanError> {
        let p = self
            .text
            .to_lsp(Position::new(at.line, at.column), Encoding::Utf16)
            .ok_or_else(|| LeanError::position_out_of_range(&self.file.rel, at.line, at.column))?;
        Ok(json!({"line": p.line, "character": p.character}))
    }

    /// The identifier at `at` as a wire range (what the refactoring endpoints take).
    fn symbol_range(&self, at: &FilePosition) -> Result<Value, LeanError> {
        identifier_range(&self.text, &self.file.rel, at)
    }

    /// The whole lines `line..=end_line` as a wire range (a reformat region).
    fn lines_range(&self, line: u32, end_line: u32) -> Result<Value, LeanError> {
        let at = |line: u32, column: usize| FilePosition {
            path: self.file.rel.clone(),
            line,
            column: column as u32,
        };
        let last = (end_line as usize)
            .checked_sub(1)
            .and_then(|i| self.text.text().lines().nth(i))
            .ok_or_else(|| LeanError::position_out_of_range(&self.file.rel, end_line, 0))?;
        Ok(json!({
            "start": self.wire(&at(line, 0))?,
            "end": self.wire(&at(end_line, last.chars().count()))?,
        }))
    }
}

/// The identifier at `at` in `text` (the file `rel`) as a wire range.
fn identifier_range(text: &DocText, rel: &str, at: &FilePosition) -> Result<Value, LeanError> {
    let none = || {
        LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            format!("no identifier at {rel}:{}:{}", at.line, at.column),
        )
    };
    let line: Vec<char> = text
        .text()
        .lines()
        .nth((at.line as usize).checked_sub(1).ok_or_else(none)?)
        .ok_or_else(none)?
        .chars()
        .collect();
    let word = |c: &char| c.is_alphanumeric() || *c == '_';
    let at_col = at.column as usize;
    if !line.get(at_col).is_some_and(word) {
        return Err(none());
    }
    let start = (0..at_col)
        .rev()
        .take_while(|&i| word(&line[i]))
        .last()
        .unwrap_or(at_col);
    let end = (at_col..line.len())
        .take_while(|&i| word(&line[i]))
        .last()
        .unwrap_or(at_col)
        + 1;
    let pos = |column: usize| {
        text.to_lsp(Position::new(at.line, column as u32), Encoding::Utf16)
            .map(|p| json!({"line": p.line, "character": p.character}))
            .ok_or_else(none)
    };
    Ok(json!({"start": pos(start)?, "end": pos(end)?}))
}

/// A path the IDE answered with: relative to the root, or absolute.
fn ide_path(root: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

fn wire_range(v: &Value) -> Option<lsp_types::Range> {
    serde_json::from_value(v.clone()).ok()
}

fn scope_str(scope: Scope) -> &'static str {
    match scope {
        Scope::Project => "project",
        Scope::All => "all",
    }
}

pub async fn navigate(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &NavigateRequest,
) -> Outcome<NavigateResponse> {
    let t = target(cx, file).await?;
    let route = match req.action {
        NavigateAction::References => "/references",
        NavigateAction::Definition => "/definition",
        NavigateAction::Implementations => "/implementations",
        NavigateAction::Declaration => "/declaration",
    };
    let mut body = t.wire(&req.at)?;
    body["path"] = t.file.rel.clone().into();
    body["scope"] = scope_str(req.scope).into();
    let answer = t.post(cx, route, body, false).await?;
    let (project, scope) = (t.project.clone(), req.scope);
    let mut hits = blocking(move || {
        let mut files = Files::new(&project);
        let mut hits: Vec<LocationHit> = answer["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| {
                let abs = ide_path(&project.root, l["path"].as_str()?);
                files.location(&abs, wire_range(&l["range"])?, Encoding::Utf16, scope)
            })
            .collect();
        hits.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
        hits.dedup();
        Ok((
            hits,
            answer["total"].as_u64(),
            answer["truncated"].as_bool(),
        ))
    })
    .await?;
    let (mut locations, total, ide_truncated) = (std::mem::take(&mut hits.0), hits.1, hits.2);
    let shown = limit(req.limit);
    let total = total.unwrap_or(0).max(locations.len() as u64) as u32;
    let truncated = ide_truncated.unwrap_or(false) || locations.len() > shown;
    locations.truncate(shown);
    Ok(NavigateResponse {
        locations,
        total,
        truncated,
        backing: BACKING.into(),
        fallback: None,
    })
}

pub async fn type_hierarchy(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &TypeHierarchyRequest,
) -> Outcome<TypeHierarchyResponse> {
    let t = target(cx, file).await?;
    let mut body = t.wire(&req.at)?;
    body["path"] = t.file.rel.clone().into();
    body["scope"] = scope_str(req.scope).into();
    body["direction"] = match req.direction {
        Direction::Supertypes => "supertypes",
        Direction::Subtypes => "subtypes",
    }
    .into();
    let answer = t.post(cx, "/type_hierarchy", body, false).await?;
    let files = Files::new(&t.project);
    let node = |n: &Value| -> Option<TypeHierarchyItem> {
        let abs = ide_path(&t.project.root, n["path"].as_str()?);
        let path = match files.jail(&abs) {
            Some(inside) => inside.rel,
            None if req.scope == Scope::All => abs.display().to_string(),
            None => return None,
        };
        Some(TypeHierarchyItem {
            name: n["name"].as_str()?.to_string(),
            kind: "type".into(),
            path,
            line: n["line"].as_u64()? as u32,
            detail: None,
        })
    };
    let tree = &answer["tree"];
    let root_item = node(tree).ok_or_else(|| {
        LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            "the IDE's type lies outside the project root",
        )
    })?;
    // Depth first: the nodes under the root, nearest first within each branch.
    let mut items = Vec::new();
    let mut stack: Vec<&Value> = tree["children"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .collect();
    while let Some(n) = stack.pop() {
        items.extend(node(n));
        stack.extend(n["children"].as_array().into_iter().flatten().rev());
    }
    let total = items.len() as u32;
    let truncated =
        answer["truncated"].as_bool().unwrap_or(false) || items.len() > limit(req.limit);
    items.truncate(limit(req.limit));
    Ok(TypeHierarchyResponse {
        root_item,
        items,
        total,
        truncated,
        backing: BACKING.into(),
        fallback: None,
    })
}

/// Who calls the function at `req.at`, or what it calls, to `req.depth` levels: the
/// IDE's tree, level by level, each node under the one it was reached from. Every path
/// is jailed; a node outside the root (unless the scope is `all`) is left out with the
/// nodes reached through it. Call sites lie in the caller's file: the node's own
/// (incoming) or its parent's (outgoing), as in LSP.
pub async fn call_hierarchy(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &CallHierarchyRequest,
) -> Outcome<CallHierarchyResponse> {
    let t = target(cx, file).await?;
    let levels = super::lsp::call_depth(req);
    let mut body = t.wire(&req.at)?;
    body["path"] = t.file.rel.clone().into();
    body["scope"] = scope_str(req.scope).into();
    body["direction"] = match req.direction {
        CallDirection::Incoming => "incoming",
        CallDirection::Outgoing => "outgoing",
    }
    .into();
    body["depth"] = levels.into();
    let answer = t.post_beyond(cx, "/call_hierarchy", body).await?;
    let (project, scope, direction, most) = (
        t.project.clone(),
        req.scope,
        req.direction,
        limit(req.limit),
    );
    blocking(move || {
        let mut files = Files::new(&project);
        // A node as the agent sees it, and the file it lies in.
        let mut node = |n: &Value, depth: u32, parent: Option<u32>, sites_in: Option<&Path>| {
            let abs = ide_path(&project.root, n["path"].as_str()?);
            let hit = files.location(&abs, wire_range(&n["range"])?, Encoding::Utf16, scope)?;
            let sites_in = sites_in.unwrap_or(&abs);
            let sites = n["sites"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| {
                    let site = files.location(sites_in, wire_range(r)?, Encoding::Utf16, scope)?;
                    Some(site.range.start)
                })
                .collect();
            let called = CallNode {
                name: n["name"].as_str()?.to_string(),
                kind: n["kind"].as_str().unwrap_or("function").to_string(),
                path: hit.path,
                range: hit.range,
                symbol: None,
                depth,
                parent,
                sites,
            };
            Some((called, abs))
        };
        let tree = &answer["tree"];
        let (root_item, root_abs) = node(tree, 0, None, None).ok_or_else(|| {
            LeanError::new(
                ErrorCode::NoSymbolAtPosition,
                "the IDE's function lies outside the project root",
            )
        })?;
        let mut calls = Vec::new();
        let mut truncated = answer["truncated"].as_bool().unwrap_or(false);
        let children = |n: &Value| n["children"].as_array().cloned().unwrap_or_default();
        let mut queue: VecDeque<(Value, u32, Option<u32>, PathBuf)> = children(tree)
            .into_iter()
            .map(|c| (c, 1, None, root_abs.clone()))
            .collect();
        while let Some((n, depth, parent, parent_abs)) = queue.pop_front() {
            if depth > levels {
                continue;
            }
            let sites_in = match direction {
                CallDirection::Incoming => None,
                CallDirection::Outgoing => Some(parent_abs.as_path()),
            };
            let Some((called, abs)) = node(&n, depth, parent, sites_in) else {
                continue;
            };
            if calls.len() == most {
                truncated = true;
                break;
            }
            let index = Some(calls.len() as u32);
            calls.push(called);
            queue.extend(
                children(&n)
                    .into_iter()
                    .map(|c| (c, depth + 1, index, abs.clone())),
            );
        }
        Ok(CallHierarchyResponse {
            root_item,
            direction,
            calls,
            truncated,
            backing: BACKING.into(),
            fallback: None,
        })
    })
    .await
    .map_err(Miss::from)
}

pub async fn inspections(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &InspectionsRequest,
) -> Outcome<InspectionsResponse> {
    let t = target(cx, file).await?;
    let body = json!({"path": t.file.rel});
    if req.mode == InspectionsMode::List {
        let answer = t.post(cx, "/list_inspections", body, false).await?;
        let sources: Vec<InspectionSource> = answer["inspections"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| {
                Some(InspectionSource {
                    id: i["id"].as_str()?.to_string(),
                    seen: 0,
                    name: i["name"].as_str().map(str::to_string),
                    severity: i["severity"].as_str().map(str::to_string),
                })
            })
            .collect();
        return Ok(InspectionsResponse {
            diagnostics: Vec::new(),
            total: sources.len() as u32,
            sources,
            truncated: answer["truncated"].as_bool().unwrap_or(false),
            backing: BACKING.into(),
            fallback: None,
        });
    }
    let answer = t.post(cx, "/inspections", body, false).await?;
    let files = Files::new(&t.project);
    let mut diagnostics: Vec<DiagnosticHit> = answer["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|diag| {
            let inside = files.jail(&ide_path(&t.project.root, diag["path"].as_str()?))?;
            let line = diag["line"].as_u64()? as u32;
            Some(DiagnosticHit {
                path: inside.rel,
                range: Range::new(Position::new(line, 0), Position::new(line, 0)),
                severity: diag["severity"]
                    .as_str()
                    .unwrap_or("WARNING")
                    .to_uppercase(),
                message: diag["message"].as_str().unwrap_or("").to_string(),
                source: None,
                code: None,
                symbol: None,
            })
        })
        .collect();
    diagnostics.sort_by_key(|d| d.range);
    let total = diagnostics.len() as u32;
    let truncated =
        answer["truncated"].as_bool().unwrap_or(false) || diagnostics.len() > limit(req.limit);
    diagnostics.truncate(limit(req.limit));
    Ok(InspectionsResponse {
        diagnostics,
        sources: Vec::new(),
        total,
        truncated,
        backing: BACKING.into(),
        fallback: None,
    })
}

pub async fn reformat(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &ReformatRequest,
) -> Outcome<ReformatResponse> {
    let t = target(cx, file).await?;
    // The guard runs here, on the disk's bytes, before anything is sent.
    if let Some(want) = &req.expected_hash
        && !edit::hash_matches(t.hash.to_hex().as_str(), want)
    {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "{} changed since you read it (hash mismatch); file untouched",
                t.file.rel
            ),
        )
        .into());
    }
    let scope = match req.scope {
        ReformatScope::File => json!({"kind": "file"}),
        ReformatScope::Region { line, end_line } => {
            json!({"kind": "region", "range": t.lines_range(line, end_line)?})
        }
        ReformatScope::Symbol { line, column } => {
            let at = FilePosition {
                path: t.file.rel.clone(),
                line,
                column,
            };
            json!({"kind": "symbol", "range": t.symbol_range(&at)?})
        }
    };
    let body =
        json!({"path": t.file.rel, "scope": scope, "optimize_imports": req.optimize_imports});
    t.post(cx, "/reformat", body, true).await?;
    let file = t.file.clone();
    let bytes = blocking(move || {
        file.read()
            .map_err(|e| LeanError::new(ErrorCode::FileNotFound, format!("{}: {e}", file.rel)))
    })
    .await?;
    let hash = blake3::hash(&bytes);
    // The disk says whether anything changed: the published plugin answers
    // `{applied, changed_paths}`, the upstream reference `{reformatted}`, neither
    // reliably both.
    let reformatted = hash != t.hash;
    if reformatted {
        wrote(cx.d, &t.project, vec![t.file.clone()]).await;
    }
    Ok(ReformatResponse {
        path: t.file.rel.clone(),
        reformatted,
        hash: hash.to_hex().to_string(),
        backing: BACKING.into(),
        fallback: None,
    })
}

/// Files the IDE wrote: re-indexed now (the cache entries of their old content are
/// left behind) and sent to the root's language servers, before the call answers.
async fn wrote(d: &crate::state::Daemon, project: &Arc<Project>, files: Vec<Jailed>) {
    let abs: Vec<PathBuf> = files.iter().map(|f| f.abs.clone()).collect();
    let p = project.clone();
    let _ = blocking(move || {
        for f in &files {
            // An unparsable or vanished file is the index's business, not this call's.
            let _ = p.index.file(f);
        }
        Ok(())
    })
    .await;
    d.lsp.wrote(&project.root, &abs).await;
}

/// A refactoring through the IDE: preview (usages, conflicts, plan hash) and apply.
pub async fn refactor(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &RefactorRequest,
) -> Outcome<RefactorResponse> {
    let t = target(cx, file).await?;
    let range = t.symbol_range(&req.at)?;
    let o = &req.options;
    // The preview bodies are the published ones (docs/ide-wire.md, Requests); the apply
    // adds `force` (not for inline) and safe delete's `propagate`. A rename's search
    // options go to `/renameApply` too, beyond the published table: our plugin must
    // change what its preview showed, and the published plugin's Gson drops fields it
    // does not read.
    let (name, mut body) = match &req.kind {
        RefactorKind::Rename { new_name } => (
            "rename",
            json!({"new_name": new_name, "search_comments": o.search_comments, "search_text_occurrences": o.search_text_occurrences}),
        ),
        RefactorKind::Move { destination } => {
            let dest = destination_inside(&t.project, destination)?;
            ("move", json!({"target": {"kind": "path", "path": dest}}))
        }
        RefactorKind::MoveInto { parent } => {
            let file = super::resolve(cx, &parent.path, Want::File).await?;
            let bytes = super::read(&file).await?;
            let range = identifier_range(&DocText::new(&bytes), &file.rel, parent)?;
            let target = json!({"kind": "parent", "path": file.rel, "range": range});
            ("move", json!({ "target": target }))
        }
        RefactorKind::SafeDelete => ("safeDelete", json!({})),
        RefactorKind::Inline => ("inline", json!({"keep_definition": o.keep_definition})),
    };
    body["path"] = t.file.rel.clone().into();
    body["range"] = range;
    let new_text = match &req.kind {
        RefactorKind::Rename { new_name } => new_name.clone(),
        _ => String::new(),
    };
    let preview = t
        .post(cx, &format!("/{name}Preview"), body.clone(), false)
        .await?;
    let (project, answer) = (t.project.clone(), preview);
    let (usages, conflicts) = blocking(move || Ok(plan(&project, &answer, &new_text))).await?;
    let hash = plan_hash(&operation(req), &usages);
    let mut usage_paths: Vec<String> = usages.iter().map(|u| u.path.clone()).collect();
    usage_paths.sort();
    usage_paths.dedup();
    let shown = limit(req.limit);
    let mut resp = RefactorResponse {
        total: usages.len() as u32,
        truncated: usages.len() > shown,
        usages: usages.into_iter().take(shown).collect(),
        conflicts,
        plan_hash: hash,
        applied: false,
        changed_paths: Vec::new(),
        backing: BACKING.into(),
        fallback: None,
    };
    let RefactorPhase::Apply {
        plan_hash: want,
        force,
    } = &req.phase
    else {
        return Ok(resp);
    };
    may_apply(&resp, want.as_deref(), *force)?;
    // Inline takes no `force` on the wire (docs/ide-wire.md, Requests).
    if !matches!(req.kind, RefactorKind::Inline) {
        body["force"] = (*force).into();
    }
    if matches!(req.kind, RefactorKind::SafeDelete) {
        body["propagate"] = o.propagate.into();
    }
    // What the files held before the IDE writes: the witness its answer is checked
    // against.
    let before = {
        let mut paths = usage_paths.clone();
        paths.push(t.file.rel.clone());
        let project = t.project.clone();
        blocking(move || Ok(snapshot(&project, &paths))).await?
    };
    // A window that stops answering now may have written some files: no other
    // backing may take over this apply.
    let applied = match t.post(cx, &format!("/{name}Apply"), body, true).await {
        Err(Miss::Unreachable(why)) => {
            return Err(LeanError::new(
                ErrorCode::BackendRequired,
                format!(
                    "the JetBrains IDE stopped answering during the {} ({why}); check the files it may have changed",
                    req.kind.as_str()
                ),
            )
            .into());
        }
        other => other?,
    };
    let files = Files::new(&t.project);
    let mut changed: Vec<Jailed> = Vec::new();
    for p in applied["changed_paths"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        match files.jail(&ide_path(&t.project.root, p)) {
            Some(inside) => changed.push(inside),
            None => tracing::warn!(
                path = p,
                "the IDE reports a change outside the project root"
            ),
        }
    }
    resp.changed_paths = changed.iter().map(|j| j.rel.clone()).collect();
    wrote(cx.d, &t.project, changed).await;
    resp.applied = applied["applied"].as_bool().unwrap_or(true);
    resp.changed_paths.sort();
    resp.changed_paths.dedup();
    if resp.applied {
        let rename_to = match &req.kind {
            RefactorKind::Rename { new_name } => Some(new_name.clone()),
            _ => None,
        };
        let (project, claimed) = (t.project.clone(), resp.changed_paths.clone());
        let lie = blocking(move || {
            Ok(contradiction(
                &project,
                &before,
                &claimed,
                &usage_paths,
                rename_to.as_deref(),
            ))
        })
        .await?;
        if let Some(lie) = lie {
            let why = format!(
                "the JetBrains IDE answered that the {} was applied, but {lie}",
                req.kind.as_str()
            );
            cx.d.ides.distrust(&t.ide.hash, why.clone());
            return Err(LeanError::new(ErrorCode::Conflict, why).with_remedy(
                "check the files with ctx_read (the IDE may have written some of them); this IDE window is not used again until it restarts",
            ).into());
        }
    }
    Ok(resp)
}

/// The BLAKE3 of each file (root-relative) as it is now; a file that cannot be read
/// is left out.
fn snapshot(project: &Project, rels: &[String]) -> HashMap<String, blake3::Hash> {
    rels.iter()
        .filter_map(|rel| {
            let bytes = jail::read_beneath(&project.root, rel).ok()?;
            Some((rel.clone(), blake3::hash(&bytes)))
        })
        .collect()
}

/// What the disk says against an IDE's "applied" refactoring, if anything. What can
/// be checked: every path it names as changed and whose bytes we held before differs
/// from them now; for a rename, every file with a usage changed and holds the new
/// name. What cannot: where exactly a rename wrote (positions shift, and an IDE may
/// rightly touch more than the preview listed), the content a move, inline or safe
/// delete produces (only the IDE computes it), and files the IDE creates or moves.
fn contradiction(
    project: &Project,
    before: &HashMap<String, blake3::Hash>,
    claimed: &[String],
    usage_paths: &[String],
    rename_to: Option<&str>,
) -> Option<String> {
    let now = |rel: &str| jail::read_beneath(&project.root, rel).ok();
    for rel in claimed {
        if let (Some(old), Some(bytes)) = (before.get(rel), now(rel))
            && blake3::hash(&bytes) == *old
        {
            return Some(format!(
                "{rel}, which it names as changed, holds the same bytes as before"
            ));
        }
    }
    let new_name = rename_to?;
    for rel in usage_paths {
        // A file a rename moved (a Java class's file) is not here to check.
        let (Some(old), Some(bytes)) = (before.get(rel), now(rel)) else {
            continue;
        };
        if blake3::hash(&bytes) == *old {
            return Some(format!(
                "{rel}, which has usages to rename, holds the same bytes as before"
            ));
        }
        if !String::from_utf8_lossy(&bytes).contains(new_name) {
            return Some(format!("{rel} does not contain the new name {new_name:?}"));
        }
    }
    None
}

/// A move destination proven inside the root (it may not exist yet: its parent must).
fn destination_inside(project: &Project, destination: &str) -> Result<String, LeanError> {
    if let Ok(j) = project.resolve(destination, Want::FileOrDir) {
        return Ok(j.rel);
    }
    let path = Path::new(destination);
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(LeanError::new(
            ErrorCode::InvalidTarget,
            format!("{destination:?} is no destination"),
        ));
    };
    let parent = parent.to_str().filter(|p| !p.is_empty()).unwrap_or(".");
    let dir = project
        .resolve(parent, Want::FileOrDir)
        .map_err(|e| LeanError::new(ErrorCode::InvalidTarget, e.message))?;
    let name = name.to_string_lossy();
    Ok(if dir.rel.is_empty() {
        name.into_owned()
    } else {
        format!("{}/{name}", dir.rel)
    })
}

/// A preview's usages with their current disk text, and its conflicts (usages outside
/// the root among them).
fn plan(project: &Project, preview: &Value, new_text: &str) -> (Vec<Usage>, Vec<Conflict>) {
    let mut files = Files::new(project);
    let mut usages = Vec::new();
    let mut conflicts = Vec::new();
    for u in preview["usages"].as_array().into_iter().flatten() {
        let (Some(path), Some(range)) = (u["path"].as_str(), wire_range(&u["range"])) else {
            continue;
        };
        let abs = ide_path(&project.root, path);
        let Some(inside) = files.jail(&abs) else {
            conflicts.push(conflict(Some(path), "a usage outside the project root"));
            continue;
        };
        let Some(text) = files.text(&inside) else {
            conflicts.push(conflict(Some(&inside.rel), "cannot be read"));
            continue;
        };
        let (start, end) = (
            text.disk_offset(range.start, Encoding::Utf16),
            text.disk_offset(range.end, Encoding::Utf16),
        );
        let current = text.text_at(start, end);
        usages.push(Usage {
            path: inside.rel,
            range: text.range_from_lsp(range, Encoding::Utf16),
            text: current,
            new_text: new_text.to_string(),
        });
    }
    // The IDE's own conflicts keep where they are: the path jailed (outside the root
    // it is named, not read), the range converted from the file's current text.
    for c in preview["conflicts"].as_array().into_iter().flatten() {
        let message = c["message"].as_str().unwrap_or("conflict").to_string();
        let Some(path) = c["path"].as_str() else {
            conflicts.push(Conflict {
                path: None,
                range: None,
                message,
            });
            continue;
        };
        let (path, range) = match files.jail(&ide_path(&project.root, path)) {
            Some(inside) => {
                let range = wire_range(&c["range"]).and_then(|r| {
                    let text = files.text(&inside)?;
                    Some(text.range_from_lsp(r, Encoding::Utf16))
                });
                (inside.rel, range)
            }
            None => (path.to_string(), None),
        };
        conflicts.push(Conflict {
            path: Some(path),
            range,
            message,
        });
    }
    usages.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
    (usages, conflicts)
}

/// `symbols_overview` of a file the headless index cannot parse: the IDE's symbols
/// (name, kind, 1-based line; the wire has no ranges or signatures).
pub async fn symbols_overview(cx: &Cx<'_>, file: &Jailed) -> Outcome<SymbolsOverviewResponse> {
    let t = target(cx, file).await?;
    let body = json!({"path": t.file.rel});
    let answer = t.post(cx, "/symbols_overview", body, false).await?;
    let symbols: Vec<SymbolInfo> = answer["symbols"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let name = s["name"].as_str()?.to_string();
            let line = s["line"].as_u64()? as u32;
            let at = Range::new(Position::new(line, 0), Position::new(line, 0));
            Some(SymbolInfo {
                kind: s["kind"]
                    .as_str()
                    .and_then(SymbolKind::parse)
                    .unwrap_or(SymbolKind::Variable),
                name_path: name.clone(),
                signature: t.text.line_text(line).to_string(),
                name,
                range: at,
                name_range: at,
                children: Vec::new(),
                hash: None,
            })
        })
        .collect();
    Ok(SymbolsOverviewResponse {
        path: t.file.rel.clone(),
        language: Path::new(&t.file.rel)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default(),
        total: answer["total"].as_u64().unwrap_or(symbols.len() as u64) as u32,
        symbols,
        backing: BACKING.into(),
        fallback: None,
    })
}

/// A symbol edit through the IDE: worked out here exactly as the headless writer
/// would (target, `expected_hash` against the disk, reindented text in the file's line
/// endings, syntax guard), then sent to the route of the action with the symbol's
/// range, so the IDE records it as one undo entry. If the IDE's bytes are ours, the
/// answer is ours; otherwise it describes what the IDE wrote.
pub async fn edit_symbol(
    cx: &Cx<'_>,
    file: &Jailed,
    lang: lean_ctx_syntax::Lang,
    req: &EditRequest,
) -> Outcome<Written> {
    let Some(ide) = cx.d.ides.lookup(&cx.project.root).await else {
        return Err(Miss::Absent);
    };
    let planned = {
        let held = super::written::held(cx, file, req);
        let (file, req) = (file.clone(), req.clone());
        blocking(move || edit::plan(&file, lang, &edit::Edit::of(&req, held))).await?
    };
    let doc = DocText::new(&planned.original);
    let wire_pos = |offset: usize| {
        let p = doc.lsp_position(offset, Encoding::Utf16);
        json!({"line": p.line, "character": p.character})
    };
    let route = match req.action {
        EditAction::ReplaceSymbolBody | EditAction::ReplaceLines => "/replaceSymbolBody",
        EditAction::InsertBeforeSymbol => "/insertBeforeSymbol",
        EditAction::InsertAfterSymbol => "/insertAfterSymbol",
        // Written on disk by the route (`route::edit_symbol`); the IDE sees the new file.
        EditAction::CreateFile => return Err(Miss::Absent),
    };
    let body = json!({
        "path": file.rel,
        "range": {"start": wire_pos(planned.target.start), "end": wire_pos(planned.target.end)},
        "text": String::from_utf8_lossy(&planned.content[planned.written.clone()]),
    });
    let t = Target {
        ide,
        project: cx.project.clone(),
        file: file.clone(),
        text: doc,
        hash: blake3::hash(&planned.original),
    };
    let posted = t.post(cx, route, body, true).await;
    let now = super::read(file).await?;
    if now == planned.content {
        return Ok(planned.written());
    }
    // A window that stopped answering (or hung) may still have written: only a file
    // that holds exactly its old bytes may pass the edit on to another writer, or an
    // insert would land twice.
    let answer = match posted {
        Err(Miss::Unreachable(why)) if now != planned.original => {
            return Err(LeanError::new(
                ErrorCode::Conflict,
                format!(
                    "the JetBrains IDE stopped answering during the edit ({why}) and {} holds other bytes than before or planned",
                    file.rel
                ),
            )
            .with_remedy("read the file again and retry the edit against what it holds")
            .into());
        }
        other => other?,
    };
    // The disk is the only witness we believe: the IDE's "applied" counts only if the
    // file holds exactly the bytes we planned.
    if answer["applied"].as_bool() == Some(false) && now == planned.original {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "the JetBrains IDE did not apply the edit to {}; file untouched",
                file.rel
            ),
        )
        .into());
    }
    let holds = if now == planned.original {
        "still holds its old content: nothing was written".to_string()
    } else {
        format!(
            "holds other bytes than planned ({})",
            first_difference(&planned.content, &now)
        )
    };
    let why = format!(
        "the JetBrains IDE answered that it applied the edit, but {} {holds}",
        file.rel
    );
    cx.d.ides.distrust(&t.ide.hash, why.clone());
    Err(LeanError::new(ErrorCode::Conflict, why).with_remedy(
        "read the file fresh (ctx_read) and retry; this IDE window is not used again until it restarts",
    ).into())
}

/// Where `got` first departs from `want`: the 1-based line and both versions of it,
/// shortened, so an agent can see what the file holds.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let (want, got) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    let (mut w, mut g) = (want.lines(), got.lines());
    let short = |l: Option<&str>| match l {
        None => "end of file".to_string(),
        Some(l) if l.chars().count() > 80 => {
            format!("{:?}…", l.chars().take(80).collect::<String>())
        }
        Some(l) => format!("{l:?}"),
    };
    let mut line = 1;
    loop {
        let (a, b) = (w.next(), g.next());
        if a != b || a.is_none() {
            return format!("line {line} is {}, planned {}", short(b), short(a));
        }
        line += 1;
    }
}
