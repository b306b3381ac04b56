//! The skeleton lexer of Haskell (`languages/haskell.rs`). It finds the equations'
//! right-hand sides and the signatures' types, which the symbol walker never
//! enters, so tree-sitter parses them as `()` (`skeleton.rs` blanks them or leaves
//! them out).
//!
//! **What is never entered.** The walker reads the top-level declarations and the
//! declarations of a `class`'s or an `instance`'s `where` block; of an equation
//! (`f x = …`, `x <+> y = …`, `f x | guard = …`) only the name, the patterns and
//! where its right-hand side starts (its first `=` or `|`), and where its last
//! token ends (the symbol's range); of a signature (`f, g :: Int -> Int`) its names
//! and where it ends (its text is the file's). So the text after an equation's
//! first `=` or a signature's `::`, to its last token (guards, `where` bindings and
//! all), is skipped; its first and last bytes become `(` and `)`
//! (`lex::parenthesize`), and the declaration reads as `f x = ()` or `f :: ()` with
//! the same range; not where a tab in it starts a line that is no item of a layout
//! block in it ([`tabs_before_items`]), nor where one starts the line after it
//! while it leaves a layout block open: tree-sitter-haskell's grammar meets such a
//! tab, a syntax error ([`column`]) the skeleton's parse must make too. Everything else (`data`,
//! `class` and `instance` heads, imports, pragmas) is read as it is.
//!
//! **Following the text** as tree-sitter-haskell reads it: the layout (a
//! declaration is a line at its block's column with the lines indented deeper after
//! it; a tab in a line's indent counts 8 columns, [`column`]), nested `{- -}`
//! comments, pragmas (`{-# … #-}`, nodes in a declaration's range), `--` comments
//! (dashes alone: `-->` is an operator; a comment after a declaration's last token
//! on its line is in its range), strings with their escapes and gaps, character
//! literals (`'x'`, `'\n'`) apart from primes in names (`x'`) and Template
//! Haskell's and promotion's ticks (`'Just`, `''T`), quasi-quotes (`[q|…|]`), and
//! CPP directives at a line's start (the lines from `#else` or `#elif` to the
//! `#endif` are one token, not parsed). A declaration is
//! left whole where it is not plainly one: a `let`, `where`, `case`, `if`, `do`,
//! `\` or `;` before its `=`, a CPP line inside it. Where the lexer cannot follow the
//! text (an unterminated literal or comment, unbalanced brackets, a line left of its
//! block's column, explicit braces at the top, a form feed, a vertical tab or a
//! carriage return alone between tokens, 4 GiB of text or more) it skips nothing and
//! the file gets a whole parse; any syntax error of the skeleton sends the file to a whole parse too
//! (`any_error` in `languages/haskell.rs`), as a misread layout can move a
//! declaration's end far from where the error shows.

use std::ops::Range;

use crate::lex::Cursor;

/// Byte ranges inside `src` that need no syntax tree: the interiors of the
/// equations' right-hand sides and the signatures' types (their first and last
/// bytes are where `lex::parenthesize` writes the brackets), in order, disjoint.
/// Empty where the lexer cannot follow the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The tokens of `src`, comments left out (`haskell_items` reads declarations off
/// them); `None` where the lexer cannot follow the text.
pub(super) fn tokens(src: &[u8]) -> Option<Vec<Token>> {
    let mut lex = Lexer {
        cur: Cursor::new(src),
        tokens: Vec::new(),
        line_start: 0,
        lines: Vec::new(),
    };
    lex.tokens()?;
    Some(lex.tokens)
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut lex = Lexer {
        cur: Cursor::new(src),
        tokens: Vec::new(),
        line_start: 0,
        lines: Vec::new(),
    };
    lex.tokens()?;
    let tokens = std::mem::take(&mut lex.tokens);
    if memchr::memchr(b'\t', src).is_some() {
        lex.lines = tokens
            .iter()
            .filter(|t| t.first && t.kind != Kind::Cpp)
            .map(|t| (t.start(), tabbed(src, t.start())))
            .collect();
    }
    // Past CPP and pragmas (`{-# LANGUAGE … #-}`).
    let first = tokens
        .iter()
        .position(|t| t.kind != Kind::Cpp && !src[t.start()..].starts_with(b"{-#"));
    let Some(first) = first else {
        return Some(Vec::new());
    };
    // After the module header's `where`, or from the first token.
    let body = if lex.is(&tokens[first], b"module") {
        first + tokens[first..].iter().position(|t| lex.is(t, b"where"))? + 1
    } else {
        first
    };
    let Some(start) = tokens[body..].iter().position(|t| t.kind != Kind::Cpp) else {
        return Some(Vec::new());
    };
    let start = body + start;
    if tokens[start].kind == Kind::Open(b'{') {
        return lex.cur.confused();
    }
    let column = lex.column(tokens[start].start());
    lex.block(&tokens[start..], column)?;
    Some(lex.cur.skip)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A name, keyword or number.
    Word,
    /// A symbolic operator (`=`, `::`, `<$>`).
    Op,
    Open(u8),
    Close(u8),
    /// A string, character, quasi-quote or pragma.
    Literal,
    /// `,`, `;`, a backtick, a tick.
    Punct(u8),
    /// A CPP directive's line (its continuation lines too; from `#else` to the
    /// `#endif`, all its lines).
    Cpp,
}

