//! `read` (`ctx_read`, `lean-ctx read`), headless: files read through the jail's
//! descriptors, each answer hashed with exactly the bytes an edit's `expected_hash`
//! is checked against (a symbol's declaration, whole lines without the last line
//! ending, the whole file for reformat), and within an agent session answered by
//! what the session already holds ([`crate::reads`]): an unchanged re-read is one
//! line, a changed one the diff. Files of a batch are read one after another on the
//! blocking pool, each charged to the answer budget; a file that fails (or does not
//! fit) is a failed entry, and the others still answer.
//!
//! Six modes (`ReadMode`): the whole file, a window of lines, one symbol, the
//! signatures, the file's map, and the diff since the session's last read. An edit the
//! session itself made is recorded as read ([`edited`]), so re-reading what it just
//! wrote is one line.

use std::{io::Read, ops::Range, sync::Arc};

use lean_ctx_shared::{
    ErrorCode, LeanError,
    protocol::{FileRead, ReadContent, ReadMode, ReadRequest, ReadSession, SymbolDigest},
    transport::MAX_ANSWER_BYTES,
};

use lean_ctx_syntax::{FileSymbols, Lang, Symbol, text::LineIndex};

use super::{Cx, blocking, hashes::remember};
use crate::{
    accounting::Baseline,
    budget::{self, Budget, Held, Inflight},
    declarations::{Wire, extract},
    edit::{Written, ambiguous, guarded, match_name_path},
    jail::{Jailed, Want},
    reads::{Key, Reads, Seen, Texts, View, latest},
    registry::Project,
};

/// Most files one `read` takes.
pub const MAX_PATHS: usize = 100;
/// Largest file read whole (a line window of a file larger than one answer is
/// streamed, whatever its size).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// The file bytes all reads hold at once: one file of the largest size, so
/// concurrent reads of large files take turns rather than multiply.
static IN_FLIGHT: Inflight = Inflight::new(MAX_FILE_BYTES);

/// Longest a read waits for its turn behind other large reads.
const IN_FLIGHT_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// One file's answer, with what it stands in for (gain accounting).
#[derive(Debug)]
pub struct Answered {
    pub read: FileRead,
    /// The jailed file, when it resolved.
    pub abs: Option<std::path::PathBuf>,
    /// What an agent would have been sent without this read: the whole file
    /// (counted from the disk a piece at a time, never copied here), or for a
    /// re-read (unchanged or a diff) the content it would have been sent again.
    pub baseline: Baseline,
}

/// Reads every path of `req`, in order.
pub async fn files(cx: &Cx<'_>, req: &ReadRequest) -> Result<Vec<Answered>, LeanError> {
    // A symbol by its name alone, or with a directory: the one file there holding it.
    let dir = match req.paths.as_slice() {
        [] => Some(String::new()),
        [one] if req.mode == ReadMode::Symbol => cx
            .project
            .resolve(one, Want::FileOrDir)
            .ok()
            .filter(Jailed::is_dir)
            .map(|d| d.rel),
        _ => None,
    };
    if let (Some(dir), ReadMode::Symbol, Some(name_path)) = (dir, req.mode, &req.name_path) {
        cx.project
            .index
            .wait_ready(std::time::Duration::from_millis(req.wait_ms.into()))
            .await?;
        let (project, name_path) = (cx.project.clone(), name_path.clone());
        let file = blocking(move || super::answer::find_unique(&project, &dir, &name_path)).await?;
        let req = ReadRequest {
            paths: vec![file.rel],
            ..req.clone()
        };
        return Box::pin(files(cx, &req)).await;
    }
    if req.paths.is_empty() {
        return Err(
            LeanError::new(ErrorCode::InvalidTarget, "read needs a path").with_remedy(
                "pass path (one file) or paths (several files), relative to the project root",
            ),
        );
    }
    if req.paths.len() > MAX_PATHS {
        return Err(LeanError::new(
            ErrorCode::InvalidTarget,
            format!(
                "{} paths; one read takes at most {MAX_PATHS}",
                req.paths.len()
            ),
        )
        .with_remedy("read the files in several calls"));
    }
    if req.mode == ReadMode::Diff && req.session.is_none() {
        return Err(LeanError::new(
            ErrorCode::InvalidTarget,
            "mode=diff compares with this session's last read, and this call names no session",
        )
        .with_remedy("pass --session ID (or set LEAN_CTX_SESSION) on every read of the session; ctx_read sends one itself"));
    }
    let (project, reads, req) = (cx.project.clone(), cx.d.reads.clone(), req.clone());
    blocking(move || {
        let mut budget = Budget::default();
        let mut out = Vec::with_capacity(req.paths.len());
        for path in &req.paths {
            let resolved = project.resolve(path, Want::File);
            let abs = resolved.as_ref().ok().map(|f| f.abs.clone());
            let answered = resolved
                .and_then(|file| one(&project, &reads, &file, &req, budget.left()))
                .unwrap_or_else(|e| failed(path, req.mode, e));
            let answered = Answered { abs, ..answered };
            if budget.take(&answered.read) {
                out.push(answered);
            } else {
                let e = budget::too_large(
                    path,
                    None,
                    "read fewer files at once, or a part of this one (mode=map, symbol or lines)",
                );
                let small = failed(path, req.mode, e);
                // The refusal is small; if even it does not fit, the batch ends here.
                if !budget.take(&small.read) {
                    break;
                }
                out.push(small);
            }
        }
        Ok(out)
    })
    .await
}

