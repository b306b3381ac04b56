//! Byte offsets ↔ agent positions (ARCHITECTURE.md, Positions): line 1-based, column 0-based
//! in characters. Everything inside the daemon is byte offsets; this is the one place
//! that converts for the headless backing.

use crate::Position;

/// Every this many bytes of a longer line, the characters from its start so far.
const MARK_EVERY: usize = 4096;

/// Line starts of one text.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
    /// Byte offsets inside long lines with the characters from their line's start
    /// up to them, in order: a column is counted from the nearest one. A minified
    /// file is one line of up to megabytes with thousands of symbols on it, and
    /// counting each column from the line's start was quadratic.
    marks: Vec<(usize, usize)>,
}

impl LineIndex {
    pub fn new(text: &[u8]) -> LineIndex {
        // A byte order mark is not a character anyone sees: line 1 starts after it.
        let mut starts = vec![crate::bom::len(text)];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        let mut marks = Vec::new();
        let ends = starts.iter().skip(1).copied().chain([text.len()]);
        for (&start, end) in starts.iter().zip(ends) {
            let (mut at, mut chars) = (start, 0);
            while end.saturating_sub(at) > MARK_EVERY {
                chars += char_count(&text[at..at + MARK_EVERY]);
                at += MARK_EVERY;
                marks.push((at, chars));
            }
        }
        LineIndex {
            starts,
            len: text.len(),
            marks,
        }
    }

    /// Number of lines (a trailing newline starts one more, empty line).
    pub fn lines(&self) -> u32 {
        self.starts.len() as u32
    }

    /// Number of lines as `cat -n` and an editor's gutter count them: a trailing
    /// newline ends the last line, it does not start an empty one (an empty text is
    /// one empty line). What a read shows and numbers.
    pub fn text_lines(&self) -> u32 {
        let n = self.lines();
        if n > 1 && self.starts[n as usize - 1] == self.len {
            n - 1
        } else {
            n
        }
    }

    /// The agent position of byte `offset` (clamped to the text).
    pub fn position(&self, text: &[u8], offset: usize) -> Position {
        let offset = offset.min(self.len).max(self.starts[0]);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mark = self.marks.partition_point(|&(at, _)| at <= offset);
        let (from, before) = match mark.checked_sub(1).map(|m| self.marks[m]) {
            Some((at, chars)) if at > start => (at, chars),
            _ => (start, 0),
        };
        let column = before + char_count(&text[from..offset]);
        Position::new(line as u32 + 1, column as u32)
    }

    /// Byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts.get((line as usize).checked_sub(1)?).copied()
    }

    /// Byte offset just past 1-based `line`'s content (before `\n` or `\r\n`).
    pub fn line_end(&self, text: &[u8], line: u32) -> Option<usize> {
        let start = self.line_start(line)?;
        let next = self.starts.get(line as usize).copied().unwrap_or(self.len);
        let mut end = next;
        if end > start && text[end - 1] == b'\n' {
            end -= 1;
            if end > start && text[end - 1] == b'\r' {
                end -= 1;
            }
        }
        Some(end)
    }

    /// Byte offset of `pos`, if it lies inside the text.
    pub fn offset(&self, text: &[u8], pos: Position) -> Option<usize> {
        let start = self.line_start(pos.line)?;
        let end = self.line_end(text, pos.line)?;
        let mut chars = 0;
        for (i, b) in text[start..end].iter().enumerate() {
            if chars == pos.column as usize && !is_continuation(*b) {
                return Some(start + i);
            }
            if !is_continuation(*b) {
                chars += 1;
            }
        }
        (chars == pos.column as usize).then_some(end)
    }
}

/// Positions of offsets asked for in about ascending order, with no [`LineIndex`]:
/// the lines between one offset and the next are counted as the cursor moves (a
/// vectorised count). Extraction asks so of a file's symbols (`symbols.rs`), and
/// the index's search for every line break cost more than all their positions (a
/// fifteenth of a Haskell first index). The same answers as [`LineIndex::position`].
#[derive(Debug)]
pub(crate) struct LineCursor<'t> {
    text: &'t [u8],
    /// Where line 1 starts: past a byte order mark.
    first: usize,
    /// The last offset asked for, its 0-based line, where that line starts, and
    /// its column.
    at: usize,
    line: usize,
    start: usize,
    column: usize,
}

