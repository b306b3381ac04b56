//! The Rust lexer the skeleton parse and `rust_items` read tokens from: it knows
//! strings, raw strings, character literals, lifetimes and nested comments, and
//! notes what the symbol walker never enters (bodies, macro token trees, attribute
//! arguments, constant values, comments, string contents) as it goes.

use std::ops::Range;

use crate::{
    bytes::{is_word, utf8_len},
    lex::comment_end,
};

/// One Rust token, as far as finding bodies and declarations goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// An identifier, keyword or number: `start..end`.
    Word(usize, usize),
    /// An opening delimiter at this offset.
    Open(u8, usize),
    Close(u8),
    /// `->`, `=>`, `!=` or `::`, by its first byte.
    Joint(u8),
    Punct(u8),
    /// A literal, comment-free: strings, characters, lifetimes.
    Literal,
}

/// Where the scanner is between items.
#[derive(Clone, Copy, Debug)]
enum State {
    Items,
    /// After `fn NAME`: looking for the body's `{` (or a `;`) outside any
    /// parentheses, brackets or generics.
    Signature {
        depth: u32,
        angle: u32,
    },
    /// Inside `#[…]` or `#![…]`: the arguments after the path are skipped.
    Attribute,
    /// After `const` or `static`: looking for the `=` of the value.
    Const {
        depth: u32,
        angle: u32,
    },
    /// A constant's value, up to its `;`: every delimited part is skipped.
    Value,
}

/// The Rust lexer both the skeleton and `rust_items` read tokens from.
pub(super) struct RustLexer<'a> {
    src: &'a [u8],
    /// Where the next token is looked for; after `next`, the end of the token.
    pub(super) at: usize,
    /// Where the token `next` returned starts.
    pub(super) start: usize,
    /// What can be skipped so far, in order.
    skip: Vec<Range<usize>>,
    /// Whether comments and strings are recorded as skippable (not while matching
    /// a delimiter whose whole interior is skipped anyway).
    record: bool,
    /// The last skipped range is a run of line comments that nothing but
    /// whitespace has followed yet: a next line comment extends it.
    comment_run: bool,
}

impl<'a> RustLexer<'a> {
    /// A lexer over `src`; with `record`, comments and strings are noted as
    /// skippable as they are read.
    pub(super) fn new(src: &'a [u8], record: bool) -> RustLexer<'a> {
        RustLexer {
            src,
            at: 0,
            start: 0,
            skip: Vec::new(),
            record,
            comment_run: false,
        }
    }

    pub(crate) fn skippable(mut self) -> Vec<Range<usize>> {
        let mut state = State::Items;
        // The last three tokens before the current one, for `fn NAME`, `NAME!`,
        // `macro_rules! NAME`, `#[` and `#![`.
        let mut prev = [Tok::Joint(0); 3];
        while let Some(tok) = self.next() {
            state = match (state, tok) {
                (State::Items | State::Const { .. }, Tok::Word(..))
                    if self.word(prev[0]) == Some(b"fn") =>
                {
                    State::Signature { depth: 0, angle: 0 }
                }
                (State::Items, Tok::Word(..))
                    if matches!(self.word(tok), Some(b"const" | b"static"))
                        // `<const N: usize = 3>` is a generic parameter, not an item.
                        && !matches!(prev[0], Tok::Punct(b'<' | b',')) =>
                {
                    State::Const { depth: 0, angle: 0 }
                }
                (State::Items, Tok::Open(b'[', _))
                    if prev[0] == Tok::Punct(b'#')
                        || (prev[0] == Tok::Punct(b'!') && prev[1] == Tok::Punct(b'#')) =>
                {
                    State::Attribute
                }
                (State::Items, Tok::Open(_, open)) if self.is_macro(&prev) => {
                    let Some(()) = self.skip_to_matching(open) else {
                        break;
                    };
                    State::Items
                }
                (State::Attribute | State::Value, Tok::Open(_, open)) => {
                    let Some(()) = self.skip_to_matching(open) else {
                        break;
                    };
                    state
                }
                (State::Attribute, Tok::Close(_)) => State::Items,
                (State::Value, Tok::Punct(b';') | Tok::Close(_)) => State::Items,
                (State::Signature { depth, angle } | State::Const { depth, angle }, _) => {
                    let is_fn = matches!(state, State::Signature { .. });
                    let nested = |depth, angle| match is_fn {
                        true => State::Signature { depth, angle },
                        false => State::Const { depth, angle },
                    };
                    match tok {
                        Tok::Open(b'{', open) if depth == 0 && angle == 0 && is_fn => {
                            let Some(()) = self.skip_to_matching(open) else {
                                break;
                            };
                            State::Items
                        }
                        Tok::Open(b'{', _) if depth == 0 && angle == 0 => State::Items,
                        Tok::Punct(b'=') if depth == 0 && angle == 0 && !is_fn => State::Value,
                        Tok::Punct(b';') if depth == 0 => State::Items,
                        Tok::Open(..) => nested(depth + 1, angle),
                        Tok::Close(_) if depth == 0 => State::Items,
                        Tok::Close(_) => nested(depth - 1, angle),
                        Tok::Punct(b'<') => nested(depth, angle + 1),
                        Tok::Punct(b'>') => nested(depth, angle.saturating_sub(1)),
                        _ => state,
                    }
                }
                _ => state,
            };
            prev = [tok, prev[0], prev[1]];
        }
        self.skip
    }

    /// Skips the interior of the delimiter just read at `open`; `None` when it is
    /// never closed.
    fn skip_to_matching(&mut self, open: usize) -> Option<()> {
        let record = std::mem::replace(&mut self.record, false);
        let close = self.matching();
        self.record = record;
        self.push(open + 1..close?);
        Some(())
    }

    fn push(&mut self, gap: Range<usize>) {
        if self.record && !gap.is_empty() {
            self.skip.push(gap);
        }
    }

    fn word(&self, tok: Tok) -> Option<&'a [u8]> {
        match tok {
            Tok::Word(s, e) => Some(&self.src[s..e]),
            _ => None,
        }
    }