fn failed(path: &str, mode: ReadMode, e: LeanError) -> Answered {
    Answered {
        read: FileRead {
            path: path.to_string(),
            mode,
            hash: String::new(),
            total_lines: 0,
            read: None,
            content: ReadContent::Failed(e),
        },
        abs: None,
        baseline: Baseline::Text(String::new()),
    }
}

/// `FILE_NOT_FOUND` for a jailed file that cannot be opened or read.
fn not_found(file: &Jailed, e: std::io::Error) -> LeanError {
    LeanError::new(ErrorCode::FileNotFound, format!("{}: {e}", file.rel))
}

/// The jailed file, opened through the jail, and its size by that descriptor.
fn open_sized(file: &Jailed) -> Result<(std::fs::File, u64), LeanError> {
    let f = file.open().map_err(|e| not_found(file, e))?;
    let size = rustix::fs::fstat(&f)
        .map_err(|e| not_found(file, e.into()))?
        .st_size;
    Ok((f, size as u64))
}

/// The bytes of a jailed file (`f`, of `size` bytes), within the limits, and their
/// share of [`IN_FLIGHT`] (held until the answer is built): files over
/// `MAX_FILE_BYTES` are refused, for a parse over `index.max_file_bytes` too, and
/// for the `whole` file in one answer over what an answer carries; all by the
/// descriptor's size, before reading.
fn bytes(
    project: &Project,
    file: &Jailed,
    (mut f, size): (std::fs::File, u64),
    parse: bool,
    whole: bool,
) -> Result<(Vec<u8>, Held<'static>), LeanError> {
    if parse {
        project.index.parse_allowed(&file.rel, size)?;
    }
    if size > MAX_FILE_BYTES {
        return Err(LeanError::new(
            ErrorCode::Unsupported,
            format!(
                "{}: {size} bytes, over the {MAX_FILE_BYTES}-byte limit of a read",
                file.rel
            ),
        )
        .with_remedy("search it (ctx_search action=text with path) instead of reading it"));
    }
    if whole && size > MAX_ANSWER_BYTES {
        return Err(budget::too_large(
            &file.rel,
            Some(size),
            "read a window of it (mode=lines with start_line and end_line), or its map",
        ));
    }
    let held = IN_FLIGHT.take(size, IN_FLIGHT_WAIT).ok_or_else(|| {
        LeanError::internal(format!(
            "{}: {size} bytes, and other reads of large files held the daemon's read memory for {}s",
            file.rel,
            IN_FLIGHT_WAIT.as_secs()
        ))
        .with_remedy("retry once they are answered, or read a smaller file")
    })?;
    let mut bytes = Vec::with_capacity(size as usize);
    f.read_to_end(&mut bytes).map_err(|e| not_found(file, e))?;
    if bytes.contains(&0) {
        return Err(LeanError::new(
            ErrorCode::UnsupportedLanguage,
            format!("{} is binary", file.rel),
        )
        .with_remedy("read text files only"));
    }
    Ok((bytes, held))
}

/// The parse of exactly `bytes` (the index's when it holds these bytes).
fn parse(project: &Project, file: &Jailed, bytes: &[u8]) -> Result<Arc<FileSymbols>, LeanError> {
    let parsed = project.index.file(file)?;
    if parsed.hash == *blake3::hash(bytes).as_bytes() {
        return Ok(parsed.symbols);
    }
    // The file changed between our read and the index's: parse what we read.
    let lang = Lang::from_path(&file.abs)
        .ok_or_else(|| LeanError::internal(format!("{}: parsed without a language", file.rel)))?;
    Ok(Arc::new(extract(lang, bytes)))
}

