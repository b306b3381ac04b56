//! R declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter-r's tree (`languages/r.rs`), for the files this
//! reader can vouch for.
//!
//! The symbols are the top-level assignments to a name (`f <- function(x) …`,
//! `x = 1`, `f <<- …`, `"f" <- …`). The reader follows the top-level expressions as
//! tree-sitter-r delimits them, on the skeleton lexer's tokens (`skeleton_r`),
//! passing over every bracket's interior whole (blocks, arguments, parameters,
//! conditions: [`Lexer::skip_block`]). A complete expression ends at a line break,
//! a `;`, or an operand on its line (the program is a sequence of expressions: data
//! after `scan()`); a line break is passed over after an operator, a keyword's
//! header (`function(x)`, `if (c)`, `\(x)`), `repeat` or `else`, where the grammar
//! expects more. An expression is a symbol when its first token is a name and its
//! second `<-`, `<<-` or `=`; its range ends at its last token, and its value is a
//! function when its third token is `function` or `\`.
//!
//! The reader declines (the skeleton parse answers) where the assignment may not be
//! the expression's root: a `?` (lower than every assignment in the grammar), and
//! after `=` (which binds tighter than `<-` in tree-sitter-r) a later `<-`, `<<-` or
//! `:=`. It declines on what the grammar fails on or reads otherwise (an operator
//! with no operand, a keyword or a line break after `$`, `@` or `::`, a number the
//! grammar splits: `1a`, text the lexer cannot follow), on non-ASCII names, whose
//! identifier rules it does not check, and on assignments to a raw string (a
//! name in backticks is read with them, and `symbols.rs` names the symbol without
//! them, `` `%+%` `` as `%+%`, as the walker does). Inside brackets it
//! checks only that they match: where the grammar fails inside them, its recovery
//! may read the rest of the file otherwise (the test over real code, `fast_check`,
//! compares clean files symbol for symbol).

use std::ops::Range;

use crate::{
    SymbolKind as K,
    rust_items::Decl,
    skeleton_r::{Lexer, Tok, is_word},
};

/// The declarations of an R file, or `None` where this reader cannot vouch for the
/// answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut reader = Reader {
        src,
        lex: Lexer::new(src),
        state: State::Operand,
        expr: Expr::default(),
        last_end: 0,
        prev: Class::Semicolon,
        out: Vec::new(),
    };
    // Comments are not ranges to skip here.
    reader.lex.cur.record = false;
    while let Some(tok) = reader.lex.next() {
        reader.token(tok)?;
        reader.last_end = reader.lex.cur.at;
    }
    // Complete, or nothing read since the last one: else the grammar fails at the end.
    let complete = match reader.state {
        State::Complete => true,
        State::Operand => reader.expr.tokens == 0,
        State::Header | State::Member => false,
    };
    if reader.lex.cur.confused || !complete {
        return None;
    }
    reader.end()?;
    Some(reader.out)
}

/// What the current expression expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// An operand: at the start, after an operator, a header, `repeat` or `else`
    /// (a line break does not end the expression here).
    Operand,
    /// Nothing: the expression is complete, and a line break ends it.
    Complete,
    /// The `(` of a `function`, `\`, `if`, `for` or `while` header.
    Header,
    /// The name after `$`, `@` or `::`, on the same line.
    Member,
}

impl Class {
    /// Whether the token starts an operand, and cannot continue one before it.
    fn starts(self) -> bool {
        matches!(
            self,
            Class::Name { .. }
                | Class::Str
                | Class::Atom
                | Class::Open(b'{')
                | Class::Function
                | Class::Conditional { .. }
                | Class::Repeat
                | Class::Not
        )
    }
}

/// The top-level expression being read.
#[derive(Debug, Default)]
struct Expr {
    tokens: u32,
    /// Its first token, when it is a name.
    lhs: Lhs,
    /// Its second token when that is `<-`, `<<-` or `=` after a name: where the
    /// operator starts, and whether it is `=`.
    assign: Option<(usize, bool)>,
    /// Its value's `function`, where it is one.
    fun: Fun,
    /// `if`s without their `else` yet.
    ifs: u32,
}

