//! The skeleton lexer of the C family: C, C++ and C# (`languages/c.rs`,
//! `languages/csharp.rs`). It finds the brace blocks the symbol walker never
//! enters, so tree-sitter parses them as empty blocks (`skeleton.rs` blanks them or
//! leaves them out).
//!
//! The walker enters few containers here: the file, namespaces, `extern "C"`
//! blocks, and the bodies of structs, unions, enums and classes (C#'s interfaces and
//! records too); a type's members are read, none is entered. Every other block
//! (function, method, constructor, operator, accessor and lambda bodies, initializer
//! lists, property accessor lists, statements) holds no symbol, and it is most of a
//! file's bytes and nearly all of its syntax nodes. The text of the block comments
//! outside them is skipped too; the comments stay comments.
//!
//! **Which blocks are entered.** Every container the walker enters is announced by
//! a keyword of its declaration, outside parentheses: `struct`, `union`, `enum`,
//! `class` (C++), `interface` and `record` (C#), `namespace`, or `extern "…"` right
//! before the `{` (tree-sitter-cpp reads `struct EXPORT Name {…}` as a function, and
//! `languages/c.rs` walks that body: the keyword is there too). A `{` in a
//! declaration without one is skipped; with one it is entered, unless the keyword
//! plainly announced something else: the declaration went on to a function
//! declarator (`struct S *f(void) {`, `template <class T> T max(T a) {`: a name
//! followed by `(` after a type, a `*`, `&`, `>`, `~` or `::`), to `operator`, or to
//! an `=` (`struct S s = {…}`). A C# `class` or `struct` after `where` is a
//! constraint. Entering a block the walker does not enter is only slower; so where
//! unsure (a `{` among a type header's template arguments, an attribute before a
//! name) the block is entered.
//!
//! An emptied C++ body can read as something else: tree-sitter-cpp reads `int f()
//! const {};` in a class as a member with an initializer list, and so it reads a
//! body that is empty or holds only expressions. A skipped block that holds
//! statements keeps one, an empty `;` ([`mark`]), and stays a body. It reads a
//! class headed by a macro and its name or by a macro's call, without bases
//! (`class GTEST_API_ A {…}`, `class GTEST_1_TUPLE_(T) {…}`), as a function whose
//! body holds the members as statements, and a member's body after an access
//! label fails there, whole or skipped: so the skeleton's parse would be thrown
//! away for the whole one. Where a member's body stands in such a list, nothing
//! is skipped and the file gets the whole parse at once.
//!
//! **Following the text.** The lexer knows what tree-sitter reads as one token:
//! strings, character literals (and C23's and C++14's digit separators, `1'000`,
//! which are not), C++ raw strings (`R"d(…)d"`), C#'s verbatim (`@"…"`), raw
//! (`"""…"""`) and interpolated strings (`$"…{x}…"`, `$@"…"`, `$$"""…{{x}}…"""`, with
//! the expressions inside their holes read as code), comments, and line
//! continuations. A preprocessor directive is opaque to the end of its line as
//! tree-sitter reads it (past continuations and the block comments in it): a `{` in
//! a `#define` is no brace. Where the lexer cannot follow the text (an unterminated
//! literal or comment, unbalanced or mismatched delimiters) it skips nothing and the
//! file gets a whole parse.
//!
//! **Conditional compilation.** Tree-sitter reads every branch of an `#if`; so does
//! the lexer, and a block's end is its matching `}` in the text as written. Where
//! the whole parse is clean that is the block tree-sitter reads (its braces nest
//! properly, and balanced braces nest one way only). Where a branch inside a skipped
//! block leaves braces or parentheses open, or a block begins in one branch and ends
//! in another (`#if A` `f(a) {` `#else` `f(b) {` `#endif`), the text says no one
//! thing, and the lexer gives up on the file.
//!
//! Why not a dialect of `skeleton_brace`: that lexer reads JavaScript's regular
//! expressions, JSX and templates and is shared with the declaration readers
//! (`java_items`, `ts_items`); the C family needs directives, line continuations,
//! raw strings and C#'s string holes, and a different rule for which blocks are
//! entered. One lexer for both would test every byte against both languages' cases.
//! PHP is no dialect here for the same reason: its text around `<?php … ?>`, its
//! heredocs and `{$…}` holes, and the `if` blocks the walker enters at its top
//! (`languages/php.rs`) share little with C's. C#'s declaration reader
//! (`csharp_items`) reads this lexer's tokens.

use std::ops::Range;

use crate::{
    bytes::is_word,
    lex::{Cursor, opener},
};

/// Byte ranges inside `src` (a file in `dialect`) that need no syntax tree: the
/// interiors of the brace blocks the walker never enters and of the block comments
/// outside them, in order, disjoint. Empty where the lexer cannot follow the text,
/// or where a member's body stands in a list tree-sitter-cpp misreads
/// (`Level::misread`). A C++ block holding statements starts with an empty range,
/// for [`mark`].
pub(super) fn skippable(dialect: Dialect, src: &[u8]) -> Vec<Range<usize>> {
    scan(dialect, src).unwrap_or_default()
}

/// The ranges [`skippable`] answers (none for a misread list); `None` where the
/// lexer cannot follow the text.
pub(super) fn scan(dialect: Dialect, src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut scan = Scan {
        lex: Lexer::new(src, dialect),
        levels: vec![Level::default()],
        misread: false,
    };
    while let Some(tok) = scan.lex.next() {
        if scan.token(tok).is_none() {
            // Followed, but nothing worth skipping (`Level::misread`).
            return scan.misread.then(Vec::new);
        }
    }
    (!scan.lex.cur.confused && scan.levels.len() == 1).then_some(scan.lex.cur.skip)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    /// `.c` files (tree-sitter-c: no classes, no raw strings).
    C,
    /// C++ and the headers (tree-sitter-cpp).
    Cpp,
    CSharp,
}

