//! The canonical compact text of every answer: what a person sees from the CLI, what
//! an agent gets from `lean-ctx mcp`, and what the daemon counts as the tokens it
//! returned (gain accounting). One line per symbol or hit, root-relative paths,
//! `line:col`, totals and truncation said plainly: tokens are the agent's budget.

use std::fmt::Write as _;

use crate::{
    ErrorDetails, LeanError,
    protocol::{
        CallDirection, CallHierarchyResponse, CallNode, EditAction, EditResponse, Enclosing,
        FileRead, InspectionsResponse, LocationHit, NavigateResponse, OutlineResponse, ReadContent,
        ReadMode, ReadRequest, ReadResponse, RefactorResponse, ReformatResponse,
        SearchSymbolResponse, SearchTextResponse, Searched, SymbolInfo, SymbolsOverviewResponse,
        TreeEntryKind, TreeResponse, TypeHierarchyResponse,
    },
};

/// The hex digits of a BLAKE3 that answers show for a range (a symbol, lines) and
/// that edits and reformats accept as `expected_hash` (the daemon's
/// `edit::hash_matches`): 64 bits, enough to tell versions of a range or a file apart,
/// for a fraction of the tokens.
pub const SHORT_HASH: usize = 16;

/// A range's hash as answers show it.
pub fn short_hash(hash: &str) -> &str {
    hash.get(..SHORT_HASH).unwrap_or(hash)
}

/// `  HASH` when there is one, written onto the end of `s`.
fn push_hashed(s: &mut String, hash: &Option<String>) {
    if let Some(hash) = hash {
        s.push_str("  ");
        s.push_str(short_hash(hash));
    }
}

/// Symbols as an indented tree: `  LINE  signature  HASH`, line numbers right-aligned
/// to the widest one in the answer (at least four digits), so signatures of one depth
/// start in one column however long the file.
fn tree(symbols: &[SymbolInfo], depth: usize, s: &mut String) {
    fn widest(symbols: &[SymbolInfo]) -> u32 {
        symbols
            .iter()
            .map(|sym| sym.range.start.line.max(widest(&sym.children)))
            .max()
            .unwrap_or(0)
    }
    // Written straight into `s`: a row's pieces each made a string of their own,
    // and the daemon renders every answer it accounts for.
    fn rows(symbols: &[SymbolInfo], depth: usize, width: usize, s: &mut String) {
        for sym in symbols {
            for _ in 0..depth {
                s.push_str("  ");
            }
            let _ = write!(s, "{:>width$}  {}", sym.range.start.line, sym.signature);
            push_hashed(s, &sym.hash);
            s.push('\n');
            rows(&sym.children, depth + 1, width, s);
        }
    }
    let width = widest(symbols).to_string().len().max(4);
    rows(symbols, depth, width, s);
}

pub fn outline(resp: &OutlineResponse) -> String {
    let mut s = String::new();
    for f in &resp.files {
        s.push_str(&format!("{} ({})\n", f.path, f.language));
        tree(&f.symbols, 1, &mut s);
    }
    if resp.truncated {
        s.push_str(&format!(
            "… {} of {} files shown; narrow the path or raise the limit\n",
            resp.files.len(),
            resp.total_files
        ));
    }
    if resp.files.is_empty() {
        s.push_str("no indexed files here\n");
    }
    s.trim_end().to_string()
}

/// The project's files, one entry a line, indented by level: a directory as
/// `name/ (N files: rust 40, python 2)`, a file by its name (its language is its
/// directory's business); the requested path by its full path (`./` for the root).
pub fn files_tree(resp: &TreeResponse) -> String {
    let mut s = String::new();
    for e in &resp.entries {
        let name = match e.level {
            0 if e.path.is_empty() => ".",
            0 => e.path.as_str(),
            _ => e.path.rsplit('/').next().unwrap_or(&e.path),
        };
        s.push_str(&"  ".repeat(e.level as usize));
        s.push_str(name);
        if let TreeEntryKind::File {
            skipped: Some(why), ..
        } = &e.kind
        {
            let _ = write!(s, " ({why})");
        }
        if let TreeEntryKind::Dir {
            files, languages, ..
        } = &e.kind
        {
            let langs: Vec<String> = languages
                .iter()
                .map(|l| format!("{} {}", l.language, l.files))
                .collect();
            let noun = if *files == 1 { "file" } else { "files" };
            s.push_str(&format!("/ ({files} {noun}: {})", langs.join(", ")));
        }
        s.push('\n');
    }
    if resp.truncated {
        s.push_str(&format!(
            "… {} entries shown; ask for a subdirectory, a smaller depth or a larger limit\n",
            resp.entries.len()
        ));
    }
    if resp.total_files == 0 {
        s.push_str("no files here\n");
    }
    s.trim_end().to_string()
}

