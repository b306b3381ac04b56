//! The cursor the skeleton lexers that give up on text they cannot follow share
//! (`skeleton_c`, `skeleton_brace`, `skeleton_php`, `skeleton_lua`, `skeleton_r`,
//! `skeleton_ruby`, `skeleton_bash`, `skeleton_haskell`, `skeleton_ocaml`,
//! `skeleton_elixir`): the text, where the lexer is in it, the ranges it found to
//! skip, and whether it could follow the text at all; with the scanning they do the
//! same way (a token loop's next byte, comments and runs of them, quoted strings
//! with backslash escapes, a raw string's closer, a heredoc's lines, runs of a
//! byte, line breaks) and the unit a skipped expression becomes (`parenthesize`).
//! `comment_end` also serves `skeleton_rust` and `skeleton_go`, whose lexers answer
//! otherwise. What a language reads differently (its strings, its keywords, which
//! blocks the walker enters) stays in its lexer.

use std::ops::Range;

pub(crate) struct Cursor<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) at: usize,
    /// The delimiters open, innermost last (and the blocks, where keywords open
    /// them: Lua's).
    pub(crate) open: Vec<u8>,
    /// What can be skipped so far, in order.
    pub(crate) skip: Vec<Range<usize>>,
    /// Whether comments are recorded (not while matching a block whose whole
    /// interior is skipped anyway, nor by `java_items`, which needs none).
    pub(crate) record: bool,
    /// The text could not be followed: nothing is skipped.
    pub(crate) confused: bool,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Cursor<'a> {
        Cursor {
            src,
            at: 0,
            open: Vec::new(),
            skip: Vec::new(),
            record: true,
            confused: false,
        }
    }

    pub(crate) fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.at + ahead).copied()
    }

    /// The next byte and where it is, read past: the head of a token loop. `None`
    /// once confused, or at the end of the text, where the lexer gives up if
    /// anything is still open there (a delimiter, or `unclosed`: a string's hole).
    pub(crate) fn next_byte(&mut self, unclosed: bool) -> Option<(usize, u8)> {
        if self.confused {
            return None;
        }
        let Some(b) = self.peek(0) else {
            if !self.open.is_empty() || unclosed {
                return self.confused();
            }
            return None;
        };
        self.at += 1;
        Some((self.at - 1, b))
    }

    /// The text `start..end` (a word token's).
    pub(crate) fn text(&self, start: usize, end: usize) -> &'a [u8] {
        &self.src[start..end]
    }

    /// A closer of what `what` opened (`opener` of a closing delimiter): gives up
    /// on the file unless that is the innermost open.
    pub(crate) fn close(&mut self, what: u8) -> Option<()> {
        if self.open.pop() != Some(what) {
            return self.confused();
        }
        Some(())
    }

    /// Gives up on the file; `None`, so callers can `?` out.
    pub(crate) fn confused<T>(&mut self) -> Option<T> {
        self.confused = true;
        None
    }

    /// Past every byte `is_in` accepts.
    pub(crate) fn skip_while(&mut self, is_in: impl Fn(u8) -> bool) {
        while self.peek(0).is_some_and(&is_in) {
            self.at += 1;
        }
    }

    /// Past spaces and tabs.
    pub(crate) fn blanks(&mut self) {
        self.skip_while(|b| matches!(b, b' ' | b'\t'));
    }

    /// The length of the line break at `at` (`\n` or `\r\n`), 0 if there is none.
    pub(crate) fn line_break(&self, at: usize) -> usize {
        match (self.src.get(at), self.src.get(at + 1)) {
            (Some(b'\n'), _) => 1,
            (Some(b'\r'), Some(b'\n')) => 2,
            _ => 0,
        }
    }

    /// How many `c` in a row from `at`.
    pub(crate) fn run(&self, c: u8, at: usize) -> usize {
        self.src[at.min(self.src.len())..]
            .iter()
            .take_while(|&&b| b == c)
            .count()
    }

    /// To the end of the line: at its `\n`, or the end of the text.
    pub(crate) fn line_end(&mut self) {
        self.at =
            memchr::memchr(b'\n', &self.src[self.at..]).map_or(self.src.len(), |i| self.at + i);
    }

    /// After `/*`: past the `*/` that ends the comment (`nests`: Kotlin's, Swift's
    /// and Scala's comments nest).
    pub(crate) fn block_comment(&mut self, nests: bool) -> Option<()> {
        match comment_end(self.src, self.at, nests) {
            Some(end) => {
                self.at = end;
                Some(())
            }
            None => self.confused(),
        }
    }

    /// In a line comment: to its end, a `\r` or `\n` (tree-sitter-lua's and
    /// tree-sitter-r's comments end at either), or the end of the text.
    pub(crate) fn line_comment_end(&mut self) {
        let end = memchr::memchr2(b'\n', b'\r', &self.src[self.at..]);
        self.at = end.map_or(self.src.len(), |i| self.at + i);
    }

    /// After an opening quote: past the same quote, a backslash escaping the byte
    /// after it (line breaks are text).
    pub(crate) fn quoted(&mut self, quote: u8) -> Option<()> {
        while let Some(i) = memchr::memchr2(quote, b'\\', &self.src[self.at..]) {
            self.at += i + 1;
            if self.src[self.at - 1] == quote {
                return Some(());
            }
            self.at = (self.at + 1).min(self.src.len());
        }
        self.confused()
    }

    /// Past the next `closer` (a long or raw string's).
    pub(crate) fn past(&mut self, closer: &[u8]) -> Option<()> {
        match memchr::memmem::find(&self.src[self.at..], closer) {
            Some(i) => {
                self.at += i + closer.len();
                Some(())
            }
            None => self.confused(),
        }
    }

    /// A comment's text was read (less what keeps it a comment: `/**` and `*/`
    /// stay, so a doc comment stays one): skippable, unless comments are not
    /// recorded now.
    pub(crate) fn comment_read(&mut self, text: Range<usize>) {
        if self.record && !text.is_empty() {
            self.skip.push(text);
        }
    }

    /// A line comment's text was read (`text`: after its marker, to the line's
    /// end): skippable, in one range with the comment lines right above it when
    /// only blanks and line breaks part them and they are in the same block (the
    /// lexer's innermost, whose interior starts at `block`): the first one's marker
    /// stays, so the run stays a comment; long, the run is left out of the parse.
    /// Ruby's and Bash's doc comments are such runs.
    pub(crate) fn line_comment_read(&mut self, text: Range<usize>, block: usize) {
        self.marked_comment_read(text.start - 1, text, block);
    }

    /// [`Cursor::line_comment_read`] for a marker of any length, at `marker` (Lua's
    /// `--`).
    pub(crate) fn marked_comment_read(&mut self, marker: usize, text: Range<usize>, block: usize) {
        let src = self.src;
        if let Some(last) = self.skip.last_mut().filter(|last| {
            src.get(last.end) == Some(&b'\n')
                && (block..marker).contains(&last.end)
                && src[last.end..marker].iter().all(u8::is_ascii_whitespace)
        }) {
            if self.record {
                last.end = text.end;
            }
            return;
        }
        self.comment_read(text);
    }

    /// At a line's start: past the first line from here that `ends` accepts (its
    /// text, without the line break) and its line break (a heredoc's body, to the
    /// line of its delimiter); `None` if the text ends first.
    pub(crate) fn past_line(&mut self, ends: impl Fn(&[u8]) -> bool) -> Option<()> {
        while self.at < self.src.len() {
            let from = self.at;
            self.line_end();
            let line = &self.src[from..self.at];
            self.at = (self.at + 1).min(self.src.len());
            if ends(line) {
                return Some(());
            }
        }
        self.confused()
    }

    /// The block whose opener is at `open` was skipped to its closer, the byte just
    /// read: its interior is skippable, if it has one.
    pub(crate) fn interior_read(&mut self, open: usize) {
        let close = self.at - 1;
        if close > open + 1 {
            self.skip.push(open + 1..close);
        }
    }
}

