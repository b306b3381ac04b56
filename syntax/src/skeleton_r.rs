//! The skeleton lexer of R (`languages/r.rs`). It finds what the symbol walker never
//! enters, so tree-sitter parses it as empty (`skeleton.rs` blanks it or leaves it
//! out). The declaration reader (`r_items`) reads the top-level expressions with its
//! tokens, and passes over blocks and arguments with [`Lexer::skip_block`] too.
//!
//! **What is never entered.** The walker reads the file's top-level expressions and
//! nothing inside them: an assignment's name, its operator, whether its value is a
//! `function` and where that function's body starts. So the interior of every `{…}`
//! is skipped (function bodies, and the blocks of `if`, loops and calls), and so are
//! a call's arguments (`f(…)`, where `f` is a name: `setClass(…)`, `x <- c(…)`,
//! `R6Class(…)`): an empty block and a call without arguments parse, and every node
//! around them keeps its offsets. The parentheses after a keyword (`if`, `for`,
//! `while`, `function`) and a parenthesized expression would not parse empty, and
//! are read through; so is a call whose name is on an earlier line, which is no call
//! at the top level. The text of the comments outside them is skipped too, a run of
//! comment lines as one range (`Cursor::line_comment_read`; roxygen blocks are much
//! of a documented package); the comments stay comments.
//!
//! **Following the text** as tree-sitter-r reads it: `#` comments to the line's end,
//! strings in either quote with their escapes (over line breaks too), raw strings
//! (`r"(…)"`, `R'--[…]--'`, `r"{…}"`), names in backticks with their escapes, and
//! `%…%` operators on one line. Where the lexer cannot follow the text (an
//! unterminated literal, unbalanced or mismatched delimiters) it skips nothing and
//! the file gets a whole parse.

use std::ops::Range;

use crate::lex::{Cursor, opener};

/// Byte ranges inside `src` that need no syntax tree: the interiors of blocks and of
/// calls' arguments, and the comments' text outside them, in order, disjoint. Empty
/// where the lexer cannot follow the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut lex = Lexer::new(src);
    let mut prev = None;
    while let Some(tok) = lex.next() {
        let skip = match tok {
            Tok::Open(b'{', open) => Some(open),
            Tok::Open(b'(', open) if lex.calls(prev, open) => Some(open),
            _ => None,
        };
        if let Some(open) = skip {
            lex.skip_block()?;
            lex.cur.interior_read(open);
        }
        prev = Some(tok);
    }
    (!lex.cur.confused).then_some(lex.cur.skip)
}

/// One token, as far as finding blocks and arguments (and, for `r_items`, the
/// top-level expressions) goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A name or number (`start..end`), in backticks too.
    Word(usize, usize),
    /// A string, quoted or raw, starting here.
    Str(usize),
    /// `(`, `[` or `{` at this offset.
    Open(u8, usize),
    /// `)`, `]` or `}`.
    Close,
    /// Any other byte at this offset, or a `%…%` operator starting here.
    Punct(usize),
}

