//! The headless backing's operations over the index: `symbols_overview`, a directory's
//! `outline`, the project's file `tree`, `search_symbol`, `search_text` (with
//! [`super::grep`]), the file a symbol edit targets and the edit written by our own
//! writer. Works with nothing else installed. File work runs on tokio's blocking pool,
//! never on the threads that serve the socket.
//!
//! `tree` is built from the index's file list alone (so it shows exactly what the index
//! holds), with file counts and languages per directory, as many whole levels as the
//! limit holds and then cut in path order.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use lean_ctx_shared::{
    ErrorCode, LeanError,
    editor_signal::{self, EditorSignal},
    protocol::{
        EditRequest, EditTarget, FileMatches, FileOutline, LanguageCount, OutlineRequest,
        OutlineResponse, SearchSymbolRequest, SearchSymbolResponse, SearchTextRequest,
        SearchTextResponse, Searched, SymbolHit, SymbolKind, SymbolsOverviewResponse, TreeEntry,
        TreeEntryKind, TreeRequest, TreeResponse,
    },
};

use lean_ctx_syntax::{
    Lang, Symbol,
    name_path::{Match, NamePath},
};

use super::{
    Cx, Outcome, blocking, grep,
    hashes::{self, Source},
    resolve,
};
use crate::{
    budget::{self, Budget},
    declarations::Wire,
    edit::{self, Edit, Written},
    index::root::Skipped,
    index::{ids::Hash, store::Parsed, text::plan},
    jail::{self, Creation, Jailed, Want},
};

/// What answers of this backing name as their backing.
pub const BACKING: &str = "headless";

/// Default and largest number of search hits.
const DEFAULT_HITS: u32 = 50;
const MAX_HITS: u32 = 1000;
/// How long a text search waits for the watcher's pending changes before it reads
/// every file instead of trusting the text index.
const CATCH_UP: Duration = Duration::from_secs(1);
/// Default number of files in a directory outline.
const DEFAULT_OUTLINE_FILES: u32 = 200;
/// Default and largest number of entries in a tree.
const DEFAULT_TREE_ENTRIES: u32 = 400;
const MAX_TREE_ENTRIES: u32 = 20_000;

fn language(parsed: &Parsed) -> String {
    parsed.symbols.lang.name().to_string()
}

/// One file's symbols to `depth`.
pub async fn symbols_overview(
    cx: &Cx<'_>,
    file: &Jailed,
    depth: u32,
) -> Outcome<SymbolsOverviewResponse> {
    let (project, file, reads) = (cx.project.clone(), file.clone(), cx.d.reads.clone());
    let resp = blocking(move || {
        let parsed = project.index.file(&file)?;
        let source = Source::read(&file, &parsed.hash);
        if parsed.symbols.binary {
            return Err(LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{} is binary", file.rel),
            ));
        }
        // Not "no symbols": the IDE may know the language (Scala, C#, …).
        if !parsed.symbols.lang.is_code() {
            return Err(LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{}: no symbols for this file type here", file.rel),
            )
            .with_remedy("read it with ctx_read, or open the project in a JetBrains IDE that knows its language"));
        }
        let mut budget = Budget::default();
        let mut symbols = Vec::new();
        for sym in parsed.symbols.top() {
            let info = hashes::info(source.as_ref(), sym, depth, reads.of(&project.root));
            if !budget.take(&info) {
                return Err(budget::too_large(
                    &file.rel,
                    None,
                    "ask for fewer levels (depth 1 lists top-level symbols only), or search for the symbol you need",
                ));
            }
            symbols.push(info);
        }
        Ok(SymbolsOverviewResponse {
            language: language(&parsed),
            symbols,
            total: parsed.symbols.count as u32,
            path: file.rel,
            backing: BACKING.into(),
            fallback: None,
        })
    })
    .await?;
    Ok(resp)
}

