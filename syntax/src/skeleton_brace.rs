//! The skeleton lexer of the brace languages: TypeScript, TSX, JavaScript, Java,
//! Kotlin, Swift and Scala. It finds the brace blocks the symbol walker never
//! enters, so tree-sitter parses them as empty blocks (`skeleton.rs` blanks them or
//! leaves them out). A language is a dialect here: its strings, and the keywords
//! that announce the blocks the walker enters (`Scan::declares`).
//!
//! The walker enters few containers in these languages: the file, type bodies (Java's
//! and Kotlin's classes, interfaces, enums, records, objects; Swift's classes,
//! structs, enums, protocols, extensions and actors; Scala's classes, objects,
//! traits, enums, givens and extensions, and its package blocks; TypeScript's
//! classes, interfaces and enums, whose members it reads but never enters) and
//! TypeScript's namespace and bare blocks. Everything else in braces (function, method and
//! constructor bodies, initializer blocks, lambdas, object literals, array
//! initializers, annotation arguments, type literals) holds no symbol, and it is most
//! of a file's bytes and nearly all of its syntax nodes. The text of the block
//! comments outside them (Javadoc, KDoc, JSDoc: much of a documented library) is
//! skipped too; the comments stay comments.
//!
//! The rule is one-sided: a `{` is skipped only where the lexer is sure the walker
//! never looks inside; anywhere it is unsure it enters the block, which is always
//! correct (and only slower). Where the lexer cannot follow the text at all (an
//! unterminated string or comment, unbalanced braces, a `/` it cannot tell from a
//! regular expression, JSX) it skips nothing and the file gets a whole parse. And
//! `symbols::extract_with` still parses the whole file where the skeleton's tree
//! has a syntax error next to a skipped range.
//!
//! The lexer knows each language's strings: JavaScript's template literals with
//! `${…}` nested to any depth, regular expression literals (told from division by
//! the token before, as the ECMAScript grammar does: after an operator, an opening
//! delimiter, a keyword like `return`, the `)` of `if (…)`), Java's text blocks and
//! character literals, Kotlin's raw strings, `${…}` templates, character literals
//! and nested comments; Swift's strings with `\(…)` holes, multi-line strings and
//! raw strings (`#"…"#`; one with a hole, `\#(…)`, gives up on the file) and nested
//! comments; Scala's strings, interpolated ones (a name right before the quote:
//! `s"…${x}…"`, `$$` a dollar) with their holes, multi-line strings, whose
//! backslashes escape nothing, character literals (a symbol literal or a quote,
//! `'sym`, `'{…}`, gives up on the file), nested comments and XML literals (given up
//! on, as JSX). Scala's `match`, `for` and `catch` blocks are read through, never
//! emptied: without their cases or generators they would not parse. An indented
//! body (Scala 3) has no braces, and is parsed.

use std::ops::Range;

use crate::{
    bytes::{memchr, utf8_len},
    lex::Cursor,
};