/// What a CPP directive does, as far as reading on goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cpp {
    /// `#if`, `#ifdef`, `#ifndef`.
    Start,
    /// `#else`, `#elif`…: the code up to the `#endif` is not parsed.
    Else,
    End,
    Other,
}

/// A token's offsets are `u32`s (a text the lexer reads is shorter than 4 GiB): a
/// token in 20 bytes, not 32, and the tokens a text is reserved ([`Lexer::tokens`])
/// 5 bytes for each of its bytes, not 8.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    from: u32,
    to: u32,
    /// Where the comments after it on its line end (its own end if none are):
    /// tree-sitter-haskell ends a declaration after them when a layout block is
    /// still open there (`Lexer::expression`).
    comments_to: u32,
    /// A line's first token's [`column`] (0 for any other token, and a CPP line's).
    pub(super) col: u32,
    pub(super) kind: Kind,
    /// The first token on its line: its column decides the layout.
    pub(super) first: bool,
    /// A word's part in the layout, if it has one.
    pub(super) layout: Option<Layout>,
}

/// The words that open or close layout blocks: told once, as they are read, not
/// by each pass over the tokens that follows the layout (the reader's cut of a
/// block into declarations compared their text at every short word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// `where`, `do`, `mdo`, `rec`, `of`.
    Opens,
    Let,
    In,
    /// `case`, which opens a block after a `\`.
    Case,
}

impl Layout {
    /// The words with a part.
    const WORDS: [(&[u8], Layout); 8] = [
        (b"where", Layout::Opens),
        (b"do", Layout::Opens),
        (b"mdo", Layout::Opens),
        (b"rec", Layout::Opens),
        (b"of", Layout::Opens),
        (b"let", Layout::Let),
        (b"in", Layout::In),
        (b"case", Layout::Case),
    ];
    /// Sends the [`Layout::WORDS`]' keys ([`Layout::of`]) to eight different
    /// slots of [`Layout::SLOTS`] (found by a search; the table checks it).
    const SPREAD: u64 = 0xbf3a_a50a_6127_53f1;
    const SLOTS: [(u64, Option<Layout>); 8] = {
        let mut slots = [(0, None); 8];
        let mut w = 0;
        while w < Layout::WORDS.len() {
            let (word, layout) = Layout::WORDS[w];
            let mut key = 0;
            let mut i = word.len();
            while i > 0 {
                i -= 1;
                key = key << 8 | word[i] as u64;
            }
            let slot = Layout::slot(key);
            assert!(slots[slot].1.is_none(), "two layout words in one slot");
            slots[slot] = (key, Some(layout));
            w += 1;
        }
        slots
    };

    const fn slot(key: u64) -> usize {
        (key.wrapping_mul(Layout::SPREAD) >> 61) as usize
    }

    /// The part of the word `src[start..end]`: its first eight bytes read as one
    /// number (a key: the word's bytes, zeros after them), looked up in one slot.
    /// Every word is asked: a branch on its length or text mispredicted.
    fn of(src: &[u8], start: usize, end: usize) -> Option<Layout> {
        let mut eight = [0u8; 8];
        match src.get(start..start + 8) {
            Some(bytes) => eight.copy_from_slice(bytes),
            // The text's last bytes.
            None => eight[..src.len() - start].copy_from_slice(&src[start..]),
        }
        // A word of eight bytes or more keeps them all: none is a key.
        let len = (end - start).min(8) as u32;
        let key = u64::from_le_bytes(eight) & u64::MAX.checked_shr(64 - 8 * len).unwrap_or(0);
        let (at, layout) = Layout::SLOTS[Layout::slot(key)];
        layout.filter(|_| at == key)
    }
}

impl Token {
    pub(super) fn start(&self) -> usize {
        self.from as usize
    }

    pub(super) fn end(&self) -> usize {
        self.to as usize
    }

    /// Where the comments after it on its line end ([`Token::comments_to`]).
    pub(super) fn trail(&self) -> usize {
        self.comments_to as usize
    }
}

struct Lexer<'a> {
    cur: Cursor<'a>,
    tokens: Vec<Token>,
    /// Where the line being read starts.
    line_start: usize,
    /// Where each line's first token is (CPP lines left out), and whether a tab is
    /// before it; empty in a text without tabs.
    lines: Vec<(usize, bool)>,
}