/// Lines `first..=last` (clamped to the file) of `file` now, as a read shows them:
/// the first line's number and the lines joined by `\n` (for a stale hash's diff).
pub fn current_lines(file: &Jailed, first: u32, last: u32) -> Option<(u32, String)> {
    let bytes = file.read().ok()?;
    let index = LineIndex::new(&bytes);
    let last = last.min(index.text_lines());
    (first >= 1 && first <= last)
        .then(|| (first, window_lines(&bytes, &index, first, last).join("\n")))
}

fn hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// `bytes[range]` as lines without their endings (lossy UTF-8, a BOM dropped).
fn lines_of(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(lean_ctx_syntax::bom::strip(bytes));
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

/// Whole lines `first..=last` of `bytes` as a read shows them.
fn window_lines(bytes: &[u8], index: &LineIndex, first: u32, last: u32) -> Vec<String> {
    let start = index.line_start(first).unwrap_or(0);
    let end = index.line_end(bytes, last).unwrap_or(bytes.len());
    lines_of(&bytes[start..end])
}

/// After `session`'s own edit: what it wrote counts as read by it (the agent wrote
/// it), so re-reading it is one line, not the diff of its own edit. The symbol
/// written; the whole file when the session held it as it was just before the write
/// (or created it); and each line window it held as it was, when the write kept the
/// file's line count (the window then shows exactly the old lines with the edit in
/// them; a write that moved lines would bring lines into it the agent never saw).
/// Other views (map, signatures) still show the change.
pub fn edited(
    reads: &Reads,
    project: &Project,
    file: &Jailed,
    lang: Lang,
    session: &ReadSession,
    written: &Written,
) {
    let key = |view| Key {
        root: project.root.clone(),
        path: file.rel.clone(),
        view,
    };
    let bytes = &written.content;
    let lines = LineIndex::new(bytes);
    let give = |view: View, first: u32, last: u32, hashed: Range<usize>| {
        let text: Arc<str> = window_lines(bytes, &lines, first, last).join("\n").into();
        let hash = hex(&bytes[hashed]);
        reads
            .of(&project.root)
            .hashed_from(&hash, text.clone(), Some(first));
        reads.give(&session.id, key(view), &hash, first, text);
    };
    let held_whole = match &written.original {
        Some(original) => reads
            .hash_of(&session.id, &key(View::File))
            .is_some_and(|held| held == hex(original)),
        None => true,
    };
    if held_whole {
        give(View::File, 1, lines.text_lines(), 0..bytes.len());
    }
    if let Some(original) = &written.original {
        let before = LineIndex::new(original);
        if before.lines() == lines.lines() {
            for (k, text, ..) in reads.windows(&session.id, &key(View::File)) {
                let View::Lines(first, last) = k.view else {
                    continue;
                };
                let was = window_lines(original, &before, first, last).join("\n");
                let (Some(start), Some(end)) =
                    (lines.line_start(first), lines.line_end(bytes, last))
                else {
                    continue;
                };
                if *text == *was {
                    give(View::Lines(first, last), first, last, start..end);
                }
            }
        }
    }
    let parsed;
    let symbols = match &written.parsed {
        Some(symbols) => symbols,
        None => {
            parsed = extract(lang, &written.content);
            &parsed
        }
    };
    let Some(sym) = symbols
        .all()
        .find(|s| s.range().wire() == written.new_range)
    else {
        return;
    };
    let first = lines.position(bytes, sym.doc_start()).line;
    let last = sym.range().end.line;
    let text = window_lines(bytes, &lines, first, last).join("\n");
    let view = View::Symbol(sym.name_path().to_string());
    let hash = remember(&bytes[guarded(sym)], reads.of(&project.root));
    reads.give(&session.id, key(view), &hash, first, text.into());
}

/// What a text view of a file shows: whole lines `first..=last`, hashed over `hashed`.
struct Window {
    first: u32,
    last: u32,
    hashed: Range<usize>,
    name_path: Option<String>,
}

fn one(
    project: &Project,
    reads: &Reads,
    file: &Jailed,
    req: &ReadRequest,
    room: u64,
) -> Result<Answered, LeanError> {
    let parse_needed = matches!(
        req.mode,
        ReadMode::Symbol | ReadMode::Map | ReadMode::Signatures
    );
    let (f, size) = open_sized(file)?;
    // Past the answer cap a whole file is answered a page at a time; a window of a
    // file larger than one answer is streamed, holding only its lines.
    let paged = req.mode == ReadMode::Full && size > budget::cap();
    if paged || (req.mode == ReadMode::Lines && size > MAX_ANSWER_BYTES) {
        return lines_of_a_large_file(project, reads, file, req, f, room);
    }
    // The whole file in an answer (or its diff against one): refused before a byte is
    // read when it could never fit.
    let whole = matches!(req.mode, ReadMode::Full | ReadMode::Diff);
    let (bytes, _held) = bytes(project, file, (f, size), parse_needed, whole)?;
    let index = LineIndex::new(&bytes);
    let total_lines = index.text_lines();
    let rel = file.rel.as_str();
    let whole = || Window {
        first: 1,
        last: total_lines,
        hashed: 0..bytes.len(),
        name_path: None,
    };
    let (view, window) = match req.mode {
        ReadMode::Full | ReadMode::Diff => (View::File, whole()),
        ReadMode::Lines => {
            let first = req.start_line.unwrap_or(1);
            let last = req.end_line.unwrap_or(total_lines).min(total_lines);
            if first == 0 || first > total_lines || last < first {
                return Err(out_of_range(rel, total_lines, req));
            }
            let start = index.line_start(first).unwrap_or(0);
            let end = index.line_end(&bytes, last).unwrap_or(bytes.len());
            (
                View::Lines(first, last),
                Window {
                    first,
                    last,
                    hashed: start..end,
                    name_path: None,
                },
            )
        }
        ReadMode::Symbol => {
            let name_path = req.name_path.as_deref().ok_or_else(|| {
                LeanError::new(ErrorCode::InvalidTarget, "mode=symbol needs `name_path`")
                    .with_remedy("pass name_path, e.g. Point/new (ctx_read mode=map lists them)")
            })?;
            let symbols = parse(project, file, &bytes)?;
            let sym = match match_name_path(&symbols, name_path).as_slice() {
                [one] => *one,
                [] => {
                    return Err(LeanError::new(
                        ErrorCode::NoSymbol,
                        format!("no symbol {name_path:?} in {rel}"),
                    )
                    .with_remedy("list the file's symbols with ctx_read mode=map"));
                }
                many => return Err(ambiguous(name_path, many.iter().map(|s| (*s, rel)))),
            };
            // From the doc comment: the window shows what its hash covers.
            let first = index.position(&bytes, sym.doc_start()).line;
            (
                View::Symbol(sym.name_path().to_string()),
                Window {
                    first,
                    last: sym.range().end.line,
                    hashed: guarded(sym),
                    name_path: Some(sym.name_path().to_string()),
                },
            )
        }
        ReadMode::Map | ReadMode::Signatures => {
            return digest(project, reads, file, req, &bytes, total_lines);
        }
    };
    answer(
        project,
        reads,
        file,
        req,
        (view, window),
        (&bytes, &index, 0),
        (total_lines, room),
    )
}

/// A line window of a file (`f`) larger than one answer, streamed: the file is read
/// once, a MiB at a time, keeping only the window's lines (and counting the others),
/// so the request holds the window, never the file, whatever the file's size.
fn lines_of_a_large_file(
    project: &Project,
    reads: &Reads,
    file: &Jailed,
    req: &ReadRequest,
    f: std::fs::File,
    room: u64,
) -> Result<Answered, LeanError> {
    let rel = file.rel.as_str();
    let first = req.start_line.unwrap_or(1);
    let wanted = first..=req.end_line.unwrap_or(u32::MAX);
    let (mut window, mut line, mut ends_a_line) = (Vec::new(), 1u32, false);
    // Past the cap (and a first whole line) no more is kept: the answer is cut there.
    let mut keeping = true;
    let cap = budget::cap();
    let mut reader = std::io::BufReader::with_capacity(1 << 20, f);
    loop {
        let chunk = std::io::BufRead::fill_buf(&mut reader).map_err(|e| not_found(file, e))?;
        if chunk.is_empty() {
            break;
        }
        if chunk.contains(&0) {
            return Err(
                LeanError::new(ErrorCode::UnsupportedLanguage, format!("{rel} is binary"))
                    .with_remedy("read text files only"),
            );
        }
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', chunk).chain([chunk.len()]) {
            let to = (nl + 1).min(chunk.len());
            if keeping && wanted.contains(&line) {
                window.extend_from_slice(&chunk[from..to]);
                if window.len() as u64 > MAX_ANSWER_BYTES + 2 {
                    return Err(budget::too_large(
                        rel,
                        None,
                        "read a smaller window of it (mode=lines with start_line and end_line)",
                    ));
                }
                keeping = window.len() as u64 <= cap || !window.contains(&b'\n');
            }
            if nl < chunk.len() {
                line += 1;
            }
            from = to;
        }
        ends_a_line = chunk.last() == Some(&b'\n');
        let consumed = chunk.len();
        std::io::BufRead::consume(&mut reader, consumed);
    }
    // Lines as `LineIndex::text_lines` counts them: a trailing newline starts none.
    let total_lines = if ends_a_line { line - 1 } else { line };
    let last = req.end_line.unwrap_or(total_lines).min(total_lines);
    if first == 0 || first > total_lines || last < first {
        return Err(out_of_range(rel, total_lines, req));
    }
    let index = LineIndex::new(&window);
    let shift = first - 1;
    let hashed = index.line_start(1).unwrap_or(0)
        ..index
            .line_end(&window, last - shift)
            .unwrap_or(window.len());
    let window_of = Window {
        first,
        last,
        hashed,
        name_path: None,
    };
    answer(
        project,
        reads,
        file,
        req,
        (View::Lines(first, last), window_of),
        (&window, &index, shift),
        (total_lines, room),
    )
}