impl<'t> LineCursor<'t> {
    pub(crate) fn new(text: &'t [u8]) -> LineCursor<'t> {
        let first = crate::bom::len(text);
        LineCursor {
            text,
            first,
            at: first,
            line: 0,
            start: first,
            column: 0,
        }
    }

    /// The agent position of byte `offset` (clamped to the text). A long line is
    /// counted over only between the offsets asked for, or from its start after
    /// a move back over a line break: a minified file's one line of thousands of
    /// symbols costs no more than with [`LineIndex`].
    pub(crate) fn position(&mut self, offset: usize) -> Position {
        let offset = offset.min(self.text.len()).max(self.first);
        if offset > self.at {
            let between = &self.text[self.at..offset];
            match last_break(between) {
                None => self.column += char_count(between),
                Some(i) => {
                    self.line += 1 + breaks(&between[..i]);
                    self.start = self.at + i + 1;
                    self.column = char_count(&self.text[self.start..offset]);
                }
            }
        } else if offset < self.at {
            let between = &self.text[offset..self.at];
            match last_break(between) {
                None => self.column -= char_count(between),
                Some(i) => {
                    self.line -= 1 + breaks(&between[..i]);
                    self.start = last_break(&self.text[..offset]).map_or(self.first, |i| i + 1);
                    self.column = char_count(&self.text[self.start..offset]);
                }
            }
        }
        self.at = offset;
        Position::new(self.line as u32 + 1, self.column as u32)
    }
}

/// Where the last line break in `bytes` is. Most moves of a [`LineCursor`] are a
/// few bytes (a symbol's start to its name), where a loop beats `memchr`'s call.
fn last_break(bytes: &[u8]) -> Option<usize> {
    match bytes.len() {
        0..32 => bytes.iter().rposition(|&b| b == b'\n'),
        _ => memchr::memrchr(b'\n', bytes),
    }
}

/// The line breaks in `bytes`.
fn breaks(bytes: &[u8]) -> usize {
    match bytes.len() {
        0..32 => bytes.iter().filter(|&&b| b == b'\n').count(),
        _ => memchr::memchr_iter(b'\n', bytes).count(),
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Characters in a UTF-8 slice (each non-continuation byte starts one; invalid bytes
/// count one each).
pub fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| !is_continuation(**b)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_newline_ends_the_last_line_for_reads_and_starts_one_for_positions() {
        for (text, lines, shown) in [
            ("", 1, 1),
            ("\n", 2, 1),
            ("a", 1, 1),
            ("a\n", 2, 1),
            ("a\r\nb\r\n", 3, 2),
            ("a\n\n", 3, 2),
            ("a\nb", 2, 2),
        ] {
            let ix = LineIndex::new(text.as_bytes());
            assert_eq!((ix.lines(), ix.text_lines()), (lines, shown), "{text:?}");
        }
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "fn a() {}\nlet größe = \"日本\"; // é\r\nlast".as_bytes();
        let ix = LineIndex::new(text);
        assert_eq!(ix.lines(), 3);
        let at = |needle: &str| {
            text.windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap()
        };
        assert_eq!(ix.position(text, at("größe")), Position::new(2, 4));
        assert_eq!(ix.position(text, at("\"日本")), Position::new(2, 12));
        assert_eq!(ix.position(text, at("; //")), Position::new(2, 16));
        assert_eq!(ix.position(text, at("last")), Position::new(3, 0));
        for needle in ["größe", "\"日本", "; //", "last", "a()"] {
            let off = at(needle);
            assert_eq!(
                ix.offset(text, ix.position(text, off)),
                Some(off),
                "{needle}"
            );
        }
        // Line end excludes CRLF.
        assert_eq!(
            &text[ix.line_start(2).unwrap()..ix.line_end(text, 2).unwrap()],
            "let größe = \"日本\"; // é".as_bytes()
        );
        assert_eq!(ix.offset(text, Position::new(2, 99)), None);
        assert_eq!(ix.offset(text, Position::new(9, 0)), None);
    }

    #[test]
    fn columns_on_long_lines_count_from_marks_as_from_the_line_start() {
        // A minified file: long lines of mixed widths, some shorter ones between.
        let long = "é日a;".repeat(3000);
        let text = format!("short\n{long}\nmid{long}x\n{}", "b".repeat(9000));
        let text = text.as_bytes();
        let ix = LineIndex::new(text);
        assert!(!ix.marks.is_empty());
        for off in (0..text.len())
            .step_by(97)
            .filter(|o| !is_continuation(text[*o]))
        {
            let start = text[..off]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let line = text[..off].iter().filter(|b| **b == b'\n').count() as u32 + 1;
            let expected = Position::new(line, char_count(&text[start..off]) as u32);
            assert_eq!(ix.position(text, off), expected, "at {off}");
            assert_eq!(ix.offset(text, expected), Some(off), "at {off}");
        }
    }

    #[test]
    fn a_cursor_gives_the_index_positions_moving_either_way() {
        let long = "é日a;".repeat(3000);
        let text = format!("\u{feff}a\n\nbc\r\nd日\n{long}\nlast line\n");
        let text = text.as_bytes();
        let ix = LineIndex::new(text);
        let mut cursor = LineCursor::new(text);
        // Forward, back, and jumps both ways over lines and within the long one.
        let step = |i: usize| (i * 7919) % (text.len() + 3);
        for off in (0..text.len() + 2).chain((0..4000).map(step)) {
            assert_eq!(cursor.position(off), ix.position(text, off), "offset {off}");
        }
    }
}