/// One token, as far as finding blocks goes (and reading C#'s declarations,
/// `csharp_items`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier, keyword or number: `start..end`.
    Word(usize, usize),
    /// An opening delimiter at this offset.
    Open(u8, usize),
    Close(u8),
    /// `::`.
    Scope,
    Punct(u8),
    /// A string or character literal (for C#, the text of an interpolated string up
    /// to a hole, or from a hole to the next or the end).
    Literal,
}

/// The text of a C# interpolated string, read up to its end or its next hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Text {
    /// `$"…"`: backslash escapes, `{{` and `}}`, one line.
    Regular,
    /// `$@"…"`: `""`, `{{` and `}}`.
    Verbatim,
    /// `$$"""…"""`: a hole opens with `dollars` braces; the text ends at a run of
    /// `quotes` quotes.
    Raw { dollars: usize, quotes: usize },
}

/// A C# interpolation hole the lexer is inside of.
#[derive(Clone, Copy, Debug)]
struct Hole {
    /// The string to read on once the hole closes.
    text: Text,
    /// How many delimiters were open when it opened: a `}` at that depth closes it.
    depth: usize,
}

/// While a block is skipped: how many delimiters and conditionals were open inside
/// its `{`.
#[derive(Clone, Copy, Debug)]
struct Floor {
    open: usize,
    conditionals: usize,
}