pub fn symbols_overview(resp: &SymbolsOverviewResponse) -> String {
    let mut s = format!(
        "{} ({}, {} symbols)\n",
        resp.path, resp.language, resp.total
    );
    tree(&resp.symbols, 1, &mut s);
    s.truncate(s.trim_end().len());
    s
}

/// Where a cut answer goes on: `skip` for the next call.
fn go_on(skip: u32, shown: usize) -> String {
    format!("go on with skip={}", skip as usize + shown)
}

/// Symbol hits, one a line: `path:LINE:COL` of the name (where navigation points),
/// the kind, name path, signature and hash.
pub fn search(resp: &SearchSymbolResponse, query: &str, skip: u32) -> String {
    let mut s = String::new();
    for h in &resp.hits {
        let _ = write!(
            s,
            "{}:{}:{}  {} {}  {}",
            h.path,
            h.name_range.start.line,
            h.name_range.start.column,
            h.kind.as_str(),
            h.name_path,
            h.signature
        );
        push_hashed(&mut s, &h.hash);
        s.push('\n');
    }
    s.push_str(&match (resp.total, resp.truncated) {
        (0, _) => format!("no symbol matches {query:?}"),
        (n, true) => format!(
            "{} of {n} matches shown; {}",
            resp.hits.len(),
            go_on(skip, resp.hits.len())
        ),
        // Complete: the hits say it all (a count line cost a small answer a fifth).
        (_, false) => String::new(),
    });
    s.truncate(s.trim_end().len());
    s
}

/// How [`search_text`] lays its hits out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// By file, and within it by the enclosing symbol, each named once.
    Labelled,
    /// By file, the path once.
    Grouped,
    /// `path:LINE  text` a line, as grep (shorter when files hold one hit each).
    Flat,
}

/// [`search_text`]'s lines in `layout`. The column is left out (grep prints none; the
/// JSON answer has it).
fn text_hits(resp: &SearchTextResponse, layout: Layout) -> String {
    let mut s = String::new();
    let mut file = None;
    let mut symbol = None;
    for h in &resp.hits {
        if layout != Layout::Flat && file != Some(&h.path) {
            s.push_str(&h.path);
            s.push('\n');
            file = Some(&h.path);
            symbol = None;
        }
        let here = h
            .symbol
            .as_ref()
            .filter(|_| layout == Layout::Labelled)
            .map(|sym| (sym.kind, &sym.name_path));
        if here.is_some() && here != symbol {
            if let Some((kind, name_path)) = here {
                s.push_str(&format!("  {} {name_path}\n", kind.as_str()));
            }
        }
        symbol = here;
        let lead = match (layout, here.is_some()) {
            (Layout::Flat, _) => format!("{}:", h.path),
            (_, true) => "    ".to_string(),
            (_, false) => "  ".to_string(),
        };
        // Context lines as grep marks them, `LINE-`, each as it is (indentation is
        // what context is read for).
        let first = h.line.saturating_sub(h.before.len() as u32);
        for (at, line) in (first..).zip(&h.before) {
            let _ = writeln!(s, "{lead}{at}-  {}", line.trim_end());
        }
        let _ = writeln!(s, "{lead}{}  {}", h.line, h.text.trim());
        for (at, line) in (h.line + 1..).zip(&h.after) {
            let _ = writeln!(s, "{lead}{at}-  {}", line.trim_end());
        }
    }
    s
}

