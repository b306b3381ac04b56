//! Writes that never lose data (ARCHITECTURE.md: a write is all or nothing).
//!
//! Under a per-file lock: read the current bytes, locate the target in them, compare
//! `expected_hash` with the BLAKE3 of exactly those bytes, splice, refuse an edit that
//! breaks a cleanly parsing file, then write a temp file in the same directory
//! (`O_EXCL`, the original mode), fsync it, rename it over the original and fsync the
//! directory. Every step goes through the descriptor of the directory the jail held
//! (`openat`, `renameat`, `unlinkat`), and the file itself is opened `O_NOFOLLOW`: a
//! directory or file swapped for a symlink after the jail's walk is never followed. A reader sees the old file or the new one, never a mix, and a concurrent
//! change is a `CONFLICT`, never a lost update. Line endings and a BOM are kept:
//! inserted text takes the file's line ending.
//!
//! An `expected_hash` matches by the whole hash or its first 16 hex digits or more
//! ([`hash_matches`]), the short form answers show. The root's cross-daemon lock
//! (`root_lock.rs`) is taken after the per-file locks. "File untouched" is said only
//! before the rename: after it the file is the new one, whatever fails next. Temp files
//! a killed writer left are removed through the held directory.

use std::{
    ffi::OsString,
    fs::File,
    io::{self, Write},
    ops::Range,
    path::Path,
    sync::{Arc, Mutex},
};

use dashmap::DashMap;
use lean_ctx_shared::{
    Candidate, ErrorCode, ErrorDetails, LeanError, Range as AgentRange,
    process::pid_alive,
    protocol::{EditAction, EditRequest, EditTarget},
};

use rustix::{
    fs::{AtFlags, FileType, Mode, OFlags},
    io::Errno,
};

use lean_ctx_syntax::{
    FileSymbols, Lang, Symbol, decl::DocBlock, name_path::NamePath, text::LineIndex,
};

use crate::{
    declarations::{Wire, extract, syntax_error},
    jail::{Jailed, NewFile},
};

/// One lock per file, daemon-wide; and, when built [`FileLocks::across_daemons`], the
/// root's write lock every daemon of every build takes too (`upgrade.rs`: two builds
/// may serve one root during an upgrade).
#[derive(Debug, Default)]
pub struct FileLocks {
    files: DashMap<std::path::PathBuf, Arc<Mutex<()>>>,
    /// Where the cross-daemon root locks live, and how long a write waits for one;
    /// `None` in unit tests of one process.
    roots: Option<(lean_ctx_shared::Paths, std::time::Duration)>,
}

impl FileLocks {
    pub fn across_daemons(paths: lean_ctx_shared::Paths) -> FileLocks {
        FileLocks::across_daemons_waiting(paths, crate::root_lock::ROOT_LOCK_WAIT)
    }

    fn across_daemons_waiting(
        paths: lean_ctx_shared::Paths,
        wait: std::time::Duration,
    ) -> FileLocks {
        FileLocks {
            files: DashMap::new(),
            roots: Some((paths, wait)),
        }
    }

    pub fn get(&self, path: &Path) -> Arc<Mutex<()>> {
        self.files.entry(path.to_path_buf()).or_default().clone()
    }

    /// The cross-daemon write locks of the roots of `files`, in path order (so two
    /// writers never deadlock). Taken after the per-file locks, held until the write is
    /// done.
    fn roots<'a>(
        &self,
        files: impl IntoIterator<Item = &'a Jailed>,
    ) -> Result<Vec<crate::root_lock::RootWriteLock>, LeanError> {
        let Some((paths, wait)) = &self.roots else {
            return Ok(vec![]);
        };
        let roots: std::collections::BTreeSet<&Path> = files.into_iter().map(root_of).collect();
        roots
            .into_iter()
            .map(|root| crate::root_lock::RootWriteLock::acquire(paths, root, *wait))
            .collect()
    }
}

/// The worktree root `file` was jailed in: its absolute path less its relative one.
fn root_of(file: &Jailed) -> &Path {
    let depth = if file.rel.is_empty() {
        0
    } else {
        file.rel.split('/').count()
    };
    file.abs.ancestors().nth(depth).unwrap_or(&file.abs)
}

/// A planned edit, before the file is read.
#[derive(Debug)]
pub struct Edit<'a> {
    pub action: EditAction,
    pub target: &'a EditTarget,
    pub text: &'a str,
    pub expected_hash: Option<&'a str>,
    pub force: bool,
    /// Line spans (first, last) of the file the agent's session holds as read
    /// windows: an `expected_hash` of one holding a line range vouches for it.
    pub held: Vec<(u32, u32)>,
}

impl Edit<'_> {
    /// The edit a request asks for, its session holding the windows `held`.
    pub fn of(req: &EditRequest, held: Vec<(u32, u32)>) -> Edit<'_> {
        Edit {
            held,
            action: req.action,
            target: &req.target,
            text: &req.text,
            expected_hash: req.expected_hash.as_deref(),
            force: req.force,
        }
    }
}

/// A written edit.
#[derive(Debug)]
pub struct Written {
    /// The whole new content.
    pub content: Vec<u8>,
    /// What the target range held before (for gain accounting).
    pub replaced: String,
    /// The parse of `content`, when the syntax guard already made it.
    pub parsed: Option<FileSymbols>,
    pub new_range: AgentRange,
    /// The hash the next edit of what was written passes as `expected_hash`: of a
    /// replaced symbol with the doc comment and attributes it kept, else of the
    /// written text.
    pub hash: String,
    /// The bytes of `content` that `hash` covers.
    pub hashed: Range<usize>,
    /// The whole file before the write; `None` for a file created.
    pub original: Option<Vec<u8>>,
}

/// An edit worked out against the file's current bytes, not yet written.
#[derive(Debug)]
pub struct Planned {
    pub original: Vec<u8>,
    /// The symbol's (or lines') bytes in `original`.
    pub target: Range<usize>,
    /// The whole new content.
    pub content: Vec<u8>,
    /// Where the agent's text (reindented, in the file's line endings) lies in
    /// `content`.
    pub written: Range<usize>,
    /// What the answer's hash covers in `content` ([`Written::hash`]).
    hashed: Range<usize>,
    replaced: String,
    parsed: Option<FileSymbols>,
}

impl Planned {
    /// The answer once `content` is on disk.
    pub fn written(self) -> Written {
        let lines = LineIndex::new(&self.content);
        Written {
            replaced: self.replaced,
            parsed: self.parsed,
            new_range: AgentRange::new(
                lines.position(&self.content, self.written.start).wire(),
                lines.position(&self.content, self.written.end).wire(),
            ),
            hash: blake3::hash(&self.content[self.hashed.clone()])
                .to_hex()
                .to_string(),
            hashed: self.hashed,
            original: Some(self.original),
            content: self.content,
        }
    }
}

/// Applies `edit` to `file`.
pub fn apply(
    locks: &FileLocks,
    file: &Jailed,
    lang: Lang,
    edit: &Edit<'_>,
) -> Result<Written, LeanError> {
    let lock = locks.get(&file.abs);
    let _held = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _root = locks.roots([file])?;
    let planned = plan(file, lang, edit)?;
    write_atomic(file, &planned.content).map_err(|e| e.into_error(&file.rel, "file untouched"))?;
    Ok(planned.written())
}

/// Creates the file `new` with `edit`'s text (its missing directories made first),
/// never over a file that appeared meanwhile (`CONFLICT`): all or nothing, the
/// directories made removed again if the write fails. The syntax guard applies to a
/// file of a code language, as to any edit.
pub fn create(
    locks: &FileLocks,
    new: &NewFile,
    lang: Lang,
    edit: &Edit<'_>,
) -> Result<(Jailed, Written), LeanError> {
    let rel = new.rel();
    let planned = plan_in(&Source::new(lang, Vec::new()), &rel, edit)?;
    let made_error = |e: io::Error| {
        LeanError::new(
            ErrorCode::InvalidTarget,
            format!(
                "creating {rel}: {e}: a name on its path is a file, or a symlink that is not followed when creating; nothing written"
            ),
        )
        .with_remedy("create it beside real directories of the project (ctx_tree lists them)")
    };
    let (file, made) = new.make_dirs().map_err(made_error)?;
    let lock = locks.get(&file.abs);
    let _held = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let written = locks.roots([&file]).and_then(|_root| {
        let staged = Staged::write(&file, &planned.content, Replacing::Nothing)
            .map_err(|e| WriteError::Untouched(e).into_error(&rel, "nothing written"))?;
        staged.commit().map_err(|e| match e {
            WriteError::Untouched(e) if e.kind() == io::ErrorKind::AlreadyExists => LeanError::new(
                ErrorCode::Conflict,
                format!("{rel} was created by someone else meanwhile; nothing written"),
            )
            .with_remedy("read it (ctx_read) and replace it under its hash, or pick another name"),
            e => e.into_error(&rel, "nothing written"),
        })
    });
    if let Err(e) = written {
        NewFile::unmake(&made);
        return Err(e);
    }
    let written = Written {
        original: None,
        ..planned.written()
    };
    Ok((file, written))
}

/// Works `edit` out against the file's current bytes: the target located, the
/// `expected_hash` compared, the text reindented and spliced, the syntax guard run.
/// Callers that write hold the file's lock around this and the write.
pub fn plan(file: &Jailed, lang: Lang, edit: &Edit<'_>) -> Result<Planned, LeanError> {
    let rel = file.rel.as_str();
    let original = file.read().map_err(|e| {
        LeanError::new(
            ErrorCode::FileNotFound,
            format!("{rel}: {e}; file untouched"),
        )
    })?;
    plan_in(&Source::new(lang, original), rel, edit)
}

/// A file's bytes with what every edit of them needs first: their symbols, and
/// whether they parse cleanly (the syntax guard applies only then).
#[derive(Debug)]
pub struct Source {
    lang: Lang,
    bytes: Vec<u8>,
    parsed: FileSymbols,
    clean: bool,
}

impl Source {
    /// The bytes' parse (for the conformance harness).
    #[cfg(any(test, feature = "harness"))]
    pub fn parsed(&self) -> &FileSymbols {
        &self.parsed
    }

    /// Whether the bytes parse without a syntax error (for the conformance harness).
    #[cfg(any(test, feature = "harness"))]
    pub fn is_clean(&self) -> bool {
        self.clean
    }