/// The files under directory `dir` with their symbols to `req.depth`, in path order.
pub async fn outline_dir(
    cx: &Cx<'_>,
    dir: &Jailed,
    req: &OutlineRequest,
) -> Outcome<OutlineResponse> {
    let project = &cx.project;
    project
        .index
        .wait_ready(Duration::from_millis(req.wait_ms.into()))
        .await?;
    let limit = if req.limit == 0 {
        DEFAULT_OUTLINE_FILES
    } else {
        req.limit
    } as usize;
    // Files in path order until the answer is full: the rest is reported as cut off,
    // like files past the limit. Listed on the blocking pool: after a restart the
    // parses come from the store.
    let (project, reads, depth, rel) = (
        project.clone(),
        cx.d.reads.clone(),
        req.depth,
        dir.rel.clone(),
    );
    let (files, total) = blocking(move || {
        let (found, total) = project.index.files_under(&rel, limit);
        let mut budget = Budget::default();
        let files = found
            .into_iter()
            .map(|(path, parsed)| {
                let source = Source::of(&project, &path, &parsed.hash);
                let symbols = parsed
                    .symbols
                    .top()
                    .map(|s| hashes::info(source.as_ref(), s, depth, reads.of(&project.root)))
                    .collect();
                FileOutline {
                    path,
                    language: language(&parsed),
                    symbols,
                }
            })
            .take_while(|file| budget.take(file))
            .collect::<Vec<_>>();
        Ok((files, total))
    })
    .await?;
    Ok(OutlineResponse {
        truncated: files.len() < total,
        files,
        total_files: total as u32,
    })
}

/// The indexed files under `dir` (a directory or a file, root-relative) as a tree,
/// `req.depth` levels deep, or fewer where that many would pass the limit.
pub async fn tree(cx: &Cx<'_>, dir: &str, req: &TreeRequest) -> Outcome<TreeResponse> {
    let project = &cx.project;
    project
        .index
        .wait_ready(Duration::from_millis(req.wait_ms.into()))
        .await?;
    let limit = match req.limit {
        0 => DEFAULT_TREE_ENTRIES,
        n => n.min(MAX_TREE_ENTRIES),
    } as usize;
    // Paths and languages only: no parse is fetched for a tree.
    let (files, indexed) = project.index.langs_under(dir, usize::MAX);
    let skipped: Vec<(String, &str, String)> = project
        .index
        .skipped_under(dir)
        .into_iter()
        .map(|(path, why)| match why {
            Skipped::Binary => (path, "binary", "binary: not indexed".to_string()),
            Skipped::TooLarge(size) => (
                path,
                "oversized",
                format!("{size} bytes, over index.max_file_bytes: not indexed"),
            ),
        })
        .collect();
    let total = indexed + skipped.len();
    fn below<'p>(path: &'p str, dir: &str) -> &'p str {
        path.strip_prefix(dir)
            .map_or(path, |r| r.trim_start_matches('/'))
    }
    let mut top = Node::default();
    for (path, lang) in &files {
        let name = path.rsplit('/').next().unwrap_or(path);
        top.add(below(path, dir), lang.kind(name), None);
    }
    for (path, kind, why) in &skipped {
        top.add(below(path, dir), kind, Some(why));
    }
    // As many whole levels as the limit holds (at least one), then cut in path order.
    let per_level = top.entries_per_level(req.depth as usize);
    let depth = (0..=per_level.len())
        .rev()
        .find(|&d| per_level[..d].iter().sum::<usize>() <= limit)
        .unwrap_or(0)
        .max(per_level.len().min(1));
    let mut out = Tree {
        entries: Vec::new(),
        left: limit + 1,
        budget: Budget::default(),
        depth,
        cut: false,
    };
    let file_only = total == 1 && top.own.len() == 1 && top.own[0].0.is_empty();
    if file_only {
        let (_, kind, why) = top.own[0];
        out.push(dir.to_string(), 0, file(kind, why));
    } else {
        out.dir(dir, &top, 0);
    }
    Ok(TreeResponse {
        entries: out.entries,
        total_files: total as u32,
        depth: depth as u32,
        truncated: out.cut,
    })
}

fn file(language: &str, skipped: Option<&str>) -> TreeEntryKind {
    TreeEntryKind::File {
        language: language.to_string(),
        skipped: skipped.map(str::to_string),
    }
}

/// A directory of the tree being built: counts of everything under it, its own files
/// and subdirectories by name.
#[derive(Default)]
struct Node<'a> {
    files: u32,
    languages: std::collections::BTreeMap<&'a str, u32>,
    dirs: std::collections::BTreeMap<&'a str, Node<'a>>,
    /// Name, kind, and why it is not indexed (if it is not).
    own: Vec<(&'a str, &'a str, Option<&'a str>)>,
}