/// Text hits grouped by file (the path once) and, within it, by the symbol that
/// encloses them (named once, `  kind name_path`), one line each:
/// `    LINE  text`; a hit outside any symbol is `  LINE  text`.
///
/// Never longer than grep's answer for the same hits (`path:LINE:text` on every
/// line): where the symbols' names would make it longer (a few hits, each in a
/// symbol of its own), they are left out (the JSON answer always has them).
pub fn search_text(resp: &SearchTextResponse, pattern: &str, skip: u32) -> String {
    let grep: usize = resp
        .hits
        .iter()
        .map(|h| {
            let line = |text: &str| h.path.len() + h.line.to_string().len() + text.len() + 3;
            line(&h.text)
                + h.before
                    .iter()
                    .chain(&h.after)
                    .map(|c| line(c))
                    .sum::<usize>()
        })
        .sum();
    let labelled = text_hits(resp, Layout::Labelled);
    let mut s = if labelled.len() <= grep {
        labelled
    } else {
        let (grouped, flat) = (
            text_hits(resp, Layout::Grouped),
            text_hits(resp, Layout::Flat),
        );
        if flat.len() < grouped.len() {
            flat
        } else {
            grouped
        }
    };
    for f in &resp.matching_files {
        let _ = writeln!(s, "{}  {}", f.path, f.lines);
    }
    let files_only = !resp.matching_files.is_empty();
    // Counts of a search that stopped once its answer was full are what it read.
    let (more, stopped) = match resp.searched.unread {
        0 => ("", String::new()),
        n => (
            "+",
            format!(" (stopped once the answer was full: {n} files unread)"),
        ),
    };
    s.push_str(&match (resp.total, resp.truncated) {
        (0, _) => format!(
            "no line matches {pattern:?} in {}",
            searched(&resp.searched)
        ),
        (n, true) if files_only => format!(
            "{} of {}{more} files shown, {n}{more} matching lines{stopped}; {}",
            resp.matching_files.len(),
            resp.files,
            go_on(skip, resp.matching_files.len())
        ),
        (n, true) => format!(
            "{} of {n}{more} matching lines shown, in {}{more} files{stopped}; {}",
            resp.hits.len(),
            resp.files,
            go_on(skip, resp.hits.len())
        ),
        // Complete: the hits say it all.
        (_, false) => String::new(),
    });
    s.truncate(s.trim_end().len());
    s
}