/// A line window the file does not have.
fn out_of_range(rel: &str, total_lines: u32, req: &ReadRequest) -> LeanError {
    LeanError::new(
        ErrorCode::PositionOutOfRange,
        format!(
            "{rel} has {total_lines} lines; asked for lines {}..{}",
            req.start_line.unwrap_or(1),
            req.end_line.map_or("end".to_string(), |e| e.to_string())
        ),
    )
    .with_remedy("lines are 1-based and end_line >= start_line")
}

/// The answer of a text view of a file: `window` (its lines numbered in the file,
/// `hashed` in `text`'s offsets) out of `text`, which holds the file's lines from the
/// one after `shift` on (all of it, or only a streamed window), indexed by `index`.
fn answer(
    project: &Project,
    reads: &Reads,
    file: &Jailed,
    req: &ReadRequest,
    (view, window): (View, Window),
    (bytes, index, shift): (&[u8], &LineIndex, u32),
    (total_lines, room): (u32, u64),
) -> Result<Answered, LeanError> {
    let rel = file.rel.as_str();
    let start = index.line_start(window.first - shift).unwrap_or(0);
    let line_end = |line: u32| index.line_end(bytes, line - shift).unwrap_or(bytes.len());
    // Past the answer's room (its cap, less what the batch's files before took), the
    // whole file or a window is cut after the last whole line that fits, by the
    // lines' encoded size (each a length and its text) with room for the rest of the
    // answer; one line at least. A page: its hash of exactly what it shows, and the
    // line to go on from.
    let room = room.saturating_sub(1024 + 2 * rel.len() as u64) as usize;
    let fits = |last: u32| line_end(last) - start + 8 * (last - window.first + 1) as usize <= room;
    let (view, window, more) = match view {
        View::File | View::Lines(..) if !fits(window.last) => {
            let mut last = window.first;
            while last < window.last && fits(last + 1) {
                last += 1;
            }
            let hashed = start..line_end(last);
            let page = Window {
                last,
                hashed,
                ..window
            };
            (View::Lines(page.first, last), page, Some(last + 1))
        }
        view => (view, window, None),
    };
    let end = line_end(window.last);
    // Refused before it is built: lines past one answer are never copied.
    if (end - start) as u64 > MAX_ANSWER_BYTES {
        return Err(budget::too_large(
            rel,
            Some((end - start) as u64),
            "read a window of it (mode=lines with start_line and end_line), or its map",
        ));
    }
    let hash = hex(&bytes[window.hashed.clone()]);
    let lines = window_lines(bytes, index, window.first - shift, window.last - shift);
    let text: Arc<str> = lines.join("\n").into();
    let view_first = matches!(view, View::File | View::Lines(..)).then_some(window.first);
    reads
        .of(&project.root)
        .hashed_from(&hash, text.clone(), view_first);
    let shown = ReadContent::Lines {
        start_line: window.first,
        end_line: window.last,
        lines,
        name_path: window.name_path,
        more,
    };
    let mut answer = FileRead {
        path: file.rel.clone(),
        mode: req.mode,
        hash,
        total_lines,
        read: None,
        content: shown,
    };
    let Some(session) = &req.session else {
        return Ok(whole_file(answer, file));
    };
    let key = Key {
        root: project.root.clone(),
        path: file.rel.clone(),
        view,
    };
    let fresh = req.fresh && req.mode != ReadMode::Diff;
    // What this read would have sent without the session: the baseline of a re-read.
    let resent = lean_ctx_shared::render::file_read(Default::default(), &answer);
    // A diff for a session that read only parts of the file covers those parts: what
    // it holds, not the whole file it never had.
    if req.mode == ReadMode::Diff && !reads.holds(&session.id, &key) {
        let held = reads.windows(&session.id, &key);
        if !held.is_empty() {
            let (read, content) = windows_since(reads, &session.id, held, &text, (bytes, index));
            answer.read = Some(read);
            answer.content = content;
            return Ok(Answered {
                read: answer,
                abs: None,
                baseline: Baseline::Text(resent),
            });
        }
    }
    let seen = reads.give(&session.id, key, &answer.hash, window.first, text.clone());
    let (read, content) = match seen {
        Seen::New { read } => (read, None),
        _ if fresh => (latest(&seen), None),
        Seen::Same { since } => (since, Some(ReadContent::Unchanged { since })),
        Seen::Changed {
            since,
            old,
            first,
            read,
        } => {
            // A diff longer than the text it describes is sent as the text.
            let diff = unified(&old, first, &text, window.first);
            let shorter = diff.len() < text.len();
            (read, shorter.then_some(ReadContent::Diff { since, diff }))
        }
    };
    answer.read = Some(read);
    match content {
        Some(content) => {
            answer.content = content;
            Ok(Answered {
                read: answer,
                abs: None,
                baseline: Baseline::Text(resent),
            })
        }
        None => Ok(whole_file(answer, file)),
    }
}