impl<'a> Node<'a> {
    /// Adds the file at `rel` (relative to this directory).
    fn add(&mut self, rel: &'a str, kind: &'a str, skipped: Option<&'a str>) {
        self.files += 1;
        *self.languages.entry(kind).or_default() += 1;
        match rel.split_once('/') {
            Some((dir, rest)) => self.dirs.entry(dir).or_default().add(rest, kind, skipped),
            None => self.own.push((rel, kind, skipped)),
        }
    }

    /// How many entries each level below this directory holds, to `depth` levels.
    fn entries_per_level(&self, depth: usize) -> Vec<usize> {
        let mut counts = Vec::new();
        let mut level: Vec<&Node<'_>> = vec![self];
        while counts.len() < depth && !level.is_empty() {
            counts.push(level.iter().map(|n| n.dirs.len() + n.own.len()).sum());
            level = level.iter().flat_map(|n| n.dirs.values()).collect();
        }
        while counts.last() == Some(&0) {
            counts.pop();
        }
        counts
    }

    fn summary(&self, expanded: bool) -> TreeEntryKind {
        let mut languages: Vec<LanguageCount> = self
            .languages
            .iter()
            .map(|(l, n)| LanguageCount {
                language: l.to_string(),
                files: *n,
            })
            .collect();
        languages.sort_by(|a, b| b.files.cmp(&a.files).then(a.language.cmp(&b.language)));
        TreeEntryKind::Dir {
            files: self.files,
            languages,
            expanded,
        }
    }
}

/// A tree's entries as they are drawn, within the limit and the answer budget.
struct Tree {
    entries: Vec<TreeEntry>,
    /// Entries still allowed (the requested path's own line included).
    left: usize,
    budget: Budget,
    depth: usize,
    cut: bool,
}

impl Tree {
    fn push(&mut self, path: String, level: usize, kind: TreeEntryKind) -> bool {
        let entry = TreeEntry {
            path,
            level: level as u32,
            kind,
        };
        if self.cut || self.left == 0 || !self.budget.take(&entry) {
            self.cut = true;
            return false;
        }
        self.left -= 1;
        self.entries.push(entry);
        true
    }

    /// `node` at `path`, on `level`, and what it holds down to the depth.
    fn dir(&mut self, path: &str, node: &Node<'_>, level: usize) {
        let expanded = level < self.depth;
        if !self.push(path.to_string(), level, node.summary(expanded)) || !expanded {
            return;
        }
        let join = |name: &str| match path {
            "" => name.to_string(),
            _ => format!("{path}/{name}"),
        };
        for (name, sub) in &node.dirs {
            self.dir(&join(name), sub, level + 1);
        }
        let mut own = node.own.clone();
        own.sort_unstable();
        for (name, kind, skipped) in own {
            self.push(join(name), level + 1, file(kind, skipped));
        }
    }
}