/// What a search looked through, said when nothing matched: so "no line" is never
/// mistaken for "not searched".
fn searched(searched: &Searched) -> String {
    let mut s = match searched.files {
        1 => "the 1 file searched".to_string(),
        n => format!("the {n} files searched"),
    };
    s.push_str(": every text file under the path and globs, ignore rules honoured");
    if searched.read < searched.files {
        let _ = write!(
            s,
            " ({} read: the text index ruled out the rest)",
            searched.read
        );
    }
    let skipped: Vec<String> = [
        (searched.binary, "binary"),
        (searched.oversized, "oversized"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    if !skipped.is_empty() {
        let _ = write!(s, "; {} not searched", skipped.join(" and "));
    }
    s
}

pub fn edit(action: EditAction, resp: &EditResponse) -> String {
    // What the agent sent (the action, the path) is not said again; the lines are
    // where its text now is, the hashes what guards its next edit.
    let (start, end) = (&resp.new_range.start, &resp.new_range.end);
    // A range that ends at a line's start (a whole file's, a line edit's ending)
    // ends on the line before.
    let (first, last) = match end.line {
        last if end.column == 0 && last > start.line => (start.line, last - 1),
        last => (start.line, last),
    };
    let mut s = if first == last {
        format!("line {first} written")
    } else {
        format!("lines {first}-{last} written")
    };
    let by_lines = matches!(action, EditAction::ReplaceLines | EditAction::CreateFile);
    match &resp.file_hash {
        // The file's hash guards a later line edit anywhere in it, and so the lines
        // just written: their own hash would say nothing more.
        Some(file) if by_lines || *file == resp.hash => {
            let _ = write!(s, ", file hash {}", short_hash(file));
        }
        Some(file) => {
            let _ = write!(
                s,
                ", hash {}; file hash {}",
                short_hash(&resp.hash),
                short_hash(file)
            );
        }
        None => {
            let _ = write!(s, ", hash {}", short_hash(&resp.hash));
        }
    }
    // What the language server reports new after the edit (nothing said when it
    // reports nothing new, or did not check).
    let introduced = resp.introduced.as_deref().unwrap_or_default();
    if !introduced.is_empty() {
        let _ = write!(s, "\nnew from the language server:");
        for d in introduced {
            let message = d.message.lines().next().unwrap_or("");
            let _ = write!(s, "\n  {} {} {message}", d.range.start, d.severity);
            if let Some(e) = &d.symbol {
                let _ = write!(s, " (in {} {}", e.kind.as_str(), e.name_path);
                push_hashed(&mut s, &e.hash);
                s.push(')');
            }
        }
    }
    s
}

/// `N of M shown` or `M <noun>s`, said plainly.
fn totals(shown: usize, total: u32, truncated: bool, noun: &str) -> String {
    match (total, truncated) {
        (0, _) => format!("no {noun}s"),
        (n, true) => format!("{shown} of {n} {noun}s shown (raise the limit for more)"),
        (1, false) => format!("1 {noun}"),
        (n, false) => format!("{n} {noun}s"),
    }
}

/// Items grouped under their file (answers are sorted by path): the path on a line of
/// its own, then each item's line, indented.
fn by_file<T>(items: &[T], path: impl Fn(&T) -> &str, line: impl Fn(&T) -> String) -> String {
    let mut s = String::new();
    let mut last: Option<&str> = None;
    for item in items {
        let p = path(item);
        if last != Some(p) {
            s.push_str(p);
            s.push('\n');
            last = Some(p);
        }
        s.push_str(&format!("  {}\n", line(item)));
    }
    s
}

/// Locations grouped by file (`path`), then under the declaration each lies in
/// (`  kind name_path  hash`, the hash an edit of it passes), each `line:col  context`;
/// those in imports are counted, not listed (a reference there names the symbol, the
/// uses are the rest).
pub fn locations(resp: &NavigateResponse) -> String {
    let uses: Vec<&LocationHit> = resp.locations.iter().filter(|l| !l.import).collect();
    let imports = resp.locations.len() - uses.len();
    let mut s = String::new();
    let (mut file, mut symbol): (Option<&str>, Option<&Enclosing>) = (None, None);
    for l in uses {
        if file != Some(l.path.as_str()) {
            let _ = writeln!(s, "{}", l.path);
            (file, symbol) = (Some(l.path.as_str()), None);
        }
        let indent = match &l.symbol {
            Some(e) => {
                if symbol != Some(e) {
                    let _ = write!(s, "  {} {}", e.kind.as_str(), e.name_path);
                    push_hashed(&mut s, &e.hash);
                    s.push('\n');
                    symbol = Some(e);
                }
                "    "
            }
            None => {
                symbol = None;
                "  "
            }
        };
        let _ = writeln!(s, "{indent}{}  {}", l.range.start, l.context);
    }
    s.push_str(&totals(
        resp.locations.len(),
        resp.total,
        resp.truncated,
        "location",
    ));
    if imports > 0 {
        s.push_str(&format!(" ({imports} in imports, not listed)"));
    }
    s.push_str(&backed(&resp.backing, &resp.fallback));
    s
}

/// A call hierarchy as a tree: the function asked about, then each caller (callee)
/// as `path:LINE:COL  kind name_path  hash  at L:C, …` (its name, the hash an edit
/// of it passes, the call sites), the next level indented under it.
pub fn call_hierarchy(resp: &CallHierarchyResponse) -> String {
    fn row(s: &mut String, n: &CallNode, indent: usize) {
        let (kind, name) = match &n.symbol {
            Some(e) => (e.kind.as_str(), e.name_path.as_str()),
            None => (n.kind.as_str(), n.name.as_str()),
        };
        let _ = write!(
            s,
            "{:indent$}{}:{}  {kind} {name}",
            "", n.path, n.range.start
        );
        if let Some(e) = &n.symbol {
            push_hashed(s, &e.hash);
        }
        if !n.sites.is_empty() {
            let sites: Vec<String> = n.sites.iter().map(ToString::to_string).collect();
            let _ = write!(s, "  at {}", sites.join(", "));
        }
        s.push('\n');
    }
    fn below(s: &mut String, calls: &[CallNode], parent: Option<u32>, indent: usize) {
        for (i, n) in calls.iter().enumerate().filter(|(_, n)| n.parent == parent) {
            row(s, n, indent);
            below(s, calls, Some(i as u32), indent + 2);
        }
    }
    let mut s = String::new();
    let r = &resp.root_item;
    s.push_str(match resp.direction {
        CallDirection::Incoming => "callers of ",
        CallDirection::Outgoing => "callees of ",
    });
    row(&mut s, r, 0);
    below(&mut s, &resp.calls, None, 2);
    s.push_str(&totals(
        resp.calls.len(),
        resp.calls.len() as u32,
        resp.truncated,
        "call",
    ));
    s.push_str(&backed(&resp.backing, &resp.fallback));
    s
}

pub fn type_hierarchy(resp: &TypeHierarchyResponse) -> String {
    let r = &resp.root_item;
    let mut s = format!("{} {} {}:{}\n", r.kind, r.name, r.path, r.line);
    for i in &resp.items {
        s.push_str(&format!("  {} {} {}:{}\n", i.kind, i.name, i.path, i.line));
    }
    s.push_str(&totals(
        resp.items.len(),
        resp.total,
        resp.truncated,
        "type",
    ));
    s.push_str(&backed(&resp.backing, &resp.fallback));
    s
}

/// Diagnostics, one a line (`path:LINE:COL SEVERITY message [source]`), under the
/// declaration each lies in (`kind name_path  hash`, the hash an edit of it passes);
/// or, for `mode=list`, the sources.
pub fn inspections(resp: &InspectionsResponse) -> String {
    let mut s = String::new();
    let mut symbol = None;
    for d in &resp.diagnostics {
        if let Some(e) = &d.symbol
            && symbol != Some(e)
        {
            let _ = write!(s, "{} {}", e.kind.as_str(), e.name_path);
            push_hashed(&mut s, &e.hash);
            s.push('\n');
        }
        symbol = d.symbol.as_ref();
        if symbol.is_some() {
            s.push_str("  ");
        }
        s.push_str(&format!(
            "{}:{} {} {}{}\n",
            d.path,
            d.range.start,
            d.severity,
            d.message.lines().next().unwrap_or(""),
            d.source
                .as_deref()
                .map(|src| format!(" [{src}]"))
                .unwrap_or_default()
        ));
    }
    if resp.diagnostics.is_empty() && !resp.sources.is_empty() {
        // mode=list
        for src in &resp.sources {
            let about = match (&src.name, &src.severity) {
                (Some(name), Some(severity)) => format!("{name}, {severity}"),
                (Some(name), None) => name.clone(),
                (None, _) => format!("{} diagnostics seen", src.seen),
            };
            s.push_str(&format!("{} ({about})\n", src.id));
        }
        s.push_str(&totals(
            resp.sources.len(),
            resp.sources.len() as u32,
            false,
            "source",
        ));
    } else {
        s.push_str(&totals(
            resp.diagnostics.len(),
            resp.total,
            resp.truncated,
            "diagnostic",
        ));
    }
    s.push_str(&backed(&resp.backing, &resp.fallback));
    s
}

pub fn reformat(resp: &ReformatResponse) -> String {
    format!(
        "{} {}, hash {}{}",
        resp.path,
        if resp.reformatted {
            "reformatted"
        } else {
            "already formatted"
        },
        resp.hash,
        backed(&resp.backing, &resp.fallback)
    )
}

/// A refactoring's usages grouped by file, its conflicts, and what was written.
pub fn refactor(resp: &RefactorResponse) -> String {
    let mut s = by_file(
        &resp.usages,
        |u| &u.path,
        |u| format!("{}  {} → {}", u.range.start, u.text, u.new_text),
    );
    for c in &resp.conflicts {
        let at = match (&c.path, c.range) {
            (Some(path), Some(range)) => format!("{path}:{} ", range.start),
            (Some(path), None) => format!("{path}: "),
            _ => String::new(),
        };
        s.push_str(&format!("conflict: {at}{}\n", c.message));
    }
    s.push_str(&totals(
        resp.usages.len(),
        resp.total,
        resp.truncated,
        "usage",
    ));
    if resp.applied {
        s.push_str(&format!(
            "; applied to {} files: {}",
            resp.changed_paths.len(),
            resp.changed_paths.join(", ")
        ));
    } else {
        s.push_str(&format!("; plan_hash {}", resp.plan_hash));
    }
    s.push_str(&backed(&resp.backing, &resp.fallback));
    s
}

/// ` (backing)`, or ` (backing; why the backings before it did not answer)`.
fn backed(backing: &str, fallback: &Option<String>) -> String {
    match fallback {
        Some(why) => format!(" ({backing}; {why})"),
        None => format!(" ({backing})"),
    }
}

/// What a read's request named, which its answer does not say again: the agent
/// just sent it. Shown whole when nothing was asked (`Asked::default()`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Asked<'a> {
    /// The one file asked for, as given.
    pub path: Option<&'a str>,
    /// The symbol asked for, as given.
    pub name_path: Option<&'a str>,
}

impl<'a> Asked<'a> {
    pub fn of(req: &'a ReadRequest) -> Asked<'a> {
        Asked {
            path: match req.paths.as_slice() {
                [one] => Some(one.strip_prefix("./").unwrap_or(one)),
                _ => None,
            },
            name_path: req.name_path.as_deref(),
        }
    }
}

/// Every file of a read, one after another.
pub fn read(asked: Asked<'_>, resp: &ReadResponse) -> String {
    let mut s: Vec<String> = resp.files.iter().map(|f| file_read(asked, f)).collect();
    if resp.truncated {
        s.push(
            "… more files were asked for than one answer holds; read them in another call".into(),
        );
    }
    s.join("\n")
}

/// One file of a read. Content: `path  what, lines A-B of N  hash H  (read K)` then
/// the lines, each `LINE text` (the numbers right-aligned); a map or signatures: one
/// symbol a line with its lines and hash; a re-read: one line, or the diff; a
/// failure: its error. The path and the symbol's name are left out where they are
/// what was `asked`.
pub fn file_read(asked: Asked<'_>, f: &FileRead) -> String {
    let read = f.read.map(|n| format!("  (read {n})")).unwrap_or_default();
    let hash = short_hash(&f.hash);
    // `path: ` or `path  ` before what follows, or nothing.
    let path = |sep: &str| {
        if asked.path == Some(f.path.as_str()) {
            String::new()
        } else {
            format!("{}{sep}", f.path)
        }
    };
    match &f.content {
        ReadContent::Unchanged { since } => {
            format!("{}unchanged since your read {since}", path(": "))
        }
        ReadContent::Diff { since, diff } => format!(
            "{}changed since your read {since}, hash {hash}{read}\n{diff}",
            path(": ")
        ),
        ReadContent::Failed(e) => format!("{}{}", path(": "), error(e)),
        ReadContent::Lines {
            start_line,
            end_line,
            lines,
            name_path,
            more,
        } => {
            let what = match name_path.as_deref() {
                Some(name) if asked.name_path == Some(name) => String::new(),
                Some(name) => format!("{name}, "),
                None if matches!(f.mode, ReadMode::Full | ReadMode::Lines) => String::new(),
                None => format!("{}, ", f.mode.as_str()),
            };
            let mut s = format!(
                "{}{what}lines {start_line}-{end_line} of {}  hash {hash}{read}\n",
                path("  "),
                f.total_lines
            );
            let width = end_line.to_string().len();
            for (i, line) in lines.iter().enumerate() {
                s.push_str(&format!("{:>width$} {line}\n", *start_line as usize + i));
            }
            if let Some(next) = more {
                let _ = writeln!(
                    s,
                    "… the answer's cap: lines {start_line}-{end_line} shown; go on with start_line={next}"
                );
            }
            s.trim_end_matches('\n').to_string()
        }
        ReadContent::Symbols { symbols, total } => {
            let mut s = format!(
                "{}{}, {} lines, {total} symbols  hash {hash}{read}\n",
                path("  "),
                f.mode.as_str(),
                f.total_lines,
            );
            for sym in symbols {
                let indent = "  ".repeat(sym.depth as usize + 1);
                let (a, b) = (sym.range.start.line, sym.range.end.line);
                if f.mode == ReadMode::Map {
                    s.push_str(&format!(
                        "{indent}{a}-{b}  {} {}  {}\n",
                        sym.kind.as_str(),
                        sym.name_path,
                        short_hash(&sym.hash)
                    ));
                } else {
                    s.push_str(&format!(
                        "{indent}{a}  {}  {}\n",
                        sym.signature,
                        short_hash(&sym.hash)
                    ));
                }
            }
            if symbols.len() < *total as usize {
                s.push_str(&format!(
                    "… {} of {total} symbols shown; read one with mode=symbol\n",
                    symbols.len()
                ));
            }
            s.trim_end_matches('\n').to_string()
        }
    }
}

/// `ERROR: CODE: message`, the remedy, and the candidates or progress if any.
pub fn error(e: &LeanError) -> String {
    let mut s = format!("ERROR: {}: {}\nremedy: {}", e.code, e.message, e.remedy());
    match &e.details {
        Some(ErrorDetails::Candidates(candidates)) => {
            for c in candidates {
                s.push_str(&format!("\n  {}  {}:{}", c.name_path, c.path, c.line));
            }
        }
        Some(ErrorDetails::Progress(p)) => {
            s.push_str(&format!("\nprogress: {}% ({})", p.percent, p.message))
        }
        None => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Position, Range, protocol::SymbolKind};

    /// Text hits are never longer than grep's lines for them (`path:LINE:text`):
    /// symbols named once for the hits they hold, or left out (and said so) when
    /// naming them would cost more.
    #[test]
    fn text_hits_are_never_longer_than_greps() {
        use crate::protocol::{Enclosing, SearchTextResponse, TextHit};
        let hit = |path: &str, line: u32, text: &str, symbol: Option<(SymbolKind, &str)>| TextHit {
            path: path.into(),
            line,
            column: 4,
            text: text.into(),
            symbol: symbol.map(|(kind, name_path)| Enclosing {
                kind,
                name_path: name_path.into(),
                hash: None,
            }),
            before: Vec::new(),
            after: Vec::new(),
        };
        let answer = |hits: Vec<TextHit>| SearchTextResponse {
            total: hits.len() as u32,
            files: 1,
            truncated: false,
            hits,
            matching_files: Vec::new(),
            searched: Default::default(),
        };
        let grep = |r: &SearchTextResponse| -> usize {
            r.hits
                .iter()
                .map(|h| format!("{}:{}:{}\n", h.path, h.line, h.text).len())
                .sum()
        };
        // Many hits in one function: named once.
        let run = Some((SymbolKind::Function, "runtime/run"));
        let together = answer(
            (1..=6)
                .map(|i| hit("src/rt.rs", i, "    poll(cx);", run))
                .collect(),
        );
        let text = search_text(&together, "poll", 0);
        assert!(
            text.starts_with("src/rt.rs\n  function runtime/run\n    1  poll(cx);\n"),
            "{text}"
        );
        // The whole answer, with the newline a printer adds.
        let lines = |t: &str| t.len() + 1;
        assert!(lines(&text) <= grep(&together), "{text}");
        // Each hit in a symbol of its own: named, they would cost more than grep.
        let apart = answer(
            (1..=6)
                .map(|i| {
                    hit(
                        "src/a.rs",
                        i * 10,
                        "x",
                        Some((SymbolKind::Method, "SomeLongType/some_method_name")),
                    )
                })
                .collect(),
        );
        let text = search_text(&apart, "x", 0);
        assert!(!text.contains("SomeLongType"), "{text}");
        assert!(lines(&text) <= grep(&apart), "{text}");
    }

    fn sym(line: u32, signature: &str, children: Vec<SymbolInfo>) -> SymbolInfo {
        let at = Range::new(Position::new(line, 0), Position::new(line, 1));
        SymbolInfo {
            name: signature.into(),
            kind: SymbolKind::Function,
            name_path: signature.into(),
            range: at,
            name_range: at,
            signature: signature.into(),
            children,
            hash: None,
        }
    }

    #[test]
    fn outline_rows_keep_their_columns_at_any_line_number() {
        let resp = SymbolsOverviewResponse {
            path: "big.rs".into(),
            language: "rust".into(),
            symbols: vec![
                sym(7, "fn a()", vec![]),
                sym(
                    120,
                    "impl B",
                    vec![sym(121, "fn b()", vec![]), sym(12345, "fn c()", vec![])],
                ),
                sym(99999, "fn d()", vec![]),
            ],
            total: 5,
            backing: "headless".into(),
            fallback: None,
        };
        let text = symbols_overview(&resp);
        let columns: Vec<(usize, usize)> = text
            .lines()
            .skip(1)
            .map(|l| {
                (
                    l.len() - l.trim_start().len(),
                    l.find("  fn").or(l.find("  impl")).unwrap(),
                )
            })
            .collect();
        // Top-level rows share one column, children the next one in.
        assert_eq!(columns[0].1, columns[1].1, "{text}");
        assert_eq!(columns[0].1, columns[4].1, "{text}");
        assert_eq!(columns[2].1, columns[3].1, "{text}");
        assert_eq!(columns[2].1, columns[0].1 + 2, "{text}");
    }
}