pub(crate) struct Lexer<'a> {
    pub(crate) cur: Cursor<'a>,
    dialect: Dialect,
    /// Where the last token read starts.
    pub(crate) start: usize,
    /// Directives read so far, and of them the conditionals (`#if`, `#elif`,
    /// `#else`, `#endif`): `csharp_items` checks where they stand.
    pub(crate) directives: u32,
    pub(crate) branches: u32,
    /// Where the last directive and the last conditional read start (their `#`),
    /// and whether that conditional is an `#if`.
    pub(crate) directive_at: usize,
    pub(crate) branch_at: usize,
    pub(crate) branch_if: bool,
    /// The `#if`s open: how many delimiters were open at each.
    pub(crate) conditionals: Vec<usize>,
    /// The block being skipped, if any: a conditional branch inside it must close
    /// what it opens.
    floor: Option<Floor>,
    holes: Vec<Hole>,
    /// Every directive read (its `#` to its line's end, continuations and all) when
    /// `Some`: `c_items` reads `#define`s and conditionals off them.
    pub(crate) log: Option<Vec<Range<usize>>>,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a [u8], dialect: Dialect) -> Lexer<'a> {
        Lexer {
            cur: Cursor::new(src),
            dialect,
            start: 0,
            directives: 0,
            branches: 0,
            directive_at: 0,
            branch_at: 0,
            branch_if: false,
            conditionals: Vec::new(),
            floor: None,
            holes: Vec::new(),
            log: None,
        }
    }

    fn word(&self, tok: Tok) -> Option<&'a [u8]> {
        match tok {
            Tok::Word(s, e) => Some(self.cur.text(s, e)),
            _ => None,
        }
    }

    /// Gives up on the file wherever a conditional's branch ends with other
    /// delimiters open than where it began, as inside a skipped block (`skip_block`),
    /// everywhere: then every branch holds whole declarations or whole groups.
    pub(crate) fn balanced_branches(&mut self) {
        self.floor = Some(Floor {
            open: 0,
            conditionals: 0,
        });
    }

    /// C#, in a group skipped whole (`csharp_items`): past the bytes whose tokens
    /// matter nothing there (words, numbers, operators, blanks), to the next that
    /// may: a delimiter, a quote, a comment, a directive, a string's `@` or `$`. In
    /// an interpolation hole, whose format clause a `:` opens, nothing is skipped.
    pub(crate) fn skip_plain(&mut self) {
        const PLAIN: [bool; 256] = {
            let mut plain = [true; 256];
            let mut i = 0;
            let marks = b"(){}[]\"'/#@$";
            while i < marks.len() {
                plain[marks[i] as usize] = false;
                i += 1;
            }
            plain
        };
        if !self.holes.is_empty() || self.dialect != Dialect::CSharp {
            return;
        }
        let rest = &self.cur.src[self.cur.at..];
        self.cur.at += rest
            .iter()
            .position(|b| !PLAIN[*b as usize])
            .unwrap_or(rest.len());
    }

    /// The next token; `None` at the end of the text or once confused.
    pub(crate) fn next(&mut self) -> Option<Tok> {
        let csharp = self.dialect == Dialect::CSharp;
        loop {
            let (start, b) = self.cur.next_byte(!self.holes.is_empty())?;
            self.start = start;
            return Some(match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => continue,
                // A line continuation: tree-sitter-c reads it as whitespace.
                b'\\' if !csharp && self.cur.line_break(self.cur.at) > 0 => {
                    self.cur.at += self.cur.line_break(self.cur.at);
                    continue;
                }
                b'/' if self.cur.peek(0) == Some(b'/') => {
                    self.line_comment();
                    continue;
                }
                b'/' if self.cur.peek(0) == Some(b'*') => {
                    self.cur.at += 1;
                    self.cur.block_comment(false)?;
                    self.cur.comment_read(start + 3..self.cur.at - 2);
                    continue;
                }
                // Outside literals a `#` only begins a directive (tree-sitter's
                // directive tokens match it anywhere, not only at a line's start).
                b'#' => {
                    let (branches, open) = (self.branches, self.conditionals.len());
                    self.directive()?;
                    self.directive_at = start;
                    if let Some(log) = &mut self.log {
                        log.push(start..self.cur.at);
                    }
                    if self.branches != branches {
                        self.branch_at = start;
                        self.branch_if = self.conditionals.len() > open;
                    }
                    continue;
                }
                b'"' if csharp => self.csharp_quote()?,
                b'"' => {
                    self.string()?;
                    Tok::Literal
                }
                b'\'' => {
                    self.char_literal()?;
                    Tok::Literal
                }
                b'@' if csharp => match self.cur.peek(0) {
                    Some(b'"') => {
                        self.cur.at += 1;
                        self.verbatim()?;
                        Tok::Literal
                    }
                    Some(b'$') => {
                        self.cur.at = start;
                        self.interpolated()?
                    }
                    // `@class`: an identifier, never a keyword.
                    Some(c) if is_word(c) => {
                        self.cur.at += 1;
                        self.word_end();
                        Tok::Word(start, self.cur.at)
                    }
                    _ => Tok::Punct(b),
                },
                b'$' if csharp && matches!(self.cur.peek(0), Some(b'"' | b'$' | b'@')) => {
                    self.cur.at = start;
                    self.interpolated()?
                }
                b'(' | b'[' | b'{' => {
                    self.cur.open.push(b);
                    Tok::Open(b, start)
                }
                b'}' if self
                    .holes
                    .last()
                    .is_some_and(|h| h.depth == self.cur.open.len()) =>
                {
                    self.close_hole()?
                }
                b')' | b']' | b'}' => {
                    self.cur.close(opener(b))?;
                    Tok::Close(b)
                }
                b':' if self.cur.peek(0) == Some(b':') => {
                    self.cur.at += 1;
                    Tok::Scope
                }
                // `{x:N2}`: a format clause, to the hole's `}` (tree-sitter-c-sharp
                // reads it as `[^}"]+`).
                b':' if self
                    .holes
                    .last()
                    .is_some_and(|h| h.depth == self.cur.open.len()) =>
                {
                    let end = memchr::memchr2(b'}', b'"', &self.cur.src[self.cur.at..]);
                    match end.map(|i| self.cur.at + i) {
                        Some(end) if self.cur.src[end] == b'}' => self.cur.at = end,
                        _ => return self.cur.confused(),
                    }
                    continue;
                }
                b'0'..=b'9' => {
                    self.number();
                    Tok::Word(start, self.cur.at)
                }
                b if is_word(b) || (b == b'$' && !csharp) => {
                    self.word_end();
                    if self.dialect == Dialect::Cpp
                        && self.cur.peek(0) == Some(b'"')
                        && matches!(
                            &self.cur.src[start..self.cur.at],
                            b"R" | b"LR" | b"uR" | b"UR" | b"u8R"
                        )
                    {
                        self.cur.at += 1;
                        self.raw_string()?;
                        Tok::Literal
                    } else {
                        Tok::Word(start, self.cur.at)
                    }
                }
                _ => Tok::Punct(b),
            });
        }
    }

    fn word_end(&mut self) {
        let dollar = self.dialect != Dialect::CSharp;
        self.cur.skip_while(|c| is_word(c) || (dollar && c == b'$'));
    }

    /// After a number's first digit: the rest of it, with C's and C++'s digit
    /// separators (`1'000'000`, `0xFF'FF`: a quote between digits).
    fn number(&mut self) {
        let separators = self.dialect != Dialect::CSharp;
        while let Some(c) = self.cur.peek(0) {
            let separator = separators
                && c == b'\''
                && self.cur.peek(1).is_some_and(|d| d.is_ascii_alphanumeric());
            if !(is_word(c) || c == b'.' || separator) {
                return;
            }
            self.cur.at += 1;
        }
    }

    /// After `//`: to the end of the line; in C and C++ a backslash at its end
    /// continues the comment (tree-sitter-c's comment token).
    fn line_comment(&mut self) {
        let continues = self.dialect != Dialect::CSharp;
        while let Some(i) = memchr::memchr2(b'\n', b'\\', &self.cur.src[self.cur.at..]) {
            self.cur.at += i;
            if self.cur.src[self.cur.at] == b'\n' {
                return;
            }
            self.cur.at += 1;
            if continues {
                self.cur.at =
                    (self.cur.at + self.cur.line_break(self.cur.at).max(1)).min(self.cur.src.len());
            }
        }
        self.cur.at = self.cur.src.len();
    }

    /// After `#`: to the end of the directive, as tree-sitter reads its argument
    /// (`preproc_arg`: past line continuations, to a `/*`, after which the comment
    /// and the rest of its line belong to it too). A conditional (`#if`, `#elif`,
    /// `#else`, `#endif`) is checked against the block being skipped.
    fn directive(&mut self) -> Option<()> {
        self.cur.blanks();
        let name = self.cur.at;
        self.cur
            .skip_while(|c| c.is_ascii_alphanumeric() || c == b'_');
        let name = &self.cur.src[name..self.cur.at];
        self.directives += 1;
        loop {
            let Some(i) = memchr::memchr3(b'\n', b'\\', b'/', &self.cur.src[self.cur.at..]) else {
                self.cur.at = self.cur.src.len();
                break;
            };
            self.cur.at += i;
            match self.cur.src[self.cur.at] {
                b'\n' => break,
                b'\\' => self.cur.at += 1 + self.cur.line_break(self.cur.at + 1),
                _ if self.cur.peek(1) == Some(b'*') => {
                    self.cur.at += 2;
                    self.cur.block_comment(false)?;
                }
                _ => self.cur.at += 1,
            }
        }
        match name {
            b"if" | b"ifdef" | b"ifndef" => {
                self.branches += 1;
                self.conditionals.push(self.cur.open.len());
            }
            b"elif" | b"elifdef" | b"elifndef" | b"else" | b"endif" => {
                self.branches += 1;
                let Some(&opened) = self.conditionals.last() else {
                    return self.cur.confused();
                };
                // In a skipped block, a branch ends where it began: the
                // conditional opened inside the block, with the delimiters it had.
                if let Some(floor) = self.floor {
                    if self.conditionals.len() <= floor.conditionals
                        || self.cur.open.len() != opened
                    {
                        return self.cur.confused();
                    }
                }
                if name == b"endif" {
                    self.conditionals.pop();
                }
            }
            _ => {}
        }
        Some(())
    }

    /// After `"` in C or C++: to the closing quote on the same line.
    fn string(&mut self) -> Option<()> {
        while let Some(i) = memchr::memchr3(b'"', b'\\', b'\n', &self.cur.src[self.cur.at..]) {
            self.cur.at += i + 1;
            match self.cur.src[self.cur.at - 1] {
                b'"' => return Some(()),
                b'\\' => self.cur.at = (self.cur.at + 1).min(self.cur.src.len()),
                _ => break,
            }
        }
        self.cur.confused()
    }

    /// After `'`: a character literal, one or more characters or escapes on one
    /// line (tree-sitter-c's `char_literal`; C#'s holds one).
    fn char_literal(&mut self) -> Option<()> {
        let first = self.cur.at;
        while let Some(c) = self.cur.peek(0) {
            self.cur.at += 1;
            match c {
                b'\\' => self.cur.at += 1,
                b'\'' if self.cur.at - 1 > first => return Some(()),
                b'\'' | b'\n' => break,
                _ => {}
            }
        }
        self.cur.confused()
    }

    /// After `R"` (or `LR"`, `u8R"`, …): to the `)delimiter"` that closes it.
    fn raw_string(&mut self) -> Option<()> {
        let delimiter = self.cur.at;
        let open = self.cur.src[delimiter..]
            .iter()
            .take(17)
            .position(|&c| c == b'(')
            .map(|i| delimiter + i);
        let Some(open) = open else {
            return self.cur.confused();
        };
        let mut close = Vec::with_capacity(open - delimiter + 2);
        close.push(b')');
        close.extend_from_slice(&self.cur.src[delimiter..open]);
        close.push(b'"');
        self.cur.at = open + 1;
        self.cur.past(&close)
    }

    /// After `"` in C#: a string, or a raw string (three quotes or more); `""` is
    /// an empty string.
    fn csharp_quote(&mut self) -> Option<Tok> {
        let quotes = 1 + self.cur.run(b'"', self.cur.at);
        if quotes < 3 {
            return if quotes == 2 {
                self.cur.at += 1;
                Some(Tok::Literal)
            } else {
                self.string().map(|()| Tok::Literal)
            };
        }
        self.cur.at += quotes - 1;
        // Ends at a run of exactly as many quotes (tree-sitter-c-sharp's scanner:
        // a longer or shorter run is text).
        loop {
            let i = memchr::memchr(b'"', &self.cur.src[self.cur.at..]);
            let Some(i) = i else {
                return self.cur.confused();
            };
            self.cur.at += i;
            let run = self.cur.run(b'"', self.cur.at);
            self.cur.at += run;
            if run == quotes {
                return Some(Tok::Literal);
            }
        }
    }

    /// After `@"`: a verbatim string, `""` a quote in it.
    fn verbatim(&mut self) -> Option<()> {
        while let Some(i) = memchr::memchr(b'"', &self.cur.src[self.cur.at..]) {
            self.cur.at += i + 1;
            if self.cur.peek(0) != Some(b'"') {
                return Some(());
            }
            self.cur.at += 1;
        }
        self.cur.confused()
    }

    /// At a C# interpolated string's first `$` or `@`: its text up to its end or its
    /// first hole.
    fn interpolated(&mut self) -> Option<Tok> {
        let verbatim_first = self.cur.peek(0) == Some(b'@');
        if verbatim_first {
            self.cur.at += 1;
        }
        let dollars = self.cur.run(b'$', self.cur.at);
        self.cur.at += dollars;
        let verbatim = verbatim_first || self.cur.peek(0) == Some(b'@');
        if !verbatim_first && verbatim {
            self.cur.at += 1;
        }
        let quotes = self.cur.run(b'"', self.cur.at);
        self.cur.at += quotes;
        let text = match (verbatim, quotes) {
            (_, 0) => return self.cur.confused(),
            // `$""`: empty.
            (false, 2) => return Some(Tok::Literal),
            (false, 1) if dollars == 1 => Text::Regular,
            (true, 1) if dollars == 1 => Text::Verbatim,
            (false, 3..) => Text::Raw { dollars, quotes },
            _ => return self.cur.confused(),
        };
        self.text(text)
    }

    /// Reads the text of an interpolated string on: to its end (`Literal`) or into
    /// its next hole (also `Literal`; the hole's tokens follow, and the `}` that
    /// closes it reads the text on).
    fn text(&mut self, text: Text) -> Option<Tok> {
        while let Some(c) = self.cur.peek(0) {
            match (text, c) {
                (Text::Regular, b'\\') => self.cur.at += 2,
                (Text::Regular, b'\n') => break,
                (Text::Regular, b'"') => {
                    self.cur.at += 1;
                    return Some(Tok::Literal);
                }
                (Text::Verbatim, b'"') => {
                    self.cur.at += 1;
                    if self.cur.peek(0) != Some(b'"') {
                        return Some(Tok::Literal);
                    }
                    self.cur.at += 1;
                }
                (Text::Regular | Text::Verbatim, b'{' | b'}') if self.cur.peek(1) == Some(c) => {
                    self.cur.at += 2;
                }
                (Text::Regular | Text::Verbatim, b'{') => {
                    self.cur.at += 1;
                    return self.open_hole(text);
                }
                (Text::Regular | Text::Verbatim, b'}') => break,
                (Text::Raw { quotes, .. }, b'"') => {
                    let run = self.cur.run(b'"', self.cur.at);
                    self.cur.at += run;
                    if run == quotes {
                        return Some(Tok::Literal);
                    }
                }
                (Text::Raw { dollars, .. }, b'{') => {
                    // Fewer braces than dollars are text; the last `dollars` of a
                    // longer run open the hole.
                    let run = self.cur.run(b'{', self.cur.at);
                    self.cur.at += run;
                    if run >= 2 * dollars {
                        break;
                    }
                    if run >= dollars {
                        return self.open_hole(text);
                    }
                }
                _ => self.cur.at += 1,
            }
        }
        self.cur.confused()
    }

    fn open_hole(&mut self, text: Text) -> Option<Tok> {
        self.holes.push(Hole {
            text,
            depth: self.cur.open.len(),
        });
        Some(Tok::Literal)
    }

    /// At the `}` that closes the innermost hole (`dollars` of them in a raw
    /// string): the string's text on.
    fn close_hole(&mut self) -> Option<Tok> {
        let hole = self.holes.pop()?;
        if let Text::Raw { dollars, .. } = hole.text {
            if self.cur.run(b'}', self.cur.at - 1) < dollars {
                return self.cur.confused();
            }
            self.cur.at += dollars - 1;
        }
        self.text(hole.text)
    }
}