    /// `NAME!` or `macro_rules! NAME` just before an opening delimiter.
    fn is_macro(&self, prev: &[Tok; 3]) -> bool {
        let bang = |t: Tok| t == Tok::Punct(b'!');
        // `impl Trait for ! {`: a keyword is never a macro's name.
        let name = |t: Tok| self.word(t).is_some_and(|w| !is_keyword(w));
        (bang(prev[0]) && name(prev[1]))
            || (self.word(prev[0]).is_some()
                && bang(prev[1])
                && self.word(prev[2]) == Some(b"macro_rules"))
    }

    /// Offset of the delimiter closing the one just read (any kind: only the nesting
    /// depth matters), or `None` at the end of the text.
    fn matching(&mut self) -> Option<usize> {
        let mut depth = 1u32;
        loop {
            match self.next()? {
                Tok::Open(..) => depth += 1,
                Tok::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(self.at - 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.at + ahead).copied()
    }

    /// The next token, skipping whitespace and comments (when recording, noted as skippable:
    /// their first three bytes stay, so `///` stays a doc comment and `/*!` a block).
    pub(super) fn next(&mut self) -> Option<Tok> {
        loop {
            let b = self.peek(0)?;
            let start = self.at;
            self.at += 1;
            let tok = match b {
                b' ' | b'\t' | b'\n' | b'\r' => continue,
                b'/' if self.peek(0) == Some(b'/') => {
                    let end = match self.src[self.at..].iter().position(|&b| b == b'\n') {
                        Some(i) => self.at + i,
                        None => self.src.len(),
                    };
                    self.at = end;
                    match self.skip.last_mut() {
                        Some(last) if self.comment_run && self.record => last.end = end,
                        _ => {
                            self.push(start + 3..end);
                            self.comment_run = self.record && start + 3 < end;
                        }
                    }
                    continue;
                }
                b'/' if self.peek(0) == Some(b'*') => {
                    self.at += 1;
                    if self.block_comment() {
                        self.push(start + 3..self.at - 2);
                    }
                    self.comment_run = false;
                    continue;
                }
                b'"' => {
                    if self.string() {
                        self.push(start + 1..self.at - 1);
                    }
                    Tok::Literal
                }
                b'\'' => {
                    self.quote();
                    Tok::Literal
                }
                b'(' | b'[' | b'{' => Tok::Open(b, start),
                b')' | b']' | b'}' => Tok::Close(b),
                b'-' | b'=' | b'!' | b':'
                    if matches!(
                        (b, self.peek(0)),
                        (b'-' | b'=', Some(b'>')) | (b'!', Some(b'=')) | (b':', Some(b':'))
                    ) =>
                {
                    self.at += 1;
                    Tok::Joint(b)
                }
                b if is_word(b) => {
                    self.at = start;
                    self.word_or_raw()
                }
                _ => Tok::Punct(b),
            };
            self.comment_run = false;
            self.start = start;
            return Some(tok);
        }
    }

    /// After `/*`: to the end of the comment, nested ones included; false if the
    /// text ends first.
    fn block_comment(&mut self) -> bool {
        let end = comment_end(self.src, self.at, true);
        self.at = end.unwrap_or(self.src.len());
        end.is_some()
    }

    /// After `"`: to the end of the string, escapes honoured; false if the text
    /// ends first.
    fn string(&mut self) -> bool {
        while let Some(b) = self.peek(0) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => return true,
                _ => {}
            }
        }
        self.at = self.at.min(self.src.len());
        false
    }