/// Byte ranges inside `src` (a file in `dialect`) that need no syntax tree: the
/// interiors of the brace blocks the walker never enters, in order, disjoint. Empty
/// where the lexer cannot follow the text.
pub(super) fn skippable(dialect: Dialect, src: &[u8]) -> Vec<Range<usize>> {
    scan(dialect, src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
pub(super) fn scan(dialect: Dialect, src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut scanner = Scan {
        lex: Lexer::new(src, dialect),
    };
    match scanner.frame(Frame::Top) {
        Some(()) if !scanner.lex.cur.confused => Some(scanner.lex.cur.skip),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    /// TypeScript, TSX or JavaScript; `jsx` where JSX may appear (`.tsx`, `.js`,
    /// `.jsx`): the lexer does not read JSX text, so it gives up on the file there.
    Script {
        jsx: bool,
    },
    Java,
    Kotlin,
    Swift,
    Scala,
}

/// One token, as far as finding bodies goes (and, in `java_items`, declarations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// An identifier, keyword or number: `start..end`.
    Word(usize, usize),
    /// An opening delimiter at this offset.
    Open(u8, usize),
    Close(u8),
    /// `=>` (`b'='`) or `::` (`b':'`), by its first byte.
    Joint(u8),
    Punct(u8),
    /// A string, character, template or regular expression literal.
    Literal,
    /// The `${` inside a template or Kotlin string: an expression starts.
    Interpolation,
}

impl Tok {
    /// A word's text in `src`; nothing for any other token.
    pub(super) fn text(self, src: &[u8]) -> &[u8] {
        match self {
            Tok::Word(s, e) => &src[s..e],
            _ => b"",
        }
    }
}

/// For the readers on these tokens (`java_items`, `scala_items`): skips the rest of
/// a group whose opener (`(`, `[` or `{`) was taken, through its closer, taking
/// tokens from `next`; `open` holds the delimiters still open (reused). `None` where
/// the text ends first or a closer pairs with another opener.
pub(super) fn skip_group(
    opener: u8,
    open: &mut Vec<u8>,
    mut next: impl FnMut() -> Option<Tok>,
) -> Option<()> {
    open.clear();
    open.push(opener);
    loop {
        match next()? {
            Tok::Open(b, _) => open.push(b),
            Tok::Close(c) => {
                let o = open.pop()?;
                if !matches!((o, c), (b'(', b')') | (b'[', b']') | (b'{', b'}')) {
                    return None;
                }
                if open.is_empty() {
                    return Some(());
                }
            }
            _ => {}
        }
    }
}

/// A string kind whose `${…}` the lexer is inside of.
#[derive(Clone, Copy, Debug)]
enum Quoted {
    /// A JavaScript template literal.
    Template,
    /// A Kotlin `"…"` string.
    String,
    /// A Kotlin `"""…"""` raw string.
    Raw,
    /// A Swift `"…"` string, whose holes are `\(…)`.
    SwiftLine,
    /// A Swift `"""…"""` string.
    SwiftMulti,
    /// A Scala `"…"` string; `holes` where an interpolator names it (`s"…${x}"`).
    ScalaLine { holes: bool },
    /// A Scala `"""…"""` string, whose backslashes escape nothing.
    ScalaMulti { holes: bool },
}

impl Quoted {
    /// The delimiter a hole opens and closes with: `${…}` or Swift's `\(…)`.
    fn hole(self) -> (u8, u8) {
        match self {
            Quoted::SwiftLine | Quoted::SwiftMulti => (b'(', b')'),
            _ => (b'{', b'}'),
        }
    }
}

pub(super) struct Lexer<'a> {
    pub(super) cur: Cursor<'a>,
    dialect: Dialect,
    /// Where the token just read starts.
    pub(super) start: usize,
    /// The token before the one being read (for regular expressions and JSX).
    prev: Option<Tok>,
    /// For each open delimiter: whether the `/` after its closer starts a regular
    /// expression (the `)` of `if (…)`, the `}` of a block).
    opened: Vec<bool>,
    /// The interpolations the lexer is inside of, innermost last, with the number of
    /// braces open inside each.
    quoted: Vec<(Quoted, u32)>,
    /// Whether a `/` after the closer just read starts a regular expression.
    closed_regex_after: bool,
    /// Newlines were crossed before the current token.
    pub(super) newline: bool,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a [u8], dialect: Dialect) -> Lexer<'a> {
        let mut lex = Lexer {
            cur: Cursor::new(src),
            dialect,
            start: 0,
            prev: None,
            opened: Vec::new(),
            quoted: Vec::new(),
            closed_regex_after: false,
            newline: false,
        };
        // A `#!` line (scripts) is not code.
        if src.starts_with(b"#!") {
            lex.cur.line_end();
        }
        lex
    }

    pub(super) fn word(&self, tok: Tok) -> Option<&'a [u8]> {
        match tok {
            Tok::Word(s, e) => Some(self.cur.text(s, e)),
            _ => None,
        }
    }

    /// Whether the token last read is inside a template's `${…}`.
    pub(super) fn in_template(&self) -> bool {
        !self.quoted.is_empty()
    }

    /// Whether the text could not be followed (`next` answered `None` before the
    /// end).
    pub(super) fn is_confused(&self) -> bool {
        self.cur.confused
    }

    /// The next token; `None` at the end of the text or once confused.
    pub(super) fn next(&mut self) -> Option<Tok> {
        if self.cur.confused {
            return None;
        }
        self.newline = false;
        let tok = self.token();
        let tok = match tok {
            Some(tok) => tok,
            // The text ends inside a delimiter or an interpolation.
            None if !self.opened.is_empty() || !self.quoted.is_empty() => {
                return self.cur.confused();
            }
            None => return None,
        };
        self.prev = Some(tok);
        Some(tok)
    }

    fn token(&mut self) -> Option<Tok> {
        loop {
            let b = self.cur.peek(0)?;
            let start = self.cur.at;
            self.start = start;
            self.cur.at += 1;
            return Some(match b {
                b'\n' => {
                    self.newline = true;
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' => continue,
                b'/' if self.cur.peek(0) == Some(b'/') => {
                    self.cur.line_end();
                    continue;
                }
                b'/' if self.cur.peek(0) == Some(b'*') => {
                    self.cur.at += 1;
                    // Kotlin's, Swift's and Scala's comments nest.
                    let nests = matches!(
                        self.dialect,
                        Dialect::Kotlin | Dialect::Swift | Dialect::Scala
                    );
                    self.cur.block_comment(nests)?;
                    self.cur.comment_read(start + 3..self.cur.at - 2);
                    continue;
                }
                b'/' if self.dialect_is_script() && self.expression_starts() => {
                    self.regex()?;
                    Tok::Literal
                }
                // `a<<b`: the second `<` of a shift follows an operator, but starts
                // no JSX (minified code is full of them).
                b'<' if matches!(self.dialect, Dialect::Script { jsx: true } | Dialect::Scala)
                    && self.cur.src[..start].last() != Some(&b'<')
                    && self.expression_starts()
                    && self
                        .cur
                        .peek(0)
                        .is_some_and(|c| c == b'>' || is_word(c) || c == b'/') =>
                {
                    // JSX (or a TSX generic arrow function), Scala's XML: its text is
                    // not code.
                    return self.cur.confused();
                }
                b'"' => {
                    self.double_quote()?;
                    Tok::Literal
                }
                // Swift has no character literals.
                b'\'' if self.dialect == Dialect::Swift => Tok::Punct(b),
                b'\'' => {
                    match self.dialect {
                        Dialect::Script { .. } => self.line_string(b'\'')?,
                        _ => self.char_literal()?,
                    }
                    Tok::Literal
                }
                // A Swift raw string: `#"…"#`, `##"""…"""##`.
                b'#' if self.dialect == Dialect::Swift
                    && self.cur.src[self.cur.at..].iter().find(|&&c| c != b'#') == Some(&b'"') =>
                {
                    self.raw_string(start)?;
                    Tok::Literal
                }
                b'`' => match self.dialect {
                    Dialect::Script { .. } => {
                        self.quoted.push((Quoted::Template, 0));
                        self.resume_quoted()?
                    }
                    // A Kotlin identifier in backticks (Java has none).
                    _ => {
                        let end = memchr(b'`', self.cur.src, self.cur.at);
                        match end {
                            Some(end) if !self.cur.src[self.cur.at..end].contains(&b'\n') => {
                                self.cur.at = end + 1;
                                Tok::Word(start, self.cur.at)
                            }
                            _ => return self.cur.confused(),
                        }
                    }
                },
                b'(' | b'[' | b'{' => {
                    if let Some((quoted, depth)) = self.quoted.last_mut() {
                        if quoted.hole().0 == b {
                            *depth += 1;
                        }
                    }
                    let regex_after = match b {
                        b'(' => self.prev.is_some_and(|p| {
                            self.word(p)
                                .is_some_and(|w| matches!(w, b"if" | b"while" | b"for" | b"with"))
                        }),
                        b'{' => !self.expression_starts(),
                        _ => false,
                    };
                    self.opened.push(regex_after);
                    Tok::Open(b, start)
                }
                b')' | b']' | b'}' => {
                    match self.quoted.last_mut() {
                        Some((quoted, depth)) if quoted.hole().1 == b => {
                            if *depth == 0 {
                                return self.resume_quoted();
                            }
                            *depth -= 1;
                        }
                        _ => {}
                    }
                    let Some(regex_after) = self.opened.pop() else {
                        return self.cur.confused();
                    };
                    self.closed_regex_after = regex_after;
                    Tok::Close(b)
                }
                b'=' if self.cur.peek(0) == Some(b'>') && self.dialect_is_script() => {
                    self.cur.at += 1;
                    Tok::Joint(b'=')
                }
                b':' if self.cur.peek(0) == Some(b':') => {
                    self.cur.at += 1;
                    Tok::Joint(b':')
                }
                b'+' | b'-' if self.cur.peek(0) == Some(b) => {
                    // `a++ / b`: an increment is followed by division; as a word it
                    // says so.
                    self.cur.at += 1;
                    Tok::Word(start, self.cur.at)
                }
                b if is_word(b) => {
                    while self.cur.peek(0).is_some_and(is_word) {
                        self.cur.at += 1;
                    }
                    Tok::Word(start, self.cur.at)
                }
                _ => Tok::Punct(b),
            });
        }
    }

    fn dialect_is_script(&self) -> bool {
        matches!(self.dialect, Dialect::Script { .. })
    }

    /// Whether an expression may start after the previous token, as the ECMAScript
    /// grammar decides between a regular expression and division.
    fn expression_starts(&self) -> bool {
        match self.prev {
            None => true,
            Some(Tok::Punct(_) | Tok::Open(..) | Tok::Joint(_) | Tok::Interpolation) => true,
            Some(Tok::Close(b'}' | b')')) => self.closed_regex_after,
            Some(Tok::Close(_) | Tok::Literal) => false,
            Some(tok @ Tok::Word(..)) => self.word(tok).is_some_and(|w| {
                matches!(
                    w,
                    b"return"
                        | b"typeof"
                        | b"instanceof"
                        | b"in"
                        | b"of"
                        | b"new"
                        | b"delete"
                        | b"void"
                        | b"throw"
                        | b"case"
                        | b"do"
                        | b"else"
                        | b"yield"
                        | b"await"
                        | b"extends"
                )
            }),
        }
    }
}