impl Lexer<'_> {
    /// Whether `token` is the word `word`.
    fn is(&self, token: &Token, word: &[u8]) -> bool {
        token.kind == Kind::Word && &self.cur.src[token.start()..token.end()] == word
    }

    /// Whether `token` is the operator `op`.
    fn is_op(&self, token: &Token, op: &[u8]) -> bool {
        token.kind == Kind::Op && &self.cur.src[token.start()..token.end()] == op
    }

    /// The column of `at` ([`column`]).
    fn column(&self, at: usize) -> usize {
        column(self.cur.src, at)
    }

    /// Reads the whole text into tokens, comments left out.
    fn tokens(&mut self) -> Option<()> {
        let src = self.cur.src;
        // Offsets past `u32` are no token's ([`Token`]).
        if u32::try_from(src.len()).is_err() {
            return self.cur.confused();
        }
        // About one token in five bytes of real code: seldom grown.
        self.tokens.reserve(src.len() / 4);
        let mut first = true;
        // Whether only spaces are between the line's start and here: a first
        // token's column is then their count.
        let mut blank = true;
        loop {
            // Blanks, names, operators, brackets and line breaks first, the most of
            // the text, in a loop of their own that keeps its place in a register.
            let mut at = self.cur.at;
            while let Some(&b) = src.get(at) {
                let start = at;
                match CLASSES[b as usize] {
                    BLANK => {
                        at += run(&src[start..], BLANK);
                        continue;
                    }
                    // Not a quote: a character's, or a tick (`'Just`).
                    WORD if b != b'\'' => {
                        at += run(&src[start..], WORD);
                        let layout = Layout::of(src, start, at);
                        self.push(start, at, (Kind::Word, layout), (first, blank));
                    }
                    // Not a dash (`--` opens a comment) nor a `#` (a CPP line's at
                    // a line's start): an operator.
                    SYMBOL if b != b'-' && b != b'#' => {
                        at += run(&src[start..], SYMBOL);
                        self.push(start, at, (Kind::Op, None), (first, blank));
                    }
                    _ => match b {
                        b'\n' => {
                            at += 1;
                            self.line_start = at;
                            (first, blank) = (true, true);
                            // And the indent: one turn of the loop less.
                            at += run(&src[at..], BLANK);
                            continue;
                        }
                        b'(' => {
                            at += 1;
                            self.push(start, at, (Kind::Open(b), None), (first, blank));
                        }
                        b')' | b']' | b'}' => {
                            at += 1;
                            self.push(start, at, (Kind::Close(b), None), (first, blank));
                        }
                        b',' => {
                            at += 1;
                            self.push(start, at, (Kind::Punct(b), None), (first, blank));
                        }
                        _ => break,
                    },
                }
                first = false;
                // Past the one blank that most often follows, with no branch: one
                // turn of the loop less, and its misprediction.
                at += usize::from(src.get(at) == Some(&b' '));
            }
            self.cur.at = at;
            let Some(&b) = src.get(at) else {
                return Some(());
            };
            let start = at;
            self.cur.at += 1;
            // The rest: line breaks, `(`, `)`, `]`, `}`, `,` and operators but for
            // a dash's and a `#`'s were read above.
            let kind = match b {
                // A form feed or a carriage return alone breaks the line to
                // tree-sitter-haskell's scanner (its indent starts again), a
                // vertical tab is no blank to it: not followed.
                b'\x0b' | b'\x0c' => return self.cur.confused(),
                b'\r' if self.cur.peek(0) != Some(b'\n') => return self.cur.confused(),
                b'\t' | b'\r' => {
                    blank = false;
                    continue;
                }
                b'#' if start == self.line_start
                    && let Some(directive) = self.cpp_directive() =>
                {
                    // It ends at its last line's end: the line break after it
                    // starts the next line.
                    self.cpp(directive);
                    Kind::Cpp
                }
                // A pragma is a node of its own, in a declaration's range.
                b'{' if src[self.cur.at..].starts_with(b"-#") => {
                    self.block_comment()?;
                    Kind::Literal
                }
                b'{' if self.cur.peek(0) == Some(b'-') => {
                    self.block_comment()?;
                    self.trailing(first);
                    // A token after a comment's last line is that line's first.
                    first |= self.lines_from(start);
                    blank = false;
                    continue;
                }
                b'{' => Kind::Open(b),
                b'[' => {
                    let quoter = src[self.cur.at..]
                        .iter()
                        .take_while(|&&c| is_word(c) || c == b'.')
                        .count();
                    if self.cur.peek(quoter) == Some(b'|') {
                        self.cur.at += quoter + 1;
                        self.cur.past(b"|]")?;
                        Kind::Literal
                    } else {
                        Kind::Open(b)
                    }
                }
                b'"' => {
                    self.string()?;
                    Kind::Literal
                }
                b'\'' => {
                    if self.char_literal() {
                        Kind::Literal
                    } else {
                        Kind::Punct(b)
                    }
                }
                b';' | b'`' => Kind::Punct(b),
                b if is_symbol(b) => {
                    self.cur.at += run(&src[self.cur.at..], SYMBOL);
                    let op = &src[start..self.cur.at];
                    if op.len() >= 2 && op.iter().all(|&c| c == b'-') {
                        self.cur.line_end();
                        self.trailing(first);
                        continue;
                    }
                    Kind::Op
                }
                // Any other byte (a control character) starts a name.
                _ => {
                    self.cur.at += run(&src[self.cur.at..], WORD);
                    Kind::Word
                }
            };
            // (A word here starts with a control byte: no keyword.)
            self.push(start, self.cur.at, (kind, None), (first, blank));
            // Only these may take line breaks: a string's gap, a quasi-quote, a
            // pragma, a character's escape.
            if kind == Kind::Literal {
                self.lines_from(start);
            }
            first = false;
        }
    }

    /// The token `start..end` of `kind` and `layout`, the line's `first`, after
    /// only spaces on it if `blank`.
    fn push(
        &mut self,
        start: usize,
        end: usize,
        (kind, layout): (Kind, Option<Layout>),
        (first, blank): (bool, bool),
    ) {
        // (After a CPP directive `line_start` may be past it: none is asked for.)
        let col = match (first && kind != Kind::Cpp, blank) {
            (false, _) => 0,
            (true, true) => (start - self.line_start) as u32,
            (true, false) => indent(&self.cur.src[self.line_start..start]) as u32,
        };
        self.tokens.push(Token {
            from: start as u32,
            to: end as u32,
            comments_to: end as u32,
            col,
            kind,
            first,
            layout,
        });
    }

    /// A token or comment from `start` was read, up to here: whether it took line
    /// breaks (the line being read starts after its last).
    fn lines_from(&mut self, start: usize) -> bool {
        match memchr::memrchr(b'\n', &self.cur.src[start..self.cur.at]) {
            Some(i) => {
                self.line_start = start + i + 1;
                true
            }
            None => false,
        }
    }

    /// A comment was read, up to here: the last token's trail, if it is on the
    /// comment's line (`first`: no token is yet).
    fn trailing(&mut self, first: bool) {
        if let Some(last) = self.tokens.last_mut().filter(|_| !first) {
            last.comments_to = self.cur.at as u32;
        }
    }

    /// After a `#` at a line's start: the CPP directive that follows, if one does
    /// (as tree-sitter-haskell's scanner knows them: a conditional, `define`,
    /// `include` and the like, nothing but blanks, or a script's first line).
    fn cpp_directive(&self) -> Option<Cpp> {
        let rest = &self.cur.src[self.cur.at..];
        let blanks = rest
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        let word_len = rest[blanks..].iter().take_while(|&&c| is_word(c)).count();
        match &rest[blanks..blanks + word_len] {
            b"if" | b"ifdef" | b"ifndef" => Some(Cpp::Start),
            b"else" | b"elif" | b"elifdef" | b"elifndef" => Some(Cpp::Else),
            b"endif" => Some(Cpp::End),
            b"define" | b"undef" | b"include" | b"pragma" | b"error" | b"warning" | b"line" => {
                Some(Cpp::Other)
            }
            b"" if matches!(rest.get(blanks), None | Some(b'\n' | b'\r')) => Some(Cpp::Other),
            _ if self.cur.at == 1 && rest.first() == Some(&b'!') => Some(Cpp::Other),
            _ => None,
        }
    }

    /// In a CPP directive: past its line, and the lines a `\` at a line's end
    /// continues it on; after `#else` or `#elif`, past every line up to the
    /// `#endif` that ends its conditional (tree-sitter-haskell reads them as one
    /// token: that code is not parsed).
    fn cpp(&mut self, directive: Cpp) {
        let mut nesting = usize::from(directive == Cpp::Else);
        loop {
            self.cpp_line();
            if nesting == 0 || self.cur.at == self.cur.src.len() {
                return;
            }
            self.cur.at += 1;
            self.line_start = self.cur.at;
            if self.cur.peek(0) == Some(b'#') {
                self.cur.at += 1;
                let next = self.cpp_directive();
                self.cur.at -= 1;
                match next {
                    Some(Cpp::Start) => nesting += 1,
                    Some(Cpp::End) => nesting -= 1,
                    _ => {}
                }
                if nesting == 0 {
                    // Before the `#endif`, a directive of its own.
                    self.cur.at -= 1;
                    return;
                }
            }
        }
    }

    /// In a CPP directive's line: to its end, and the lines a `\` at a line's end
    /// continues it on.
    fn cpp_line(&mut self) {
        loop {
            self.cur.line_end();
            let line = &self.cur.src[self.line_start..self.cur.at];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !line.trim_ascii_end().ends_with(b"\\") || self.cur.at == self.cur.src.len() {
                return;
            }
            self.cur.at += 1;
            self.line_start = self.cur.at;
        }
    }

    /// After `{` with `-` next: past the `-}` that ends the comment or pragma
    /// (comments nest).
    fn block_comment(&mut self) -> Option<()> {
        self.cur.at += 1;
        let mut depth = 1usize;
        while depth > 0 {
            let Some(i) = memchr::memchr2(b'{', b'-', &self.cur.src[self.cur.at..]) else {
                return self.cur.confused();
            };
            self.cur.at += i + 1;
            match (self.cur.src[self.cur.at - 1], self.cur.peek(0)) {
                (b'{', Some(b'-')) => {
                    self.cur.at += 1;
                    depth += 1;
                }
                (b'-', Some(b'}')) => {
                    self.cur.at += 1;
                    depth -= 1;
                }
                _ => {}
            }
        }
        Some(())
    }

    /// After `"`: past the `"` that ends the string (a `\` escapes the byte after
    /// it, or starts a gap of white space up to the next `\`).
    fn string(&mut self) -> Option<()> {
        loop {
            match self.cur.peek(0) {
                None | Some(b'\n') => return self.cur.confused(),
                Some(b'"') => {
                    self.cur.at += 1;
                    return Some(());
                }
                Some(b'\\') if self.cur.peek(1).is_some_and(|c| c.is_ascii_whitespace()) => {
                    self.cur.at += 1;
                    self.cur.skip_while(|c| c.is_ascii_whitespace());
                    if self.cur.peek(0) != Some(b'\\') {
                        return self.cur.confused();
                    }
                    self.cur.at += 1;
                }
                Some(b'\\') => self.cur.at += 2,
                Some(_) => self.cur.at += 1,
            }
        }
    }

    /// After a `'`: past a character literal (`'x'`, `'\n'`, `'\''`) if one is
    /// here, else (a tick: `'Just`, `''T`) nothing. After a name's byte the quote
    /// is the name's prime and was read with it.
    fn char_literal(&mut self) -> bool {
        let rest = &self.cur.src[self.cur.at..];
        let len = match rest.first() {
            // `'\''`, `'\n'`, `'\x41'`, `'\SOH'`: to the quote after the escape.
            Some(b'\\') => match rest.iter().skip(2).take(10).position(|&c| c == b'\'') {
                Some(i) => i + 2,
                None => return false,
            },
            Some(&c) if c != b'\n' => crate::bytes::utf8_len(c),
            _ => return false,
        };
        if rest.get(len) != Some(&b'\'') {
            return false;
        }
        self.cur.at += len + 1;
        true
    }

    /// The declarations of a block at `column` (`tokens`, to the block's end):
    /// each one's expression skipped, each `class` and `instance` block read as a
    /// block of its own.
    fn block(&mut self, tokens: &[Token], column: usize) -> Option<()> {
        let mut at = 0;
        while at < tokens.len() {
            if tokens[at].kind == Kind::Cpp {
                at += 1;
                continue;
            }
            let end = self.declaration_end(tokens, at, column)?;
            self.declaration(&tokens[at..end], column)?;
            at = end;
        }
        Some(())
    }

    /// Where the declaration that starts at `tokens[at]` ends: before the next line
    /// at `column`, or the CPP lines before one; a line left of it gives up on the
    /// file.
    fn declaration_end(&mut self, tokens: &[Token], at: usize, column: usize) -> Option<usize> {
        let mut k = at + 1;
        while k < tokens.len() {
            let t = tokens[k];
            if t.kind == Kind::Cpp {
                // CPP lines end the declaration if the code after them does.
                let next = tokens[k..].iter().position(|t| t.kind != Kind::Cpp);
                match next.map(|n| tokens[k + n]) {
                    None => return Some(k),
                    Some(n) if n.first && self.column(n.start()) <= column => return Some(k),
                    Some(_) => k += next.unwrap_or(0),
                }
                continue;
            }
            if t.first {
                let col = self.column(t.start());
                if col < column {
                    return self.cur.confused();
                }
                if col == column {
                    return Some(k);
                }
            }
            k += 1;
        }
        Some(k)
    }

    /// One declaration's tokens.
    fn declaration(&mut self, tokens: &[Token], column: usize) -> Option<()> {
        let head = tokens[0];
        let depth = tokens.iter().try_fold(0usize, |depth, t| match t.kind {
            Kind::Open(_) => Some(depth + 1),
            Kind::Close(_) => depth.checked_sub(1),
            _ => Some(depth),
        });
        if depth != Some(0) {
            return self.cur.confused();
        }
        if self.is(&head, b"class") || self.is(&head, b"instance") {
            return self.members(tokens, column);
        }
        const KEYWORDS: &[&[u8]] = &[
            b"data",
            b"newtype",
            b"type",
            b"deriving",
            b"foreign",
            b"import",
            b"infix",
            b"infixl",
            b"infixr",
            b"pattern",
            b"default",
            b"module",
        ];
        if KEYWORDS.iter().any(|k| self.is(&head, k)) || tokens.iter().any(|t| t.kind == Kind::Cpp)
        {
            return Some(());
        }
        let mut depth = 0usize;
        for (i, t) in tokens.iter().enumerate() {
            let text = &self.cur.src[t.start()..t.end()];
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth -= 1,
                _ if depth > 0 => {}
                Kind::Op if text == b"\\" => return Some(()),
                Kind::Op if text == b"::" || text == b"=" => {
                    // `x :: Int = 5` is no signature: left whole.
                    let rest = &tokens[i + 1..];
                    if text == b"=" || !rest.iter().any(|t| self.is_op(t, b"=")) {
                        self.expression(rest);
                    }
                    return Some(());
                }
                Kind::Punct(b';') => return Some(()),
                Kind::Word
                    if matches!(
                        text,
                        b"let" | b"where" | b"case" | b"of" | b"if" | b"do" | b"mdo"
                    ) =>
                {
                    return Some(());
                }
                _ => {}
            }
        }
        Some(())
    }

    /// A right-hand side's or a signature's type's tokens (from the one after the
    /// `=` or `::`): skippable but for its first and last bytes. The comments after
    /// its last token on that line are in the declaration's node only when a layout
    /// block is still open there (its implicit close comes after them); otherwise
    /// they follow the node, and the walker takes them into the range as it does
    /// after any declaration, so they are parsed, not skipped.
    fn expression(&mut self, tokens: &[Token]) {
        let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
            return;
        };
        let open = block_open(self.cur.src, tokens);
        let end = match open {
            true => last.trail(),
            false => last.end(),
        };
        // The next line after a tab closes a layout block still open with a syntax
        // error ([`column`]): the skeleton must keep that block to make it too.
        let next = self.lines.partition_point(|&(start, _)| start < end);
        if open && self.lines.get(next).is_some_and(|&(_, tabbed)| tabbed) {
            return;
        }
        // One with a tab is parsed, but where each is before an item of a layout
        // block in it: any other is a syntax error of the whole parse ([`column`]),
        // and must be one of the skeleton's too, to send the file to a whole parse.
        let tabs = memchr::memchr(b'\t', &self.cur.src[first.start()..end]).is_some();
        if end - first.start() >= 3 && (!tabs || tabs_before_items(self.cur.src, tokens)) {
            self.cur.skip.push(first.start() + 1..end - 1);
        }
    }

    /// A `class` or `instance` declaration: the block after its `where`, if it has
    /// one laid out deeper than `column`.
    fn members(&mut self, tokens: &[Token], column: usize) -> Option<()> {
        let mut depth = 0usize;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth -= 1,
                Kind::Word if depth == 0 && self.is(t, b"where") => {
                    let rest = &tokens[i + 1..];
                    let Some(start) = rest.iter().position(|t| t.kind != Kind::Cpp) else {
                        return Some(());
                    };
                    let inner = self.column(rest[start].start());
                    if rest[start].kind == Kind::Open(b'{') || inner <= column {
                        return Some(());
                    }
                    // Lines left of the block's column would end it early: left whole.
                    if rest[start..]
                        .iter()
                        .any(|t| t.kind != Kind::Cpp && t.first && self.column(t.start()) < inner)
                    {
                        return Some(());
                    }
                    return self.block(&rest[start..], inner);
                }
                _ => {}
            }
        }
        Some(())
    }
}