pub(crate) struct Lexer<'a> {
    pub(crate) cur: Cursor<'a>,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer {
            cur: Cursor::new(src),
        }
    }

    /// The next token; `None` at the end of the text or once confused.
    pub(crate) fn next(&mut self) -> Option<Tok> {
        loop {
            let (start, b) = self.cur.next_byte(false)?;
            return Some(match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => continue,
                b'#' => {
                    self.cur.line_comment_end();
                    // Not recorded inside a skipped block: its range is the block's.
                    self.cur.line_comment_read(start + 1..self.cur.at, 0);
                    continue;
                }
                b'"' | b'\'' => {
                    self.cur.quoted(b)?;
                    Tok::Str(start)
                }
                b'`' => {
                    self.cur.quoted(b)?;
                    Tok::Word(start, self.cur.at)
                }
                b'%' => {
                    self.special()?;
                    Tok::Punct(start)
                }
                b'(' | b'[' | b'{' => {
                    self.cur.open.push(b);
                    Tok::Open(b, start)
                }
                b')' | b']' | b'}' => {
                    self.cur.close(opener(b))?;
                    Tok::Close
                }
                b if is_word(b) => {
                    self.cur.skip_while(is_word);
                    if matches!(&self.cur.src[start..self.cur.at], b"r" | b"R") && self.raw()? {
                        Tok::Str(start)
                    } else {
                        Tok::Word(start, self.cur.at)
                    }
                }
                _ => Tok::Punct(start),
            });
        }
    }

    /// Past the closer of the bracket [`Lexer::next`] just opened, through what it
    /// holds; `None` (confused) where the text ends first or a closer does not
    /// match. Tokens are not made here, only the bytes that open or close something
    /// stopped at (a lookup table over the rest): the interiors are most of a file.
    pub(crate) fn skip_block(&mut self) -> Option<()> {
        let floor = self.cur.open.len();
        let src = self.cur.src;
        while self.cur.open.len() >= floor {
            let Some(i) = src[self.cur.at..]
                .iter()
                .position(|b| STOPS[usize::from(*b)])
            else {
                return self.cur.confused();
            };
            let at = self.cur.at + i;
            self.cur.at = at + 1;
            match src[at] {
                b'#' => self.cur.line_comment_end(),
                b'`' => self.cur.quoted(b'`')?,
                b'%' => self.special()?,
                q @ (b'"' | b'\'') => {
                    // After a word `r` or `R`, a raw string (as `next` reads it).
                    let word_r = at >= 1
                        && matches!(src[at - 1], b'r' | b'R')
                        && (at < 2 || !is_word(src[at - 2]));
                    self.cur.at = at;
                    if !(word_r && self.raw()?) {
                        self.cur.at = at + 1;
                        self.cur.quoted(q)?;
                    }
                }
                b @ (b'(' | b'[' | b'{') => self.cur.open.push(b),
                b => self.cur.close(opener(b))?,
            }
        }
        Some(())
    }

    /// After a `%`: past the `%` that closes the operator on its line (`%in%`).
    fn special(&mut self) -> Option<()> {
        match memchr::memchr3(b'%', b'\\', b'\n', &self.cur.src[self.cur.at..]) {
            Some(i) if self.cur.src[self.cur.at + i] == b'%' => {
                self.cur.at += i + 1;
                Some(())
            }
            _ => self.cur.confused(),
        }
    }

    /// After a word `r` or `R`: past the raw string that starts here, if one does
    /// (`Some(false)` where none does; `None` where it is not closed).
    fn raw(&mut self) -> Option<bool> {
        let Some((text, closer)) = self.raw_string() else {
            return Some(false);
        };
        self.cur.at = text;
        self.cur.past(&closer)?;
        Some(true)
    }

    /// After `r` or `R`: the closer of the raw string that starts here, if one
    /// does (a quote, dashes and an opening bracket; its closer is the bracket's, as
    /// many dashes and the quote), and where its text starts.
    fn raw_string(&self) -> Option<(usize, Vec<u8>)> {
        let at = self.cur.at;
        let quote = self.cur.peek(0).filter(|q| matches!(q, b'"' | b'\''))?;
        let dashes = self.cur.run(b'-', at + 1);
        let close = match self.cur.src.get(at + 1 + dashes)? {
            b'(' => b')',
            b'[' => b']',
            b'{' => b'}',
            _ => return None,
        };
        let mut closer = vec![close];
        closer.resize(dashes + 1, b'-');
        closer.push(quote);
        Some((at + dashes + 2, closer))
    }

    /// Whether the `(` at `open`, after `prev`, opens a call's arguments: after a
    /// name that is no keyword, on the same line.
    fn calls(&self, prev: Option<Tok>, open: usize) -> bool {
        let Some(Tok::Word(start, end)) = prev else {
            return false;
        };
        let name = &self.cur.src[start..end];
        let keyword = matches!(
            name,
            b"if"
                | b"else"
                | b"for"
                | b"in"
                | b"while"
                | b"repeat"
                | b"function"
                | b"next"
                | b"break"
        ) || name.first().is_some_and(u8::is_ascii_digit);
        !keyword && !self.cur.src[end..open].contains(&b'\n')
    }
}