impl Lexer<'_> {
    /// After the opening `/` of a regular expression: to its flags. It cannot span
    /// lines; a line ending first means the `/` was division after all.
    fn regex(&mut self) -> Option<()> {
        let mut class = false;
        while let Some(b) = self.cur.peek(0) {
            self.cur.at += 1;
            match b {
                b'\\' => self.cur.at += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => {
                    while self.cur.peek(0).is_some_and(is_word) {
                        self.cur.at += 1;
                    }
                    return Some(());
                }
                b'\n' => break,
                _ => {}
            }
        }
        self.cur.confused()
    }

    /// After a quote: to the same quote on this line, escapes honoured.
    fn line_string(&mut self, quote: u8) -> Option<()> {
        while let Some(b) = self.cur.peek(0) {
            self.cur.at += 1;
            match b {
                b'\\' => self.cur.at += 1,
                b'\n' => break,
                b if b == quote => return Some(()),
                _ => {}
            }
        }
        self.cur.confused()
    }

    /// At a Swift raw string's first `#` (`start`): to the quote and as many `#`
    /// that end it (three quotes first where it began with three). Its holes
    /// (`\#(…)`) are not read: a raw string with one gives up on the file.
    fn raw_string(&mut self, start: usize) -> Option<()> {
        let hashes = &self.cur.src[start..start + self.cur.run(b'#', start)];
        self.cur.at = start + hashes.len() + 1;
        let triple = self.cur.src[self.cur.at..].starts_with(b"\"\"");
        if triple {
            self.cur.at += 2;
        }
        let quotes: &[u8] = if triple { b"\"\"\"" } else { b"\"" };
        let mut end = quotes.to_vec();
        end.extend_from_slice(hashes);
        let mut hole = b"\\".to_vec();
        hole.extend_from_slice(hashes);
        hole.push(b'(');
        let Some(i) = memchr::memmem::find(&self.cur.src[self.cur.at..], &end) else {
            return self.cur.confused();
        };
        let text = &self.cur.src[self.cur.at..self.cur.at + i];
        if memchr::memmem::find(text, &hole).is_some() || (!triple && text.contains(&b'\n')) {
            return self.cur.confused();
        }
        self.cur.at += i + end.len();
        Some(())
    }

    /// After `'` in Java, Kotlin or Scala: `'x'`, `'\n'`, `'\u0041'`, `'字'`.
    fn char_literal(&mut self) -> Option<()> {
        match self.cur.peek(0) {
            Some(b'\\') => self.line_string(b'\''),
            Some(first) if self.cur.peek(utf8_len(first)) == Some(b'\'') => {
                self.cur.at += utf8_len(first) + 1;
                Some(())
            }
            _ => self.cur.confused(),
        }
    }

    /// After `"`: a string, a Java text block, a Kotlin (raw) string, a Swift or a
    /// Scala (multi-line) string.
    fn double_quote(&mut self) -> Option<()> {
        let triple = self.cur.peek(0) == Some(b'"') && self.cur.peek(1) == Some(b'"');
        match self.dialect {
            Dialect::Script { .. } => self.line_string(b'"'),
            Dialect::Java if triple => {
                self.cur.at += 2;
                while let Some(b) = self.cur.peek(0) {
                    self.cur.at += 1;
                    match b {
                        b'\\' => self.cur.at += 1,
                        b'"' if self.cur.peek(0) == Some(b'"')
                            && self.cur.peek(1) == Some(b'"') =>
                        {
                            self.cur.at += 2;
                            return Some(());
                        }
                        _ => {}
                    }
                }
                self.cur.confused()
            }
            Dialect::Java => self.line_string(b'"'),
            Dialect::Kotlin | Dialect::Swift | Dialect::Scala => {
                // A Scala string is interpolated where a name is right before it.
                let holes = self.start > 0 && is_word(self.cur.src[self.start - 1]);
                if triple {
                    self.cur.at += 2;
                }
                let kind = match (self.dialect, triple) {
                    (Dialect::Swift, false) => Quoted::SwiftLine,
                    (Dialect::Swift, true) => Quoted::SwiftMulti,
                    (Dialect::Scala, false) => Quoted::ScalaLine { holes },
                    (Dialect::Scala, true) => Quoted::ScalaMulti { holes },
                    (_, false) => Quoted::String,
                    (_, true) => Quoted::Raw,
                };
                self.quoted.push((kind, 0));
                // Up to its end or its first hole, whose tokens follow.
                self.resume_quoted().map(drop)
            }
        }
    }

    /// Reads the innermost quoted text on, from its start or from the `}` that
    /// closed an interpolation: to its end (`Literal`, popped) or to the next `${`
    /// (`Interpolation`).
    fn resume_quoted(&mut self) -> Option<Tok> {
        let Some(&(kind, _)) = self.quoted.last() else {
            return self.cur.confused();
        };
        while let Some(b) = self.cur.peek(0) {
            self.cur.at += 1;
            match (kind, b) {
                (Quoted::SwiftLine | Quoted::SwiftMulti, b'\\')
                    if self.cur.peek(0) == Some(b'(') =>
                {
                    self.cur.at += 1;
                    return Some(Tok::Interpolation);
                }
                (
                    Quoted::Template
                    | Quoted::String
                    | Quoted::SwiftLine
                    | Quoted::SwiftMulti
                    | Quoted::ScalaLine { .. },
                    b'\\',
                ) => self.cur.at += 1,
                // `$$` is a dollar; `${` opens a hole.
                (Quoted::ScalaLine { holes: true } | Quoted::ScalaMulti { holes: true }, b'$') => {
                    match self.cur.peek(0) {
                        Some(b'$') => self.cur.at += 1,
                        Some(b'{') => {
                            self.cur.at += 1;
                            return Some(Tok::Interpolation);
                        }
                        _ => {}
                    }
                }
                (Quoted::Template | Quoted::String | Quoted::Raw, b'$')
                    if self.cur.peek(0) == Some(b'{') =>
                {
                    self.cur.at += 1;
                    return Some(Tok::Interpolation);
                }
                (Quoted::Template, b'`')
                | (Quoted::String | Quoted::SwiftLine | Quoted::ScalaLine { .. }, b'"') => {
                    self.quoted.pop();
                    return Some(Tok::Literal);
                }
                (Quoted::String | Quoted::SwiftLine | Quoted::ScalaLine { .. }, b'\n') => break,
                (Quoted::SwiftMulti, b'"')
                    if self.cur.peek(0) == Some(b'"') && self.cur.peek(1) == Some(b'"') =>
                {
                    self.cur.at += 2;
                    self.quoted.pop();
                    return Some(Tok::Literal);
                }
                (Quoted::Raw | Quoted::ScalaMulti { .. }, b'"')
                    if self.cur.peek(0) == Some(b'"') && self.cur.peek(1) == Some(b'"') =>
                {
                    // `""""`: a raw string ends at the last quote of the run.
                    self.cur.at += 2;
                    while self.cur.peek(0) == Some(b'"') {
                        self.cur.at += 1;
                    }
                    self.quoted.pop();
                    return Some(Tok::Literal);
                }
                _ => {}
            }
        }
        self.cur.confused()
    }
}

