//! The conformance harness of the declaration model (`syntax/src/decl.rs`): every symbol
//! of every file of a corpus nobody here wrote, through the daemon's own extraction,
//! outline and edit planning (`edit::plan_in`, no file system, no daemon), checked for
//!
//! - (a) replacing it with its own text is byte-identical: its reported range, that
//!   text with a heredoc's trailing newline, its core alone (the attributes kept) and,
//!   where it has one, its doc comment with it (the doc comment replaced); one name of
//!   a declaration of several is refused (`INVALID_TARGET` naming the others) and the
//!   declaration's lines replaced by their own text instead;
//! - (b) inserting a declaration before it lands above its doc comment and
//!   attributes: the file parses, the item keeps its doc comment and attributes, the
//!   inserted declaration took none of them, and removing the insertion gives the
//!   file back byte for byte;
//! - (c) its range starts at its first attribute or keyword: no keyword or modifier of
//!   the language right before it, no attribute or decorator line right above it, and
//!   nothing but attributes and comments between its start and its first keyword;
//! - (d) its row of the `symbols_overview` an agent gets (rendered as the agent sees
//!   it, hashes included) round-trips: `replace_symbol_body` by the entry's
//!   `name_path` with the row's hash as `expected_hash` and the entry's text leaves
//!   the file as it was, directly or through the `[n]` address `AMBIGUOUS_SYMBOL`
//!   lists for that row.
//!
//! Speed: each file is parsed once (and once more with every insertion of (b) at
//! once); (a), (c), (d) and the byte checks of (b) need no parse, and per-symbol
//! parses are made only for a file whose combined check fails, to name the symbols.
//! Files are checked in parallel. Files the grammar itself cannot parse cleanly are
//! counted apart (`unparsed`), not checked. The bench `daemon/benches/conformance.rs`
//! runs it over whole corpora, the test `daemon/tests/conformance.rs` over a fixed
//! sample; CONFORMANCE.md has the figures.
//!
//! The pinned sample the test reads is fetched by `daemon/benches/fetch-conformance.sh`
//! (the bench runs whole corpora: `-- rust kotlin …` chooses languages).

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use lean_ctx_shared::{
    ErrorCode, ErrorDetails,
    protocol::{EditAction, EditTarget, SymbolInfo, SymbolsOverviewResponse},
    render,
};

use lean_ctx_syntax::{
    Lang, Symbol, SymbolKind as K, languages::ProbeSite, name_path::NamePath, text::LineIndex,
};

use crate::{
    backing::hashes,
    declarations::{extract, syntax_error},
    edit::{Edit, Source, plan_in},
    reads::Reads,
};

/// One language's figures over a corpus.
#[derive(Debug, Default)]
pub struct Tally {
    /// Files the grammar parses with a syntax error: outside what the model can
    /// promise (the symbols of a broken parse), counted, not checked.
    pub unparsed: usize,
    pub files: usize,
    pub symbols: usize,
    /// Symbols with at least one failed check.
    pub failed: usize,
    /// The first failures, described (`path: name_path: what`).
    pub failures: Vec<String>,
}

/// Failures kept per language for the report.
const KEPT: usize = 50;

/// A file checked: its place in the walk, language, path and results.
type Done = (usize, Lang, String, Option<Checked>);