#[derive(Debug, Default)]
enum Lhs {
    #[default]
    None,
    /// A name the walker reads as its bytes (an identifier, a quoted string's
    /// text), and where the expression starts.
    Name { start: usize, name: Range<usize> },
    /// A raw string, an empty name in backticks, or a string whose text is not one
    /// the walker would name a symbol by.
    Unread,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum Fun {
    #[default]
    No,
    /// `function` or `\`, before its parameters.
    Header,
    /// Past its parameters: its body starts at the next token.
    Params,
    /// Its body starts here.
    Body(usize),
}

/// What a token is to the expression around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// An identifier (or a name in backticks: `backticks`).
    Name {
        backticks: bool,
    },
    /// A quoted or raw string.
    Str,
    /// A number, `TRUE`, `NULL`, `next`, `...` and the like.
    Atom,
    /// `function` or `\`.
    Function,
    /// `if`, `for` or `while`.
    Conditional {
        is_if: bool,
    },
    Repeat,
    Else,
    Open(u8),
    /// `+`, `-`, `~`: binary after an operand, else unary.
    Either,
    /// `!`: unary only.
    Not,
    /// `?`, unary or binary: lower than every assignment.
    Help,
    /// `<-` and `<<-`, `=`, `:=`.
    LeftAssign,
    Equals,
    ColonAssign,
    /// Any other binary operator.
    Binary,
    /// `$` and `@`; `::` and `:::`.
    Extract,
    Namespace,
    Semicolon,
    /// What the reader does not follow at the top level (`,`, `<<`, a byte that is
    /// no operator).
    Unknown,
}

struct Reader<'a> {
    src: &'a [u8],
    lex: Lexer<'a>,
    state: State,
    expr: Expr,
    /// Where the last token ended, and what it was.
    last_end: usize,
    prev: Class,
    out: Vec<Decl>,
}