/// Frames the scan is in: what the walker does with a block's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// The file.
    Top,
    /// A Java or Kotlin type body, or a TypeScript namespace or bare block: braces
    /// inside are decided one by one.
    Inner,
    /// A TypeScript class, interface or enum body: the walker reads its members but
    /// enters none of them, so every brace inside is skipped.
    Members,
}

/// What the declaration keyword last seen announces for the next `{`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    None,
    /// A type body (walked), with `<…>` nesting of its header's type parameters.
    Type {
        angle: u32,
    },
    /// A TypeScript namespace, module or `declare global` body (walked).
    Namespace,
    /// A JavaScript function's body (never walked).
    Function,
}

/// Frames nested deeper than this give up (no file of real code comes near; a
/// pathological one must not exhaust the stack).
const MAX_FRAMES: u32 = 200;

struct Scan<'a> {
    lex: Lexer<'a>,
}

impl Scan<'_> {
    /// Reads the tokens of one frame, up to its closing `}` (the file: to its end).
    /// `None` once the lexer is confused.
    fn frame(&mut self, frame: Frame) -> Option<()> {
        self.frame_at(frame, 0)
    }

    fn frame_at(&mut self, frame: Frame, nesting: u32) -> Option<()> {
        if nesting > MAX_FRAMES {
            return self.lex.cur.confused();
        }
        let script = self.lex.dialect_is_script();
        // Parentheses and brackets open in this frame.
        let mut depth = 0u32;
        let mut pending = Pending::None;
        let mut prev: Option<Tok> = None;
        loop {
            let Some(tok) = self.lex.next() else {
                return (frame == Frame::Top && !self.lex.cur.confused).then_some(());
            };
            match tok {
                // Scala's `x match { case … }`, `for { x <- xs }`, `catch { case … }`:
                // emptied, they would not parse; read through, at any depth.
                Tok::Open(b'{', _)
                    if self.lex.dialect == Dialect::Scala
                        && prev
                            .and_then(|p| self.lex.word(p))
                            .is_some_and(|w| matches!(w, b"match" | b"for" | b"catch")) =>
                {
                    self.frame_at(Frame::Inner, nesting + 1)?;
                }
                Tok::Open(b'{', open) if frame == Frame::Members || depth > 0 => {
                    self.skip_block(open)?;
                }
                Tok::Open(b'{', open) => {
                    let walked = match pending {
                        Pending::Type { angle: 0 } => {
                            Some(if script { Frame::Members } else { Frame::Inner })
                        }
                        // A type literal among the header's type arguments.
                        Pending::Type { .. } => None,
                        Pending::Namespace => Some(Frame::Inner),
                        Pending::Function => None,
                        Pending::None if script && self.walked_block(prev) => Some(Frame::Inner),
                        Pending::None => None,
                    };
                    match walked {
                        Some(inner) => {
                            pending = Pending::None;
                            self.frame_at(inner, nesting + 1)?;
                        }
                        None => {
                            if !matches!(pending, Pending::Type { .. }) {
                                pending = Pending::None;
                            }
                            self.skip_block(open)?;
                        }
                    }
                }
                Tok::Open(..) => depth += 1,
                Tok::Close(_) if depth == 0 => {
                    // The lexer refuses a closer without an opener, so this is the
                    // frame's own `}`.
                    return Some(());
                }
                Tok::Close(_) => depth -= 1,
                Tok::Punct(b';') if depth == 0 => pending = Pending::None,
                // Scala's type parameters are in brackets; a `<` is an operator.
                Tok::Punct(b'<') if depth == 0 && self.lex.dialect != Dialect::Scala => {
                    if let Pending::Type { angle } = &mut pending {
                        *angle += 1;
                    }
                }
                Tok::Punct(b'>') if depth == 0 => {
                    if let Pending::Type { angle } = &mut pending {
                        *angle = angle.saturating_sub(1);
                    }
                }
                Tok::Word(..) if depth == 0 && frame != Frame::Members => {
                    // `Foo.class`, `Foo::class`, `a.module`: members, not keywords.
                    let member = matches!(prev, Some(Tok::Punct(b'.') | Tok::Joint(b':')));
                    if !member {
                        pending = self.declares(tok).unwrap_or(pending);
                    }
                }
                _ => {}
            }
            // After a block, what comes next is judged by its `}`.
            prev = match tok {
                Tok::Open(b'{', _) => Some(Tok::Close(b'}')),
                _ => Some(tok),
            };
        }
    }

    /// What the keyword `tok` announces, if it is a declaration keyword of the
    /// dialect.
    fn declares(&self, tok: Tok) -> Option<Pending> {
        let word = self.lex.word(tok)?;
        let ty = Pending::Type { angle: 0 };
        Some(match (self.lex.dialect, word) {
            (Dialect::Script { .. }, b"class" | b"interface" | b"enum") => ty,
            (Dialect::Script { .. }, b"namespace" | b"module" | b"global") => Pending::Namespace,
            (Dialect::Script { .. }, b"function") => Pending::Function,
            (Dialect::Java, b"class" | b"interface" | b"enum" | b"record") => ty,
            (Dialect::Kotlin, b"class" | b"interface" | b"object") => ty,
            // A member that is not a type: a class header before it had no body.
            (Dialect::Kotlin, b"fun" | b"val" | b"var" | b"init" | b"typealias") => Pending::None,
            (
                Dialect::Scala,
                b"class" | b"object" | b"trait" | b"enum" | b"given" | b"extension",
            ) => ty,
            // A package's block is walked; an import's selectors (`a.{b, c}`) are
            // no block, and would not parse emptied.
            (Dialect::Scala, b"package" | b"import" | b"export") => Pending::Namespace,
            (Dialect::Scala, b"def" | b"val" | b"var" | b"type" | b"case") => Pending::None,
            (
                Dialect::Swift,
                b"class" | b"struct" | b"enum" | b"protocol" | b"extension" | b"actor",
            ) => ty,
            (
                Dialect::Swift,
                b"func" | b"var" | b"let" | b"init" | b"deinit" | b"subscript" | b"case"
                | b"typealias" | b"associatedtype" | b"macro",
            ) => Pending::None,
            _ => return None,
        })
    }

    /// Whether a `{` with no declaration before it may be a block the walker enters
    /// (a bare block statement at the top level or in a namespace), judged by the
    /// token before it. Skipped only where it cannot be: after an operator, `=>`, a
    /// keyword that starts an expression or a block of a statement the walker never
    /// enters (`else`, `try`), or a `)` on the same line.
    fn walked_block(&self, prev: Option<Tok>) -> bool {
        match prev {
            None | Some(Tok::Punct(b';') | Tok::Close(b'}' | b']') | Tok::Literal) => true,
            Some(Tok::Close(_)) => self.lex.newline,
            Some(Tok::Punct(_) | Tok::Open(..) | Tok::Joint(_) | Tok::Interpolation) => false,
            Some(tok @ Tok::Word(..)) => !matches!(
                self.lex.word(tok),
                Some(
                    b"return"
                        | b"typeof"
                        | b"instanceof"
                        | b"in"
                        | b"of"
                        | b"new"
                        | b"delete"
                        | b"void"
                        | b"throw"
                        | b"case"
                        | b"do"
                        | b"else"
                        | b"try"
                        | b"finally"
                        | b"yield"
                        | b"await"
                        | b"default"
                        | b"export"
                        | b"import"
                )
            ),
        }
    }

    /// Skips the interior of the `{` just read at `open`, up to its matching `}`.
    fn skip_block(&mut self, open: usize) -> Option<()> {
        let mut depth = 1u32;
        self.lex.cur.record = false;
        loop {
            match self.lex.next()? {
                Tok::Open(..) => depth += 1,
                Tok::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        self.lex.cur.record = true;
                        self.lex.cur.interior_read(open);
                        return Some(());
                    }
                }
                _ => {}
            }
        }
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Lang;

    /// The dialect a brace language's files are in.
    pub(crate) fn dialect(lang: Lang) -> Option<Dialect> {
        Some(match lang {
            Lang::TypeScript => Dialect::Script { jsx: false },
            Lang::Tsx | Lang::JavaScript => Dialect::Script { jsx: true },
            Lang::Java => Dialect::Java,
            Lang::Kotlin => Dialect::Kotlin,
            Lang::Swift => Dialect::Swift,
            Lang::Scala => Dialect::Scala,
            _ => return None,
        })
    }

    fn skipped(lang: Lang, src: &str) -> Vec<&str> {
        crate::tests::skipped(|text| skippable(dialect(lang).unwrap(), text), src)
    }

    #[test]
    fn script_bodies_are_skipped_and_containers_walked() {
        let src = r#"
import { a } from "x";
export function f(x = { d: 1 }): Promise<{ r: 1 }> { return `}${ { k: "}" } }`; }
const g = (y) => { const re = /[}/]\}/g; return y / 2 / 3; };
export class C<T extends { z: 1 }> extends B<{ w: 2 }> { m() { if (a) { } } static { } }
namespace N.M { function h() { } class D { } }
declare module "m" { interface I { p: { q: 1 } } }
{ function inBlock() { } }
if (x) /re}/.test(y); else { }
label: { }
"#;
        expect_test::expect![[r#"
            [
                " a ",
                " d: 1 ",
                " r: 1 ",
                " return `}${ { k: \"}\" } }`; ",
                " const re = /[}/]\\}/g; return y / 2 / 3; ",
                " z: 1 ",
                " w: 2 ",
                " if (a) { } ",
                " ",
                " ",
                " q: 1 ",
                " ",
                " ",
                " ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Lang::TypeScript, src));
    }

    #[test]
    fn java_and_kotlin_bodies_are_skipped_and_types_walked() {
        let java = r#"
/** Docs, { and all. */
@Ann({"}"}) public class A<T> extends B implements C {
  static { init('}'); }
  private final Class<?> k = A.class; int record;
  String s = """
      }""";
  void m() throws E { new Runnable() { public void run() {} }; }
  enum E { X { void f() {} }, Y; void g() {} }
  record R(int x) { R { } }
  @interface N { int v() default 1; }
}
"#;
        expect_test::expect![[r#"
            [
                " Docs, { and all. ",
                "\"}\"",
                " init('}'); ",
                " new Runnable() { public void run() {} }; ",
                " void f() {} ",
                " ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Lang::Java, java));
        let kotlin = r#"
class A(val f: () -> Unit = { }) : B() {
  val x = "${ "}" + '}' }" + """${"}"}"""
  fun m() { /* } /* } */ */ }
  companion object { fun c() = run { } }
  init { }
}
class Empty
val y by lazy { 1 }
enum class E(val v: Int) { X(1) { override fun f() {} }, Y(2); fun g() {} }
fun interface F { fun f() }
val k = A::class
"#;
        expect_test::expect![[r#"
            [
                " ",
                " /* } /* } */ */ ",
                " ",
                " ",
                " 1 ",
                " override fun f() {} ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Lang::Kotlin, kotlin));
    }

    #[test]
    fn swift_bodies_are_skipped_and_types_walked() {
        let swift = r##"
/** Docs, { and /* nested } */ all. */
@available(iOS 13, *)
public final class A<T: Equatable>: B, @unchecked Sendable where T: Hashable {
  let s = "} \(f("}", { $0 }))" + #"} \(x) "#
  var m = """
    } \(g("""
    {
    """)) "
    """
  class func make() -> A<T> { A() }
  var x: Int { get { 1 } set { } }
  init() { super.init() }
  deinit { }
  subscript(i: Int) -> T { t[i] }
  enum Kind: String, CaseIterable { case a = "}", b; func f() { } }
  struct Inner { }
}
protocol P: AnyObject { var p: Int { get set }; func q() }
extension Array where Element == Int { func sum() -> Int { reduce(0, +) } }
let closure = { (x: Int) in x }
actor Counter { var n = 0 }
#if os(iOS)
func ios() { }
#endif
"##;
        expect_test::expect![[r#"
            [
                " Docs, { and /* nested } */ all. ",
                " $0 ",
                " A() ",
                " get { 1 } set { } ",
                " super.init() ",
                " ",
                " t[i] ",
                " ",
                " get set ",
                " reduce(0, +) ",
                " (x: Int) in x ",
                " ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Lang::Swift, swift));
    }

    #[test]
    fn scala_bodies_are_skipped_and_templates_walked() {
        let scala = r##"
package a.b { object Inner { def f = { 1 } } }
import cats.{Eq, Show => S}
/** Docs, { and /* nested } */ all. */
@deprecated("}", "1") sealed abstract class A[T <: B](val x: Int = { 1 }) extends B with C {
  val s = s"} ${ f("}", { 2 }) } $$ {" + "${" + raw"\"}"
  val m = f"""} ${g} \""" + """\"""
  def g(x: Int): Int = x match { case 1 => { 2 } case _ => 3 }
  def h = for { x <- xs } yield { x }
  def t = try { a } catch { case e: E => b }
  val c = 'c' + '\n'
  type L = { def run(): Unit }
}
given intOrd: Ord[Int] with { def compare(a: Int, b: Int) = { a - b } }
extension (s: String) { def shout = { s.toUpperCase } }
enum Color(val rgb: Int) { case Red extends Color(1) }
case class P(x: Int) { def y = { x } }
object O:
  def z = { 0 }
"##;
        expect_test::expect![[r#"
            [
                " 1 ",
                " Docs, { and /* nested } */ all. ",
                " 1 ",
                " 2 ",
                " 2 ",
                " x ",
                " a ",
                " def run(): Unit ",
                " a - b ",
                " s.toUpperCase ",
                " x ",
                " 0 ",
            ]
        "#]]
        .assert_debug_eq(&skipped(Lang::Scala, scala));
    }

    /// The lexer follows nearly every file of the conformance corpora of the
    /// languages it took last (`daemon/benches/fetch-conformance.sh`: Swift's npm
    /// package, cats and the Scala 3 library), or the first index is slow again;
    /// `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_swift_and_scala_file_of_real_code() {
        for (dir, lang) in [("swift", Lang::Swift), ("scala", Lang::Scala)] {
            let dialect = dialect(lang).unwrap();
            crate::tests::follows_real_code(dir, &[dir], 100, 3, |src| {
                scan(dialect, src).is_some()
            });
        }
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        for (lang, src) in [
            (
                Lang::JavaScript,
                "function f() { return <div>{'}'}</div>; }",
            ),
            (Lang::TypeScript, "function f() { return 'x\n'; }"),
            (Lang::TypeScript, "function f() { return (/ab\n) }"),
            (Lang::TypeScript, "function f() { /* "),
            (Lang::Java, "class A { void m() { } } }"),
            (Lang::Kotlin, "fun f() { \"${ x\" }"),
            (Lang::Swift, "func f() { \"\\(x\" }"),
            (Lang::Swift, "func f() { #\"\\#(x)\"# }"),
            (Lang::Swift, "func f() { \"}\n\" }"),
            (Lang::Swift, "func f() { /* /* */ }"),
            (Lang::Scala, "object A { def f = { s\"${ x\" } }"),
            (Lang::Scala, "object A { def f = { 'sym } }"),
            (
                Lang::Scala,
                "object A { def f = { x } }\nval y = <a>{'}'}</a>",
            ),
            (Lang::Scala, "object A { def f = { \"\"\" } \"\" } }"),
        ] {
            assert_eq!(skipped(lang, src), Vec::<&str>::new(), "{src}");
        }
    }
}