/// Every file under `dir` the index parses (every `every`th, in path order), checked
/// on all cores, tallied per language.
pub fn check_dir(dir: &Path, every: usize) -> BTreeMap<Lang, Tally> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.is_file() && Lang::from_path(p).is_some_and(Lang::is_code))
        .collect();
    files.sort();
    let files: Vec<PathBuf> = files.into_iter().step_by(every.max(1)).collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Done>> = Mutex::default();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let reads = Reads::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else {
                        break;
                    };
                    let (Some(lang), Ok(src)) = (Lang::from_path(path), std::fs::read(path)) else {
                        continue;
                    };
                    let rel = path.strip_prefix(dir).unwrap_or(path).display().to_string();
                    let checked = check_file_as(lang, &rel, &src, &reads);
                    done.lock().unwrap().push((i, lang, rel, checked));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, ..)| *i);
    let mut out: BTreeMap<Lang, Tally> = BTreeMap::new();
    for (_, lang, rel, checked) in done {
        let tally = out.entry(lang).or_default();
        let Some(results) = checked else {
            tally.unparsed += 1;
            continue;
        };
        tally.files += 1;
        for (name_path, failure) in results {
            tally.symbols += 1;
            if let Some(why) = failure {
                tally.failed += 1;
                if tally.failures.len() < KEPT {
                    tally.failures.push(format!("{rel}: {name_path}: {why}"));
                }
            }
        }
    }
    out
}

/// Each symbol of `src` by name path, with its first failed check; `None` when the
/// grammar does not parse `src` cleanly (or it is binary).
pub type Checked = Vec<(String, Option<String>)>;

/// [`check_file_as`] for a file named by its language alone.
pub fn check_file(lang: Lang, src: &[u8]) -> Option<Checked> {
    let rel = format!("file.{}", lang.extension());
    check_file_as(lang, &rel, src, &Reads::default())
}

/// Every check of every symbol of `src`, the file `rel`.
pub fn check_file_as(lang: Lang, rel: &str, src: &[u8], reads: &Reads) -> Option<Checked> {
    let source = Source::new(lang, src.to_vec());
    if source.parsed().binary || !source.is_clean() {
        return None;
    }
    let all = parents(source.parsed().top(), None);
    // How many symbols share each range (a declaration of several names).
    let mut sharing: HashMap<(usize, usize), usize> = HashMap::new();
    for (s, _) in &all {
        *sharing.entry((s.bytes().start, s.bytes().end)).or_default() += 1;
    }
    let grouped = |s: Symbol<'_>| sharing[&(s.bytes().start, s.bytes().end)] > 1;
    let rows = overview(&source, rel, src, reads);
    let mut inserts = Vec::with_capacity(all.len());
    let mut results: Vec<(String, Result<(), String>)> = all
        .iter()
        .zip(&rows)
        .map(|(&(s, _), row)| {
            let check = outline_entry(&source, rel, src, s, row, grouped(s))
                .and_then(|address| own_text(&source, rel, src, s, &address, grouped(s)))
                .and_then(|()| starts_at_first_keyword(lang, src, s, &all))
                .and_then(|()| only_attributes_before_the_core(lang, src, s))
                .and_then(|()| insertion(&source, rel, lang, src, s, &all))
                .map(|insert| inserts.push((s, insert)));
            (s.name_path().to_string(), check)
        })
        .collect();
    if all.len() != rows.len() {
        results.push((
            String::new(),
            Err(format!(
                "the overview lists {} rows for {} symbols",
                rows.len(),
                all.len()
            )),
        ));
    }
    // (b) for every symbol at once; should that fail, symbol by symbol to name them.
    if inserted_all_at_once(lang, src, &inserts).is_err() {
        for (name_path, check) in &mut results {
            if check.is_ok()
                && let Some(&(s, _)) = all.iter().find(|(s, _)| s.name_path() == name_path)
            {
                *check = insert_before(&source, rel, lang, src, s, &all);
            }
        }
    }
    Some(results.into_iter().map(|(n, c)| (n, c.err())).collect())
}

/// Every symbol in document order with its parent's kind.
fn parents<'a>(
    level: impl Iterator<Item = Symbol<'a>>,
    parent: Option<K>,
) -> Vec<(Symbol<'a>, Option<K>)> {
    let mut out = Vec::new();
    for s in level {
        out.push((s, parent));
        out.extend(parents(s.children(), Some(s.kind())));
    }
    out
}