impl Reader<'_> {
    /// Reads `tok`, the next token; `None` where the reader cannot follow.
    fn token(&mut self, tok: Tok) -> Option<()> {
        let start = match tok {
            Tok::Word(s, _) | Tok::Str(s) | Tok::Open(_, s) | Tok::Punct(s) => s,
            // A closer the lexer matched to no opener at the top level.
            Tok::Close => return None,
        };
        let line_break = memchr::memchr(b'\n', &self.src[self.last_end..start]).is_some();
        let mut class = self.class(tok)?;
        // `else` is the grammar's only where an `if` waits for it (its scanner
        // reads it then), else a name (`else <- 1`).
        if class == Class::Else && !(self.state == State::Complete && self.expr.ifs > 0) {
            class = Class::Name { backticks: false };
        }
        // A complete expression ends at a line break, and where an operand follows it
        // on its line (`f <- scan()` then data: `12 14`): the program is a sequence of
        // expressions, with or without separators.
        if self.state == State::Complete && (line_break || class.starts()) {
            self.end()?;
            self.state = State::Operand;
        }
        if self.state == State::Member && line_break {
            return None;
        }
        let index = self.expr.tokens;
        self.expr.tokens += 1;
        // What would take the root from the assignment: `?` is lower than every
        // operator, and `<-` lower than `=` in tree-sitter-r (R has it the other way).
        match class {
            Class::Help => return None,
            Class::LeftAssign | Class::ColonAssign
                if self.expr.assign.is_some_and(|(_, equals)| equals) =>
            {
                return None;
            }
            _ => {}
        }
        if self.expr.fun == Fun::Params {
            self.expr.fun = Fun::Body(start);
        }
        match index {
            0 => self.expr.lhs = self.lhs(tok, class)?,
            1 if matches!(class, Class::LeftAssign | Class::Equals) => match self.expr.lhs {
                Lhs::Name { .. } => self.expr.assign = Some((start, class == Class::Equals)),
                Lhs::Unread => return None,
                Lhs::None => {}
            },
            2 if class == Class::Function && self.expr.assign.is_some() => {
                self.expr.fun = Fun::Header;
            }
            _ => {}
        }
        self.state = match (self.state, class) {
            (State::Header, Class::Open(b'(')) => {
                self.lex.skip_block()?;
                if self.expr.fun == Fun::Header {
                    self.expr.fun = Fun::Params;
                }
                State::Operand
            }
            (State::Header, _) => return None,
            (State::Member, Class::Name { .. } | Class::Str) => State::Complete,
            (State::Member, _) => return None,
            (State::Operand, class) => match class {
                Class::Name { .. } | Class::Str | Class::Atom => State::Complete,
                Class::Function => State::Header,
                Class::Conditional { is_if } => {
                    self.expr.ifs += u32::from(is_if);
                    State::Header
                }
                Class::Repeat | Class::Either | Class::Not => State::Operand,
                Class::Open(b'(' | b'{') => {
                    self.lex.skip_block()?;
                    State::Complete
                }
                // A `;` alone (the program's, between expressions).
                Class::Semicolon if index == 0 => {
                    self.expr = Expr::default();
                    State::Operand
                }
                _ => return None,
            },
            (State::Complete, class) => match class {
                Class::Else if self.expr.ifs > 0 => {
                    self.expr.ifs -= 1;
                    State::Operand
                }
                // A call's arguments, a subset's.
                Class::Open(b'(' | b'[') => {
                    self.lex.skip_block()?;
                    State::Complete
                }
                Class::Either
                | Class::LeftAssign
                | Class::Equals
                | Class::ColonAssign
                | Class::Binary => State::Operand,
                Class::Extract => State::Member,
                // `pkg::f`: after a name or a string only.
                Class::Namespace if matches!(self.prev, Class::Name { .. } | Class::Str) => {
                    State::Member
                }
                Class::Semicolon => {
                    self.end()?;
                    State::Operand
                }
                _ => return None,
            },
        };
        self.prev = class;
        Some(())
    }

    /// What `tok` is; `None` for a word the reader does not read as the grammar does.
    /// An operator of several bytes is read whole here.
    fn class(&mut self, tok: Tok) -> Option<Class> {
        let src = self.src;
        Some(match tok {
            Tok::Word(start, end) => {
                let word = &src[start..end];
                if word[0] == b'`' {
                    return Some(Class::Name { backticks: true });
                }
                if !word.is_ascii() {
                    return None;
                }
                match word {
                    b"function" => Class::Function,
                    b"if" => Class::Conditional { is_if: true },
                    b"for" | b"while" => Class::Conditional { is_if: false },
                    b"repeat" => Class::Repeat,
                    b"else" => Class::Else,
                    b"TRUE" | b"FALSE" | b"NULL" | b"Inf" | b"NaN" | b"NA" | b"NA_integer_"
                    | b"NA_real_" | b"NA_complex_" | b"NA_character_" | b"next" | b"break"
                    | b"..." => Class::Atom,
                    [b'0'..=b'9', ..] | [b'.', b'0'..=b'9', ..] => {
                        number(word, &src[end..])?;
                        Class::Atom
                    }
                    // `..1` (`dot_dot_i`).
                    [b'.', b'.', rest @ ..]
                        if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit) =>
                    {
                        Class::Atom
                    }
                    _ => Class::Name { backticks: false },
                }
            }
            Tok::Str(_) => Class::Str,
            Tok::Open(b, _) => Class::Open(b),
            Tok::Close => Class::Unknown,
            Tok::Punct(start) => {
                let rest = &src[start..];
                let (class, len) = match rest {
                    // `%…%`, read whole by the lexer.
                    [b'%', ..] => (Class::Binary, 0),
                    [b'<', b'<', b'-', ..] => (Class::LeftAssign, 3),
                    [b'<', b'-', ..] => (Class::LeftAssign, 2),
                    [b'<', b'<', ..] => (Class::Unknown, 1),
                    [b'-', b'>', b'>', ..] => (Class::Binary, 3),
                    [b'-' | b'|', b'>', ..] => (Class::Binary, 2),
                    [b'<' | b'>' | b'=' | b'!', b'=', ..] => (Class::Binary, 2),
                    [b'&', b'&', ..] | [b'|', b'|', ..] | [b'*', b'*', ..] => (Class::Binary, 2),
                    [b':', b':', b':', ..] => (Class::Namespace, 3),
                    [b':', b':', ..] => (Class::Namespace, 2),
                    [b':', b'=', ..] => (Class::ColonAssign, 2),
                    [b'+' | b'-' | b'~', ..] => (Class::Either, 1),
                    [b'!', ..] => (Class::Not, 1),
                    [b'?', ..] => (Class::Help, 1),
                    [b'=', ..] => (Class::Equals, 1),
                    [b'<' | b'>' | b'*' | b'/' | b'^' | b'&' | b'|' | b':', ..] => {
                        (Class::Binary, 1)
                    }
                    [b'$' | b'@', ..] => (Class::Extract, 1),
                    [b';', ..] => (Class::Semicolon, 1),
                    [b'\\', ..] => (Class::Function, 1),
                    _ => (Class::Unknown, 1),
                };
                if len > 0 {
                    self.lex.cur.at = start + len;
                }
                class
            }
        })
    }

    /// The expression's first token, `tok`: a name an assignment makes a symbol of,
    /// if it is one.
    fn lhs(&self, tok: Tok, class: Class) -> Option<Lhs> {
        Some(match (tok, class) {
            (Tok::Word(start, end), Class::Name { backticks: false }) => Lhs::Name {
                start,
                name: start..end,
            },
            (Tok::Word(start, end), Class::Name { backticks: true }) => {
                let text = &self.src[start..end];
                if std::str::from_utf8(text).is_err() || text.iter().all(|b| *b == b'`') {
                    Lhs::Unread
                } else {
                    Lhs::Name {
                        start,
                        name: start..end,
                    }
                }
            }
            (Tok::Str(start), _) => {
                let end = self.lex.cur.at;
                if !matches!(self.src[start], b'"' | b'\'') {
                    return Some(Lhs::Unread);
                }
                let name = start + 1..end - 1;
                let text = &self.src[name.clone()];
                if text.is_empty() {
                    // `"" <- x`: a string without content names nothing.
                    return Some(Lhs::None);
                }
                // The walker names the symbol by the text without backticks
                // (`languages/r.rs`), and drops one that is not UTF-8.
                if text.starts_with(b"`")
                    || text.ends_with(b"`")
                    || std::str::from_utf8(text).is_err()
                {
                    return Some(Lhs::Unread);
                }
                Lhs::Name { start, name }
            }
            _ => Lhs::None,
        })
    }

    /// The expression read is complete: a declaration, if it is one.
    fn end(&mut self) -> Option<()> {
        let expr = std::mem::take(&mut self.expr);
        let (Lhs::Name { start, name }, Some((op, _))) = (expr.lhs, expr.assign) else {
            return Some(());
        };
        let (kind, sig_end) = match expr.fun {
            Fun::Body(body) => (K::Function, body),
            Fun::No => (K::Variable, op),
            // A `function` the expression ended in: the grammar fails there.
            Fun::Header | Fun::Params => return None,
        };
        self.out.push(Decl {
            kind,
            name,
            bytes: start..self.last_end,
            core: start,
            sig_end: Some(sig_end),
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        });
        Some(())
    }
}

