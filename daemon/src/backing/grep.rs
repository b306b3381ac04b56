//! Content search for the headless backing (`ctx_search action=text|regex`) with
//! ripgrep's own library crates (grep-regex's matcher, grep-searcher's line search)
//! over the index's file list, so what is searched is exactly what the index holds:
//! its ignore rules, its size and binary skips. Each matching line is labelled with
//! the innermost symbol of the file's parse that holds the match.
//!
//! The files are opened beneath a descriptor of the root held for the search,
//! following no symlink (`jail::open_beneath`, as the index's own reads), and
//! searched only if `fstat` shows the very file the index holds (device, inode, size,
//! mtime, ctime); a file that changed since is jailed (`jail::resolve`) and parsed
//! again first, so no answer lags a write and no name leads outside the root. Files are searched in parallel, each
//! worker taking the next file in rank order.
//!
//! Files are taken in the answer's order, and none is taken once the files before it
//! fill the answer (`Fill`): a pattern that matches everywhere costs what its answer
//! costs, not what the repository does (ripgrep piped into `head` stops the same way).
//! Hits past what the limit can answer are counted, not built. A file's parse is
//! fetched only once it has a hit to label (with the store on, a parse is a read and a
//! decode: fetching every candidate's first cost a search over all files more than
//! the search).

use std::{
    os::fd::{AsFd, BorrowedFd},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use lean_ctx_shared::{
    ErrorCode, LeanError,
    protocol::{Enclosing, TextHit},
};

use lean_ctx_syntax::text::char_count;

use crate::{
    declarations::{Spans, Wire},
    index::{
        ids::FileId,
        store::{ContentFacts, Parsed},
    },
    jail::{self, Want},
    registry::Project,
};

/// Longest line text an answer carries, in characters.
const MAX_LINE_CHARS: usize = 300;

/// The matcher for `pattern`: literal text unless `regex`.
pub fn matcher(
    pattern: &str,
    regex: bool,
    case_insensitive: bool,
) -> Result<RegexMatcher, LeanError> {
    RegexMatcherBuilder::new()
        .fixed_strings(!regex)
        .case_insensitive(case_insensitive)
        // `$` before a CRLF line ending as before a LF one (the searcher's line
        // terminator must be the same).
        .crlf(true)
        .build(pattern)
        .map_err(|e| {
            LeanError::new(ErrorCode::InvalidTarget, format!("not a valid regex: {e}"))
                .with_remedy("fix the pattern (Rust regex syntax, as ripgrep's), or search with action=text for the literal text")
        })
}

/// One file's hits: the first `keep` matching lines, and how many matched.
#[derive(Debug, Default)]
pub struct FileHits {
    /// Set when a line matched.
    pub path: String,
    pub hits: Vec<TextHit>,
    pub matched: u32,
    /// The file's size as read.
    pub bytes_read: u64,
}

/// Which files `globs` let through (ripgrep's `-g`: gitignore syntax, matched
/// against root-relative paths, `!` excluding); `None` when there are none.
pub fn file_filter(
    root: &std::path::Path,
    globs: &[String],
) -> Result<Option<ignore::overrides::Override>, LeanError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let invalid = |e: ignore::Error| {
        LeanError::new(ErrorCode::InvalidTarget, format!("not a valid glob: {e}"))
            .with_remedy("give globs as ripgrep's -g takes them: *.toml, src/**/*.rs, !target/**")
    };
    let mut builder = ignore::overrides::OverrideBuilder::new(root);
    for glob in globs {
        builder.add(glob).map_err(invalid)?;
    }
    Ok(Some(builder.build().map_err(invalid)?))
}

/// Whether `filter` lets the root-relative file `rel` through.
pub fn lets_through(filter: Option<&ignore::overrides::Override>, rel: &str) -> bool {
    filter.is_none_or(|f| !f.matched(rel, false).is_ignore())
}

/// What fills an answer: once the files searched before the next one in order hold
/// this much, no later file can change the answer, and none is read.
#[derive(Clone, Copy, Debug)]
pub enum Fill {
    /// Matching lines (hits are built for these, at most this many per file).
    Lines(usize),
    /// Files with a match (only counted, no hit is built).
    Files(usize),
}