fn edit<'a>(
    action: EditAction,
    target: &'a EditTarget,
    text: &'a str,
    expected_hash: Option<&'a str>,
) -> Edit<'a> {
    Edit {
        action,
        target,
        text,
        expected_hash,
        force: false,
        held: Vec::new(),
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())
}

/// One row of the overview an agent reads: the entry (its `name_path`, as `--json`
/// shows it) and the line and hash the text shows.
struct Row {
    info: SymbolInfo,
    line: u32,
    hash: String,
}

/// The file's `symbols_overview` at every depth, built as the headless backing
/// builds it (hashes from the file's bytes), rendered as the agent sees it, and read
/// back row by row in document order.
fn overview(source: &Source, rel: &str, src: &[u8], reads: &Reads) -> Vec<Row> {
    let hashed = hashes::Source::new(src.to_vec());
    let mut symbols: Vec<SymbolInfo> = source
        .parsed()
        .top()
        .map(|s| hashes::info(Some(&hashed), s, u32::MAX, reads.of(Path::new(rel))))
        .collect();
    let resp = SymbolsOverviewResponse {
        path: rel.to_string(),
        language: source.parsed().lang.name().to_string(),
        total: source.parsed().count as u32,
        symbols: std::mem::take(&mut symbols),
        backing: "headless".into(),
        fallback: None,
    };
    let text = render::symbols_overview(&resp);
    fn flat(infos: Vec<SymbolInfo>, out: &mut Vec<SymbolInfo>) {
        for mut info in infos {
            let children = std::mem::take(&mut info.children);
            out.push(info);
            flat(children, out);
        }
    }
    let mut entries = Vec::new();
    flat(resp.symbols, &mut entries);
    // `  LINE  signature  HASH`: the line first, the hash last.
    text.lines()
        .skip(1)
        .zip(entries)
        .map(|(row, info)| {
            let row = row.trim();
            Row {
                line: row
                    .split_whitespace()
                    .next()
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(0),
                hash: row.rsplit(' ').next().unwrap_or("").to_string(),
                info,
            }
        })
        .collect()
}

/// (d): `replace_symbol_body` by the overview row's `name_path` with its own text and
/// the row's hash, else by the address `AMBIGUOUS_SYMBOL` lists for the row's line.
/// Answers the address that edits `s` alone.
fn outline_entry(
    source: &Source,
    rel: &str,
    src: &[u8],
    s: Symbol<'_>,
    row: &Row,
    grouped: bool,
) -> Result<String, String> {
    if row.line != s.range().start.line || row.info.name_path != s.name_path() {
        return Err(format!(
            "the overview row `{} {}` is not this symbol",
            row.line, row.info.name_path
        ));
    }
    let text = utf8(&src[s.bytes()])?;
    let attempt = |name_path: &str| {
        let target = EditTarget::NamePath {
            name_path: name_path.to_string(),
            path: None,
        };
        plan_in(
            source,
            rel,
            &edit(
                EditAction::ReplaceSymbolBody,
                &target,
                text,
                Some(&row.hash),
            ),
        )
    };
    let mut address = row.info.name_path.clone();
    let mut planned = attempt(&address);
    if let Err(e) = &planned
        && e.code == ErrorCode::AmbiguousSymbol
    {
        let Some(ErrorDetails::Candidates(candidates)) = &e.details else {
            return Err(format!(
                "AMBIGUOUS_SYMBOL without candidates: {}",
                e.message
            ));
        };
        // Each listed address names one symbol of the file: the row's is the one
        // on its line that names this symbol.
        let mine: Vec<_> = candidates
            .iter()
            .filter(|c| {
                c.line == row.line
                    && NamePath::parse(&c.name_path)
                        .matches(s.name_path(), s.name())
                        .is_some()
            })
            .collect();
        let [one] = mine.as_slice() else {
            return Err(format!(
                "AMBIGUOUS_SYMBOL lists no one address for this row: {}",
                e.message
            ));
        };
        address = one.name_path.clone();
        planned = attempt(&address);
    }
    match planned {
        Ok(p) if p.content == src => Ok(address),
        Ok(_) => Err("replace by its overview entry changed the file".into()),
        Err(e) if e.code == ErrorCode::InvalidTarget && grouped => {
            let named = source
                .parsed()
                .all()
                .filter(|o| o.bytes() == s.bytes())
                .all(|o| o.name_path() == s.name_path() || e.message.contains(o.name_path()));
            if named {
                Ok(address)
            } else {
                Err(format!(
                    "INVALID_TARGET without naming the group: {}",
                    e.message
                ))
            }
        }
        Err(e) => Err(format!("replace by its overview entry: {}", e.message)),
    }
}