pub async fn search_symbol(
    cx: &Cx<'_>,
    req: &SearchSymbolRequest,
) -> Outcome<SearchSymbolResponse> {
    let query = req.query.trim().to_string();
    if query.is_empty() {
        return Err(LeanError::new(ErrorCode::NoSymbol, "empty query")
            .with_remedy("give a name, a substring or Type/member")
            .into());
    }
    // `Foo/` (or `Foo::`, `Foo.`): Foo and its members.
    let members = query.len() > 1 && query.ends_with(['/', ':', '.']);
    let project = &cx.project;
    let prefix = scope(cx, req.path.as_deref()).await?;
    project
        .index
        .wait_ready(Duration::from_millis(req.wait_ms.into()))
        .await?;
    let limit = hits_limit(req.limit);
    let focused = focused(cx);
    let (project, reads, kind, skip) = (project.clone(), cx.d.reads.clone(), req.kind, req.skip);
    // On the blocking pool: scoring reads every symbol under the prefix, and after a
    // restart their parses come from the store.
    let (hits, total) = blocking(move || {
        let prepared = Query::new(&query);
        let container = members.then(|| NamePath::parse(&query));
        let mut scored: Vec<(i64, String, Symbol<'_>)> = Vec::new();
        let (files, _) = project.index.files_under(&prefix, usize::MAX);
        for (path, parsed) in &files {
            let boost = boost(&focused, &project.root.join(path));
            for sym in parsed.symbols.all() {
                if kind.is_some_and(|k| k != sym.kind().wire()) {
                    continue;
                }
                let score = match &container {
                    Some(container) => member_score(&sym, container),
                    None => score(&sym, path, &prepared),
                };
                if let Some(score) = score {
                    scored.push((score + boost, path.clone(), sym));
                }
            }
        }
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.cmp(&b.1))
                .then_with(|| a.2.bytes().start.cmp(&b.2.bytes().start))
        });
        let total = scored.len();
        scored.drain(..(skip as usize).min(total));
        scored.truncate(limit);
        // The parse hash of each hit's file, in one pass over the files.
        let hit_files: std::collections::HashSet<&str> =
            scored.iter().map(|(_, p, _)| p.as_str()).collect();
        let parse_hashes: std::collections::HashMap<&str, Hash> = files
            .iter()
            .filter(|(p, _)| hit_files.contains(p.as_str()))
            .map(|(p, parsed)| (p.as_str(), parsed.hash))
            .collect();
        // Each hit's file read once, through the jail.
        let mut sources: std::collections::HashMap<String, Option<Source>> = Default::default();
        let mut budget = Budget::default();
        let hits = scored
            .iter()
            .map(|(_, path, s)| {
                let parsed = parse_hashes.get(path.as_str()).copied().unwrap_or_default();
                let source = sources
                    .entry(path.clone())
                    .or_insert_with(|| Source::of(&project, path, &parsed));
                let range = s.range().wire();
                SymbolHit {
                    name: s.name().to_string(),
                    kind: s.kind().wire(),
                    name_path: s.name_path().to_string(),
                    range,
                    name_range: s.name_range().wire(),
                    signature: s.signature().to_string(),
                    hash: source
                        .as_ref()
                        .and_then(|src| src.hash(*s, reads.of(&project.root))),
                    path: path.clone(),
                }
            })
            .take_while(|hit| budget.take(hit))
            .collect::<Vec<_>>();
        Ok((hits, total))
    })
    .await?;
    Ok(SearchSymbolResponse {
        truncated: skip as usize + hits.len() < total,
        hits,
        total: total as u32,
    })
}