/// A lexer over a [`Cursor`] that keeps what is open on its stack
/// ([`Cursor::open`]).
pub(crate) trait Delimited<'a> {
    fn cur(&mut self) -> &mut Cursor<'a>;
    /// Reads one token; `None` at the end of the text or once confused.
    fn advance(&mut self) -> Option<()>;

    /// Reads on until fewer than `floor` are open (past the closer of the one at
    /// `floor`), in text skipped whole: its comments are not recorded.
    fn skip_to_depth(&mut self, floor: usize) -> Option<()> {
        self.cur().record = false;
        while self.cur().open.len() >= floor {
            self.advance()?;
        }
        self.cur().record = true;
        Some(())
    }

    /// Skips the interior of the delimiter just read at `open`, up to its match:
    /// skippable, if it has one.
    fn skip_delimited(&mut self, open: usize) -> Option<()> {
        let floor = self.cur().open.len();
        self.skip_to_depth(floor)?;
        self.cur().interior_read(open);
        Some(())
    }
}

/// Makes the text around `gap` (a skipped range one byte inside an expression or
/// a type) `()`, the unit: its first and last bytes become the brackets, so the
/// declaration keeps its range (`skeleton_haskell`, `skeleton_ocaml`).
pub(crate) fn parenthesize(text: &mut [u8], gap: &Range<usize>) {
    text[gap.start - 1] = b'(';
    text[gap.end] = b')';
}

/// The opening delimiter `close` closes.
pub(crate) fn opener(close: u8) -> u8 {
    match close {
        b')' => b'(',
        b']' => b'[',
        _ => b'{',
    }
}

/// Where the block comment whose text starts at `at` (after its `/*`) ends: past
/// its `*/`; `None` if the text ends first. `nests`: a `/*` inside opens a comment
/// of its own, as Rust's, Kotlin's, Swift's and Scala's do.
pub(crate) fn comment_end(src: &[u8], at: usize, nests: bool) -> Option<usize> {
    if !nests {
        return memchr::memmem::find(&src[at..], b"*/").map(|i| at + i + 2);
    }
    let (mut at, mut depth) = (at, 1u32);
    while let Some(&b) = src.get(at) {
        at += 1;
        match (b, src.get(at)) {
            (b'*', Some(b'/')) => {
                at += 1;
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            (b'/', Some(b'*')) => {
                at += 1;
                depth += 1;
            }
            _ => {}
        }
    }
    None
}
