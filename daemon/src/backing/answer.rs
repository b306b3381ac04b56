//! What the backings share when they read an answer against the disk: [`Files`]
//! jails each path an answer names and reads each file once; a two-phase
//! refactoring's [`plan_hash`] and its apply gate [`may_apply`] are the same whichever
//! backing planned it, so a preview through one and an apply through another can
//! never pass a plan the disk no longer holds. [`find_unique`] finds the one file a
//! name path names (a symbol edit or read without a path), [`name_position`] where
//! its name is (navigation by name), [`snapped`] the name a declaration's start
//! means.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
};

use lean_ctx_shared::{
    ErrorCode, LeanError, Position, Range,
    protocol::{
        Conflict, Enclosing, FilePosition, LocationHit, RefactorKind, RefactorRequest,
        RefactorResponse, Scope, Usage,
    },
};

use lean_ctx_syntax::{Lang, Symbol, text::LineIndex};

use crate::{
    backing::hashes::Source,
    declarations::{self, Spans, Wire},
    edit::{ambiguous, match_name_path},
    jail::{Jailed, Want},
    language_servers::positions::{DocText, Encoding},
    reads::Texts,
    registry::Project,
};

/// Files read while converting one answer, each once (language servers' and the
/// IDE's answers alike).
#[derive(Debug)]
pub struct Files<'a> {
    project: &'a Project,
    read: HashMap<PathBuf, Option<Arc<DocText>>>,
    /// Each read file's imports (byte ranges in its text), found once.
    imports: HashMap<PathBuf, Vec<std::ops::Range<usize>>>,
}

impl<'a> Files<'a> {
    pub fn new(project: &'a Project) -> Files<'a> {
        Files {
            project,
            read: HashMap::new(),
            imports: HashMap::new(),
        }
    }

    /// The root-relative path of `abs` if it lies inside the caller's worktree.
    pub fn jail(&self, abs: &Path) -> Option<Jailed> {
        self.project.resolve(abs.to_str()?, Want::File).ok()
    }

    /// A jailed file's text, read once per plan through the jail's descriptors.
    pub fn text(&mut self, file: &Jailed) -> Option<Arc<DocText>> {
        self.read
            .entry(file.abs.clone())
            .or_insert_with(|| file.read().ok().map(|b| Arc::new(DocText::new(&b))))
            .clone()
    }

    /// A location in `abs` as an agent reads it; `None` when outside the root and the
    /// scope is the project.
    pub fn location(
        &mut self,
        abs: &Path,
        range: lsp_types::Range,
        enc: Encoding,
        scope: Scope,
    ) -> Option<LocationHit> {
        match self.jail(abs) {
            Some(inside) => {
                let text = self.text(&inside)?;
                let at = text.text_offset(range.start, enc);
                let imports = self.imports.entry(inside.abs.clone()).or_insert_with(|| {
                    Lang::from_path(&inside.abs)
                        .map(|lang| lang.imports(text.text().as_bytes()))
                        .unwrap_or_default()
                });
                let import = imports.iter().any(|r| r.contains(&at));
                let range = text.range_from_lsp(range, enc);
                Some(LocationHit {
                    context: text.line_text(range.start.line).to_string(),
                    path: inside.rel,
                    range,
                    import,
                    symbol: None,
                })
            }
            // Outside the root nothing is read: the server's numbers, 1-based, columns
            // in its units.
            None if scope == Scope::All => Some(LocationHit {
                path: abs.display().to_string(),
                range: Range::new(
                    Position::new(range.start.line + 1, range.start.character),
                    Position::new(range.end.line + 1, range.end.character),
                ),
                context: String::new(),
                import: false,
                symbol: None,
            }),
            None => None,
        }
    }
}

/// The declaration each place (a root-relative path and a position in it) lies in,
/// with the hash an edit of it passes; `None` outside the root, at a file's top
/// level, or in a file changed since its parse. Each file is read once, through the
/// jail, and hashed only while it holds the bytes its parse was made of.
pub fn enclosing(
    project: &Project,
    texts: Texts<'_>,
    places: &[(String, Position)],
) -> Vec<Option<Enclosing>> {
    let mut found = vec![None; places.len()];
    let mut by_file: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (path, _)) in places.iter().enumerate() {
        if !Path::new(path).is_absolute() {
            by_file.entry(path).or_default().push(i);
        }
    }
    for (rel, indexes) in by_file {
        let Ok(file) = project.resolve(rel, Want::File) else {
            continue;
        };
        let (Ok(parsed), Ok(bytes)) = (project.index.file(&file), file.read()) else {
            continue;
        };
        if parsed.hash != *blake3::hash(&bytes).as_bytes() {
            continue;
        }
        let (spans, lines) = (Spans::new(&parsed.symbols), LineIndex::new(&bytes));
        let source = Source::new(bytes);
        for i in indexes {
            let at = lines.offset(source.bytes(), declarations::position(places[i].1));
            found[i] = at.and_then(|at| spans.innermost(at)).map(|sym| Enclosing {
                kind: sym.kind().wire(),
                name_path: sym.name_path().to_string(),
                hash: source.hash(sym, texts),
            });
        }
    }
    found
}