/// The lines of the indexed files under `req.path` matching `req.pattern`: focused
/// and recently focused files first, then by path and line; each labelled with the
/// symbol that encloses it.
pub async fn search_text(cx: &Cx<'_>, req: &SearchTextRequest) -> Outcome<SearchTextResponse> {
    if req.pattern.is_empty() {
        return Err(LeanError::new(ErrorCode::InvalidTarget, "empty pattern")
            .with_remedy("give the text (action=text) or the regex (action=regex) to search for")
            .into());
    }
    let matcher = grep::matcher(&req.pattern, req.regex, req.case_insensitive)?;
    let project = &cx.project;
    let prefix = scope(cx, req.path.as_deref()).await?;
    project
        .index
        .wait_ready(Duration::from_millis(req.wait_ms.into()))
        .await?;
    let limit = hits_limit(req.limit);
    let focused = focused(cx);
    let filter = grep::file_filter(&project.root, &req.globs)?;
    let query = plan::query(&req.pattern, req.regex, req.case_insensitive);
    let project = project.clone();
    let (files_only, context, skip) = (req.files_only, (req.before, req.after), req.skip as usize);
    let resp = blocking(move || {
        let through = |rel: &str| grep::lets_through(filter.as_ref(), rel);
        // The text index leaves out files only if the index holds every write
        // made before this search; otherwise every file is read (and checked).
        let query = match project.index.catch_up(CATCH_UP) {
            true => query,
            false => plan::Query::All,
        };
        let (mut files, considered) = project.index.identified_matching(&prefix, &query, through);
        let mut searched = Searched {
            files: considered as u32,
            read: files.len() as u32,
            ..Searched::default()
        };
        for (rel, why) in project.index.skipped_under(&prefix) {
            match why {
                _ if !through(&rel) => {}
                Skipped::Binary => searched.binary += 1,
                Skipped::TooLarge(_) => searched.oversized += 1,
            }
        }
        // The focused files first, in their rank; the rest stay in path order.
        let focused: Vec<&str> = focused
            .iter()
            .filter_map(|f| f.strip_prefix(&project.root).ok()?.to_str())
            .collect();
        if !focused.is_empty() {
            files.sort_by_key(|(path, _, _)| {
                focused
                    .iter()
                    .position(|f| *f == &**path)
                    .unwrap_or(focused.len())
            });
        }
        let fill = match files_only {
            true => grep::Fill::Files(skip + limit),
            false => grep::Fill::Lines(skip + limit),
        };
        let (found, unread) = grep::search(&project, &matcher, &files, fill, context);
        searched.read -= unread as u32;
        searched.unread = unread as u32;
        searched.bytes_read = found.iter().map(|f| f.bytes_read).sum();
        let total: u32 = found.iter().map(|f| f.matched).sum();
        let matched_files = found.iter().filter(|f| f.matched > 0).count() as u32;
        let mut budget = Budget::default();
        let (hits, matching_files, shown): (Vec<_>, Vec<_>, u32) = if files_only {
            let listed: Vec<_> = found
                .into_iter()
                .filter(|f| f.matched > 0)
                .map(|f| FileMatches {
                    path: f.path,
                    lines: f.matched,
                })
                .skip(skip)
                .take(limit)
                .take_while(|m| budget.take(m))
                .collect();
            let shown = (skip + listed.len()) as u32;
            (Vec::new(), listed, shown.min(matched_files))
        } else {
            let hits: Vec<_> = found
                .into_iter()
                .flat_map(|f| f.hits)
                .skip(skip)
                .take(limit)
                .take_while(|hit| budget.take(hit))
                .collect();
            let shown = (skip + hits.len()) as u32;
            (hits, Vec::new(), shown)
        };
        let truncated = unread > 0
            || if files_only {
                shown < matched_files
            } else {
                shown < total
            };
        Ok(SearchTextResponse {
            truncated,
            hits,
            matching_files,
            total,
            files: matched_files,
            searched,
        })
    })
    .await?;
    Ok(resp)
}

/// The root-relative file or directory a search is limited to (`""`: the root).
async fn scope(cx: &Cx<'_>, path: Option<&str>) -> Result<String, LeanError> {
    match path {
        Some(path) => Ok(resolve(cx, path, Want::FileOrDir).await?.rel),
        None => Ok(String::new()),
    }
}

fn hits_limit(asked: u32) -> usize {
    (if asked == 0 {
        DEFAULT_HITS
    } else {
        asked.min(MAX_HITS)
    }) as usize
}

/// The editor signal (docs/ide-wire.md, editor focus): the focused file, then recently
/// focused ones, while the focus is fresh.
fn focused(cx: &Cx<'_>) -> Vec<PathBuf> {
    EditorSignal::read(&cx.d.config.paths.data_dir)
        .ranked(editor_signal::now_ms())
        .into_iter()
        .map(Path::to_path_buf)
        .collect()
}

/// How much the editor signal lifts a file: the focused one most.
fn boost(focused: &[PathBuf], abs: &Path) -> i64 {
    focused
        .iter()
        .position(|f| f == abs)
        .map_or(0, |rank| 20_000 - 1_000 * rank as i64)
}

/// A search query, prepared once per search: scoring runs for every symbol of the
/// root (a million on large repositories), so it must not allocate.
struct Query<'q> {
    text: &'q str,
    lower: String,
    /// `Type/member`, `Type::member`, `pkg.Type.member` or `/top`: matched against
    /// name paths (`lean_ctx_syntax::name_path`); `None` for a bare name.
    path: Option<NamePath>,
}