/// The diff of each window `session` holds of a file (`held`: line ranges and
/// symbols it read, in order) to what those lines are now in `file` (its bytes and
/// line index; `text`, its lines as the read split them): each window found again among the file's lines by aligning its old
/// text with them, what lies outside it left out. A window whose diff would be longer
/// than its text is sent as its text. The windows are held as they are now; answers
/// the read number and the content.
fn windows_since(
    reads: &Reads,
    session: &str,
    held: Vec<(Key, Arc<str>, u32, u32)>,
    text: &str,
    (bytes, index): (&[u8], &LineIndex),
) -> (u32, ReadContent) {
    let now: Vec<&str> = text.split('\n').collect();
    let since = held.iter().map(|(.., read)| *read).min().unwrap_or(0);
    let (mut diffs, mut read) = (Vec::new(), since);
    for (key, old, first, _) in held {
        let old_lines: Vec<&str> = old.split('\n').collect();
        let (lo, hi) = located(&old_lines, &now, first);
        let region = now[lo..hi].join("\n");
        if *region == *old {
            continue;
        }
        let diff = unified(&old, first, &region, lo as u32 + 1);
        diffs.push(if diff.len() <= region.len() {
            diff
        } else {
            format!("@@ lines {}-{} now @@\n{region}", lo + 1, hi)
        });
        let (new_first, new_last) = (lo as u32 + 1, (hi as u32).max(lo as u32 + 1));
        let start = index.line_start(new_first).unwrap_or(0);
        let end = index.line_end(bytes, new_last).unwrap_or(bytes.len());
        let view = match &key.view {
            View::Lines(..) => View::Lines(new_first, new_last),
            other => other.clone(),
        };
        let new = Key {
            view,
            ..key.clone()
        };
        read = read.max(reads.moved(
            session,
            &key,
            new,
            &hex(&bytes[start..end]),
            new_first,
            region.into(),
        ));
    }
    if diffs.is_empty() {
        return (since, ReadContent::Unchanged { since });
    }
    (
        read,
        ReadContent::Diff {
            since,
            diff: diffs.join("\n"),
        },
    )
}