    /// After `'`: a character literal (`'x'`, `'\n'`, `'\u{1F600}'`, `'字'`) or a
    /// lifetime or label (`'a`, `'static`).
    fn quote(&mut self) {
        match self.peek(0) {
            Some(b'\\') => {
                self.at += 2;
                while let Some(b) = self.peek(0) {
                    self.at += 1;
                    if b == b'\'' || b == b'\n' {
                        return;
                    }
                }
                self.at = self.at.min(self.src.len());
            }
            Some(first) => {
                let len = utf8_len(first);
                if self.peek(len) == Some(b'\'') {
                    self.at += len + 1;
                } else {
                    while self.peek(0).is_some_and(is_word) {
                        self.at += 1;
                    }
                }
            }
            None => {}
        }
    }

    /// A word; `r"…"`, `r#"…"#`, `br…`, `cr…` raw strings and `r#ident` raw
    /// identifiers start like one.
    fn word_or_raw(&mut self) -> Tok {
        let start = self.at;
        while self.peek(0).is_some_and(is_word) {
            self.at += 1;
        }
        let word = &self.src[start..self.at];
        if matches!(word, b"r" | b"br" | b"cr") {
            let hashes = self.src[self.at..]
                .iter()
                .take_while(|&&b| b == b'#')
                .count();
            if self.peek(hashes) == Some(b'"') {
                self.at += hashes + 1;
                let content = self.at;
                if self.raw_string(hashes) {
                    self.push(content..self.at - hashes - 1);
                }
                return Tok::Literal;
            }
            if word == b"r" && hashes == 1 {
                // `r#ident`: a raw identifier (never a keyword).
                self.at += 1;
                while self.peek(0).is_some_and(is_word) {
                    self.at += 1;
                }
            }
        }
        Tok::Word(start, self.at)
    }

    /// After `r##"`: to the `"##` that closes it (no escapes in raw strings); false
    /// if the text ends first.
    fn raw_string(&mut self, hashes: usize) -> bool {
        while let Some(i) = self.src[self.at..].iter().position(|&b| b == b'"') {
            self.at += i + 1;
            let closing = self.src[self.at..]
                .iter()
                .take(hashes)
                .take_while(|&&b| b == b'#')
                .count();
            if closing == hashes {
                self.at += hashes;
                return true;
            }
        }
        self.at = self.src.len();
        false
    }
}

pub(super) fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"as"
            | b"async"
            | b"await"
            | b"break"
            | b"const"
            | b"continue"
            | b"crate"
            | b"dyn"
            | b"else"
            | b"enum"
            | b"extern"
            | b"fn"
            | b"for"
            | b"if"
            | b"impl"
            | b"in"
            | b"let"
            | b"loop"
            | b"match"
            | b"mod"
            | b"move"
            | b"mut"
            | b"pub"
            | b"ref"
            | b"return"
            | b"static"
            | b"struct"
            | b"trait"
            | b"type"
            | b"unsafe"
            | b"use"
            | b"where"
            | b"while"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(src: &str) -> Vec<&str> {
        crate::tests::skipped(|text| RustLexer::new(text, true).skippable(), src)
    }

    #[test]
    fn bodies_macros_attributes_values_comments_and_strings_are_skipped() {
        let src = r##"
fn a() -> Vec<{ N }> where T: Fn(u8) -> u8 { let x = '{'; "}"; r#"}"#; }
trait T { fn b(&self); fn c(&self) { /* } /* nested } */ */ } }
struct S { f: fn(u8) -> u8, g: [u8; { 3 }] }
impl<'a> S { fn d<'b>(&'b self) -> &'a str where 'b: 'a { 'outer: loop { break 'outer; } } }
macro_rules! m { ($x:expr) => { fn hidden() {} }; }
lazy_static! { static ref X: u8 = 1; }
fn r#try() { b'}'; br"}"; '\''; '\u{1F600}'; 'é'; }
/// Doc,
/// continued.
#[derive(Debug, Clone)] #![allow(x)] #[doc = "text"]
struct G<const N: usize = 3> { f: [u8; N] }
const TABLE: &[(char, char)] = &[('a', 'b')]; static S: &str = "s";
impl Trait for ! { fn e() {} }
"##;
        expect_test::expect![[r##"
            [
                " let x = '{'; \"}\"; r#\"}\"#; ",
                " /* } /* nested } */ */ ",
                " 'outer: loop { break 'outer; } ",
                " ($x:expr) => { fn hidden() {} }; ",
                " static ref X: u8 = 1; ",
                " b'}'; br\"}\"; '\\''; '\\u{1F600}'; 'é'; ",
                " Doc,\n/// continued.",
                "Debug, Clone",
                "x",
                "text",
                "('a', 'b')",
                "s",
            ]
        "##]]
        .assert_debug_eq(&skipped(src));
    }

    #[test]
    fn unterminated_bodies_are_not_skipped() {
        assert!(skipped("fn a() { let s = \"}\";").is_empty());
        assert!(skipped("fn a() { /* } ").is_empty());
    }
}