/// The apply gate of every two-phase refactoring, whichever backing answers: the plan
/// recomputed now must hash to what the caller previewed (when it says), and
/// conflicts block unless forced. Nothing is written or sent when it refuses.
pub fn may_apply(
    plan: &RefactorResponse,
    previewed: Option<&str>,
    force: bool,
) -> Result<(), LeanError> {
    if let Some(want) = previewed
        && !want.trim().eq_ignore_ascii_case(&plan.plan_hash)
    {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "the plan changed since the preview (plan_hash {} now, {} given): files or the refactoring's parameters changed; nothing written",
                plan.plan_hash,
                want.trim()
            ),
        )
        .with_remedy("preview again and apply the new plan_hash"));
    }
    if !plan.conflicts.is_empty() && !force {
        return Err(LeanError::new(
            ErrorCode::Conflict,
            format!(
                "the refactoring has conflicts: {}; nothing written",
                plan.conflicts
                    .iter()
                    .map(|c| match &c.path {
                        Some(path) => format!("{path}: {}", c.message),
                        None => c.message.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )
        .with_remedy("resolve the conflicts, or pass force to apply anyway"));
    }
    Ok(())
}

/// A conflict without a range.
pub fn conflict(path: Option<&str>, message: &str) -> Conflict {
    Conflict {
        path: path.map(str::to_string),
        range: None,
        message: message.to_string(),
    }
}

/// What a plan is of: the refactoring and its own parameters (new name, destination,
/// options), one line, so a `plan_hash` previewed for one rename never applies
/// another with the same usages.
pub fn operation(req: &RefactorRequest) -> String {
    let o = &req.options;
    let what = match &req.kind {
        RefactorKind::Rename { new_name } => format!(
            "rename\tnew_name={new_name}\tsearch_comments={}\tsearch_text_occurrences={}",
            o.search_comments, o.search_text_occurrences
        ),
        RefactorKind::Move { destination } => format!("move\tdestination={destination}"),
        RefactorKind::MoveInto { parent } => format!(
            "move\tparent={}:{}:{}",
            parent.path, parent.line, parent.column
        ),
        RefactorKind::SafeDelete => format!("safe_delete\tpropagate={}", o.propagate),
        RefactorKind::Inline => format!("inline\tkeep_definition={}", o.keep_definition),
    };
    format!(
        "{what}\tat={}:{}:{}",
        req.at.path, req.at.line, req.at.column
    )
}

/// BLAKE3 over the operation ([`operation`]) and then the usages sorted by (path,
/// range): one row each of path, range and current text, after the operation's row
/// (ARCHITECTURE.md: a `plan_hash` binds the refactoring it was previewed for).
pub fn plan_hash(operation: &str, sorted: &[Usage]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(operation.as_bytes());
    h.update(b"\n");
    for u in sorted {
        h.update(format!("{}\t{}\t", u.path, u.range).as_bytes());
        h.update(u.text.as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

/// Where the name of the one symbol `name_path` matches in `file` is.
pub fn name_position(
    project: &Project,
    file: &Jailed,
    name_path: &str,
) -> Result<Position, LeanError> {
    let parsed = project.index.file(file)?;
    match match_name_path(&parsed.symbols, name_path).as_slice() {
        [one] => Ok(one.name_range().start.wire()),
        [] => Err(LeanError::new(
            ErrorCode::NoSymbol,
            format!("no symbol {name_path:?} in {}", file.rel),
        )
        .with_remedy("list the file's symbols with ctx_read mode=map")),
        many => Err(ambiguous(
            name_path,
            many.iter().map(|s| (*s, file.rel.as_str())),
        )),
    }
}

/// `at` in `file`, unless only blanks lie between it and the start of a declaration
/// on that line (the line and column a map, an outline or a search gives; column 0
/// of an indented one will do): no symbol stands there, so it means the
/// declaration's name, and that is where it points (the first such declaration on
/// the line). A file the index cannot parse keeps `at`.
pub fn snapped(project: &Project, file: &Jailed, at: &FilePosition) -> FilePosition {
    let name = || {
        let parsed = project.index.file(file).ok()?;
        // The first declaration starting on the line at or after the column: only
        // if there is one is the line read, to see that blanks alone lie between.
        let (start, name) = parsed
            .symbols
            .all()
            .map(|s| (s.range().start, s.name_range().start))
            .filter(|(start, _)| start.line == at.line && at.column <= start.column)
            .min_by_key(|(start, _)| start.column)?;
        let bytes = file.read().ok()?;
        let line = bytes
            .split(|b| *b == b'\n')
            .nth((at.line as usize).checked_sub(1)?)?;
        let between = (start.column - at.column) as usize;
        let line = String::from_utf8_lossy(line);
        let blanks = line.chars().skip(at.column as usize).take(between);
        (blanks.filter(|c| c.is_whitespace()).count() == between).then_some(name)
    };
    match name() {
        Some(name) => FilePosition {
            path: at.path.clone(),
            line: name.line,
            column: name.column,
        },
        None => at.clone(),
    }
}

/// The one file under `dir` (root-relative; `""`: the root) holding `name_path`.
pub fn find_unique(project: &Project, dir: &str, name_path: &str) -> Result<Jailed, LeanError> {
    let (files, _) = project.index.files_under(dir, usize::MAX);
    let mut found: Vec<(Symbol<'_>, &str)> = Vec::new();
    for (path, parsed) in &files {
        found.extend(
            match_name_path(&parsed.symbols, name_path)
                .into_iter()
                .map(|s| (s, path.as_str())),
        );
    }
    // No preference for an exact path over deeper matches elsewhere: a bare name
    // that silently chose the top-level symbol edited code the agent did not mean
    // (issue 16); `/name` anchors at the top level when that is what is meant.
    match found.as_slice() {
        [(_, path)] => project.resolve(path, Want::File),
        [] => Err(LeanError::new(
            ErrorCode::NoSymbol,
            format!(
                "no symbol {name_path:?} in {}",
                if dir.is_empty() { "the project" } else { dir }
            ),
        )),
        many => Err(ambiguous(name_path, many.iter().copied())),
    }
}