/// Where the lines `old` (a window read earlier from line `first`, 1-based) are
/// among `now` (the file's lines): the half-open range from the first to the last
/// line the alignment of the two keeps or changes; lines inserted before or after
/// the window are outside it.
///
/// Found in two steps, so it costs the window's size, not the file's: exact matches
/// of the window's lines vote for where its first half and its second half sit now
/// (lines that occur often, a lone `}`, do not vote), and the window is then aligned
/// with that stretch of the file only. Without a line of it left, where it was.
fn located(old: &[&str], now: &[&str], first: u32) -> (usize, usize) {
    const COMMON: usize = 8;
    const MARGIN: usize = 32;
    let wanted: rustc_hash::FxHashSet<&str> = old.iter().copied().collect();
    let mut at: rustc_hash::FxHashMap<&str, Vec<usize>> = rustc_hash::FxHashMap::default();
    for (p, line) in now.iter().enumerate() {
        if wanted.contains(line) {
            at.entry(*line).or_default().push(p);
        }
    }
    let was = first.saturating_sub(1) as isize;
    // The offset (now − then) most of `lines` (from index `from` of the window) vote
    // for; the nearest to none at a tie.
    let offset = |from: usize, lines: &[&str]| -> isize {
        let mut votes: rustc_hash::FxHashMap<isize, usize> = rustc_hash::FxHashMap::default();
        for (i, line) in lines.iter().enumerate() {
            let found = at.get(line).map_or(&[][..], Vec::as_slice);
            if found.len() <= COMMON {
                for &p in found {
                    *votes
                        .entry(p as isize - (from + i) as isize - was)
                        .or_default() += 1;
                }
            }
        }
        votes
            .into_iter()
            .max_by_key(|&(d, n)| (n, std::cmp::Reverse(d.abs())))
            .map_or(0, |(d, _)| d)
    };
    let half = old.len() / 2;
    let (head, tail) = (
        offset(0, &old[..half.max(1).min(old.len())]),
        offset(half, &old[half..]),
    );
    let lo = (was + head.min(tail)).max(0) as usize;
    let lo = lo.saturating_sub(MARGIN).min(now.len());
    let hi = ((was + tail.max(head) + old.len() as isize).max(0) as usize + MARGIN).min(now.len());
    let stretch = &now[lo..hi];
    let ops = similar::capture_diff_slices(similar::Algorithm::Patience, old, stretch);
    // Anchors: runs of the window kept as they were that hold a line rare enough to
    // say where they are (a run of lone `}` could be any). Lines of the window before
    // the first anchor and after the last were replaced one for one.
    let rare = |run: &[&str]| {
        run.iter()
            .any(|l| at.get(l).is_some_and(|p| p.len() <= COMMON))
    };
    let anchors: Vec<(Range<usize>, Range<usize>)> = ops
        .iter()
        .filter_map(|op| match op {
            similar::DiffOp::Equal { .. } if rare(&old[op.old_range()]) => {
                Some((op.old_range(), op.new_range()))
            }
            _ => None,
        })
        .collect();
    match (anchors.first(), anchors.last()) {
        (Some((old_first, new_first)), Some((old_last, new_last))) => {
            let start = (lo + new_first.start).saturating_sub(old_first.start);
            let end = (lo + new_last.end + (old.len() - old_last.end)).min(now.len());
            (start, end.max(start))
        }
        _ => {
            let start = (was.max(0) as usize).min(now.len());
            (start, (start + old.len()).min(now.len()))
        }
    }
}