/// Searches `files` (root-relative names, the identities they were indexed at, their
/// parses) in order until the answer is full (`fill`); the answer is in the same
/// order, with how many files were left unread. Hits built stay under the lines
/// wanted times the workers plus one.
pub fn search(
    project: &Project,
    matcher: &RegexMatcher,
    files: &[(Arc<str>, FileId, ContentFacts)],
    fill: Fill,
    (before, after): (u32, u32),
) -> (Vec<FileHits>, usize) {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    // Hits kept (or files matched) by finished files: read before a file is taken, it
    // counts only files taken before it, earlier in the order; once it reaches what
    // the answer wants, the answer's first items all lie in those files.
    let filled = AtomicUsize::new(0);
    let (keep, wanted) = match fill {
        Fill::Lines(n) => (n, n),
        Fill::Files(n) => (0, n),
    };
    let found = Mutex::new(Vec::with_capacity(files.len()));
    // A root that cannot be opened (removed meanwhile) has no file to search.
    let Ok(root) = jail::open_root(&project.root) else {
        return (Vec::new(), files.len());
    };
    let root = root.as_fd();
    let work = || {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .line_terminator(LineTerminator::crlf())
            // Offsets into the bytes as they are on disk: a UTF-8 BOM is skipped
            // here, a UTF-16 file (NUL bytes) is binary and never indexed.
            .bom_sniffing(false)
            .binary_detection(BinaryDetection::quit(b'\0'))
            .before_context(before as usize)
            .after_context(after as usize)
            .build();
        let mut mine = Vec::new();
        while filled.load(Ordering::SeqCst) < wanted {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some((rel, id, known)) = files.get(i) else {
                break;
            };
            let file = (&**rel, *id, known);
            if let Some(hits) = search_file(project, root, &mut searcher, matcher, file, keep) {
                let filling = match fill {
                    Fill::Lines(_) => hits.hits.len(),
                    Fill::Files(_) => usize::from(hits.matched > 0),
                };
                filled.fetch_add(filling, Ordering::SeqCst);
                mine.push((i, hits));
            }
        }
        found.lock().unwrap().append(&mut mine);
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    let unread = files.len().saturating_sub(next.into_inner());
    let mut found = found.into_inner().unwrap();
    found.sort_unstable_by_key(|(i, _)| *i);
    (found.into_iter().map(|(_, hits)| hits).collect(), unread)
}

/// One file's hits; `None` if it is gone, unreadable or no longer indexable.
fn search_file(
    project: &Project,
    root: BorrowedFd<'_>,
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    (rel, id, known): (&str, FileId, &ContentFacts),
    keep: usize,
) -> Option<FileHits> {
    let (file, size, fresh) = open(project, root, rel, id)?;
    let mut sink = Collect {
        matcher,
        rel,
        keep,
        out: FileHits::default(),
        at: Vec::new(),
        before: Vec::new(),
        last_kept: false,
    };
    // Read through the searcher's own buffer, as ripgrep reads: a whole file as one
    // slice costs more where the regex's fast engine gives up partway (a Unicode
    // `\b` after a non-ASCII byte) and a slower one takes the rest of the haystack.
    searcher.search_file(matcher, &file, &mut sink).ok()?;
    let Collect { mut out, at, .. } = sink;
    out.bytes_read = size;
    if out.matched > 0 {
        out.path = rel.to_string();
    }
    if !out.hits.is_empty() {
        // The file as read: its parse again if it changed, else the one indexed.
        let symbols = match fresh {
            Some(parsed) => Some(parsed.symbols),
            None => project.index.parsed(rel, id, known).map(|p| p.symbols),
        };
        if let Some(symbols) = symbols {
            let spans = Spans::new(&symbols);
            for (hit, at) in out.hits.iter_mut().zip(at) {
                hit.symbol = spans.innermost(at).map(|sym| Enclosing {
                    kind: sym.kind().wire(),
                    name_path: sym.name_path().to_string(),
                    hash: None,
                });
            }
        }
    }
    Some(out)
}

/// The file opened, its size, and its parse again if it is no longer the file the
/// index holds (`None`: it is).
fn open(
    project: &Project,
    root: BorrowedFd<'_>,
    rel: &str,
    id: FileId,
) -> Option<(std::fs::File, u64, Option<Parsed>)> {
    if let Ok(file) = jail::open_beneath(root, rel)
        && let Ok(st) = rustix::fs::fstat(&file)
        && FileId::from(&st) == id
    {
        return Some((file, st.st_size as u64, None));
    }
    let file = project.resolve(rel, Want::File).ok()?;
    let parsed = project.index.file(&file).ok()?;
    if parsed.symbols.binary {
        return None;
    }
    let file = file.open().ok()?;
    let size = file.metadata().ok()?.len();
    Some((file, size, Some(parsed)))
}

/// A file's matching lines as hits, each labelled after the search from the byte
/// offset of its match (`at`).
struct Collect<'a> {
    matcher: &'a RegexMatcher,
    rel: &'a str,
    keep: usize,
    out: FileHits,
    /// Per kept hit, the byte its match starts at.
    at: Vec<usize>,
    /// Context lines read since the last match: the next kept hit's.
    before: Vec<String>,
    /// Whether the last match was kept (its after-context is kept with it).
    last_kept: bool,
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.out.matched += 1;
        self.last_kept = self.out.hits.len() < self.keep;
        let before = std::mem::take(&mut self.before);
        if self.last_kept {
            let hit = TextHit {
                before,
                ..self.hit(m)
            };
            self.out.hits.push(hit);
        }
        Ok(true)
    }

    /// The searcher gives each context line once, however many matches it is near.
    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        let text = shown(c.bytes());
        match c.kind() {
            SinkContextKind::Before => self.before.push(text),
            SinkContextKind::After if self.last_kept => {
                if let Some(hit) = self.out.hits.last_mut() {
                    hit.after.push(text);
                }
            }
            _ => {}
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        self.before.clear();
        Ok(true)
    }
}

/// `line` without its line ending (LF or CRLF).
fn unended(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n")
        .map_or(line, |l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// A line as answers show it: without its line ending, long lines cut and marked.
fn shown(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(unended(line));
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

impl Collect<'_> {
    fn hit(&mut self, m: &SinkMatch<'_>) -> TextHit {
        let mut line = m.bytes();
        let mut offset = m.absolute_byte_offset() as usize;
        // A byte order mark is no character (ARCHITECTURE.md, Positions).
        if offset == 0 {
            offset = lean_ctx_syntax::bom::len(line);
            line = &line[offset..];
        }
        let line = unended(line);
        let start = self
            .matcher
            .find(line)
            .ok()
            .flatten()
            .map_or(0, |found| found.start());
        self.at.push(offset + start);
        TextHit {
            path: self.rel.to_string(),
            line: m.line_number().unwrap_or(0) as u32,
            column: char_count(&line[..start]) as u32,
            text: shown(line),
            symbol: None,
            before: Vec::new(),
            after: Vec::new(),
        }
    }
}