/// Keeps a skipped C++ block that holds statements a body: writes `;` (an empty
/// statement) at the empty range [`skippable`] puts at its first byte. Emptied, the
/// body of `int f() const { return n; };` would read as a member's initializer list
/// (`int f() const {};`), as tree-sitter-cpp reads a body that is empty or holds
/// only expressions; a block without statements is left so, and reads the same.
pub(super) fn mark(text: &mut [u8], gap: &Range<usize>) {
    if gap.is_empty() {
        text[gap.start] = b';';
    }
}

/// What the declaration read so far at a level announces for its next `{`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Pending {
    #[default]
    None,
    /// A type's body (walked), with the `<…>` nesting of its header's template
    /// arguments, and whether its base list has begun (`: public B`, where a
    /// `MACRO(x)` names a base, never a function).
    Type { angle: u32, bases: bool, head: Head },
    /// A namespace's body (walked).
    Namespace,
}

/// How far a C++ type's header has gone without bases: tree-sitter-cpp reads
/// `class GTEST_API_ A {…}` and `class GTEST_1_TUPLE_(T) {…}` (a macro before the
/// name, or one in its place) as a function whose body is the member list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Head {
    /// Right after the keyword.
    #[default]
    Keyword,
    /// One word after it.
    Name,
    /// Two words (the second no `final`), or a word and its parentheses.
    Misread,
    Other,
}