/// A first read answered in full: it stands in for the whole file.
fn whole_file(read: FileRead, file: &Jailed) -> Answered {
    Answered {
        read,
        abs: None,
        baseline: Baseline::File(file.clone()),
    }
}

/// `map` and `signatures`: every symbol, parents before their children, with its
/// range and the hash of its bytes; in a session, an unchanged file is one line.
fn digest(
    project: &Project,
    reads: &Reads,
    file: &Jailed,
    req: &ReadRequest,
    bytes: &[u8],
    total_lines: u32,
) -> Result<Answered, LeanError> {
    let symbols = parse(project, file, bytes)?;
    let mut budget = Budget::default();
    let mut listed = Vec::new();
    fn walk<'a>(
        syms: impl Iterator<Item = Symbol<'a>>,
        depth: u32,
        bytes: &[u8],
        texts: Texts<'_>,
        budget: &mut Budget,
        out: &mut Vec<SymbolDigest>,
    ) -> bool {
        for sym in syms {
            let hash = remember(&bytes[guarded(sym)], texts);
            let d = SymbolDigest {
                kind: sym.kind().wire(),
                name_path: sym.name_path().to_string(),
                range: sym.range().wire(),
                signature: sym.signature().to_string(),
                hash,
                depth,
            };
            if !budget.take(&d) {
                return false;
            }
            out.push(d);
            if !walk(sym.children(), depth + 1, bytes, texts, budget, out) {
                return false;
            }
        }
        true
    }
    let texts = reads.of(&project.root);
    walk(symbols.top(), 0, bytes, texts, &mut budget, &mut listed);
    let hash = hex(bytes);
    let mut answer = FileRead {
        path: file.rel.clone(),
        mode: req.mode,
        hash,
        total_lines,
        read: None,
        content: ReadContent::Symbols {
            symbols: listed,
            total: symbols.count as u32,
        },
    };
    let baseline = Baseline::File(file.clone());
    let Some(ReadSession { id, .. }) = &req.session else {
        return Ok(Answered {
            read: answer,
            abs: None,
            baseline,
        });
    };
    let view = if req.mode == ReadMode::Map {
        View::Map
    } else {
        View::Signatures
    };
    let key = Key {
        root: project.root.clone(),
        path: file.rel.clone(),
        view,
    };
    // The list as shown is kept: a changed file's map answers the diff of its rows
    // (each row carries its own line range and hash; the hunk headers count rows).
    let shown = lean_ctx_shared::render::file_read(Default::default(), &answer);
    match reads.give(id, key, &answer.hash, 1, Arc::from(shown.as_str())) {
        Seen::Same { since } if !req.fresh => {
            answer.read = Some(since);
            answer.content = ReadContent::Unchanged { since };
            Ok(Answered {
                read: answer,
                abs: None,
                baseline: Baseline::Text(shown),
            })
        }
        Seen::Changed {
            since, old, read, ..
        } if !req.fresh => {
            answer.read = Some(read);
            answer.content = ReadContent::Diff {
                since,
                diff: unified(&old, 1, &shown, 1),
            };
            Ok(Answered {
                read: answer,
                abs: None,
                baseline: Baseline::Text(shown),
            })
        }
        seen => {
            answer.read = Some(latest(&seen));
            Ok(Answered {
                read: answer,
                abs: None,
                baseline,
            })
        }
    }
}