/// (a): replacements by the symbol's own text leave the file as it was; one name of
/// a declaration of several is refused, and the declaration's lines are replaced.
fn own_text(
    source: &Source,
    rel: &str,
    src: &[u8],
    s: Symbol<'_>,
    address: &str,
    grouped: bool,
) -> Result<(), String> {
    let end = s.bytes().end;
    let range = utf8(&src[s.bytes()])?;
    // Its range alone: (d) replaced it by that.
    let mut texts = vec![
        ("its range and a newline", format!("{range}\n")),
        ("its core", utf8(&src[s.core_start()..end])?.to_string()),
    ];
    if s.doc_start() < s.bytes().start {
        texts.push((
            "its doc comment and range",
            utf8(&src[s.doc_start()..end])?.to_string(),
        ));
    }
    let mut target = EditTarget::NamePath {
        name_path: address.to_string(),
        path: None,
    };
    if grouped {
        // Refused by name (checked in (d)): the whole lines, by their own text.
        let lines = LineIndex::new(src);
        let (first, last) = (s.range().start.line, s.range().end.line);
        let whole = lines.line_start(first).unwrap_or(0)..lines.line_end(src, last).unwrap_or(end);
        target = EditTarget::Lines {
            path: rel.to_string(),
            line: first,
            end_line: Some(last),
        };
        texts = vec![("its lines", utf8(&src[whole])?.to_string())];
    }
    for (what, text) in texts {
        let planned = plan_in(
            source,
            rel,
            &edit(EditAction::ReplaceSymbolBody, &target, &text, None),
        )
        .map_err(|e| format!("replace by {what}: {}", e.message))?;
        if planned.content != src {
            return Err(format!("replace by {what} changed the file"));
        }
    }
    Ok(())
}