/// One entered block (or the file): its declaration so far.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// Parentheses and brackets open in it.
    depth: u32,
    pending: Pending,
    /// C#: `where` was read, so `class` and `struct` are constraints.
    constraint: bool,
    /// The last two tokens, last first.
    prev: [Tok; 2],
    /// A type's member list tree-sitter-cpp reads as a function's body
    /// ([`Head::Misread`]): a member's body there skips nothing in the file (read
    /// as statements, such members fail beside their bodies, skipped or not).
    misread: bool,
}

impl Default for Level {
    fn default() -> Level {
        Level {
            depth: 0,
            pending: Pending::None,
            constraint: false,
            prev: [Tok::Punct(b';'); 2],
            misread: false,
        }
    }
}

impl Level {
    /// A declaration ended (`;`, a skipped body): the next one starts afresh.
    fn end_declaration(&mut self) {
        self.pending = Pending::None;
        self.constraint = false;
    }
}

struct Scan<'a> {
    lex: Lexer<'a>,
    /// The blocks entered, innermost last; the file first.
    levels: Vec<Level>,
    /// A member's body stands in a list tree-sitter-cpp misreads.
    misread: bool,
}

impl Scan<'_> {
    fn token(&mut self, tok: Tok) -> Option<()> {
        let mut level = *self.levels.last()?;
        if let Pending::Type { head, .. } = &mut level.pending
            && level.depth == 0
            && !matches!(tok, Tok::Open(b'{', _) | Tok::Close(_))
        {
            *head = self.head(*head, tok, level.prev[0]);
        }
        match tok {
            Tok::Open(b'{', open) if level.depth > 0 => {
                self.skip_block(open)?;
            }
            Tok::Open(b'{', open) => {
                let misread = matches!(
                    level.pending,
                    Pending::Type {
                        angle: 0,
                        head: Head::Misread,
                        ..
                    }
                );
                let linkage = level.prev[0] == Tok::Literal
                    && self.lex.word(level.prev[1]) == Some(b"extern");
                match level.pending {
                    // Among a type header's template arguments: entered, and the
                    // header still announces the body.
                    Pending::Type { angle: 1.., .. } => {}
                    Pending::Type { .. } | Pending::Namespace => level.end_declaration(),
                    Pending::None if linkage => {}
                    Pending::None => {
                        if level.misread {
                            self.misread = true;
                            return None;
                        }
                        self.skip_block(open)?;
                        level.end_declaration();
                        level.prev = [Tok::Close(b'}'), level.prev[0]];
                        *self.levels.last_mut()? = level;
                        return Some(());
                    }
                }
                level.prev = [Tok::Close(b'}'), level.prev[0]];
                *self.levels.last_mut()? = level;
                self.levels.push(Level {
                    misread,
                    ..Level::default()
                });
                return Some(());
            }
            Tok::Open(b, _) => {
                if b == b'(' && level.depth == 0 && self.declarator(&level) {
                    level.pending = Pending::None;
                }
                level.depth += 1;
            }
            Tok::Close(_) if level.depth == 0 => {
                // The lexer refuses a closer without its opener: this is the `}` of
                // the block the level is.
                self.levels.pop();
                if self.levels.is_empty() {
                    return self.lex.cur.confused();
                }
                return Some(());
            }
            Tok::Close(_) => level.depth -= 1,
            _ if level.depth > 0 => {}
            Tok::Punct(b';') => level.end_declaration(),
            Tok::Punct(b'=') => {
                if matches!(
                    level.pending,
                    Pending::Type { angle: 0, .. } | Pending::Namespace
                ) {
                    level.pending = Pending::None;
                }
            }
            Tok::Punct(b @ (b'<' | b'>' | b':')) => {
                if let Pending::Type { angle, bases, .. } = &mut level.pending {
                    match b {
                        b'<' => *angle += 1,
                        b'>' => *angle = angle.saturating_sub(1),
                        _ => *bases |= *angle == 0,
                    }
                }
            }
            // `a.struct`: a member, not a keyword.
            Tok::Word(..) if level.prev[0] != Tok::Punct(b'.') => {
                let word = self.lex.word(tok).unwrap_or_default();
                match (self.lex.dialect, word) {
                    (Dialect::CSharp, b"where") => level.constraint = true,
                    (_, b"namespace") if self.lex.dialect != Dialect::C => {
                        level.pending = Pending::Namespace;
                    }
                    (Dialect::Cpp, b"operator") => level.pending = Pending::None,
                    _ if self.type_keyword(word) && !level.constraint => {
                        level.pending = Pending::Type {
                            angle: 0,
                            bases: false,
                            head: Head::Keyword,
                        };
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        level.prev = [tok, level.prev[0]];
        *self.levels.last_mut()? = level;
        Some(())
    }

    /// How a C++ type's header reads with `tok` (after `prev`) at its level.
    fn head(&self, head: Head, tok: Tok, prev: Tok) -> Head {
        if self.lex.dialect != Dialect::Cpp {
            return Head::Other;
        }
        match (head, tok) {
            (Head::Keyword, Tok::Word(..)) => Head::Name,
            (Head::Name, Tok::Word(..)) if self.lex.word(tok) != Some(b"final") => Head::Misread,
            (Head::Name, Tok::Open(b'(', _))
                if !self.lex.word(prev).is_some_and(is_attribute_word) =>
            {
                Head::Misread
            }
            _ => Head::Other,
        }
    }

    /// Whether `word` begins a type whose body the walker enters.
    fn type_keyword(&self, word: &[u8]) -> bool {
        match self.lex.dialect {
            Dialect::C => matches!(word, b"struct" | b"union" | b"enum"),
            Dialect::Cpp => matches!(word, b"struct" | b"union" | b"enum" | b"class"),
            Dialect::CSharp => {
                matches!(
                    word,
                    b"class" | b"struct" | b"interface" | b"enum" | b"record"
                )
            }
        }
    }

    /// Whether the `(` about to be read begins a function declarator: a name
    /// (not an attribute or operator word like `__attribute__` or `decltype`, not
    /// the type keyword) after a type's name, a `*`, `&`, `>`, `~` or `::`, before
    /// any base list.
    fn declarator(&self, level: &Level) -> bool {
        let Pending::Type {
            angle: 0,
            bases: false,
            ..
        } = level.pending
        else {
            return false;
        };
        let [name, before] = level.prev;
        let Some(name) = self.lex.word(name) else {
            return false;
        };
        if self.type_keyword(name) || is_attribute_word(name) {
            return false;
        }
        match before {
            Tok::Word(..) => !self.lex.word(before).is_some_and(|w| self.type_keyword(w)),
            Tok::Punct(b'*' | b'&' | b'>' | b'~') | Tok::Scope => true,
            _ => false,
        }
    }

    /// Skips the interior of the `{` just read at `open`, up to its matching `}`.
    fn skip_block(&mut self, open: usize) -> Option<()> {
        let floor = Floor {
            open: self.lex.cur.open.len(),
            conditionals: self.lex.conditionals.len(),
        };
        self.lex.floor = Some(floor);
        self.lex.cur.record = false;
        let mut statements = false;
        loop {
            let tok = self.lex.next()?;
            if self.lex.cur.open.len() < floor.open {
                break;
            }
            statements |= self.lex.cur.open.len() == floor.open
                && (tok == Tok::Punct(b';')
                    || self.lex.word(tok).is_some_and(|w| {
                        matches!(w, b"if" | b"for" | b"while" | b"do" | b"switch" | b"try")
                    }));
        }
        // A conditional opened inside the block and still open past its end.
        if self.lex.conditionals.len() != floor.conditionals {
            return self.lex.cur.confused();
        }
        self.lex.floor = None;
        self.lex.cur.record = true;
        let close = self.lex.cur.at - 1;
        let mut from = open + 1;
        if statements && self.lex.dialect == Dialect::Cpp {
            // Where [`mark`] writes the `;` that keeps the block a body.
            self.lex.cur.skip.push(from..from);
            from += 1;
        }
        if close > from {
            self.lex.cur.skip.push(from..close);
        }
        Some(())
    }
}

/// Words followed by parentheses that are no declarator's name: attributes,
/// alignment, and type operators in a type's header.
fn is_attribute_word(word: &[u8]) -> bool {
    matches!(
        word,
        b"__attribute__"
            | b"__attribute"
            | b"__declspec"
            | b"alignas"
            | b"_Alignas"
            | b"decltype"
            | b"sizeof"
            | b"alignof"
            | b"_Alignof"
            | b"typeof"
            | b"__typeof__"
            | b"noexcept"
            | b"throw"
            | b"requires"
    )
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    fn skipped(dialect: Dialect, src: &str) -> Vec<&str> {
        crate::tests::skipped(|text| skippable(dialect, text), src)
    }

    #[test]
    fn c_bodies_and_initializers_are_skipped_and_types_walked() {
        let src = r#"
/* The license, { and all. */
struct point { int x; int y; };
typedef struct { union { int i; float f; } u; enum { A, B } e; } value_t;
static const struct ops my_ops = { .open = f, .close = g };
struct point *make(int x) { struct point p = { x, 0 }; return 0; }
struct __attribute__((packed)) wire { char c; };
struct point origin(void) __attribute__((pure)) { return (struct point){ 0 }; }
int old(a, b) int a; char *b; { return a; }
int table[] = { 1, 2 };
"#;
        expect![[r#"
            [
                "The license, { and all. ",
                " .open = f, .close = g ",
                " struct point p = { x, 0 }; return 0; ",
                " return (struct point){ 0 }; ",
                " return a; ",
                " 1, 2 ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::C, src));
    }

    #[test]
    fn cpp_namespaces_classes_and_templates_are_walked_and_bodies_skipped() {
        let src = r#"
namespace a::b { inline namespace v1 { namespace { int f() { return 1; } } } }
namespace fs = std::filesystem;
extern "C" { int c_api(void) { return 0; } }
extern "C" int single(void) { return 0; }
template <class T> T max(T a, T b) { return a > b ? a : b; }
template <class T> struct Box : Base<T{}> { T get() const { return t; } };
class [[nodiscard]] Slice final : public Base, public QT_PREPEND_NAMESPACE(Obj) {
  Slice() : data_{nullptr}, size_(0) {}
  bool operator==(const Slice& o) const { return true; }
  enum class Mode : int { kFast, kSafe };
  auto cmp = [](int x) { return x; };
};
template <class T> Slice::Slice(T t) {}
using Anon = struct { int a; };
auto lambda = [] { struct Local { int x; }; };
"#;
        expect![[r#"
            [
                "",
                "return 1; ",
                "",
                "return 0; ",
                "",
                "return 0; ",
                "",
                "return a > b ? a : b; ",
                "",
                "return t; ",
                "nullptr",
                "",
                "return true; ",
                "",
                "return x; ",
                "",
                "struct Local { int x; }; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::Cpp, src));
    }

    #[test]
    fn a_cpp_block_of_statements_stays_a_body() {
        use crate::{
            Lang,
            fast_check::outline,
            skeleton::Skeleton,
            symbols::{Parse, extract_with},
        };
        // tree-sitter-cpp reads `f() const {…};` as a method only for the
        // statements in its body; without any it is a field initialized by a list.
        let src = "struct A {\n  int f() const { return n; };\n  int g() { if (n) { h(); } };\n  int e() { /* none */ };\n  int l() { 1 };\n  int n{2};\n};\n";
        let skeleton = Skeleton::of(Lang::Cpp, src.as_bytes()).expect("a skeleton");
        let text = String::from_utf8(skeleton.text).unwrap();
        assert_eq!(
            text,
            "struct A {\n  int f() const {;          };\n  int g() {;                };\n  int e() {            };\n  int l() {   };\n  int n{ };\n};\n"
        );
        let whole = outline(&extract_with(Lang::Cpp, src.as_bytes(), Parse::Whole));
        let fast = outline(&extract_with(Lang::Cpp, src.as_bytes(), Parse::Skeleton));
        assert_eq!(fast, whole);
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        use crate::{Lang, tests::skeleton_reads_as_whole};
        for (lang, src) in [
            (
                Lang::C,
                r#"#define OPEN {
#define BODY(x) do { \
    x; } while (0)
struct point { int x; int y; };
typedef struct { union { int i; float f; } u; } value_t;
static const struct ops { int (*open)(void); } my_ops = { .open = 0 };
struct point *make(int x) { struct point p = { x, 0 }; return 0; }
int old(a, b) int a; char *b; { return a; }
int big = 1'000;
void chars(void) { f('}', '\'', "}\"{"); }
int in_c(void) {
#if A
  if (a) { g(); }
#else
  h();
#endif
  return 0;
}
"#,
            ),
            (
                Lang::Cpp,
                r#"namespace a::b { inline namespace v1 { int f() { return 1; } } }
extern "C" { int c_api(void) { return 0; } }
template <class T> T max(T a, T b) { return a > b ? a : b; }
template <class T> struct Box { T get() const { return t; }; T t{}; };
class Slice final : public Base {
 public:
  Slice() : data_{nullptr}, size_(0) {}
  bool operator==(const Slice& o) const { if (size_) { return true; } return false; };
  enum class Mode : int { kFast, kSafe };
  int e() { /* none */ };
 private:
  const char* data_;
  int size_;
};
const char* raw = R"x(a )" } ")x";
auto lambda = [](int x) { return x; };
"#,
            ),
            (
                Lang::CSharp,
                r#"namespace N.M
{
    #region Things
    public record Pair(int A, int B) { public int Sum() => A + B; }
    public readonly record struct P(int X);
    interface I<in T> where T : class { int Count { get; } }
    class G<T> where T : struct
    {
        string a = @"verbatim "" } {";
        string b = $"{x}}}{{ {(a ? "}" : "{")} {y:N2}";
        string c = $$"""{ {{x}} }}} { """;
        public U Get<U>() where U : class { return default; }
        public int Prop { get { return 1; } set { } }
        public string Name => x switch { 1 => "a", _ => "b" };
        enum Kind : byte { A = 1, B }
    }
    #endregion
}
"#,
            ),
        ] {
            skeleton_reads_as_whole(lang, src, 1, 8);
        }
    }

    #[test]
    fn c_and_cpp_literals_hide_their_braces() {
        let src = r#"
int big = 1'000'000, hex = 0xFF'FF;
void chars() { f('}', '\'', '\\', L'{', u8'x', 'ab'); }
const char *raw = R"x(a )" } ")x";
void raws() { g(u8R"(})", LR"--()x")--"); }
void strings() { h("}\"{", "a\
}"); }
"#;
        expect![[r#"
            [
                "",
                "f('}', '\\'', '\\\\', L'{', u8'x', 'ab'); ",
                "",
                "g(u8R\"(})\", LR\"--()x\")--\"); ",
                "",
                "h(\"}\\\"{\", \"a\\\n}\"); ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::Cpp, src));
        // tree-sitter-c has no raw strings: `R"x(` is a name and a string.
        assert_eq!(
            skipped(Dialect::C, "void f() { g(R\"(}\"); }"),
            vec![" g(R\"(}\"); "]
        );
    }

    #[test]
    fn directives_are_opaque_to_their_end_and_comments_continue() {
        let src = "#define OPEN {\n#define BODY(x) do { \\\n    x; } while (0) /* a\n } */ \n\
                   struct s { int a; };\n\
                   // a comment's { continued \\\n } here\n\
                   int f(void) \\\n{ return 1; }\n\
                   #pragma once /* { */\n";
        expect![[r#"
            [
                " return 1; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::C, src));
    }

    #[test]
    fn conditional_branches_inside_skipped_blocks_must_balance() {
        // Each branch closes what it opens: the block is skipped.
        let balanced = "int f(void) {\n#ifdef A\n  if (a) { x(); }\n#elif B\n  y();\n#else\n  z();\n#endif\n}\n";
        assert_eq!(skippable(Dialect::C, balanced.as_bytes()).len(), 1);
        // A header's `extern "C" {` in one conditional, its `}` in another: entered,
        // so nothing to check; the body inside is skipped.
        let header = "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint g(void) { return 0; }\n#ifdef __cplusplus\n}\n#endif\n";
        assert_eq!(skipped(Dialect::C, header), vec![" return 0; "]);
        for src in [
            // Two headers for one body: unbalanced, and so the file.
            "#ifdef A\nint f(int a) {\n#else\nint f(int a, int b) {\n#endif\n  return 0;\n}\n",
            // Balanced in the file, not within the branches of the skipped block.
            "void f() {\n#if A\n  if (a) {\n#else\n  if (b) {\n#endif\n  }\n}\nvoid g() {\n#if A\n}\n#endif\n}\n",
            // A block that begins in one branch and ends in another.
            "#if A\nvoid f() {\n#else\nvoid g() {\n#endif\n}\n",
            "void f() {\n#if A\n}\nvoid g() {\n#endif\n}\n",
            // Parentheses count too.
            "void f() {\n#if A\n  g(a,\n#else\n  g(b,\n#endif\n  c);\n}\n",
            "#endif\nint x;\n",
        ] {
            assert_eq!(skipped(Dialect::C, src), Vec::<&str>::new(), "{src}");
        }
    }

    #[test]
    fn csharp_strings_hide_their_braces_and_holes_are_code() {
        let src = r#"
class C {
  string a = @"verbatim "" } {";
  void M() { var s = $"{x}}}{{ {(a ? "}" : "{")} {y:N2} {new { A = 1 }}"; }
  void N() { var v = $@"{{ "" {x} }}" + @$"{y}"; }
  void R() { var r = """ a "" } """; var q = """"x""" } """"; }
  void I() { var i = $$"""{ {{x}} }}} { """; var c = '}' + '\'' + '"'; }
  void J() { var n = $"{$"{"}"}"}"; }
}
"#;
        expect![[r#"
            [
                " var s = $\"{x}}}{{ {(a ? \"}\" : \"{\")} {y:N2} {new { A = 1 }}\"; ",
                " var v = $@\"{{ \"\" {x} }}\" + @$\"{y}\"; ",
                " var r = \"\"\" a \"\" } \"\"\"; var q = \"\"\"\"x\"\"\" } \"\"\"\"; ",
                " var i = $$\"\"\"{ {{x}} }}} { \"\"\"; var c = '}' + '\\'' + '\"'; ",
                " var n = $\"{$\"{\"}\"}\"}\"; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::CSharp, src));
    }

    #[test]
    fn csharp_types_are_walked_and_members_skipped() {
        let src = r#"
using System;
[assembly: Attr(new[] { 1 })]
Console.WriteLine("top-level");
if (args.Length > 0) { Run(); }
void Local() { }
namespace N.M {
  #region Things { in a region
  public record Pair(int A, int B) : Base(A) { public int Sum() => A + B; }
  public readonly record struct P(int X);
  interface I<in T> where T : class { int Count { get; } }
  class G<T>(int x) : B<T>(x) where T : struct, new() {
    public T Get<U>() where U : class { return default; }
    public int Prop { get { return 1; } set { } } = 2;
    public string Name => x switch { 1 => "a", _ => "b" };
    public event EventHandler E { add { } remove { } }
    enum Kind : byte { A = 1, B }
  }
  #endregion
}
"#;
        expect![[r#"
            [
                " 1 ",
                " Run(); ",
                " ",
                " get; ",
                " return default; ",
                " get { return 1; } set { } ",
                " 1 => \"a\", _ => \"b\" ",
                " add { } remove { } ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Dialect::CSharp, src));
    }

    /// The lexer follows nearly every file of the conformance corpora
    /// (`daemon/benches/fetch-conformance.sh`: libuv, leveldb and fmt, pythonnet),
    /// or the first index is slow again; `fast_check` compares what it skips with
    /// whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        for (dir, dialect, extensions) in [
            ("c", Dialect::C, &["c"][..]),
            ("c", Dialect::Cpp, &["h"][..]),
            ("cpp", Dialect::Cpp, &["cc", "h"][..]),
            ("csharp", Dialect::CSharp, &["cs"][..]),
        ] {
            crate::tests::follows_real_code(dir, extensions, 40, 2, |src| {
                scan(dialect, src).is_some()
            });
        }
    }

    /// tree-sitter-cpp reads a class headed by a macro and a name, or by a macro's
    /// call, as a function, and fails on its members with bodies after an access
    /// label: the file gets a whole parse, not a skeleton's thrown away after it.
    /// Lookalikes keep theirs.
    #[test]
    fn a_member_body_in_a_class_read_as_a_function_skips_nothing() {
        for src in [
            "class GTEST_API_ A {\n public:\n  void f() { g(); }\n};\n",
            "class GTEST_1_TUPLE_(T) {\n public:\n  tuple() : f0_() {}\n  T0 f0_;\n};\n",
        ] {
            assert!(crate::syntax_error(crate::Lang::Cpp, src.as_bytes()).is_some());
            assert_eq!(skipped(Dialect::Cpp, src), Vec::<&str>::new(), "{src}");
        }
        for src in [
            "class A final {\n  void f() { g(); }\n};\n",
            "class __declspec(dllexport) A {\n  void f() { g(); }\n};\n",
            "class API A : public B {\n  void f() { g(); }\n};\n",
            "struct EXPORT S {\n  struct I { void f() { g(); } };\n};\n",
        ] {
            assert_eq!(skipped(Dialect::Cpp, src), ["", "g(); "], "{src}");
        }
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        for (dialect, src) in [
            (Dialect::C, "void f() { g(\"}\n\"); }"),
            (Dialect::C, "void f() { g('\n'); }"),
            (Dialect::C, "void f() { g(''); }"),
            (Dialect::C, "void f() { /* } "),
            (Dialect::C, "void f() { } }"),
            (Dialect::C, "void f() { g(} ) }"),
            (Dialect::C, "void f() {\n#define X /* \n"),
            (Dialect::Cpp, "void f() { g(R\"x(})\"); }"),
            (Dialect::CSharp, "class C { string s = $\"{x\"; }"),
            (Dialect::CSharp, "class C { void M() { var s = $\"}\"; } }"),
            (Dialect::CSharp, "class C { string s = \"\"\" } \"\"; }"),
            (
                Dialect::CSharp,
                "class C { string s = $$\"\"\"{{{{x}}\"\"\"; }",
            ),
            (Dialect::CSharp, "class C { string s = $\"{x:}\"\"; }"),
        ] {
            assert_eq!(skipped(dialect, src), Vec::<&str>::new(), "{src}");
        }
    }
}