    pub fn new(lang: Lang, bytes: Vec<u8>) -> Source {
        Source {
            lang,
            parsed: extract(lang, &bytes),
            // Whole parses: the index's skeleton parse does not look inside bodies.
            clean: syntax_error(lang, &bytes).is_none(),
            bytes,
        }
    }
}

/// [`plan`] against `source`, the bytes of `rel`: no file system (the conformance
/// harness plans every symbol of a corpus against one `Source` per file).
pub fn plan_in(source: &Source, rel: &str, edit: &Edit<'_>) -> Result<Planned, LeanError> {
    let (lang, original, parsed) = (source.lang, &source.bytes, &source.parsed);
    let whole_lines = matches!(
        edit.target,
        EditTarget::Lines {
            end_line: Some(_),
            ..
        }
    );
    if edit.action == EditAction::ReplaceLines && !whole_lines {
        return Err(LeanError::new(
            ErrorCode::InvalidTarget,
            "replace_lines needs path, line and end_line",
        ));
    }
    let decl = locate(original, parsed, rel, edit.target)?;
    if edit.action == EditAction::ReplaceSymbolBody {
        refuse_one_of_a_group(original, parsed, rel, &decl)?;
    }
    let target = decl.range.clone();
    let current = &original[target.clone()];
    if let Some(expected) = edit.expected_hash {
        let found = blake3::hash(&original[decl.doc..target.end]).to_hex();
        if !hash_matches(found.as_str(), expected)
            && !held_view_matches(original, parsed, decl.doc..target.end, &edit.held, expected)
        {
            return Err(LeanError::new(
                ErrorCode::Conflict,
                format!(
                    "range hash mismatch in {rel}: expected {expected}, {} {found} (and no view of the file holding {} has the hash expected); file untouched",
                    if decl.symbol {
                        "the symbol has"
                    } else {
                        "the lines have"
                    },
                    if decl.symbol { "it" } else { "them" },
                ),
            ));
        }
    }

    let crlf = crlf_at(original, target.start);
    let indent = line_indent(original, target.start);
    // The agent's text without blank lines before it or a line ending after it (a
    // heredoc's last newline is not a blank line to add).
    let text = trim_ends(edit.text);
    // Siblings the file separates by blank lines get as many around inserted code:
    // those above the item, else those below it (at most two).
    let gap = if decl.symbol
        && !(edit.action == EditAction::InsertBeforeSymbol && leads_in(lang, text))
    {
        let above = blank_lines_above(original, line_start(original, decl.doc));
        if above > 0 {
            above
        } else {
            blank_lines_below(original, line_end_after(original, target.end))
        }
    } else {
        0
    };
    let gap = eol(crlf).repeat(gap);
    // `at`: the bytes replaced; `inserted`: what goes there; `written`: the part of
    // `inserted` that is the agent's text (without a line ending we added).
    let (at, inserted, written) = match edit.action {
        EditAction::ReplaceSymbolBody | EditAction::ReplaceLines => {
            let own = String::from_utf8_lossy(&original[target.clone()]);
            let own = min_indent(own.lines().skip(1));
            // Written after the indentation (a symbol; whole lines start before it).
            let text = if target.start > line_start(original, target.start) {
                first_line_unindented(text, indent)
            } else {
                text.into()
            };
            let bytes = with_line_endings(
                &reindent_continuation(&text, indent, lang == Lang::Python, own),
                crlf,
            );
            let len = bytes.len();
            (decl.replaced_by(lang, &text)..target.end, bytes, 0..len)
        }
        EditAction::InsertBeforeSymbol => {
            // Above the doc comment and the attributes: they stay with the item.
            let at = line_start(original, decl.doc);
            let mut bytes = with_line_endings(&reindent_block(text, indent), crlf);
            let len = bytes.len();
            bytes.extend_from_slice(eol(crlf));
            bytes.extend_from_slice(&gap);
            (at..at, bytes, 0..len)
        }
        EditAction::InsertAfterSymbol => {
            let end = line_end_after(original, target.end);
            let text = with_line_endings(&reindent_block(text, indent), crlf);
            let mut bytes = Vec::new();
            if end == original.len() && !original.ends_with(b"\n") {
                // The symbol ends the file without a newline: start a new line.
                bytes.extend_from_slice(eol(crlf));
            }
            bytes.extend_from_slice(&gap);
            let lead = bytes.len();
            bytes.extend_from_slice(&text);
            let len = bytes.len();
            if end < original.len() || original.ends_with(b"\n") {
                bytes.extend_from_slice(eol(crlf));
            }
            (end..end, bytes, lead..len)
        }
        // Exactly as given: a new file's content is the agent's, line endings and all.
        EditAction::CreateFile => (0..original.len(), edit.text.as_bytes().to_vec(), {
            0..edit.text.len()
        }),
    };
    // What was replaced, or for an insert the symbol it goes next to.
    let replaced = if at.is_empty() {
        current
    } else {
        &original[at.clone()]
    };
    let replaced = String::from_utf8_lossy(replaced).into_owned();
    let mut content = Vec::with_capacity(original.len() + inserted.len());
    content.extend_from_slice(&original[..at.start]);
    content.extend_from_slice(&inserted);
    content.extend_from_slice(&original[at.end..]);
    let written = at.start + written.start..at.start + written.end;
    // A replacement keeps what lies above the replaced bytes (a doc comment, the
    // attributes): the symbol's guarded range now runs from there to the end of the
    // new text, and that is what the next edit's `expected_hash` is checked against.
    let hashed = match edit.action {
        EditAction::ReplaceSymbolBody | EditAction::ReplaceLines => {
            decl.doc.min(at.start)..written.end
        }
        _ => written.clone(),
    };

    let mut checked = None;
    // Content that did not change cannot have a new syntax error.
    if !edit.force && source.clean && content != *original {
        if let Some(pos) = syntax_error(lang, &content) {
            return Err(LeanError::new(
                ErrorCode::Conflict,
                format!(
                    "the {} would introduce a syntax error in {rel} at {pos}; file untouched",
                    edit.action.as_str()
                ),
            )
            .with_remedy(
                "fix the text (it must be complete declarations), or pass force to write it anyway",
            ));
        }
        checked = Some(extract(lang, &content));
    }

    Ok(Planned {
        replaced,
        target,
        parsed: checked,
        written,
        hashed,
        content,
        original: original.clone(),
    })
}

/// What an edit target addresses in a file: a declaration by the model of
/// `syntax/src/decl.rs`, or whole lines.
#[derive(Debug)]
struct Target {
    /// The reported range; `expected_hash` covers `doc..range.end`.
    range: Range<usize>,
    /// Where its doc comment and its first keyword start.
    doc: usize,
    core: usize,
    /// A declaration, not lines: siblings and attributes apply.
    symbol: bool,
    /// The declaration's name path (a symbol's).
    name: Option<String>,
}

impl Target {
    fn of(s: Symbol<'_>) -> Target {
        Target {
            range: s.bytes(),
            doc: s.doc_start(),
            core: s.core_start(),
            symbol: true,
            name: Some(s.name_path().to_string()),
        }
    }

    /// Where a replacement by `text` starts: a text that brings its own doc comment
    /// replaces the doc comment, one that brings attributes replaces the
    /// attributes, else the existing ones are kept and the core is replaced.
    fn replaced_by(&self, lang: Lang, text: &str) -> usize {
        if !self.symbol {
            return self.range.start;
        }
        let head = text.trim_start().as_bytes();
        let first = head
            .split(|b| *b == b'\n')
            .next()
            .unwrap_or(head)
            .trim_ascii_end();
        // A doc comment as the language reads one above a declaration (`decl::doc_start`):
        // a doc line (`///`, Go's `//`, Ruby's `#`) or a doc block (`/**`).
        let comments = lang.comments();
        let doc = comments.doc_line.is_some_and(|doc| doc(first))
            || (comments.doc_block != DocBlock::No
                && comments
                    .block
                    .as_ref()
                    .is_some_and(|b| head.starts_with(b.doc)));
        let attrs = match lang {
            Lang::Rust => head.starts_with(b"#[") || head.starts_with(b"# ["),
            Lang::Go => false,
            // `@Name`, or the language's own attribute line (PHP's `#[…]`).
            _ => head.starts_with(b"@") || lang.is_attribute(first),
        };
        if doc {
            self.doc
        } else if attrs {
            self.range.start
        } else {
            self.core
        }
    }
}

/// A replacement of one name of a declaration that declares several (`int a, b;`,
/// `var X, Y T`, `const a = 1, b = 2`): they share one range (`syntax/src/decl.rs`), so
/// replacing it would rewrite its siblings too. Refused, naming them, rather than
/// silently rewriting or dropping a name the agent did not ask about.
fn refuse_one_of_a_group(
    src: &[u8],
    parsed: &FileSymbols,
    rel: &str,
    decl: &Target,
) -> Result<(), LeanError> {
    let Some(name) = &decl.name else {
        return Ok(());
    };
    let group: Vec<Symbol<'_>> = parsed.all().filter(|o| o.bytes() == decl.range).collect();
    if group.len() < 2 {
        return Ok(());
    }
    let others: Vec<&str> = group
        .iter()
        .map(|o| o.name_path())
        .filter(|p| p != name)
        .collect();
    let lines = LineIndex::new(src);
    let (first, last) = (
        lines.position(src, decl.range.start).line,
        lines.position(src, decl.range.end).line,
    );
    Err(LeanError::new(
        ErrorCode::InvalidTarget,
        format!(
            "{name:?} is declared together with {} in one declaration ({rel}:{first}-{last}): replacing it would rewrite them too; file untouched",
            others.join(", ")
        ),
    )
    .with_remedy(format!(
        "replace lines {first}-{last} (line and end_line) with text declaring every name you keep, or insert a new declaration before or after it"
    )))
}