/// (c): nothing that belongs to the declaration lies before its range.
fn starts_at_first_keyword(
    lang: Lang,
    src: &[u8],
    s: Symbol<'_>,
    all: &[(Symbol<'_>, Option<K>)],
) -> Result<(), String> {
    let start = s.bytes().start;
    let before = src[..start].trim_ascii_end();
    let word_start = before
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map_or(0, |i| i + 1);
    let word = &before[word_start..];
    // In a comment: a comment line, or after `//`, `/*` (`#` in Python) on its line
    // (`var cont = null // waiting for new value`).
    let prefix = &src[line_start(src, word_start)..word_start];
    let comments = lang.comments();
    let holds = |opener: &[u8]| prefix.windows(opener.len()).any(|w| w == opener);
    let in_comment = prefix.trim_ascii_start().starts_with(b"*")
        || comments.line.iter().any(|l| holds(l))
        || comments.block.as_ref().is_some_and(|b| holds(b.open))
        || (lang == Lang::Rust && prefix.trim_ascii_start().starts_with(b"#"));
    // A word after a `.` is a member or a package (`_size.value`, `package
    // kotlinx.coroutines.internal`), and one ending another declaration is its
    // last word: neither is a modifier of this one.
    let qualified = word_start > 0 && src[word_start - 1] == b'.';
    let ends_another = all
        .iter()
        .any(|(o, _)| o.bytes().end == word_start + word.len());
    if !word.is_empty()
        && !in_comment
        && !qualified
        && !ends_another
        && lang.keywords().iter().any(|k| k.as_bytes() == word)
    {
        return Err(format!(
            "range starts after `{}`",
            String::from_utf8_lossy(word)
        ));
    }
    // The nearest line above that is not blank: an attribute there is the
    // declaration's.
    let mut line = line_start(src, start);
    if line == 0 || !src[line..start].trim_ascii().is_empty() {
        return Ok(());
    }
    let (above, above_at) = loop {
        let prev = line_start(src, line - 1);
        let text = src[prev..line].trim_ascii();
        if !text.is_empty() || prev == 0 {
            break (text, prev);
        }
        line = prev;
    };
    // A declaration ending there (`@JvmField val A = 1`) is not an attribute line.
    if all
        .iter()
        .any(|(o, _)| (above_at..line).contains(&o.bytes().end))
    {
        return Ok(());
    }
    if lang.is_attribute(above) {
        return Err(format!(
            "range starts below the attribute `{}`",
            String::from_utf8_lossy(above)
        ));
    }
    Ok(())
}

/// (c): between the range's start and the core, attributes and comments only: a
/// range that took in another declaration (a grammar reading a class as an
/// annotated expression) fails here.
fn only_attributes_before_the_core(lang: Lang, src: &[u8], s: Symbol<'_>) -> Result<(), String> {
    let head = lean_ctx_syntax::decl::strip_comments(
        lang.comments(),
        &src[s.bytes().start..s.core_start()],
    );
    // Outside strings and brackets (an attribute's arguments), every word belongs
    // to an attribute: `@Name`, `@a.b`, `@file:Name`, or Rust's `#`.
    let mut outside = Vec::with_capacity(head.len());
    // Where in `outside` a word ends that is called (`f(…)`): a name, not a keyword.
    let mut called = Vec::new();
    let (mut depth, mut quote) = (0usize, None::<u8>);
    let mut i = 0;
    while i < head.len() {
        let b = head[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            // Triple-quoted (Elixir's `@doc """…"""`): its text may hold any quote.
            None if head[i..].starts_with(b"\"\"\"") => {
                let close = head[i + 3..].windows(3).position(|w| w == b"\"\"\"");
                i = close.map_or(head.len(), |at| i + at + 6);
                continue;
            }
            None if b == b'"' || (b == b'\'' && lang != Lang::Rust) || b == b'`' => quote = Some(b),
            None if matches!(b, b'(' | b'[' | b'{') => {
                if b == b'('
                    && depth == 0
                    && outside
                        .last()
                        .is_some_and(|c: &u8| !c.is_ascii_whitespace())
                {
                    called.push(outside.len());
                }
                depth += 1;
            }
            None if matches!(b, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            None if depth == 0 => outside.push(b),
            None => {}
        }
        i += 1;
    }
    // After an attribute, a word that is no keyword is one of its arguments the
    // language does not bracket (Elixir's `@spec f(a) :: t`, `@spec defguard(a) ::
    // t`); a keyword is another declaration's.
    let mut after_attribute = false;
    let mut start = 0;
    let stray = outside.split(u8::is_ascii_whitespace).find_map(|w| {
        let end = start + w.len();
        start = end + 1;
        let attribute = lang.is_attribute(w);
        after_attribute |= attribute;
        let word = String::from_utf8_lossy(w);
        let keyword = lang.keywords().contains(&&*word) && !called.contains(&end);
        (!w.is_empty() && !attribute && (!after_attribute || keyword)).then(|| word.into_owned())
    });
    match stray {
        Some(w) => Err(format!("range takes in `{w}` before its first keyword")),
        None => Ok(()),
    }
}

/// A declaration to insert before `s`, valid where it lands (the container of the
/// outermost symbol on the line it lands on); `None` where only a comment would do.
fn probe(lang: Lang, src: &[u8], s: Symbol<'_>, all: &[(Symbol<'_>, Option<K>)]) -> String {
    let line = line_start(src, s.doc_start());
    let (outer, parent) = all
        .iter()
        .find(|(o, _)| line_start(src, o.doc_start()) == line)
        .copied()
        .unwrap_or((s, None));
    let grouped = !lang
        .keywords()
        .iter()
        .any(|k| src[outer.core_start()..].starts_with(k.as_bytes()));
    lang.probe(ProbeSite {
        kind: outer.kind(),
        parent,
        grouped,
    })
    .to_string()
}

fn line_start(src: &[u8], at: usize) -> usize {
    src[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)
}

/// An insertion (b) planned before one symbol: where, and what.
#[derive(Debug)]
struct Insert {
    at: usize,
    bytes: Vec<u8>,
    /// How much of `bytes` is the probe (the rest: its line ending and blank lines).
    written: usize,
}

/// (b), the part that needs no parse: the insertion before `s`, planned by the
/// daemon (past the syntax guard: [`inserted_all_at_once`] parses them together), and
/// removing it gives the file back.
fn insertion(
    source: &Source,
    rel: &str,
    lang: Lang,
    src: &[u8],
    s: Symbol<'_>,
    all: &[(Symbol<'_>, Option<K>)],
) -> Result<Insert, String> {
    let text = probe(lang, src, s, all);
    let target = address(source, s);
    let planned = plan_in(
        source,
        rel,
        &Edit {
            force: true,
            ..edit(EditAction::InsertBeforeSymbol, &target, &text, None)
        },
    )
    .map_err(|e| format!("insert-before: {}", e.message))?;
    let content = &planned.content;
    let added = content.len() - src.len();
    let at = planned.written.start;
    if content[..at] != src[..at] || content[at + added..] != src[at..] {
        return Err("removing the insertion does not give the file back".into());
    }
    if at > s.doc_start() {
        return Err("insert-before landed below the item's doc comment or attributes".into());
    }
    Ok(Insert {
        at,
        bytes: content[at..at + added].to_vec(),
        written: planned.written.len(),
    })
}

/// The address of `s` alone, for edits that do not go through the overview: its
/// name path, anchored and with `[0]` as `AMBIGUOUS_SYMBOL` would list it.
fn address(source: &Source, s: Symbol<'_>) -> EditTarget {
    let found = crate::edit::match_name_path(source.parsed(), s.name_path());
    let name_path = if found.len() == 1 {
        s.name_path().to_string()
    } else {
        let err = crate::edit::ambiguous(s.name_path(), found.iter().map(|o| (*o, "")));
        match err.details {
            Some(ErrorDetails::Candidates(c)) => c
                .into_iter()
                .find(|c| {
                    NamePath::parse(&c.name_path)
                        .matches(s.name_path(), s.name())
                        .is_some()
                        && c.line == s.range().start.line
                })
                .map_or_else(|| s.name_path().to_string(), |c| c.name_path),
            _ => s.name_path().to_string(),
        }
    };
    EditTarget::NamePath {
        name_path,
        path: None,
    }
}

/// (b) for every symbol at once: every insertion made (one per line), the result
/// parsed once; it parses cleanly, every symbol is where the insertions moved it
/// with its doc comment and attributes, and no inserted declaration took any.
fn inserted_all_at_once(
    lang: Lang,
    src: &[u8],
    inserts: &[(Symbol<'_>, Insert)],
) -> Result<(), String> {
    let mut at: BTreeMap<usize, &Insert> = BTreeMap::new();
    for (_, i) in inserts {
        if let Some(other) = at.insert(i.at, i)
            && other.bytes != i.bytes
        {
            return Err("two insertions on one line differ".into());
        }
    }
    let mut content =
        Vec::with_capacity(src.len() + at.values().map(|i| i.bytes.len()).sum::<usize>());
    // (original offset, shift from there on, the probe's range in `content`).
    let mut shifts: Vec<(usize, usize)> = Vec::with_capacity(at.len());
    let mut probes = Vec::with_capacity(at.len());
    let mut from = 0;
    for (&off, i) in &at {
        content.extend_from_slice(&src[from..off]);
        probes.push(content.len()..content.len() + i.written);
        content.extend_from_slice(&i.bytes);
        shifts.push((off, content.len() - off));
        from = off;
    }
    content.extend_from_slice(&src[from..]);
    if syntax_error(lang, &content).is_some() {
        return Err("the file does not parse with the insertions".into());
    }
    let moved = |x: usize| {
        let n = shifts.partition_point(|(off, _)| *off <= x);
        x + n.checked_sub(1).map_or(0, |k| shifts[k].1)
    };
    let after = extract(lang, &content);
    let by_path: HashMap<&str, Symbol<'_>> = after.all().map(|a| (a.name_path(), a)).collect();
    for (s, _) in inserts {
        let Some(a) = by_path.get(s.name_path()) else {
            return Err(format!("{} is gone", s.name_path()));
        };
        if a.bytes() != (moved(s.bytes().start)..moved(s.bytes().end))
            || a.doc_start() != moved(s.doc_start())
        {
            return Err(format!(
                "{} lost its doc comment or attributes",
                s.name_path()
            ));
        }
    }
    for p in after.all() {
        let start = p.bytes().start;
        let k = probes.partition_point(|r| r.start <= start);
        if let Some(w) = k.checked_sub(1).map(|k| &probes[k])
            && w.contains(&start)
            && (p.doc_start() < w.start || p.bytes().end > w.end)
        {
            return Err(format!("an inserted declaration took {}", p.name_path()));
        }
    }
    Ok(())
}

/// (b) for one symbol, parsed alone, through the syntax guard: a declaration
/// inserted before `s` takes none of its doc comment and attributes, and comes out
/// again byte for byte.
fn insert_before(
    source: &Source,
    rel: &str,
    lang: Lang,
    src: &[u8],
    s: Symbol<'_>,
    all: &[(Symbol<'_>, Option<K>)],
) -> Result<(), String> {
    let text = probe(lang, src, s, all);
    let target = address(source, s);
    let planned = plan_in(
        source,
        rel,
        &edit(EditAction::InsertBeforeSymbol, &target, &text, None),
    )
    .map_err(|e| format!("insert-before: {}", e.message))?;
    let content = &planned.content;
    let added = content.len() - src.len();
    let at = planned.written.start;
    if content[..at] != src[..at] || content[at + added..] != src[at..] {
        return Err("removing the insertion does not give the file back".into());
    }
    let after = extract(lang, content);
    let moved = after
        .all()
        .find(|n| n.name_path() == s.name_path())
        .ok_or("the item is gone after insert-before")?;
    if content[moved.doc_start()..moved.bytes().end] != src[s.doc_start()..s.bytes().end]
        || content[moved.bytes()] != src[s.bytes()]
    {
        return Err("insert-before changed the item's doc comment or attributes".into());
    }
    let written = planned.written.clone();
    let took = after.all().any(|p| {
        p.bytes().start >= written.start
            && p.bytes().start < written.end
            && (p.doc_start() < written.start || p.bytes().end > written.end)
    });
    if took {
        return Err("the inserted declaration took the item's doc comment or attributes".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression cases from real code (each names its source), and the harness's
    /// own findings on them.
    #[test]
    fn real_excerpts_conform() {
        let cases: &[(Lang, &str, &str)] = &[
            (
                Lang::Rust,
                "serde 1.0 (src/lib.rs, shortened)",
                "/// Doc.\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    /// One.\n    #[test]\n    fn one() {}\n\n    #[test]\n    #[should_panic]\n    fn two() {}\n}\n",
            ),
            (
                Lang::Rust,
                "hashbrown 0.17.2 (src/alloc.rs, shortened: a method of each of two `mod inner`s)",
                "#[cfg(test)]\nmod inner {\n    pub(crate) fn do_alloc() {}\n}\n\n#[cfg(not(test))]\nmod inner {\n    pub(crate) fn do_alloc() {}\n}\n",
            ),
            (
                Lang::Python,
                "attrs 25.3.0 (src/attr/_make.py, shortened)",
                "@dataclass\nclass Point:\n    x: int = 0\n\n    @property\n    def norm(self):\n        return 1\n\n    @staticmethod\n    @cache\n    def make():  # Instance variables\n        pass\n",
            ),
            (
                Lang::TypeScript,
                "zod 3.23.8 (src/types.ts, shortened)",
                "/** The type. */\nexport type Id = string;\nexport const MAX = 10;\nexport default class Base {\n  @dec() static run(): void {}\n}\nexport const a = 1, b = 2;\ndeclare function f(): void;\n",
            ),
            (
                Lang::Go,
                "google/uuid v1.6.0 (uuid.go, shortened)",
                "package uuid\n\n// A UUID is a 128 bit.\ntype UUID [16]byte\n\n// Nil is empty.\nvar Nil UUID\n\nvar (\n\trander = rand.Reader\n\tpoolMu sync.Mutex\n)\n\nconst X int = 5\n",
            ),
            (
                Lang::Java,
                "gson 2.11.0 (Gson.java, shortened)",
                "public final class Gson {\n  /** Doc. */\n  @Override\n  public String toString() { return \"\"; }\n\n  @Deprecated\n  static final int A = 1, B = 2;\n}\n",
            ),
            (
                Lang::Kotlin,
                "kotlinx-coroutines 1.8.1 (Job.kt, shortened)",
                "/** A job. */\n@Suppress(\"x\")\npublic interface Job {\n    @Deprecated(\"y\")\n    public fun cancel(): Unit\n}\n",
            ),
            (
                Lang::Kotlin,
                "kotlinx-coroutines 1.8.1 (jvmMain/DefaultExecutor.kt: a member at column 5 closed at column 4)",
                "internal actual object DefaultExecutor {\n     override fun reschedule(now: Long) {\n         shutdownError()\n    }\n}\n",
            ),
            (
                Lang::Kotlin,
                "kotlinx-coroutines 1.8.1 (concurrentMain/internal/LockFreeLinkedList.kt: a class the grammar reads as an annotated expression)",
                "package kotlinx.coroutines.internal\n\ninternal expect fun <E> identitySet(expectedSize: Int): MutableSet<E>\n\n@Suppress(\"LeakingThis\")\n@InternalCoroutinesApi\npublic actual open class LockFreeLinkedListNode {\n    private val _next = atomic<Any>(this)\n}\n\npublic actual open class LockFreeLinkedListHead : LockFreeLinkedListNode() {\n    public val isEmpty: Boolean get() = next === this\n}\n",
            ),
            (
                Lang::Kotlin,
                "kotlinx-coroutines 1.8.1 (debug/internal/ConcurrentWeakMap.kt: a member after `.value`)",
                "internal class ConcurrentWeakMap {\n    override val size: Int\n        get() = _size.value\n\n    private fun decrementSize() { _size.decrementAndGet() }\n}\n",
            ),
            (
                Lang::Go,
                "golang.org/x/sync v0.10.0 (grouped names, shortened)",
                "package errgroup\n\nvar X, Y float64\n\nconst (\n\tA, B = 1, 2\n\tC    = 3\n)\n",
            ),
            (
                Lang::JavaScript,
                "zod 3.23.8 (lib/index.mjs, grouped names, shortened)",
                "var a = 1, b = function () { return 2; };\nexport let c, d;\n",
            ),
        ];
        for (lang, source, src) in cases {
            let results = check_file(*lang, src.as_bytes()).expect(source);
            assert!(!results.is_empty(), "{source}: no symbols");
            let failed: Vec<_> = results.iter().filter(|(_, f)| f.is_some()).collect();
            assert!(failed.is_empty(), "{source}: {failed:#?}");
        }
    }
}