/// Lines of context around each change in a diff.
const CONTEXT: usize = 2;

/// A unified diff of `old` (whose first line is line `old_first` of the file) to
/// `new` (from `new_first`), hunk headers in file lines; `\r` never shows.
pub fn unified(old: &str, old_first: u32, new: &str, new_first: u32) -> String {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(old, new);
    let mut out = String::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        let (o_len, n_len) = (last.old_range().end - o, last.new_range().end - n);
        out.push_str(&format!(
            "@@ -{},{o_len} +{},{n_len} @@\n",
            o as u32 + old_first,
            n as u32 + new_first
        ));
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                let line = change.value();
                let line = line.strip_suffix('\n').unwrap_or(line);
                out.push(sign);
                out.push_str(line.strip_suffix('\r').unwrap_or(line));
                out.push('\n');
            }
        }
    }
    out.truncate(out.trim_end_matches('\n').len());
    if out.len() as u64 > MAX_ANSWER_BYTES / 2 {
        let mut cut = (MAX_ANSWER_BYTES / 2) as usize;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n… diff cut off; read again with fresh=true");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_found_where_its_lines_are_now() {
        fn lines(s: &str) -> Vec<&str> {
            s.lines().collect()
        }
        let file: String = (1..=500)
            .map(|i| format!("fn f{i}() {{\n    g({i});\n}}\n"))
            .collect();
        // Lines 301-305: `fn f101() {`, `    g(101);`, `}`, `fn f102() {`, `    g(102);`.
        let window = [
            "fn f101() {",
            "    g(101);",
            "}",
            "fn f102() {",
            "    g(102);",
        ];
        assert_eq!(located(&window, &lines(&file), 301), (300, 305));
        // Moved down by lines inserted above it.
        let moved = file.replacen("    g(3);\n", "    g(3);\n    x();\n    y();\n", 1);
        assert_eq!(located(&window, &lines(&moved), 301), (302, 307));
        // Grown inside, and its last line changed.
        let grown = file
            .replacen("    g(101);\n", "    g(101);\n    a();\n    b();\n", 1)
            .replacen("    g(102);\n", "    g(102, changed);\n", 1);
        assert_eq!(located(&window, &lines(&grown), 301), (300, 307));
        // Every line of it changed: where it was.
        let gone: String = (1..=500).map(|i| format!("line {i}\n")).collect();
        assert_eq!(located(&window, &lines(&gone), 301), (300, 305));
    }

    #[test]
    fn diffs_number_hunks_in_file_lines() {
        let old = "fn a() {\n    1\n}";
        let new = "fn a() {\n    2\n}";
        assert_eq!(
            unified(old, 10, new, 12),
            "@@ -10,3 +12,3 @@\n fn a() {\n-    1\n+    2\n }"
        );
        assert_eq!(unified("x\ny", 1, "x\ny", 1), "");
    }

    #[test]
    fn lines_drop_bom_and_cr() {
        assert_eq!(lines_of(b"\xEF\xBB\xBFa\r\nb\r\n"), ["a", "b", ""]);
    }
}