/// `Some` where `word` (word bytes from a digit, or from a `.` and a digit) is one
/// of tree-sitter-r's number tokens (`1`, `1.5e3`, `.5`, `0x1F`, `2L`, `1i`), or
/// the start of one whose exponent's sign and digits follow (`1e` of `1e-5`;
/// `after` is the text after the word). Else the grammar reads it as several
/// tokens (`1a`, `0x1p-3`, `1_000`), which the reader does not follow.
fn number(word: &[u8], after: &[u8]) -> Option<()> {
    let body = match word.split_last() {
        Some((b'L' | b'i', body)) if !body.is_empty() => body,
        _ => word,
    };
    let single_dot = |t: &[u8]| t.iter().filter(|b| **b == b'.').count() <= 1;
    if let Some(hex) = body.strip_prefix(b"0x").or(body.strip_prefix(b"0X")) {
        let digits = hex.iter().all(|b| b.is_ascii_hexdigit() || *b == b'.');
        return (!hex.is_empty() && digits && single_dot(hex)).then_some(());
    }
    let digits = body
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    let (mantissa, exponent) = body.split_at(digits);
    if !single_dot(mantissa) {
        return None;
    }
    match exponent {
        [] => Some(()),
        [b'e' | b'E', digits @ ..] if digits.iter().all(u8::is_ascii_digit) => {
            // `1e-5` is one token (to the digits' end, an `L` or `i` with them);
            // `1e` a whole one where no sign follows.
            match after {
                [b'+' | b'-', rest @ ..] if digits.is_empty() && body.len() == word.len() => {
                    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    let tail = match &rest[digits..] {
                        [b'L' | b'i', tail @ ..] => tail,
                        tail => tail,
                    };
                    (digits > 0 && !tail.first().copied().is_some_and(is_word)).then_some(())
                }
                _ => Some(()),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::parse;
    use crate::{
        Lang,
        fast_check::outline,
        symbols::{Parse, extract_with},
        tests::check,
    };

    /// Top-level expressions as tree-sitter-r delimits them: continued over line
    /// breaks after operators, headers and `else`, ended at a line break, a `;` or
    /// an operand on the same line (data after `scan()`), with what only looks like a
    /// symbol (members, calls, rightward and `:=` assignments, keywords, `..1`).
    const READ: &str = r#"#' Adds.
#' @export
add <- function(x, y = c(1, "(")) {
  inner <- function(z) z
  x + y
}
# Not a doc comment.
sub = function(a)
  a - 1
"quoted" <- function() NULL
'single' = 1
lambda <<- \(x) x |> f()
VERSION <- c(major = 1, minor = r"(0)") # trailing
total <- 1e-5 + 0x1FL -
  # between
  2i * .5
Y <- scan()
12 14 33
a <- 1; b = 2;
obj$method <- function() 1
names(obj) <- "n"
obj@slot <- pkg::f(1)
1 -> right
x := 3
TRUE <- 1
..1 <- 2
"" <- 3
else <- 4
chained <- inner <- if (a) {
  1
} else if (b) 2 else
  3
f <- function
(a, b)
{
  a[[b]]
}
g <- x ~ y + z %in% w$v[1] | !u
h <- -x^2 -> k
"#;

    #[test]
    fn reads_what_the_walker_takes_from_a_whole_parse() {
        assert!(parse(READ.as_bytes()).is_some(), "declined");
        check(
            Lang::R,
            READ,
            expect![[r#"
                function add 3:0-6:1 name@3:0 | add <- function(x, y = c(1, "("))
                function sub 8:0-9:7 name@8:0 | sub = function(a)
                function quoted 10:0-10:27 name@10:1 | "quoted" <- function()
                variable single 11:0-11:12 name@11:1 | 'single'
                function lambda 12:0-12:24 name@12:0 | lambda <<- \(x)
                variable VERSION 13:0-13:39 name@13:0 | VERSION
                variable total 14:0-16:9 name@14:0 | total
                variable Y 17:0-17:11 name@17:0 | Y
                variable a 19:0-19:6 name@19:0 | a
                variable b 19:8-19:13 name@19:8 | b
                variable else 28:0-28:9 name@28:0 | else
                variable chained 29:0-32:3 name@29:0 | chained
                function f 33:0-37:1 name@33:0 | f <- function (a, b)
                variable g 38:0-38:31 name@38:0 | g
                variable h 39:0-39:14 name@39:0 | h
            "#]],
        );
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            // Another root than the assignment.
            "f = g <- 1",
            "f <- x ? y",
            "f = function(x) x <- 1",
            // Names it does not read as the walker does.
            "r\"(f)\" <- 1",
            "caf\u{e9} <- 1",
            // Numbers tree-sitter-r reads as several tokens.
            "x <- 1.a",
            "x <- 0x1p-3",
            "x <- 1e-y",
            // What the grammar fails on, or reads across a line break.
            "f <- function(x)",
            "f <- 1 +",
            "f <-",
            "x <- a[1]]",
            "x <- * 2",
            "x <- $y",
            "x$\ny <- 2",
            "x <- pkg::\ny <- 1",
            "x <- y$TRUE",
            "x <- 1, 2",
            "function x",
            "x <- 'unterminated",
            "x <- y %in z",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        assert!(parse(b"# only a comment\n;\n").is_some_and(|d| d.is_empty()));
    }

    /// Random programs of top-level pieces (names, assignments, operators,
    /// headers, brackets, line breaks, comments, strings, numbers): wherever the
    /// grammar parses one cleanly and the reader vouches for it, the same symbols.
    #[test]
    fn agrees_with_whole_parses_on_random_programs() {
        let pieces: &[&str] = &[
            "f",
            "x",
            "else",
            "in",
            "TRUE",
            "..1",
            "...",
            "1",
            "1e",
            "-5",
            "2L",
            "\"s\"",
            "''",
            " <- ",
            " = ",
            " <<- ",
            " -> ",
            " := ",
            " + ",
            " - ",
            " ! ",
            " ~ ",
            " %in% ",
            " |> ",
            " ^ ",
            " :: ",
            "function(x) ",
            "\\(y) ",
            "function\n(a)\n",
            "if (a) ",
            " else ",
            " else\n",
            "for (i in x) ",
            "while (b) ",
            "repeat ",
            "{ 1 }",
            "{\n}",
            "(1)",
            " (2)",
            "[1]",
            "[[2]]",
            "\n(4)",
            "$y",
            "@z",
            "::h",
            "\n",
            "; ",
            " # c\n",
            "\n#' doc\n",
            "-",
            "next",
            "r\"(x)\"",
            "x$\n",
            ".5",
            "0x1F",
            "1.",
            "1e-5",
            "\"f\" <- ",
            "h <- ",
            "k = ",
            "\r\n",
            "-\n",
            "a <- function(x) x\n",
            "`v`",
        ];
        let mut pick = crate::tests::picker();
        let (mut vouched, mut differ) = (0, Vec::new());
        for _ in 0..20_000 {
            let len = 1 + pick(12);
            let src: String = (0..len).map(|_| pieces[pick(pieces.len())]).collect();
            let whole = extract_with(Lang::R, src.as_bytes(), Parse::Whole);
            if whole.syntax_error.is_some() || parse(src.as_bytes()).is_none() {
                continue;
            }
            vouched += 1;
            let fast = extract_with(Lang::R, src.as_bytes(), Parse::Declarations);
            if outline(&fast) != outline(&whole) {
                differ.push(src);
            }
        }
        assert!(differ.is_empty(), "the reader differs on {differ:#?}");
        assert!(vouched >= 3000, "vouched for only {vouched} programs");
    }

    /// Every file of the conformance corpus (`daemon/benches/fetch-conformance.sh`:
    /// dplyr) the grammar parses cleanly: the reader's symbols are the whole
    /// parse's, and it vouches for nearly all of them (it declines names in
    /// backticks), or the first index is slow again.
    #[test]
    fn agrees_with_whole_parses_on_real_code() {
        let mut files: Vec<_> = ignore::WalkBuilder::new(lean_ctx_testkit::corpus().join("r"))
            .standard_filters(false)
            .build()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| p.is_file() && Lang::from_path(p) == Some(Lang::R))
            .collect();
        files.sort();
        let (mut compared, mut vouched, mut differ) = (0, 0, Vec::new());
        for path in &files {
            let src = std::fs::read(path).unwrap();
            let whole = extract_with(Lang::R, &src, Parse::Whole);
            if whole.syntax_error.is_some() {
                continue;
            }
            compared += 1;
            vouched += usize::from(parse(crate::bom::strip(&src)).is_some());
            let fast = extract_with(Lang::R, &src, Parse::Declarations);
            if outline(&fast) != outline(&whole) {
                differ.push(path.display().to_string());
            }
        }
        assert!(compared >= 90, "only {compared} R files compared");
        assert!(differ.is_empty(), "the reader differs in {differ:#?}");
        assert!(
            vouched * 100 >= compared * 90,
            "the reader vouched for only {vouched} of {compared} files"
        );
    }
}