/// The column of `at` as tree-sitter-haskell's scanner counts a line's indent: in
/// characters, a tab as 8 more (not to the next multiple of 8: `  \tf` is at 10),
/// in blanks and in a `{- -}` comment before the line's first token alike
/// (`{-\t-} f` is at 13). Elsewhere the grammar meets a tab (its extras are
/// `\p{Zs}`, which a tab is not): a syntax error after a line's first token, and
/// before one where the scanner takes no layout item (a line that goes on with a
/// declaration, or one where it closes a layout block), so how it counts there
/// does not matter.
pub(super) fn column(src: &[u8], at: usize) -> usize {
    indent(&src[line_start(src, at)..at])
}

/// The [`column`] after `prefix`, a line's start.
fn indent(prefix: &[u8]) -> usize {
    prefix
        .iter()
        .map(|&b| match b {
            b'\t' => 8,
            _ => usize::from(b & 0xC0 != 0x80),
        })
        .sum()
}

/// Where the line of `at` starts.
pub(super) fn line_start(src: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1)
}

/// Whether a tab is on `at`'s line before it.
pub(super) fn tabbed(src: &[u8], at: usize) -> bool {
    memchr::memchr(b'\t', &src[line_start(src, at)..at]).is_some()
}

/// Whether each line among `tokens` (a declaration's, after its first token) with a
/// tab before its first token is one tree-sitter-haskell's scanner takes an item of
/// a layout block at, which is where it takes the tab as blank: the first item of
/// a block (after a `where`, `do`, `mdo`, `rec`, `of`, `let` or `\case`), or one at
/// the column of the innermost block, none closing there. Any other (a line that
/// goes on with an expression, or one that closes a block) is a syntax error of the
/// whole parse. `false` as well after explicit braces (no layout there).
pub(super) fn tabs_before_items(src: &[u8], tokens: &[Token]) -> bool {
    // The open blocks: their column, and the bracket depth they opened at.
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut opener) = (0usize, false);
    for (i, t) in tokens.iter().enumerate() {
        let tab = t.first && tabbed(src, t.start());
        if opener {
            if t.kind == Kind::Open(b'{') {
                return false;
            }
            let col = column(src, t.start());
            if tab && blocks.last().is_some_and(|&(c, _)| col <= c) {
                return false;
            }
            blocks.push((col, depth));
        } else if t.first {
            let col = column(src, t.start());
            let open = blocks.len();
            while blocks.last().is_some_and(|&(c, _)| col < c) {
                blocks.pop();
            }
            if tab && (blocks.len() < open || blocks.last().is_none_or(|&(c, _)| c != col)) {
                return false;
            }
        }
        opener = false;
        match t.kind {
            Kind::Open(_) => depth += 1,
            Kind::Close(_) => {
                depth = depth.saturating_sub(1);
                while blocks.last().is_some_and(|&(_, d)| d > depth) {
                    blocks.pop();
                }
            }
            _ => match t.layout {
                Some(Layout::Opens | Layout::Let) => opener = true,
                Some(Layout::Case) => {
                    opener = i > 0
                        && tokens[i - 1].kind == Kind::Op
                        && &src[tokens[i - 1].start()..tokens[i - 1].end()] == b"\\";
                }
                // A `let` block's `in` closes it.
                Some(Layout::In) if blocks.last().is_some_and(|&(_, d)| d == depth) => {
                    blocks.pop();
                }
                _ => {}
            },
        }
    }
    true
}

