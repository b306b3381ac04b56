//! Go's skeleton lexer: the brace blocks the symbol walker never enters.
//!
//! The walker (`symbols::go`) reads declarations, struct field lists and interface
//! bodies; it never looks inside a function body, a function literal or a composite
//! literal's elements, and those are most of a Go file's bytes. Every `{ … }` that
//! does not directly follow the keyword `struct` or `interface` is one of those (Go
//! has no other brace-delimited syntax outside bodies), so its interior is skipped:
//! blanked, a body then parses as an empty block and a literal as an empty one, at
//! the same offsets. The lexer knows interpreted and raw strings, runes and both
//! comment forms. A file it cannot read to the end (an unterminated string or
//! comment, a stray `}`) gets no skeleton: tree-sitter parses it whole.

use super::{
    bytes::{is_word, memchr},
    lex::comment_end,
};
use std::ops::Range;

/// The interiors of the brace blocks in `src` no symbol is read from, in order and
/// disjoint; empty when the file does not lex.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    let mut lexer = Lexer::new(src);
    let mut skip = Vec::new();
    let mut kept = 0u32;
    // The last token was `struct` or `interface`: the next `{` opens a type body.
    let mut type_body = false;
    loop {
        let tok = match lexer.next() {
            Ok(Some(tok)) => tok,
            Ok(None) if kept == 0 => return skip,
            Ok(None) | Err(Broken) => return Vec::new(),
        };
        match tok.kind {
            Kind::Open(b'{') if type_body => kept += 1,
            Kind::Open(b'{') => {
                let Ok(close) = lexer.matching() else {
                    return Vec::new();
                };
                if close > tok.end {
                    skip.push(tok.end..close);
                }
            }
            Kind::Close(b'}') if kept == 0 => return Vec::new(),
            Kind::Close(b'}') => kept -= 1,
            _ => {}
        }
        type_body = matches!(lexer.word(tok), Some(b"struct" | b"interface"));
    }
}

/// Unterminated string, rune or comment, or an unbalanced brace.
#[derive(Debug)]
pub(super) struct Broken;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An identifier, keyword or number.
    Word,
    Open(u8),
    Close(u8),
    /// A string or rune literal.
    Literal,
    Punct(u8),
}

/// One token: what it is, where, and whether a line break comes before it (Go ends
/// a statement there after some tokens).
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    pub newline_before: bool,
}

/// Go's tokens, as far as braces and declarations go.
pub(super) struct Lexer<'a> {
    src: &'a [u8],
    at: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer { src, at: 0 }
    }

    /// The next token, past whitespace and comments.
    pub(super) fn next(&mut self) -> Result<Option<Token>, Broken> {
        let src = self.src;
        let mut newline_before = false;
        while let Some(&b) = src.get(self.at) {
            let start = self.at;
            self.at += 1;
            let kind = match b {
                b' ' | b'\t' | b'\r' => continue,
                b'\n' => {
                    newline_before = true;
                    continue;
                }
                b'/' if src.get(self.at) == Some(&b'/') => {
                    self.at = memchr(b'\n', src, self.at).unwrap_or(src.len());
                    continue;
                }
                b'/' if src.get(self.at) == Some(&b'*') => {
                    let end = comment_end(src, self.at + 1, false).ok_or(Broken)?;
                    // A general comment with a line break acts like one.
                    newline_before |= src[start..end].contains(&b'\n');
                    self.at = end;
                    continue;
                }
                b'{' | b'(' | b'[' => Kind::Open(b),
                b'}' | b')' | b']' => Kind::Close(b),
                b'"' | b'\'' => {
                    self.quoted(b)?;
                    Kind::Literal
                }
                b'`' => {
                    self.at = memchr(b'`', src, self.at).ok_or(Broken)? + 1;
                    Kind::Literal
                }
                b if is_word(b) => {
                    while src.get(self.at).is_some_and(|&b| is_word(b)) {
                        self.at += 1;
                    }
                    Kind::Word
                }
                _ => Kind::Punct(b),
            };
            return Ok(Some(Token {
                kind,
                start,
                end: self.at,
                newline_before,
            }));
        }
        Ok(None)
    }

    /// The token's text if it is a word.
    pub(super) fn word(&self, tok: Token) -> Option<&'a [u8]> {
        (tok.kind == Kind::Word).then(|| &self.src[tok.start..tok.end])
    }

    /// Past an interpreted string or a rune opened by `quote`, which must close on
    /// the same line.
    fn quoted(&mut self, quote: u8) -> Result<(), Broken> {
        while let Some(&b) = self.src.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'\n' => return Err(Broken),
                b if b == quote => return Ok(()),
                _ => {}
            }
        }
        Err(Broken)
    }

    /// Past the delimiter that closes the one just read; where that closing
    /// delimiter is.
    pub(super) fn matching(&mut self) -> Result<usize, Broken> {
        let mut depth = 0u32;
        loop {
            let tok = self.next()?.ok_or(Broken)?;
            match tok.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) if depth == 0 => return Ok(tok.start),
                Kind::Close(_) => depth -= 1,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(src: &str) -> String {
        let mut text = src.as_bytes().to_vec();
        for gap in skippable(src.as_bytes()) {
            text[gap].fill(b'.');
        }
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn bodies_and_literals_are_skipped_type_bodies_kept() {
        assert_eq!(
            kept("func f(x struct{ a int }) interface{ M() } { return \"}\" }\n"),
            "func f(x struct{ a int }) interface{ M() } {............}\n"
        );
        assert_eq!(
            kept(
                "var m = map[string]struct{}{\"a\": {}, `}`: {}}\ntype T struct {\n\tf func() // {\n}\n"
            ),
            "var m = map[string]struct{}{................}\ntype T struct {\n\tf func() // {\n}\n"
        );
        assert_eq!(
            kept("func f() { r := '}'; /* } */ }"),
            "func f() {...................}"
        );
        assert_eq!(
            kept("func f() { s := \"unterminated }\n"),
            "func f() { s := \"unterminated }\n"
        );
        assert_eq!(kept("}\nfunc f() { x }"), "}\nfunc f() { x }");
    }
}