/// What an edit target addresses in `src`.
fn locate(
    src: &[u8],
    parsed: &FileSymbols,
    rel: &str,
    target: &EditTarget,
) -> Result<Target, LeanError> {
    match target {
        EditTarget::File { .. } => Ok(Target {
            range: 0..src.len(),
            doc: 0,
            core: 0,
            symbol: false,
            name: None,
        }),
        EditTarget::NamePath { .. } | EditTarget::Lines { end_line: None, .. }
            if !parsed.lang.is_code() =>
        {
            Err(LeanError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{rel} is a text file: it has no symbols"),
            )
            .with_remedy(
                "replace whole lines: line and end_line, with the hash ctx_read returned for them or for the file",
            ))
        }
        EditTarget::NamePath { name_path, .. } => {
            let found = match_name_path(parsed, name_path);
            match found.as_slice() {
                [one] => Ok(Target::of(*one)),
                [] => Err(LeanError::new(
                    ErrorCode::NoSymbol,
                    format!("no symbol {name_path:?} in {rel}"),
                )),
                many => Err(ambiguous(name_path, many.iter().map(|s| (*s, rel)))),
            }
        }
        EditTarget::Lines { line, end_line, .. } => {
            let lines = LineIndex::new(src);
            let out_of_range = || {
                LeanError::new(
                    ErrorCode::PositionOutOfRange,
                    format!(
                        "{rel} has {} lines; asked for line {line}{}",
                        lines.lines(),
                        end_line.map(|e| format!("..{e}")).unwrap_or_default()
                    ),
                )
            };
            if *line == 0 || *line > lines.lines() {
                return Err(out_of_range());
            }
            if let Some(end) = end_line {
                if end < line || *end > lines.lines() {
                    return Err(out_of_range());
                }
                let start = lines.line_start(*line).ok_or_else(out_of_range)?;
                let stop = lines.line_end(src, *end).ok_or_else(out_of_range)?;
                return Ok(Target {
                    range: start..stop,
                    doc: start,
                    core: start,
                    symbol: false,
                    name: None,
                });
            }
            // The innermost symbol starting on the line, else the innermost containing it.
            let starting = parsed
                .all()
                .filter(|s| s.range().start.line == *line)
                .last();
            let containing = || {
                parsed
                    .all()
                    .filter(|s| s.range().start.line <= *line && *line <= s.range().end.line)
                    .last()
            };
            starting.or_else(containing).map(Target::of).ok_or_else(|| {
                LeanError::new(ErrorCode::NoSymbol, format!("no symbol at {rel}:{line}"))
                    .with_remedy("give end_line to address whole lines, or use a name_path")
            })
        }
    }
}

/// Whether `expected` is the hash of a view of `src` the agent may hold that
/// contains `range`: the whole file (`ctx_read` full), a symbol's guarded range
/// (mode=symbol, map), or one of the `held` line windows (mode=lines, whole lines
/// without the last line ending). Its bytes unchanged, so are the range's: small
/// edits inside what the agent read need no second read for a narrower hash.
fn held_view_matches(
    src: &[u8],
    parsed: &FileSymbols,
    range: Range<usize>,
    held: &[(u32, u32)],
    expected: &str,
) -> bool {
    let matches = |bytes: &[u8]| hash_matches(blake3::hash(bytes).to_hex().as_str(), expected);
    if matches(src) {
        return true;
    }
    let contains = |outer: &Range<usize>| outer.start <= range.start && range.end <= outer.end;
    // A symbol by its whole lines (a read shows them, the indentation before its
    // first keyword too), hashed over its guarded bytes.
    if parsed.all().map(guarded).any(|g| {
        let lines = line_start(src, g.start)..line_end_after(src, g.end);
        contains(&lines) && matches(&src[g])
    }) {
        return true;
    }
    let lines = LineIndex::new(src);
    held.iter().any(|&(first, last)| {
        let (Some(start), Some(end)) = (lines.line_start(first), lines.line_end(src, last)) else {
            return false;
        };
        let window = start..end;
        contains(&window) && matches(&src[window])
    })
}

/// Whether `given` (an `expected_hash`) names `found` (BLAKE3 hex): the whole hash or
/// its first `reads::SHORT_HASH` digits or more, any case (answers show the short form).
pub fn hash_matches(found: &str, given: &str) -> bool {
    let given = given.trim();
    given.len() >= crate::reads::SHORT_HASH
        && found
            .get(..given.len())
            .is_some_and(|f| f.eq_ignore_ascii_case(given))
}

/// The first line and current text of an edit's target (for a stale hash's diff), if
/// it is found.
pub fn current_target(file: &Jailed, lang: Lang, target: &EditTarget) -> Option<(u32, String)> {
    let original = file.read().ok()?;
    let found = locate(&original, &extract(lang, &original), &file.rel, target).ok()?;
    let range = found.doc..found.range.end;
    let line = LineIndex::new(&original)
        .position(&original, range.start)
        .line;
    Some((line, String::from_utf8_lossy(&original[range]).into_owned()))
}

/// The bytes of `s` that its hash covers (what answers show and `expected_hash` is
/// checked against): its doc comment, attributes and declaration, everything a
/// replacement may rewrite (`syntax/src/decl.rs`).
pub fn guarded(s: Symbol<'_>) -> Range<usize> {
    s.doc_start()..s.bytes().end
}

/// Symbols of one file matching the name path `query` (`lean_ctx_syntax::name_path`: relative
/// at any depth, `/` anchors at the top level, duplicates without `[n]` all match).
pub fn match_name_path<'a>(parsed: &'a FileSymbols, query: &str) -> Vec<Symbol<'a>> {
    let query = NamePath::parse(query);
    parsed
        .all()
        .filter(|s| query.matches(s.name_path(), s.name()).is_some())
        .collect()
}

/// `AMBIGUOUS_SYMBOL` listing every candidate.
pub fn ambiguous<'a>(query: &str, found: impl Iterator<Item = (Symbol<'a>, &'a str)>) -> LeanError {
    let found: Vec<(Symbol<'a>, &'a str)> = found.collect();
    let candidates: Vec<Candidate> = addresses(&found)
        .into_iter()
        .zip(&found)
        .map(|(name_path, (s, path))| Candidate {
            name_path,
            path: path.to_string(),
            line: s.range().start.line,
        })
        .collect();
    // The candidates once: in the details, which the text form lists below the
    // message (`render::error`), not in the message as well.
    LeanError::new(
        ErrorCode::AmbiguousSymbol,
        format!("{query:?} matches {} symbols", candidates.len()),
    )
    .with_details(ErrorDetails::Candidates(candidates))
}