/// Whether `tokens` leave a layout block open at their end: one opened outside
/// brackets (`where`, `do`, `mdo`, `rec`, `of`, `\case`, a `let` no `in` closes)
/// and not by an explicit `{`.
pub(super) fn block_open(src: &[u8], tokens: &[Token]) -> bool {
    let (mut depth, mut lets) = (0usize, 0usize);
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Open(_) => depth += 1,
            Kind::Close(_) => depth = depth.saturating_sub(1),
            _ if depth == 0 => {
                let explicit = tokens
                    .get(i + 1)
                    .is_some_and(|n| n.kind == Kind::Open(b'{'));
                match t.layout {
                    Some(Layout::Let) if !explicit => lets += 1,
                    Some(Layout::In) => lets = lets.saturating_sub(1),
                    Some(Layout::Opens) if !explicit => return true,
                    Some(Layout::Case)
                        if i > 0
                            && tokens[i - 1].kind == Kind::Op
                            && &src[tokens[i - 1].start()..tokens[i - 1].end()] == b"\\"
                            && !explicit =>
                    {
                        return true;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    lets > 0
}

/// A blank's byte class ([`CLASSES`]): a space.
const BLANK: u8 = 1;
/// A symbolic operator's byte class (`reserved_symbolic` bytes excepted, as in
/// tree-sitter-haskell's scanner).
const SYMBOL: u8 = 2;
/// A name's or number's byte class: a prime too (`foldl'`), any non-ASCII byte.
const WORD: u8 = 4;

/// Each byte's class: one lookup where the lexer runs over a token's bytes.
static CLASSES: [u8; 256] = {
    const SYMBOLS: &[u8] = b"!#$%&*+./<=>?@\\^|-~:";
    let mut classes = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        classes[b] = if c == b' ' {
            BLANK
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'\'' || c >= 0x80 {
            WORD
        } else {
            let mut i = 0;
            while i < SYMBOLS.len() && SYMBOLS[i] != c {
                i += 1;
            }
            if i < SYMBOLS.len() { SYMBOL } else { 0 }
        };
        b += 1;
    }
    classes
};

/// How many bytes of `class` `bytes` start with. Blanks and names are told eight
/// bytes at a time ([`of_class`]): byte by byte, the loop's exit mispredicted at
/// nearly every name's end, a fifth of the lexer's time.
fn run(bytes: &[u8], class: u8) -> usize {
    let mut n = 0;
    if class != SYMBOL {
        while let Some(eight) = bytes.get(n..n + 8) {
            let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
            let outside = !of_class(x, class) & HIGH;
            if outside != 0 {
                return n + (outside.trailing_zeros() / 8) as usize;
            }
            n += 8;
        }
    }
    let rest = &bytes[n..];
    n + rest
        .iter()
        .position(|&b| CLASSES[b as usize] & class == 0)
        .unwrap_or(rest.len())
}

/// Each byte's lowest bit.
const LOW: u64 = 0x0101_0101_0101_0101;
/// Each byte's highest bit.
const HIGH: u64 = LOW << 7;

/// The bytes of `x` (eight, read little-endian) of `class`, `BLANK` or `WORD`:
/// their highest bits set. By arithmetic on the eight at once, none carrying into
/// the next: a byte's low seven bits plus `0x80 - c` reach its highest bit where
/// they are `c` or more.
fn of_class(x: u64, class: u8) -> u64 {
    let at_least = |v: u64, c: u8| v + LOW * u64::from(0x80 - c);
    let within = |v: u64, lo: u8, hi: u8| at_least(v, lo) & !at_least(v, hi + 1);
    let ascii = x & !HIGH;
    let bytes = match class {
        BLANK => within(ascii, b' ', b' ') & !x,
        _ => {
            // `A`-`Z` read as `a`-`z`, and no other byte does.
            within(ascii | (LOW * 0x20), b'a', b'z')
                | within(ascii, b'0', b'9')
                | within(ascii, b'_', b'_')
                | within(ascii, b'\'', b'\'')
                | x
        }
    };
    bytes & HIGH
}

fn is_symbol(b: u8) -> bool {
    CLASSES[b as usize] == SYMBOL
}

fn is_word(b: u8) -> bool {
    CLASSES[b as usize] == WORD
}

/// Whether a trimmed line is a `--` comment: dashes not followed by a symbol (`-->`
/// is an operator). Here, below both the walker (`languages/haskell.rs`) and the
/// declaration reader, which both ask.
pub(crate) fn line_comment(line: &[u8]) -> bool {
    let dashes = line.iter().take_while(|b| **b == b'-').count();
    dashes >= 2 && line.get(dashes).is_none_or(|&b| !is_symbol(b))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::{
        Lang,
        tests::{skeleton_reads_as_whole, skipped, skips_nothing},
    };

    #[test]
    fn right_hand_sides_and_types_are_skipped_and_declarations_read() {
        let src = r#"module M (f, T (..)) where
import Data.List (sort)
f :: Int -> Int
f 0 = 1
f n
  | n < 0 = negate n
  | otherwise = n * f (n - 1)
  where helper = 1 -- trailing
x <+> y = x + y
data T = A | B { b :: Int } deriving Show
class C a where
  c :: a -> Int
  c _ = 0
instance C T where
  c A = 1
  c (B n) = n
    {-# INLINE c #-}
g = do
  let y = 1
  pure y
h x | let y = x, y > 0 = y
x :: Int = 5
"#;
        expect![[r#"
            [
                "nt -> In",
                "egate n\n  | otherwise = n * f (n - 1)\n  where helper = 1 -- trailin",
                " + ",
                " -> In",
                "\n    {-# INLINE c #-",
                "o\n  let y = 1\n  pure ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn comments_strings_and_characters_hide_the_layout() {
        let src = r#"f = g {- a
x = 1 {- nested -} -}
  "a -- b\
\c = d" '"' '[' 'x'
  where g' = 'a' : ""
y = [q|
z = 1
|] ''T 'Just
#if X
w = 1
#else
  more = continued
#endif
v = -- a comment
  v
"#;
        expect![[r#"
            [
                " {- a\nx = 1 {- nested -} -}\n  \"a -- b\\\n\\c = d\" '\"' '[' 'x'\n  where g' = 'a' : \"",
                "q|\nz = 1\n|] ''T 'Jus",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    /// Blanks and names told eight bytes at a time are the bytes the table tells,
    /// in any lane, next to any byte.
    #[test]
    fn bytes_told_eight_at_a_time_are_the_tables() {
        for class in [BLANK, WORD] {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    let x = u64::from_le_bytes([b, a, b, a, a, b, b, a]);
                    let told = of_class(x, class);
                    for (lane, byte) in x.to_le_bytes().into_iter().enumerate() {
                        let is = CLASSES[byte as usize] & class != 0;
                        assert_eq!(told >> (lane * 8 + 7) & 1 == 1, is, "{byte:#x} {class}");
                    }
                }
            }
        }
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "f = g\n  where x = \"a\n",
                "f = g {- a\n",
                "f = [q| a\n",
                "f = (g\n",
                "f = g)\n",
                "module M where\n  f = g x\ng = h y\n",
                "module M where {\nf = g x\n}\n",
                "class C a where\n  f :: a -> a\n  \x0cg :: a -> a\n",
                "class C a where\n  f :: a -> a\n  \rg :: a -> a\n",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"{-# LANGUAGE CPP #-}
-- | The module.
module Data.Shape
  ( Shape (..)
  , area
  ) where

import qualified Data.Map as M

-- | The area.
area :: Shape -> Double
area (Circle r) = pi * r * r -- of a circle
{-# INLINE area #-}
area (Rect w h) = w * h

x <+> y = x + y
infixl 6 <+>

abs' n
  | n < 0 = negate n
  | otherwise = n
  where helper = "a -- b {- c"

lo, hi :: Int
lo = 0

main = do
  let s = [q|
main = 1
|]
  print (area (Circle 1), s, '"', 'x', ''Shape)

#if MIN_VERSION_base(4,9,0)
modern = "yes"
#else
modern = "no"
#endif

data Shape
  = Circle Double
  | Rect { width, height :: Double }
  deriving (Show, Eq)

class Monad m => MonadLog m where
  logMsg :: String -> m ()
  logMsg _ = pure ()

instance MonadLog IO where
  logMsg s = do
    putStrLn s
    putStrLn "done, and long enough to be left out of the parse altogether"
    putStrLn "as the skeleton leaves out bodies of 256 bytes and more: a few lines"
    putStrLn "of it will do, with one more line, and then another one to be sure"
    putStrLn "that it is long enough: two hundred and fifty six bytes are a lot"
    {-# INLINE logMsg #-}

instance Show Shape where
  show (Circle r) = "circle " ++ show r
  show Rect{} = "rect"

-- A comment after a one-line equation's last token follows its node; after a
-- layout block still open there, it is in the node.
plain :: Int -> Int
plain x = negate x -- after the node

blocked :: Int -> Int
blocked x = y + 1
  where y = x * 2 -- in the where block's node
"#;
        // The longest body is left out of the skeleton's parse.
        let skeleton = skeleton_reads_as_whole(Lang::Haskell, src, 10, 17);
        assert!(!skeleton.included.is_empty());
    }

    /// Tabs before a line's first token count as tree-sitter-haskell's scanner
    /// counts them (8 columns each, after blanks too, in a comment too): `\tf`
    /// and eight blanks then `g` are two members of a class, not one.
    #[test]
    fn skeletons_of_tab_indented_code_read_as_the_whole_text() {
        let src = "module M where
\tf :: Int -> Int
\tf x = x + 1
        g :: Int
        g = 2
\tclass C a where
\t\tm :: a -> Int
                n :: a
\t\tm _ = 0
        instance C Int where
  \t\tm x = x * 2
                  n = 1
        h = do
\t\tprint 1
\t\tprint 2
        k = do
                print 3
";
        skeleton_reads_as_whole(Lang::Haskell, src, 6, 10);
        let src = "class C a where\n\tf :: a -> a\n        g :: a -> a\n";
        skeleton_reads_as_whole(Lang::Haskell, src, 2, 3);
        // Where the whole parse meets a tab (a syntax error), the skeleton's parse
        // must too: a line that goes on with a declaration, or one that closes a
        // layout block.
        skips_nothing(
            skippable,
            &[
                "f = x\n\t+ y\n",
                "f :: Int\n\t-> Int\n",
                "\tf = do\n                x\n\tg = 1\n",
            ],
        );
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: aeson and megaparsec), or the first
    /// index is slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("haskell", &["hs"], 60, 1, |src| scan(src).is_some());
    }
}