impl<'q> Query<'q> {
    fn new(text: &'q str) -> Query<'q> {
        let path = NamePath::parse(text);
        if path.is_qualified() {
            Query {
                text,
                lower: path.joined().to_lowercase(),
                path: Some(path),
            }
        } else {
            Query {
                text,
                lower: text.to_lowercase(),
                path: None,
            }
        }
    }

    /// Case-insensitive `hay == query`.
    fn eq_ci(&self, hay: &str) -> bool {
        if self.lower.is_ascii() {
            hay.eq_ignore_ascii_case(&self.lower)
        } else {
            hay.to_lowercase() == self.lower
        }
    }

    fn starts_ci(&self, hay: &str) -> bool {
        let n = self.lower.as_bytes();
        if self.lower.is_ascii() {
            hay.len() >= n.len() && hay.as_bytes()[..n.len()].eq_ignore_ascii_case(n)
        } else {
            hay.to_lowercase().starts_with(&self.lower)
        }
    }

    fn contains_ci(&self, hay: &str) -> bool {
        let n = self.lower.as_bytes();
        if self.lower.is_ascii() {
            hay.len() >= n.len()
                && hay
                    .as_bytes()
                    .windows(n.len())
                    .any(|w| w.eq_ignore_ascii_case(n))
        } else {
            hay.to_lowercase().contains(&self.lower)
        }
    }
}

/// How well `sym` matches `query`; `None` if it does not. Exact beats prefix beats
/// substring, case-sensitive beats insensitive, declarations of types and functions
/// beat fields and variables, shallow beats deep.
/// `sym`'s score as the `container` a query ending in a separator names, or as one of
/// its members (the nearer, the higher); `None` if it is neither. Within one score,
/// hits keep file order.
fn member_score(sym: &Symbol<'_>, container: &NamePath) -> Option<i64> {
    let mut path = sym.name_path();
    let mut depth = 0;
    loop {
        let name = path.rsplit('/').next().unwrap_or(path);
        let name = name.split_once('[').map_or(name, |(name, _)| name);
        if container.matches(path, name).is_some() {
            return Some(1000 - 10 * depth);
        }
        path = path.rsplit_once('/')?.0;
        depth += 1;
    }
}

fn score(sym: &Symbol<'_>, file: &str, query: &Query<'_>) -> Option<i64> {
    let base = if let Some(path) = &query.path {
        let stored = sym.name_path();
        match path.matches(stored, sym.name()) {
            Some(Match::Exact) => 1000,
            Some(Match::Suffix) => 900,
            // Anchored: only top-level paths (as deep as the query) starting with it.
            None if path.anchored() => {
                let depth = stored.matches('/').count();
                if depth + 1 == path.segments() && query.starts_ci(stored) {
                    300
                } else {
                    return None;
                }
            }
            None if path.matches_in_file(stored, file) => 800,
            None if query.contains_ci(stored) => 300,
            None => return None,
        }
    } else {
        let name = sym.name();
        if name == query.text {
            1000
        } else if query.eq_ci(name) {
            850
        } else if name.starts_with(query.text) {
            700
        } else if query.starts_ci(name) {
            600
        } else if name.contains(query.text) {
            400
        } else if query.contains_ci(name) {
            300
        } else {
            return None;
        }
    };
    let kind = match sym.kind().wire() {
        SymbolKind::Struct
        | SymbolKind::Class
        | SymbolKind::Enum
        | SymbolKind::Trait
        | SymbolKind::Interface
        | SymbolKind::Union
        | SymbolKind::Object => 30,
        SymbolKind::Function
        | SymbolKind::Method
        | SymbolKind::Constructor
        | SymbolKind::Macro
        | SymbolKind::TypeAlias => 20,
        SymbolKind::Module | SymbolKind::Constant | SymbolKind::Static => 10,
        _ => 0,
    };
    let depth = sym.name_path().matches('/').count() as i64;
    Some(base + kind - 2 * depth)
}

/// The file a symbol edit targets, jailed, with its language: by path, or the one
/// file of the root holding the name path (after the index is ready).
pub async fn edit_target(cx: &Cx<'_>, req: &EditRequest) -> Result<(Jailed, Lang), LeanError> {
    let project = &cx.project;
    let file = match &req.target {
        EditTarget::NamePath {
            name_path,
            path: None,
        } => {
            project
                .index
                .wait_ready(Duration::from_millis(req.wait_ms.into()))
                .await?;
            let (project, name_path) = (project.clone(), name_path.clone());
            blocking(move || super::answer::find_unique(&project, "", &name_path)).await?
        }
        EditTarget::NamePath {
            path: Some(path), ..
        }
        | EditTarget::Lines { path, .. }
        | EditTarget::File { path } => resolve(cx, path, Want::File).await?,
    };
    // Through the jail's descriptor, never the name again.
    let size = file
        .open()
        .and_then(|f| Ok(rustix::fs::fstat(&f)?.st_size as u64))
        .unwrap_or(0);
    project.index.parse_allowed(&file.rel, size)?;
    let lang = Lang::from_path(&file.abs).ok_or_else(|| {
        LeanError::new(ErrorCode::UnsupportedLanguage, format!("{}: no symbol support for this file type", file.rel))
            .with_remedy("address whole lines with path, line and end_line in a supported language, or edit the file directly")
    })?;
    Ok((file, lang))
}

/// A symbol edit written by our own writer (`crate::edit`).
pub async fn edit_symbol(
    cx: &Cx<'_>,
    file: &Jailed,
    lang: Lang,
    req: &EditRequest,
) -> Outcome<Written> {
    let held = super::written::held(cx, file, req);
    let (locks, file, req) = (cx.d.locks.clone(), file.clone(), req.clone());
    Ok(blocking(move || edit::apply(&locks, &file, lang, &Edit::of(&req, held))).await?)
}

/// `create_file`: a new file written whole (its directories made), or an existing
/// one replaced whole under its hash; answers the file, its language and the write.
pub async fn create_file(
    cx: &Cx<'_>,
    req: &EditRequest,
    path: &str,
) -> Result<(Jailed, Lang, Written), LeanError> {
    let lang = Lang::from_path(Path::new(path)).ok_or_else(|| {
        LeanError::new(ErrorCode::InvalidTarget, format!("{path:?} names no file"))
            .with_remedy("give the path of the file to create, relative to the project root")
    })?;
    cx.project
        .index
        .parse_allowed(path, req.text.len() as u64)?;
    let (project, locks, req, path) = (
        cx.project.clone(),
        cx.d.locks.clone(),
        req.clone(),
        path.to_string(),
    );
    blocking(move || {
        let edit = Edit::of(&req, Vec::new());
        match jail::resolve_new(&project.root, &project.worktree.group, &path)? {
            Creation::New(new) => {
                let (file, written) = edit::create(&locks, &new, lang, &edit)?;
                Ok((file, lang, written))
            }
            Creation::Exists(file) if req.expected_hash.is_none() => Err(LeanError::new(
                ErrorCode::Conflict,
                format!("{} exists; nothing written", file.rel),
            )
            .with_remedy(
                "replace it whole by passing the hash ctx_read returned for it as expected_hash, or edit lines of it",
            )),
            Creation::Exists(file) => {
                let written = edit::apply(&locks, &file, lang, &edit)?;
                Ok((file, lang, written))
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declarations::extract;

    #[test]
    fn scoring_orders_exact_prefix_substring_and_ignores_case_in_ascii_and_beyond() {
        let parsed = extract(Lang::Rust, "fn handle() {}\nfn handle_request() {}\nfn rehandle() {}\nfn größe_über() {}\nstruct S { handle: u8 }\nimpl S { fn handle(&self) {} }\n".as_bytes());
        let scores = |q: &str| -> Vec<(String, i64)> {
            let query = Query::new(q);
            let mut v: Vec<(String, i64)> = parsed
                .all()
                .filter_map(|s| score(&s, "lib.rs", &query).map(|n| (s.name_path().to_string(), n)))
                .collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        };
        let names = |q: &str| scores(q).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(
            names("handle"),
            [
                "handle",
                "S/handle[1]",
                "S/handle",
                "handle_request",
                "rehandle"
            ]
        );
        assert_eq!(names("HANDLE_R"), ["handle_request"]);
        assert_eq!(names("ÜBER"), ["größe_über"]);
        // Issue 16: `::`, `.` and `/` qualify; duplicates are exact matches too.
        for q in ["S/handle", "S::handle", "S.handle"] {
            assert_eq!(names(q), ["S/handle[1]", "S/handle"], "{q}");
        }
        // A leading separator anchors at the top level; exact ranks first.
        for q in ["/handle", "::handle", ".handle"] {
            assert_eq!(names(q), ["handle", "handle_request"], "{q}");
        }
        assert!(names("nothing").is_empty());
    }
}