/// How each of `found` (the symbols one name path matched, with their files) is
/// addressed so that it alone matches in its file: its name path; `[0]` after it, or
/// after every segment, for the first of duplicates (stored without an index, so its
/// bare path names every duplicate, `lean_ctx_syntax::name_path`); anchored with `/` when it
/// also names a deeper candidate. What `AMBIGUOUS_SYMBOL` lists, so a retry with a candidate succeeds.
fn addresses(found: &[(Symbol<'_>, &str)]) -> Vec<String> {
    let matches = |query: &str, file: &str| {
        let query = NamePath::parse(query);
        found
            .iter()
            .filter(|(o, f)| *f == file && query.matches(o.name_path(), o.name()).is_some())
            .count()
    };
    found
        .iter()
        .map(|(s, file)| {
            let path = s.name_path();
            // `[0]` on every segment too: a method of the first of two `mod inner`s is
            // `inner[0]/do_alloc` (hashbrown 0.17's `alloc.rs`).
            let first = NamePath::first_of_duplicates(path);
            [
                path.to_string(),
                format!("{path}[0]"),
                first.clone(),
                format!("/{path}"),
                format!("/{path}[0]"),
                format!("/{first}"),
            ]
            .into_iter()
            .find(|a| matches(a, file) == 1)
            .unwrap_or_else(|| path.to_string())
        })
        .collect()
}

/// Whether the line holding `at` ends in CRLF (the last line, without an ending:
/// the line before it): written text takes the line endings of where it lands, so
/// a file that mixes them keeps every line it did not ask to change (a symbol
/// replaced by its own text is byte for byte the file).
fn crlf_at(src: &[u8], at: usize) -> bool {
    let ending = match src[at..].iter().position(|b| *b == b'\n') {
        Some(i) => Some(at + i),
        None => src[..at].iter().rposition(|b| *b == b'\n'),
    };
    ending.is_some_and(|i| i > 0 && src[i - 1] == b'\r')
}

fn eol(crlf: bool) -> &'static [u8] {
    if crlf { b"\r\n" } else { b"\n" }
}

/// `text` with the line endings of where it lands (`crlf`); a text that brings CRLF
/// endings of its own (the lines an agent read of a file that mixes them) is written
/// as given.
fn with_line_endings(text: &str, crlf: bool) -> Vec<u8> {
    if text.contains("\r\n") {
        return text.as_bytes().to_vec();
    }
    if crlf {
        text.replace('\n', "\r\n").into_bytes()
    } else {
        text.as_bytes().to_vec()
    }
}

fn line_start(src: &[u8], at: usize) -> usize {
    let start = src[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    // Never split a BOM off the file.
    if start == 0 {
        lean_ctx_syntax::bom::len(src)
    } else {
        start
    }
}

/// Just past the line ending of the line holding `at` (or the end of the file).
fn line_end_after(src: &[u8], at: usize) -> usize {
    src[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(src.len(), |i| at + i + 1)
}

/// The whitespace before the first non-blank character of `at`'s line.
fn line_indent(src: &[u8], at: usize) -> &str {
    let start = line_start(src, at);
    let len = src[start..]
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    std::str::from_utf8(&src[start..start + len]).unwrap_or("")
}

/// Whether `text` ends in an attribute or a comment: inserted before an item, it is
/// that item's, not a sibling to set apart by a blank line.
fn leads_in(lang: Lang, text: &str) -> bool {
    let last = text.lines().last().unwrap_or("").trim();
    last.ends_with("*/")
        || match lang {
            Lang::Rust => last.starts_with("#[") || last.starts_with("//"),
            Lang::Python => last.starts_with('@') || last.starts_with('#'),
            _ => last.starts_with('@') || last.starts_with("//"),
        }
}

/// `text` from its first line that is not blank, without trailing whitespace.
fn trim_ends(text: &str) -> &str {
    let text = text.trim_end();
    let first = text
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(text.len(), |(i, _)| i);
    let line = text[..first].rfind('\n').map_or(0, |i| i + 1);
    &text[line..]
}

/// How many blank lines end just before `line` (a line start).
fn blank_lines_above(src: &[u8], mut line: usize) -> usize {
    let mut n = 0;
    while line > 0 && n < 2 && blank_line_at(src, line_start(src, line - 1)) {
        line = line_start(src, line - 1);
        n += 1;
    }
    n
}

/// How many blank lines start at `line`.
fn blank_lines_below(src: &[u8], mut line: usize) -> usize {
    let mut n = 0;
    while n < 2 && blank_line_at(src, line) {
        line = line_end_after(src, line);
        n += 1;
    }
    n
}

/// Whether the line starting at `line` exists and holds only whitespace.
fn blank_line_at(src: &[u8], line: usize) -> bool {
    let rest = &src[line.min(src.len())..];
    let end = rest.iter().position(|b| *b == b'\n');
    end.is_some_and(|e| rest[..e].iter().all(u8::is_ascii_whitespace))
}

fn min_indent<'a>(lines: impl Iterator<Item = &'a str>) -> Option<usize> {
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
}

fn indent_lines<'a>(lines: impl Iterator<Item = &'a str>, indent: &str) -> Vec<String> {
    lines
        .map(|l| {
            if l.trim().is_empty() {
                l.to_string()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect()
}

/// A replacement's first line goes where the old declaration's did, after its
/// indentation, so its own leading blanks come off. A declaration copied as a read
/// shows it starts with exactly the file's indentation: its later lines are laid out
/// as in the file already and stay. Indented otherwise, the text is taken as written
/// relative to its first line: that much comes off its later lines too (as far as
/// they have it), and they are indented like the declaration.
fn first_line_unindented<'t>(text: &'t str, indent: &str) -> std::borrow::Cow<'t, str> {
    let first = text.lines().next().unwrap_or("");
    let own = &first[..first.len() - first.trim_start_matches([' ', '\t']).len()];
    if own.is_empty() {
        return text.into();
    }
    let mut lines = text.lines();
    let mut out = vec![lines.next().unwrap_or("").trim_start_matches([' ', '\t'])];
    if own == indent {
        out.extend(lines);
    } else {
        out.extend(lines.map(|l| {
            let blanks = l.len() - l.trim_start_matches([' ', '\t']).len();
            &l[blanks.min(own.len())..]
        }));
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined.into()
}

/// Inserted text written at column 0 is indented like the symbol it goes next to;
/// text that already carries that indentation is left alone.
fn reindent_block(text: &str, indent: &str) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    if indent.is_empty() || min_indent(text.lines()).is_none_or(|m| m >= indent.len()) {
        return text.to_string();
    }
    indent_lines(text.lines(), indent).join("\n")
}

/// A replacement starts where the old declaration started, after its indentation; its
/// later lines are indented to match when written relative to column 0. In Python a
/// body at exactly the declaration's indentation is relative (it must be deeper).
/// `own` is how shallow the old declaration's own later lines are: a text laid out
/// like them is taken as written, even where the file closes a declaration left of
/// where it starts (kotlinx-coroutines' `DefaultExecutor.reschedule` starts at
/// column 5 and ends with a `}` at column 4).
fn reindent_continuation(text: &str, indent: &str, python: bool, own: Option<usize>) -> String {
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return text.to_string();
    };
    let rest: Vec<&str> = lines.collect();
    if indent.is_empty() || rest.is_empty() {
        return text.to_string();
    }
    // Written relative to column 0, some later line is shallower than the
    // declaration. At exactly its indentation: absolute, except in Python right
    // after a header (`def f():`), whose next line must be deeper.
    let next = rest.iter().find(|l| !l.trim().is_empty()).copied();
    let header = python && first.trim_end().ends_with(':');
    let absolute = match (min_indent(rest.iter().copied()), next) {
        (Some(m), _) if own.is_some_and(|o| o < indent.len()) && own == Some(m) => true,
        (Some(m), Some(next)) => {
            let next = next.len() - next.trim_start().len();
            m >= indent.len() && (next > indent.len() || !header)
        }
        _ => true,
    };
    if absolute {
        return text.to_string();
    }
    let mut out = vec![first.to_string()];
    out.extend(indent_lines(rest.into_iter(), indent));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Why a write failed, and so what its message may promise.
#[derive(Debug)]
enum WriteError {
    /// Before the rename: the file is as it was.
    Untouched(io::Error),
    /// After the rename: the new content is in place, its directory not synced.
    Unsynced(io::Error),
}

impl WriteError {
    /// The catalog error; `untouched` is what an untouched file means to the caller.
    fn into_error(self, rel: &str, untouched: &str) -> LeanError {
        match self {
            WriteError::Untouched(e) => {
                LeanError::internal(format!("writing {rel}: {e}; {untouched}"))
            }
            WriteError::Unsynced(e) => LeanError::internal(format!(
                "writing {rel}: the new content is in place, but syncing its directory failed: {e}"
            )),
        }
    }
}

/// Temp file beside the target (same filesystem, so the rename is atomic), created
/// exclusively with the target's mode; fsync; rename; fsync the directory.
fn write_atomic(file: &Jailed, content: &[u8]) -> Result<(), WriteError> {
    Staged::write(file, content, Replacing::Existing)
        .map_err(WriteError::Untouched)?
        .commit()
}

/// What a staged write's rename may replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Replacing {
    /// The regular file there, whose mode the new content takes.
    Existing,
    /// Nothing: a file created meanwhile is never replaced (`RENAME_NOREPLACE`), and
    /// the new file's mode is the umask's.
    Nothing,
}

/// A new content written and fsynced to a temp file beside its target (in the jail's
/// held directory), not yet renamed over it. Dropped uncommitted, the temp file is
/// removed.
#[derive(Debug)]
struct Staged {
    file: Jailed,
    tmp: OsString,
    replacing: Replacing,
    committed: bool,
}

impl Staged {
    fn write(file: &Jailed, content: &[u8], replacing: Replacing) -> io::Result<Staged> {
        let dir = file.dir();
        remove_stale_temps(dir);
        let mode = match replacing {
            Replacing::Existing => {
                // The name must still be a regular file: a symlink swapped in would
                // be replaced by the rename, its target's mode copied.
                let st = rustix::fs::statat(dir, file.name(), AtFlags::SYMLINK_NOFOLLOW)?;
                if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                    return Err(io::Error::other("no longer a regular file"));
                }
                Some(Mode::from_raw_mode(st.st_mode) & Mode::from_bits_truncate(0o7777))
            }
            Replacing::Nothing => None,
        };
        let pid = std::process::id();
        let mut n = 0u32;
        let (tmp, fd) = loop {
            let mut tmp = OsString::from(".");
            tmp.push(file.name());
            tmp.push(format!(".lean-ctx.{pid}.{n}.tmp"));
            match rustix::fs::openat(
                dir,
                &*tmp,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                mode.unwrap_or(Mode::from_raw_mode(0o666)),
            ) {
                Ok(fd) => break (tmp, fd),
                Err(Errno::EXIST) if n < 1000 => n += 1,
                Err(e) => return Err(e.into()),
            }
        };
        #[cfg(test)]
        tests::opened_temp(&fd);
        let staged = Staged {
            file: file.clone(),
            tmp,
            replacing,
            committed: false,
        };
        // `mode` at creation is filtered by the umask; an existing file's is kept
        // exactly.
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, mode)?;
        }
        let mut out = File::from(fd);
        out.write_all(content)?;
        out.sync_all()?;
        Ok(staged)
    }

    fn commit(mut self) -> Result<(), WriteError> {
        #[cfg(test)]
        let injected = tests::injected_failure();
        #[cfg(test)]
        if injected == Some(tests::Injected::Rename) {
            return Err(WriteError::Untouched(io::Error::other(
                "the disk refused the rename (injected)",
            )));
        }
        let dir = self.file.dir();
        match self.replacing {
            Replacing::Existing => rustix::fs::renameat(dir, &*self.tmp, dir, self.file.name()),
            Replacing::Nothing => rustix::fs::renameat_with(
                dir,
                &*self.tmp,
                dir,
                self.file.name(),
                rustix::fs::RenameFlags::NOREPLACE,
            ),
        }
        .map_err(|e| WriteError::Untouched(e.into()))?;
        self.committed = true;
        #[cfg(test)]
        if injected == Some(tests::Injected::Sync) {
            return Err(WriteError::Unsynced(io::Error::other(
                "the disk refused the directory's sync (injected)",
            )));
        }
        rustix::fs::fsync(dir).map_err(|e| WriteError::Unsynced(e.into()))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = rustix::fs::unlinkat(self.file.dir(), &*self.tmp, AtFlags::empty());
        }
    }
}

/// One file of a multi-file write.
#[derive(Debug)]
pub struct FileWrite {
    pub file: Jailed,
    /// BLAKE3 of the whole file the new content was computed from.
    pub expected: blake3::Hash,
    pub content: Vec<u8>,
}