/// The bytes [`Lexer::skip_block`] stops at: brackets, and what opens a comment, a
/// string, a name in backticks or a `%…%` operator.
static STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let stops = b"()[]{}#\"'`%";
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// A byte of a name or number (`.` included, any non-ASCII byte too).
pub(crate) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'_' | b'.')
}

/// R text with the constructs the lexer could misread (doc comments, raw strings,
/// calls and blocks at the top level, lambdas, `->`): the outline snapshot
/// (`languages/r.rs`) and the skeleton test below read it.
#[cfg(test)]
pub(super) const TRICKY: &str = r#"#' Adds.
#'
#' @param x A number.
#' @export
add <- function(x, y = list(a = {1})) {
  inner <- function(z) z
  x + y
}

# Not a doc comment.
sub = function(a) a - 1
"quoted" <- function() NULL
`%+%` <- function(a, b) paste(a, b)
VERSION <- c(major = 1, minor = r"(0)")
cache <<- new.env()
obj$method <- function() 1
function(x) x -> right
setClass("Person", representation(name = "character"))
Counter <- R6::R6Class("Counter", public = list(add = function(n = 1) {
  self$count <- self$count + n
}))
if (TRUE) {
  hidden <- 1
} else {
  other <- 2
}
for (i in seq_len(3)) {
  loop <- i
}
total <- (1 + 2) * sum(1:10)
lambda <- \(x) x + 1
x %>% f() |> g()
"#;

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::{
        Lang,
        tests::{skeleton_reads_as_whole, skipped, skips_nothing},
    };

    #[test]
    fn blocks_and_arguments_are_skipped_and_the_top_level_read() {
        let src = r#"#' Adds.
#' @export
add <- function(x, y = c(1, 2)) {
  inner <- function(z) { z }
  x + y
}
sub = function(a) a - 1
VERSION <- paste0("1", ".0")
`%+%` <- function(a, b) paste(a, b)
if (TRUE) { hidden <- 1 } else { other() }
for (i in seq_len(3)) print(i)
while (x) { }
x <- (a + b)
f
(y)
pkg::g(1)(2)
"#;
        expect![[r#"
            [
                "' Adds.\n#' @export",
                "1, 2",
                "\n  inner <- function(z) { z }\n  x + y\n",
                "\"1\", \".0\"",
                "a, b",
                " hidden <- 1 ",
                " other() ",
                "3",
                "i",
                " ",
                "1",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn strings_and_comments_hide_their_delimiters() {
        let src = r#"
f <- function() { s <- "}\"{"; t <- '}\'{'; `a}b` <- 1; x %in% y; x %{% y }
g <- function() { r"(})" ; R'--[ ]" } ]-' ]--' ; r"{ } }" }
h <- function() {
  # a comment's }
  "a
  }"
}
"#;
        expect![[r#"
            [
                " s <- \"}\\\"{\"; t <- '}\\'{'; `a}b` <- 1; x %in% y; x %{% y ",
                " r\"(})\" ; R'--[ ]\" } ]-' ]--' ; r\"{ } }\" ",
                "\n  # a comment's }\n  \"a\n  }\"\n",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "f <- function() { s <- 'x }",
                "f <- function() { s <- \"x }",
                "f <- function() { `x }",
                "f <- function() { r\"( }\" }",
                "f <- function() { x %in y }",
                "f <- function() { } }",
                "f <- function() { g(} ) }",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        skeleton_reads_as_whole(Lang::R, TRICKY, 10, 9);
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: dplyr), or the first index is slow
    /// again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("r", &["R", "r"], 90, 1, |src| scan(src).is_some());
    }
}