/// Writes every file or none (a refactoring's apply): all files locked (in path
/// order, so two writers never deadlock), each checked against the content its edit
/// was computed from (`CONFLICT` otherwise, nothing written), every temp file written
/// and fsynced, then the renames; should a rename fail, the files already renamed get
/// their original bytes back.
pub fn apply_many(locks: &FileLocks, writes: &[FileWrite]) -> Result<(), LeanError> {
    let mut order: Vec<&FileWrite> = writes.iter().collect();
    order.sort_by(|a, b| a.file.abs.cmp(&b.file.abs));
    let held: Vec<_> = order.iter().map(|w| locks.get(&w.file.abs)).collect();
    let _guards: Vec<_> = held
        .iter()
        .map(|l| l.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
        .collect();
    let _roots = locks.roots(order.iter().map(|w| &w.file))?;
    let mut originals = Vec::with_capacity(order.len());
    for w in &order {
        let bytes = w.file.read().map_err(|e| {
            LeanError::new(
                ErrorCode::FileNotFound,
                format!("{}: {e}; no file written", w.file.rel),
            )
        })?;
        if blake3::hash(&bytes) != w.expected {
            return Err(LeanError::new(
                ErrorCode::Conflict,
                format!(
                    "{} changed since the plan was made; no file written",
                    w.file.rel
                ),
            ));
        }
        originals.push(bytes);
    }
    let mut staged = Vec::with_capacity(order.len());
    for w in &order {
        staged.push(
            Staged::write(&w.file, &w.content, Replacing::Existing)
                .map_err(|e| WriteError::Untouched(e).into_error(&w.file.rel, "no file written"))?,
        );
    }
    for (i, s) in staged.into_iter().enumerate() {
        if let Err(e) = s.commit() {
            // Put back what was already replaced (this one too if its rename went
            // through); best effort, and said if it fails.
            let done = i + usize::from(matches!(e, WriteError::Unsynced(_)));
            let mut restore_failed = Vec::new();
            for (w, bytes) in order[..done].iter().zip(&originals) {
                if write_atomic(&w.file, bytes).is_err() {
                    restore_failed.push(w.file.rel.clone());
                }
            }
            let untouched = if done == 0 {
                "no file written"
            } else {
                "the files already replaced were put back"
            };
            // Unsynced, this file was replaced and is put back too: the rest of the
            // message is the same as for a refused rename.
            let why = match e {
                WriteError::Untouched(e) => e.to_string(),
                WriteError::Unsynced(e) => {
                    format!("its rename went through but syncing its directory failed: {e}")
                }
            };
            let mut err =
                LeanError::internal(format!("writing {}: {why}; {untouched}", order[i].file.rel));
            if !restore_failed.is_empty() {
                err.message = format!(
                    "{}; restoring {} failed",
                    err.message,
                    restore_failed.join(", ")
                );
            }
            return Err(err);
        }
    }
    Ok(())
}

/// Temp files of writers that died mid-write (`kill -9`): the original is intact, the
/// temp file is garbage. Listed and removed through the held directory; only what
/// [`Staged::write`] names and nothing else: exactly `.<file>.lean-ctx.<pid>.<n>.tmp`
/// (decimal pid and counter), beside a `<file>` that still exists, ours, a regular
/// file, and its writer's pid dead. A user's `.my.lean-ctx.4000000.notes.tmp` is not
/// one.
fn remove_stale_temps(dir: &impl std::os::fd::AsFd) {
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    let ours = rustix::process::getuid().as_raw();
    let stat = |name: &[u8]| rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok();
    let regular =
        |st: &rustix::fs::Stat| FileType::from_raw_mode(st.st_mode) == FileType::RegularFile;
    for entry in entries.flatten() {
        let raw = entry.file_name().to_bytes();
        let Some((file, pid)) = staged_name(raw) else {
            continue;
        };
        let original = stat(file).is_some_and(|st| regular(&st));
        let temp = stat(raw).is_some_and(|st| regular(&st) && st.st_uid == ours);
        if original && temp && !pid_alive(pid) {
            let _ = rustix::fs::unlinkat(dir, raw, AtFlags::empty());
        }
    }
}

/// The file and writer pid of a temp file name [`Staged::write`] makes
/// (`.<file>.lean-ctx.<pid>.<n>.tmp`), or `None` for any other name.
fn staged_name(name: &[u8]) -> Option<(&[u8], u32)> {
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let last_dot = |s: &[u8]| s.iter().rposition(|b| *b == b'.');
    let rest = name.strip_prefix(b".")?.strip_suffix(b".tmp")?;
    let at = last_dot(rest)?;
    let (rest, n) = (&rest[..at], &rest[at + 1..]);
    let at = last_dot(rest)?;
    let (file, pid) = (&rest[..at], &rest[at + 1..]);
    let file = file.strip_suffix(b".lean-ctx")?;
    if !digits(n) || !digits(pid) || file.is_empty() {
        return None;
    }
    let pid = std::str::from_utf8(pid).ok()?.parse().ok()?;
    Some((file, pid))
}

#[cfg(test)]
mod tests {
    use std::{fs, os::unix::fs::PermissionsExt};

    use super::*;
    use crate::jail::{Want, resolve};

    /// Where an injected failure strikes a file's commit.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(super) enum Injected {
        /// The rename is refused: the file is as it was.
        Rename,
        /// The rename went through, the directory's sync fails.
        Sync,
    }

    thread_local! {
        /// Commits left before one fails, and how, for the tests that need a write to
        /// fail midway (no real disk fails between two renames on cue).
        static FAILURE: std::cell::Cell<Option<(usize, Injected)>> =
            const { std::cell::Cell::new(None) };
    }

    thread_local! {
        /// Whether the last temp file this thread's writes opened is closed on
        /// exec (it lives only inside `Staged::write`: seen from there).
        static TEMP_CLOEXEC: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
    }

    /// Notes how a temp file was opened.
    pub(super) fn opened_temp(fd: &std::os::fd::OwnedFd) {
        let closed = crate::jail::tests::cloexec(std::os::fd::AsFd::as_fd(fd));
        TEMP_CLOEXEC.with(|c| c.set(Some(closed)));
    }

    /// A temp file is never inherited by a process the daemon starts while the
    /// write is under way (a language server, a git).
    #[test]
    fn a_temp_file_is_closed_on_exec() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
        let file = resolve(&root, &root.join(".git"), "a.rs", Want::File).unwrap();
        insert_b(&FileLocks::default(), &file).unwrap();
        assert_eq!(TEMP_CLOEXEC.with(std::cell::Cell::get), Some(true));
    }

    /// How the commit about to happen fails, if it is the one set to.
    pub(super) fn injected_failure() -> Option<Injected> {
        FAILURE.with(|left| match left.get() {
            Some((0, how)) => {
                left.set(None);
                Some(how)
            }
            Some((n, how)) => {
                left.set(Some((n - 1, how)));
                None
            }
            None => None,
        })
    }

    /// A write that fails midway puts back every file it replaced: after a refused
    /// rename the files before it, after a failed directory sync (the rename went
    /// through, unsynced) that file too.
    #[test]
    fn a_multi_file_write_that_fails_midway_puts_back_every_file_it_replaced() {
        for how in [Injected::Rename, Injected::Sync] {
            multi_file_write_failing_at_the_third(how);
        }
    }

    fn multi_file_write_failing_at_the_third(how: Injected) {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let names = ["a.rs", "b.rs", "c.rs"];
        for n in names {
            fs::write(root.join(n), format!("// {n} before\n")).unwrap();
        }
        let writes: Vec<FileWrite> = names
            .iter()
            .map(|n| {
                let before = format!("// {n} before\n");
                write(&root, n, &format!("// {n} after\n"), before.as_bytes())
            })
            .collect();
        // a and b are committed, c's commit fails as `how` says.
        FAILURE.with(|left| left.set(Some((2, how))));
        let err = apply_many(&FileLocks::default(), &writes).unwrap_err();
        assert!(
            err.message.contains("c.rs") && err.message.contains("put back"),
            "{how:?}: {}",
            err.message
        );
        assert!(!err.message.contains("restoring"), "{}", err.message);
        for n in names {
            assert_eq!(
                fs::read_to_string(root.join(n)).unwrap(),
                format!("// {n} before\n"),
                "{n}"
            );
        }
        // No temp file is left behind either.
        let mut left: Vec<String> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, names);
    }

    fn write(root: &Path, rel: &str, content: &str, expected: &[u8]) -> FileWrite {
        FileWrite {
            file: resolve(root, &root.join(".git"), rel, Want::File).unwrap(),
            expected: blake3::hash(expected),
            content: content.as_bytes().to_vec(),
        }
    }

    /// `src` after `action` with `text` at the symbol `name_path`, planned without a
    /// file system.
    fn planned(lang: Lang, src: &str, action: EditAction, name_path: &str, text: &str) -> String {
        let target = named(name_path);
        let edit = Edit {
            action,
            target: &target,
            text,
            expected_hash: None,
            force: false,
            held: Vec::new(),
        };
        let plan = plan_in(&Source::new(lang, src.as_bytes().to_vec()), "f", &edit).unwrap();
        String::from_utf8(plan.content).unwrap()
    }

    /// A plan is guarded by the hash given (of the symbol, of the whole file, or of a
    /// window the session holds: 16 digits will do), refuses a line edit without
    /// its last line, and hashes what the next edit's hash is checked against.
    #[test]
    fn a_plan_is_guarded_by_the_hash_given_and_hashes_what_it_wrote() {
        use EditAction::{InsertAfterSymbol, ReplaceLines, ReplaceSymbolBody};
        let src = "/// Doc.\nfn a() {\n    1\n}\n\nfn b() {}\n";
        let source = Source::new(Lang::Rust, src.as_bytes().to_vec());
        let lines = |line, end_line| EditTarget::Lines {
            path: "f".into(),
            line,
            end_line,
        };
        let plan = |action, target: &EditTarget, text, expected: Option<&str>, held| {
            let edit = Edit {
                action,
                target,
                text,
                expected_hash: expected,
                force: false,
                held,
            };
            plan_in(&source, "f", &edit)
        };
        let hash = |s: &str| blake3::hash(s.as_bytes()).to_hex().to_string();
        let a = hash("/// Doc.\nfn a() {\n    1\n}");
        let (new_a, two) = ("fn a() {\n    2\n}", "    2");
        assert!(
            plan(
                ReplaceSymbolBody,
                &named("a"),
                new_a,
                Some(&a[..16]),
                vec![]
            )
            .is_ok()
        );
        let stale = plan(
            ReplaceSymbolBody,
            &named("a"),
            new_a,
            Some(&hash("x")[..16]),
            vec![],
        );
        assert_eq!(stale.unwrap_err().code, ErrorCode::Conflict);
        // A line inside the symbol, under the symbol's hash, the file's, a held window's.
        let line = lines(3, Some(3));
        assert!(plan(ReplaceLines, &line, two, Some(&a[..16]), vec![]).is_ok());
        assert!(plan(ReplaceLines, &line, two, Some(&hash(src)[..16]), vec![]).is_ok());
        let window = hash("fn a() {\n    1");
        assert!(plan(ReplaceLines, &line, two, Some(&window[..16]), vec![(2, 3)]).is_ok());
        let unheld = plan(ReplaceLines, &line, two, Some(&window[..16]), vec![]);
        assert_eq!(unheld.unwrap_err().code, ErrorCode::Conflict);
        let open_ended = plan(ReplaceLines, &lines(3, None), two, None, vec![]);
        assert_eq!(open_ended.unwrap_err().code, ErrorCode::InvalidTarget);
        // A replacement hashes from the doc comment it kept to the end of its text.
        let p = plan(ReplaceSymbolBody, &named("a"), new_a, None, vec![]).unwrap();
        assert_eq!(&p.content[p.written.clone()], new_a.as_bytes());
        assert_eq!(
            &p.content[p.hashed.clone()],
            "/// Doc.\nfn a() {\n    2\n}".as_bytes()
        );
        // A line edit hashes its lines.
        let p = plan(ReplaceLines, &line, two, None, vec![]).unwrap();
        assert_eq!(&p.content[p.hashed.clone()], two.as_bytes());
        // An insert after the file's last symbol keeps its final newline.
        let p = plan(InsertAfterSymbol, &named("b"), "fn c() {}", None, vec![]).unwrap();
        assert_eq!(
            String::from_utf8(p.content).unwrap(),
            "/// Doc.\nfn a() {\n    1\n}\n\nfn b() {}\n\nfn c() {}\n"
        );
    }

    /// `src` planned with `action` at `target`, unforced, no hash.
    fn plan_at(
        lang: Lang,
        src: &str,
        action: EditAction,
        target: &EditTarget,
        text: &str,
        force: bool,
    ) -> Result<Planned, LeanError> {
        let edit = Edit {
            action,
            target,
            text,
            expected_hash: None,
            force,
            held: Vec::new(),
        };
        plan_in(&Source::new(lang, src.as_bytes().to_vec()), "f", &edit)
    }

    /// The symbol at `name_path`, in any file.
    fn named(name_path: &str) -> EditTarget {
        EditTarget::NamePath {
            name_path: name_path.into(),
            path: None,
        }
    }

    fn lines_at(line: u32, end_line: Option<u32>) -> EditTarget {
        EditTarget::Lines {
            path: "f".into(),
            line,
            end_line,
        }
    }

    /// Text inserted after a symbol goes below its whole last line, a comment after
    /// it included.
    #[test]
    fn an_insert_after_goes_below_the_symbols_last_line() {
        let a = named("a");
        let src = "fn a() {} // trailing\nfn b() {}\n";
        let p = plan_at(
            Lang::Rust,
            src,
            EditAction::InsertAfterSymbol,
            &a,
            "fn c() {}",
            false,
        );
        assert_eq!(
            String::from_utf8(p.unwrap().content).unwrap(),
            "fn a() {} // trailing\nfn c() {}\nfn b() {}\n"
        );
    }

    /// Where inserted text lands is reported exactly, past the blank lines added
    /// before it.
    #[test]
    fn an_insert_reports_where_its_text_landed() {
        let src = "fn a() {}\n\nfn b() {}\n";
        let target = named("a");
        let p = plan_at(
            Lang::Rust,
            src,
            EditAction::InsertAfterSymbol,
            &target,
            "fn c() {}",
            false,
        )
        .unwrap();
        assert_eq!(&p.content[p.written.clone()], b"fn c() {}");
        assert_eq!(p.written.start, "fn a() {}\n\n".len());
    }

    /// The syntax guard: an edit that breaks a cleanly parsing file is refused unless
    /// forced; a file that already fails to parse is not guarded (its error is not the
    /// edit's).
    #[test]
    fn an_edit_that_breaks_a_clean_parse_is_refused_unless_forced() {
        let a = named("a");
        let clean = "fn a() {}\n\nfn b() {}\n";
        let broken = "fn a( {";
        let refused = plan_at(
            Lang::Rust,
            clean,
            EditAction::ReplaceSymbolBody,
            &a,
            broken,
            false,
        );
        let err = refused.unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
        assert!(err.message.contains("syntax error"), "{}", err.message);
        let forced = plan_at(
            Lang::Rust,
            clean,
            EditAction::ReplaceSymbolBody,
            &a,
            broken,
            true,
        )
        .unwrap();
        assert!(forced.parsed.is_none());
        let fine = plan_at(
            Lang::Rust,
            clean,
            EditAction::ReplaceSymbolBody,
            &a,
            "fn a() { 2 }",
            false,
        )
        .unwrap();
        assert!(
            fine.parsed.is_some(),
            "a guarded edit keeps the parse it made"
        );
        let dirty = "fn a() {}\n\nfn b( {\n";
        assert!(!Source::new(Lang::Rust, dirty.into()).is_clean());
        assert!(Source::new(Lang::Rust, clean.into()).is_clean());
        plan_at(
            Lang::Rust,
            dirty,
            EditAction::ReplaceSymbolBody,
            &a,
            "fn a() { 2 }",
            false,
        )
        .unwrap();
    }

    /// A replacement that brings its own attributes replaces the old ones, even with
    /// the item on the attribute's line; one without keeps them.
    #[test]
    fn a_replacement_bringing_attributes_replaces_them() {
        let src = "#[inline]\nfn a() {}\n";
        let a = named("a");
        let with = |text| {
            let p = plan_at(
                Lang::Rust,
                src,
                EditAction::ReplaceSymbolBody,
                &a,
                text,
                false,
            );
            String::from_utf8(p.unwrap().content).unwrap()
        };
        assert_eq!(with("#[cold] fn a() {}"), "#[cold] fn a() {}\n");
        assert_eq!(with("# [cold]\nfn a() {}"), "# [cold]\nfn a() {}\n");
        assert_eq!(with("fn a() { 2 }"), "#[inline]\nfn a() { 2 }\n");
    }

    /// One name of a declaration of several cannot be replaced alone (it would rewrite
    /// the others): refused naming them, for two names as for more.
    #[test]
    fn replacing_one_name_of_a_group_is_refused() {
        for src in [
            "package p\n\nvar a, b int\n",
            "package p\n\nvar a, b, c int\n",
        ] {
            let b = named("b");
            let err = plan_at(
                Lang::Go,
                src,
                EditAction::ReplaceSymbolBody,
                &b,
                "var b int",
                false,
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidTarget, "{}", err.message);
            assert!(err.message.contains("with a"), "{}", err.message);
        }
        // Inserting next to it is fine.
        let b = named("b");
        let src = "package p\n\nvar a, b int\n";
        plan_at(
            Lang::Go,
            src,
            EditAction::InsertAfterSymbol,
            &b,
            "var c int",
            false,
        )
        .unwrap();
    }

    /// Line targets: the first and last lines are in range, line 0, past the end and
    /// backwards are not; a line alone addresses the innermost symbol starting on it,
    /// else the innermost containing it; a text file has no symbols to address.
    #[test]
    fn line_targets_are_checked_and_address_the_innermost_symbol() {
        use EditAction::{InsertBeforeSymbol, ReplaceLines};
        let src = "mod m {\n    fn a() {\n        1\n    }\n}\n\nfn b() {}\n";
        let ok = |line, end| {
            plan_at(
                Lang::Rust,
                src,
                ReplaceLines,
                &lines_at(line, end),
                "x",
                true,
            )
        };
        ok(1, Some(1)).unwrap();
        ok(1, Some(7)).unwrap();
        // The empty line after the last newline is the file's last.
        ok(8, Some(8)).unwrap();
        for (line, end) in [(0, Some(1)), (9, Some(9)), (3, Some(2)), (7, Some(9))] {
            let err = ok(line, end).unwrap_err();
            assert_eq!(err.code, ErrorCode::PositionOutOfRange, "{line}..{end:?}");
        }
        let before = |line| {
            plan_at(
                Lang::Rust,
                src,
                InsertBeforeSymbol,
                &lines_at(line, None),
                "fn z() {}",
                false,
            )
            .map(|p| String::from_utf8(p.content).unwrap())
        };
        // Starting on line 2: `a` (inside `m`), not `m`.
        assert!(
            before(2)
                .unwrap()
                .starts_with("mod m {\n    fn z() {}\n    fn a()")
        );
        // Inside `a`'s body, and on its last line: `a`.
        assert!(
            before(3)
                .unwrap()
                .starts_with("mod m {\n    fn z() {}\n    fn a()")
        );
        assert!(
            before(4)
                .unwrap()
                .starts_with("mod m {\n    fn z() {}\n    fn a()")
        );
        // `m`'s last line: `m`.
        assert!(before(5).unwrap().starts_with("fn z() {}\n\nmod m {"));
        assert_eq!(before(6).unwrap_err().code, ErrorCode::NoSymbol);
        for line in [0, 9] {
            assert_eq!(
                before(line).unwrap_err().code,
                ErrorCode::PositionOutOfRange
            );
        }
        assert!(
            before(7)
                .unwrap()
                .ends_with("}\n\nfn z() {}\n\nfn b() {}\n")
        );
        let text = plan_at(
            Lang::Text,
            "a\nb\n",
            InsertBeforeSymbol,
            &lines_at(1, None),
            "c",
            false,
        );
        assert_eq!(text.unwrap_err().code, ErrorCode::UnsupportedLanguage);
    }

    /// A held window vouches for a hash only when it holds the target and hashes so.
    #[test]
    fn a_held_window_vouches_only_for_what_it_holds() {
        let src = "fn a() {\n    1\n}\n\nfn b() {}\n";
        let a = named("a");
        let plan = |expected: &str, held| {
            let edit = Edit {
                action: EditAction::ReplaceSymbolBody,
                target: &a,
                text: "fn a() {}",
                expected_hash: Some(expected),
                force: false,
                held,
            };
            plan_in(&Source::new(Lang::Rust, src.into()), "f", &edit)
        };
        let hash = |s: &str| blake3::hash(s.as_bytes()).to_hex().to_string();
        let window = hash("fn a() {\n    1\n}\n\nfn b() {}");
        plan(&window, vec![(1, 5)]).unwrap();
        let below = hash("fn b() {}");
        assert_eq!(
            plan(&below, vec![(5, 5)]).unwrap_err().code,
            ErrorCode::Conflict
        );
        let wrong = "0123456789abcdef";
        assert_eq!(
            plan(wrong, vec![(1, 5)]).unwrap_err().code,
            ErrorCode::Conflict
        );
    }

    /// What a stale hash's answer shows: the target's first line and its text now,
    /// doc comment included; nothing for a target that is not there.
    #[test]
    fn a_targets_current_text_is_shown_from_its_doc_comment() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(
            root.join("a.rs"),
            "fn a() {}\n\n/// Doc.\nfn b() {\n    1\n}\n",
        )
        .unwrap();
        let file = resolve(&root, &root.join(".git"), "a.rs", Want::File).unwrap();
        assert_eq!(
            current_target(&file, Lang::Rust, &named("b")),
            Some((3, "/// Doc.\nfn b() {\n    1\n}".into()))
        );
        assert_eq!(current_target(&file, Lang::Rust, &named("c")), None);
    }

    /// The line ending text takes where no line ending follows it (a file's last
    /// line) is the one before; a file's first line may be empty.
    #[test]
    fn text_at_a_files_edges_takes_its_neighbours_line_ending() {
        let b = named("b");
        let src = "fn a() {}\r\nfn b() {}";
        let after = plan_at(
            Lang::Rust,
            src,
            EditAction::InsertAfterSymbol,
            &b,
            "fn c() {}",
            false,
        );
        assert_eq!(
            String::from_utf8(after.unwrap().content).unwrap(),
            "fn a() {}\r\nfn b() {}\r\nfn c() {}"
        );
        let src = "\nfn a() {}\n";
        let first = plan_at(
            Lang::Rust,
            src,
            EditAction::ReplaceLines,
            &lines_at(1, Some(1)),
            "// x",
            false,
        );
        assert_eq!(
            String::from_utf8(first.unwrap().content).unwrap(),
            "// x\nfn a() {}\n"
        );
    }

    /// Text inserted before an item that ends in the item's attribute or comment
    /// is set right above it, not apart by the blank lines between siblings.
    #[test]
    fn an_insert_ending_in_an_attribute_or_comment_leads_into_the_item() {
        let before = |lang, src: &str, text: &str| {
            let b = named("b");
            let p = plan_at(lang, src, EditAction::InsertBeforeSymbol, &b, text, false);
            String::from_utf8(p.unwrap().content).unwrap()
        };
        let rust = "fn a() {}\n\nfn b() {}\n";
        for lead in ["#[inline]", "// About b.", "/* About b. */"] {
            assert_eq!(
                before(Lang::Rust, rust, lead),
                format!("fn a() {{}}\n\n{lead}\nfn b() {{}}\n")
            );
        }
        assert_eq!(
            before(Lang::Rust, rust, "fn c() {}"),
            "fn a() {}\n\nfn c() {}\n\nfn b() {}\n"
        );
        let java = "class A {\n    void a() {}\n\n    void b() {}\n}\n";
        let a_b = |text: &str| {
            let b = named("A/b");
            let p = plan_at(
                Lang::Java,
                java,
                EditAction::InsertBeforeSymbol,
                &b,
                text,
                false,
            );
            String::from_utf8(p.unwrap().content).unwrap()
        };
        for lead in ["@Override", "// About b."] {
            assert_eq!(
                a_b(lead),
                format!("class A {{\n    void a() {{}}\n\n    {lead}\n    void b() {{}}\n}}\n")
            );
        }
        let python = "def a():\n    pass\n\n\ndef b():\n    pass\n";
        for lead in ["@cache", "# About b."] {
            assert_eq!(
                before(Lang::Python, python, lead),
                format!("def a():\n    pass\n\n\n{lead}\ndef b():\n    pass\n")
            );
        }
    }

    /// The agent's text loses the blank lines before it (a heredoc's) and the
    /// whitespace after it, and keeps its first line's indentation.
    #[test]
    fn an_agents_text_is_trimmed_to_its_lines() {
        assert_eq!(trim_ends("\n \n  fn a() {}\n  \n"), "  fn a() {}");
        assert_eq!(trim_ends("fn a() {}"), "fn a() {}");
        assert_eq!(trim_ends("x\n\n  y"), "x\n\n  y");
        assert_eq!(trim_ends(" \n\t"), "");
    }

    /// One lock per file: the same path gets the same lock, another path another.
    #[test]
    fn each_file_has_one_lock() {
        let locks = FileLocks::default();
        let (a, b) = (Path::new("/p/a.rs"), Path::new("/p/b.rs"));
        assert!(Arc::ptr_eq(&locks.get(a), &locks.get(a)));
        assert!(!Arc::ptr_eq(&locks.get(a), &locks.get(b)));
    }

    /// A created file has no original; one that appeared meanwhile is a `CONFLICT`
    /// and stays as the other writer left it; any other failure of the commit is
    /// not called a conflict.
    #[test]
    fn a_file_created_meanwhile_is_a_conflict_and_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let new = |rel: &str| match crate::jail::resolve_new(&root, &root.join(".git"), rel) {
            Ok(crate::jail::Creation::New(n)) => n,
            other => panic!("{other:?}"),
        };
        let target = EditTarget::File { path: "x".into() };
        let edit = Edit {
            action: EditAction::CreateFile,
            target: &target,
            text: "fn a() {}\n",
            expected_hash: None,
            force: false,
            held: Vec::new(),
        };
        let locks = FileLocks::default();
        let (_, written) = create(&locks, &new("d/made.rs"), Lang::Rust, &edit).unwrap();
        assert!(written.original.is_none());
        assert_eq!(fs::read(root.join("d/made.rs")).unwrap(), b"fn a() {}\n");

        let raced = new("e/raced.rs");
        fs::create_dir(root.join("e")).unwrap();
        fs::write(root.join("e/raced.rs"), "theirs").unwrap();
        let err = create(&locks, &raced, Lang::Rust, &edit).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
        assert_eq!(fs::read(root.join("e/raced.rs")).unwrap(), b"theirs");

        let refused = new("f.rs");
        FAILURE.with(|left| left.set(Some((0, Injected::Rename))));
        let err = create(&locks, &refused, Lang::Rust, &edit).unwrap_err();
        assert_ne!(err.code, ErrorCode::Conflict, "{}", err.message);
        assert!(!root.join("f.rs").exists());
    }

    /// Inserted code gets the blank lines the file puts between its siblings: those
    /// above the symbol, else those below it, at most two; none where there are none,
    /// and none between an attribute or comment inserted before an item and the item.
    #[test]
    fn inserts_are_spaced_like_the_symbols_siblings() {
        use EditAction::{InsertAfterSymbol as After, InsertBeforeSymbol as Before};
        let rust = Lang::Rust;
        // Blank lines above the symbol set the gap.
        let two = "fn a() {}\n\n\nfn b() {}\n";
        assert_eq!(
            planned(rust, two, After, "b", "fn c() {}"),
            "fn a() {}\n\n\nfn b() {}\n\n\nfn c() {}\n"
        );
        assert_eq!(
            planned(rust, two, Before, "b", "fn c() {}"),
            "fn a() {}\n\n\nfn c() {}\n\n\nfn b() {}\n"
        );
        // Three above: at most two.
        let three = "fn a() {}\n\n\n\nfn b() {}\n";
        assert_eq!(
            planned(rust, three, After, "b", "fn c() {}"),
            "fn a() {}\n\n\n\nfn b() {}\n\n\nfn c() {}\n"
        );
        assert_eq!(
            planned(rust, three, Before, "a", "fn c() {}"),
            "fn c() {}\n\n\nfn a() {}\n\n\n\nfn b() {}\n"
        );
        // None above: those below.
        let below = "fn a() {}\n\nfn b() {}\n";
        assert_eq!(
            planned(rust, below, Before, "a", "fn c() {}"),
            "fn c() {}\n\nfn a() {}\n\nfn b() {}\n"
        );
        // None at all: none.
        let tight = "fn a() {}\nfn b() {}\n";
        assert_eq!(
            planned(rust, tight, After, "a", "fn c() {}"),
            "fn a() {}\nfn c() {}\nfn b() {}\n"
        );
        // An attribute inserted before an item stays on it.
        assert_eq!(
            planned(rust, below, Before, "b", "#[inline]"),
            "fn a() {}\n\n#[inline]\nfn b() {}\n"
        );
        // The file's last symbol without a newline: the insert starts a line.
        assert_eq!(
            planned(rust, "fn a() {}", After, "a", "fn c() {}"),
            "fn a() {}\nfn c() {}"
        );
    }

    /// A replacement goes where the declaration was, at its indentation: copied as
    /// read (its first line indented as in the file) or written from column 0, and in
    /// Python a body right under its header is indented deeper.
    #[test]
    fn replacements_take_the_declarations_indentation() {
        let src = "impl P {\n    fn a() {\n        1\n    }\n}\n";
        let want = "impl P {\n    fn a() {\n        2\n    }\n}\n";
        let replace = |text| planned(Lang::Rust, src, EditAction::ReplaceSymbolBody, "P/a", text);
        assert_eq!(replace("    fn a() {\n        2\n    }"), want);
        assert_eq!(replace("fn a() {\n    2\n}"), want);
        let py = "class A:\n    def f(self):\n        return 1\n";
        let replace = |text| planned(Lang::Python, py, EditAction::ReplaceSymbolBody, "A/f", text);
        let want = "class A:\n    def f(self):\n        return 2\n";
        assert_eq!(replace("def f(self):\n    return 2"), want);
        assert_eq!(replace("    def f(self):\n        return 2"), want);
        // Copied as read, a line indented less than the declaration (a string's)
        // stays where it was: the file is byte for byte the same.
        let src = "impl P {\n    fn a() {\n        let s = \"x\n  y\";\n    }\n}\n";
        let own = "    fn a() {\n        let s = \"x\n  y\";\n    }";
        assert_eq!(
            planned(Lang::Rust, src, EditAction::ReplaceSymbolBody, "P/a", own),
            src
        );
        // Indented otherwise (two spaces, not the file's four): that much comes off
        // its later lines, as far as they have it, and they take the declaration's.
        let other = "  fn a() {\n      let s = \"x\n y\";\n  }";
        assert_eq!(
            planned(Lang::Rust, src, EditAction::ReplaceSymbolBody, "P/a", other),
            "impl P {\n    fn a() {\n        let s = \"x\n    y\";\n    }\n}\n"
        );
        // A declaration the file closes left of where it starts (column 5, its `}` at
        // 4): text laid out like its own later lines is taken as written; text
        // written from column 0 is indented like it.
        let src = "impl P {\n     fn a() {\n        1\n    }\n}\n";
        let replace = |text| planned(Lang::Rust, src, EditAction::ReplaceSymbolBody, "P/a", text);
        assert_eq!(
            replace("fn a() {\n        2\n    }"),
            "impl P {\n     fn a() {\n        2\n    }\n}\n"
        );
        assert_eq!(
            replace("fn a() {\n    2\n}"),
            "impl P {\n     fn a() {\n         2\n     }\n}\n"
        );
        // Inserted text already at the item's indentation is left alone; at column 0
        // it takes it.
        let src = "impl P {\n    fn a() {}\n}\n";
        let want = "impl P {\n    fn a() {}\n    fn c() {}\n}\n";
        for text in ["    fn c() {}", "fn c() {}"] {
            assert_eq!(
                planned(Lang::Rust, src, EditAction::InsertAfterSymbol, "P/a", text),
                want
            );
        }
    }

    #[test]
    fn written_text_takes_the_line_endings_of_where_it_lands() {
        // A file that mixes them (pythonnet's SequenceDecoder.cs): LF first, a CRLF
        // function, and one without a final newline.
        let src = "fn a() {}\nfn b() {\r\n    1\r\n}\r\nfn c() {\n}";
        let edit = |action, name, text| planned(Lang::Rust, src, action, name, text);
        assert_eq!(
            edit(EditAction::ReplaceSymbolBody, "b", "fn b() {\n    1\n}"),
            src,
            "replaced by its own text"
        );
        assert_eq!(
            edit(EditAction::ReplaceSymbolBody, "b", "fn b() {\n    2\n}"),
            "fn a() {}\nfn b() {\r\n    2\r\n}\r\nfn c() {\n}"
        );
        assert_eq!(
            edit(EditAction::InsertAfterSymbol, "a", "fn x() {\n}"),
            "fn a() {}\nfn x() {\n}\nfn b() {\r\n    1\r\n}\r\nfn c() {\n}"
        );
        assert_eq!(
            edit(EditAction::InsertBeforeSymbol, "c", "fn x() {\n}"),
            "fn a() {}\nfn b() {\r\n    1\r\n}\r\nfn x() {\n}\nfn c() {\n}"
        );
        // A symbol that mixes them itself, replaced by the lines read of it: as given.
        let mixed = "fn a() {\r\n    1\n}\r\n";
        let own = planned(
            Lang::Rust,
            mixed,
            EditAction::ReplaceSymbolBody,
            "a",
            "fn a() {\r\n    1\n}",
        );
        assert_eq!(own, mixed);
    }

    /// A project `project/` with `rel` holding `fn a() {}`, and a daemon's
    /// directories beside it (the runtime one made), in `tmp`.
    fn project_with_daemon_dirs(
        tmp: &Path,
        rel: &str,
    ) -> (std::path::PathBuf, lean_ctx_shared::Paths) {
        let root = fs::canonicalize(tmp).unwrap().join("project");
        let file = root.join(rel);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, "fn a() {}\n").unwrap();
        let paths = lean_ctx_shared::Paths {
            data_dir: tmp.join("data"),
            runtime_dir: tmp.join("run"),
            state_dir: tmp.join("state"),
            config_dir: tmp.join("config"),
        };
        paths.ensure_runtime_dir().unwrap();
        (root, paths)
    }

    /// Two daemons (two builds during an upgrade) never write one root at once: while
    /// another daemon holds the root's lock, a write of a file anywhere below the root
    /// waits, and past its wait is a `CONFLICT` with nothing written.
    #[test]
    fn a_write_waits_for_another_daemons_write_to_the_same_root() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, paths) = project_with_daemon_dirs(tmp.path(), "src/deep/a.rs");
        let locks =
            FileLocks::across_daemons_waiting(paths.clone(), std::time::Duration::from_millis(50));
        let other_daemon =
            crate::root_lock::RootWriteLock::acquire(&paths, &root, std::time::Duration::ZERO)
                .unwrap();
        let edit = [write(&root, "src/deep/a.rs", "fn b() {}\n", b"fn a() {}\n")];
        let err = apply_many(&locks, &edit).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
        assert!(err.message.contains("another lean-ctxd"), "{}", err.message);
        assert_eq!(
            fs::read_to_string(root.join("src/deep/a.rs")).unwrap(),
            "fn a() {}\n"
        );
        drop(other_daemon);
        apply_many(&locks, &edit).unwrap();
        assert_eq!(
            fs::read_to_string(root.join("src/deep/a.rs")).unwrap(),
            "fn b() {}\n"
        );
    }

    /// The daemon's locks (`FileLocks::across_daemons`, what `state.rs` builds) take
    /// the root's cross-daemon lock: while they hold it for a write, another daemon
    /// cannot have it.
    #[test]
    fn the_daemons_file_locks_take_the_roots_lock_across_daemons() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, paths) = project_with_daemon_dirs(tmp.path(), "src/a.rs");
        let locks = FileLocks::across_daemons(paths.clone());
        let file = write(&root, "src/a.rs", "", b"").file;
        let held = locks.roots([&file]).unwrap();
        assert_eq!(held.len(), 1);
        let other =
            crate::root_lock::RootWriteLock::acquire(&paths, &root, std::time::Duration::ZERO);
        assert!(
            other.is_err(),
            "another daemon took the root's lock while it was held"
        );
        drop(held);
        crate::root_lock::RootWriteLock::acquire(&paths, &root, std::time::Duration::ZERO).unwrap();
    }

    #[test]
    fn a_multi_file_write_is_all_or_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let (a, b) = (root.join("a.rs"), root.join("b.rs"));
        fs::write(&a, "fn a() {}\n").unwrap();
        fs::write(&b, "fn b() {}\n").unwrap();
        fs::set_permissions(&b, fs::Permissions::from_mode(0o640)).unwrap();
        let locks = FileLocks::default();

        // b changed since the plan: nothing is written, not even a.
        let stale = [
            write(&root, "a.rs", "fn a2() {}\n", b"fn a() {}\n"),
            write(&root, "b.rs", "fn b2() {}\n", b"fn old() {}\n"),
        ];
        let err = apply_many(&locks, &stale).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains("b.rs"), "{}", err.message);
        assert_eq!(fs::read_to_string(&a).unwrap(), "fn a() {}\n");

        let fresh = [
            write(&root, "b.rs", "fn b2() {}\n", b"fn b() {}\n"),
            write(&root, "a.rs", "fn a2() {}\n", b"fn a() {}\n"),
        ];
        apply_many(&locks, &fresh).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "fn a2() {}\n");
        assert_eq!(fs::read_to_string(&b).unwrap(), "fn b2() {}\n");
        assert_eq!(
            fs::metadata(&b).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let leftovers: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    /// Only temp files this module names are ever cleaned: a user's file with
    /// `.lean-ctx.` and a dead pid in its name, and a temp file whose original is
    /// gone, stay; a dead writer's temp file beside its original goes.
    #[test]
    fn only_the_temp_files_an_edit_names_are_cleaned() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
        let kept = [
            ".my.lean-ctx.999999999.notes.tmp",
            ".gone.rs.lean-ctx.999999999.0.tmp",
            ".a.rs.lean-ctx.999999999.0.x.tmp",
            "a.rs.lean-ctx.999999999.0.tmp",
            ".a.rs.lean-ctx.999999999.x.tmp",
            ".a.rs.lean-ctx.999999999..tmp",
            ".a.rs.lean-ctx..0.tmp",
            ".a.rs.lean-ctx.+999999999.0.tmp",
        ];
        for name in kept {
            fs::write(root.join(name), "the user's").unwrap();
        }
        let stale = root.join(".a.rs.lean-ctx.999999999.3.tmp");
        fs::write(&stale, "garbage").unwrap();
        // Named as ours, its writer dead, but another user's file: not ours to remove
        // (made only where we may give a file away: as root).
        let theirs = root.join(".a.rs.lean-ctx.999999999.4.tmp");
        fs::write(&theirs, "the user's").unwrap();
        let given = std::os::unix::fs::chown(&theirs, Some(12345), None).is_ok();
        assert!(given || !rustix::process::getuid().is_root());
        // A symlink where our own next temp file would go (a live writer's name): never
        // followed, never replaced; the next name is taken.
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("target");
        fs::write(&target, "outside").unwrap();
        let ours = root.join(format!(".a.rs.lean-ctx.{}.0.tmp", std::process::id()));
        std::os::unix::fs::symlink(&target, &ours).unwrap();
        let file = resolve(&root, &root.join(".git"), "a.rs", Want::File).unwrap();
        insert_b(&FileLocks::default(), &file).unwrap();
        assert!(!stale.exists());
        assert_eq!(fs::read_to_string(&target).unwrap(), "outside");
        assert!(fs::symlink_metadata(&ours).unwrap().is_symlink());
        if given {
            assert_eq!(fs::read_to_string(&theirs).unwrap(), "the user's");
        }
        for name in kept {
            assert_eq!(
                fs::read_to_string(root.join(name)).unwrap(),
                "the user's",
                "{name}"
            );
        }
    }

    /// A directory where a thousand and one of our temp names are taken (a live
    /// writer's: not removed) is refused, the file untouched, rather than searched
    /// without end.
    #[test]
    fn a_writer_gives_up_after_a_thousand_taken_temp_names() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
        let pid = std::process::id();
        for n in 0..=1000 {
            fs::write(root.join(format!(".a.rs.lean-ctx.{pid}.{n}.tmp")), "").unwrap();
        }
        let file = resolve(&root, &root.join(".git"), "a.rs", Want::File).unwrap();
        assert!(insert_b(&FileLocks::default(), &file).is_err());
        assert_eq!(
            fs::read_to_string(root.join("a.rs")).unwrap(),
            "fn a() {}\n"
        );
    }

    /// `fn b() {}` inserted before line 1 of `file` (an `a.rs`).
    fn insert_b(locks: &FileLocks, file: &Jailed) -> Result<(), LeanError> {
        let target = EditTarget::Lines {
            path: "a.rs".into(),
            line: 1,
            end_line: None,
        };
        let edit = Edit {
            action: EditAction::InsertBeforeSymbol,
            target: &target,
            text: "fn b() {}",
            expected_hash: None,
            force: false,
            held: Vec::new(),
        };
        apply(locks, file, Lang::Rust, &edit).map(drop)
    }

    #[test]
    fn a_name_swapped_for_a_symlink_after_the_jail_is_never_followed_and_stays_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
        fs::write(base.join("secret.rs"), "fn secret() {}\n").unwrap();
        // A temp file of a writer that died (no such pid).
        let stale = root.join(".a.rs.lean-ctx.999999999.0.tmp");
        fs::write(&stale, "garbage").unwrap();
        let file = resolve(&root, &root.join(".git"), "a.rs", Want::File).unwrap();
        fs::rename(root.join("a.rs"), root.join("a.old")).unwrap();
        std::os::unix::fs::symlink(base.join("secret.rs"), root.join("a.rs")).unwrap();
        let locks = FileLocks::default();
        let err = insert_b(&locks, &file).unwrap_err();
        assert!(err.message.ends_with("file untouched"), "{}", err.message);
        let swapped = FileWrite {
            file: file.clone(),
            expected: blake3::hash(b"fn a() {}\n"),
            content: b"x".to_vec(),
        };
        let err = apply_many(&locks, &[swapped]).unwrap_err();
        assert!(err.message.ends_with("no file written"), "{}", err.message);
        assert_eq!(
            fs::read(base.join("secret.rs")).unwrap(),
            b"fn secret() {}\n"
        );
        assert!(
            fs::symlink_metadata(root.join("a.rs"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(fs::read(root.join("a.old")).unwrap(), b"fn a() {}\n");

        // Put back, the same jailed file is written through its held directory, and the
        // dead writer's temp file is cleaned up on the way.
        fs::remove_file(root.join("a.rs")).unwrap();
        fs::rename(root.join("a.old"), root.join("a.rs")).unwrap();
        insert_b(&locks, &file).unwrap();
        assert_eq!(
            fs::read(root.join("a.rs")).unwrap(),
            b"fn b() {}\nfn a() {}\n"
        );
        assert!(!stale.exists());
    }
}
