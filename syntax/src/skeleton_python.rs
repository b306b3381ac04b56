//! Python's skeleton lexer: the function bodies the symbol walker never enters.
//!
//! The walker (`symbols::python`) reads the statements of a module and of class
//! bodies; it never looks inside a `def`'s body, and bodies are most of a Python
//! file. A body is the indented block after the header's `:` (every following
//! logical line indented deeper than the `def`), or the simple statements after the
//! `:` on the header's own line. Finding logical lines takes a lexer that knows
//! strings (prefixes, triple quotes), comments, brackets and line continuations;
//! indentation is measured as tree-sitter's scanner measures it.
//!
//! A body cannot simply be blanked: Python needs a statement there. So each body
//! becomes one string literal of the same length, from the first byte of its first
//! statement to the last byte of its last one: the quotes are written over those two
//! bytes and the interior is what [`skippable`] returns (blanked, or left out of the
//! parse). Comments after the last statement stay where they are, so the definition
//! ends where the whole parse ends it. A file this lexer cannot read (an unterminated
//! string, unbalanced brackets) gets no skeleton, and the caller parses the whole
//! file wherever the skeleton's parse has any error.

use super::bytes::is_word;
use std::ops::Range;

/// The interiors of the function bodies of `src`, in order and disjoint (each one
/// byte inside its body: [`mark`] writes the quotes there); empty when the file does
/// not lex.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    let Some(Lines { lines, .. }) = lines(src) else {
        return Vec::new();
    };
    let mut skip = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let line = &lines[k];
        if line.kind != LineKind::Def {
            k += 1;
            continue;
        }
        let (start, end, next) = match line.body {
            None => {
                k += 1;
                continue;
            }
            Some(Body::Inline(start)) => (start, line.end, k + 1),
            Some(Body::Block) => {
                let inside = block_len(&lines, k);
                if inside == 0 {
                    k += 1;
                    continue;
                }
                (lines[k + 1].start, lines[k + inside].end, k + 1 + inside)
            }
        };
        if end - start >= 3 {
            skip.push(start + 1..end - 1);
        }
        k = next;
    }
    skip
}

/// How many lines after line `k` are indented deeper than it: its block.
pub(super) fn block_len(lines: &[Line], k: usize) -> usize {
    let indent = lines[k].indent;
    lines[k + 1..]
        .iter()
        .take_while(|l| l.indent > indent)
        .count()
}

/// Makes the body around `gap` (one of [`skippable`]'s) a string literal.
pub(super) fn mark(text: &mut [u8], gap: &Range<usize>) {
    text[gap.start - 1] = b'"';
    text[gap.end] = b'"';
}

/// What follows a `def` or `class` header's `:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// An indented block on the next lines.
    Block,
    /// Simple statements on the header's line, from here.
    Inline(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LineKind {
    /// `[async] def` (`start` is at `async` or `def`).
    Def,
    Class,
    /// `@decorator`.
    Decorator,
    /// Starts with any other keyword (`if`, `import`, `return`, ...).
    Keyword,
    /// Simple statements: [`Line::stmts`].
    Simple,
}

/// One simple statement (`;` separates them).
#[derive(Clone, Debug)]
pub(super) struct Stmt {
    /// Its last token's end.
    pub end: usize,
    /// `NAME = …`, `NAME: T = …` or `NAME: T`: the name.
    pub assigns: Option<Range<usize>>,
    /// Where the assigned value starts.
    pub value: Option<usize>,
}

/// One logical line (physical lines joined inside brackets and by `\`), without
/// blank and comment-only lines.
#[derive(Debug)]
pub(super) struct Line {
    /// Its indentation, as tree-sitter's scanner counts it (a tab is 8).
    pub indent: u32,
    /// Its first token's start and its last token's end (comments are not tokens).
    pub start: usize,
    pub end: usize,
    /// The end of a comment after its last token, on the same line.
    pub comment_end: Option<usize>,
    pub kind: LineKind,
    /// A `def`'s or `class`'s name.
    pub name: Option<Range<usize>>,
    /// A `def` or `class` header: what its body is.
    pub body: Option<Body>,
    /// Its simple statements (of an inline body, after the header's `:`).
    pub stmts: Vec<Stmt>,
}

/// A comment on a line of its own.
#[derive(Clone, Copy, Debug)]
pub(super) struct Comment {
    /// How many logical lines come before it.
    pub after: usize,
    pub indent: u32,
    pub end: usize,
}

pub(super) struct Lines {
    pub lines: Vec<Line>,
    pub comments: Vec<Comment>,
}

/// Where a logical line is in a `def` or `class` header.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Header {
    No,
    /// After `async`.
    Async,
    /// After `def`/`class`, before the header's `:`.
    Head,
    /// After the header's `:`.
    Colon,
    Inline,
}

/// Where a simple statement is: `NAME`, `=`/`:`, ....
#[derive(Clone, Copy, PartialEq, Eq)]
enum Assign {
    /// At its first token.
    Start,
    /// After a name.
    Name,
    /// After `NAME =`: the next token starts the value.
    Equals,
    /// After `NAME:`: an annotation, maybe `= value`.
    Annotated,
    /// Not an assignment, or its value seen.
    Done,
}

/// The logical lines and own-line comments of `src`; `None` when it does not lex
/// (an unterminated string, unbalanced brackets, a stray backslash).
pub(super) fn lines(src: &[u8]) -> Option<Lines> {
    let mut lines: Vec<Line> = Vec::new();
    let mut comments = Vec::new();
    let mut current: Option<Line> = None;
    let (mut header, mut assign) = (Header::No, Assign::Start);
    // A statement's first token, while it may be an assignment's target.
    let mut target = None;
    let mut depth = 0u32;
    let mut indent = 0u32;
    let mut line_start = true;
    let mut i = 0;
    let end_line = |current: &mut Option<Line>, lines: &mut Vec<Line>, header: Header| {
        if let Some(mut line) = current.take() {
            match header {
                Header::Colon => line.body = Some(Body::Block),
                Header::Inline => {}
                _ => line.body = None,
            }
            lines.push(line);
        }
    };
    while i < src.len() {
        if line_start {
            line_start = false;
            indent = 0;
            while let Some(&b) = src.get(i) {
                match b {
                    b' ' => indent += 1,
                    b'\t' => indent += 8,
                    b'\x0c' => indent = 0,
                    _ => break,
                }
                i += 1;
            }
            continue;
        }
        let b = src[i];
        let start = i;
        i += 1;
        let word = match b {
            b' ' | b'\t' | b'\x0c' => continue,
            b'\\' => {
                // A line continuation; a backslash anywhere else is an error.
                match (src.get(i), src.get(i + 1)) {
                    (Some(b'\n'), _) => i += 1,
                    (Some(b'\r'), Some(b'\n')) => i += 2,
                    (Some(b'\r'), _) => i += 1,
                    _ => return None,
                }
                continue;
            }
            b'\n' | b'\r' => {
                if depth == 0 {
                    end_line(&mut current, &mut lines, header);
                    line_start = true;
                }
                continue;
            }
            b'#' => {
                i = src[i..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(src.len(), |p| i + p);
                match &mut current {
                    Some(line) => line.comment_end = Some(i),
                    None => comments.push(Comment {
                        after: lines.len(),
                        indent,
                        end: i,
                    }),
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                None
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                None
            }
            b'"' | b'\'' => {
                i = string(src, start)?;
                None
            }
            b if is_word(b) => {
                while src.get(i).is_some_and(|&b| is_word(b)) {
                    i += 1;
                }
                let word = &src[start..i];
                if matches!(src.get(i), Some(b'"' | b'\'')) && is_prefix(word) {
                    i = string(src, i)?;
                    None
                } else {
                    Some(word)
                }
            }
            _ => {
                // An operator and its `=` (`==`, `+=`, `:=`), so `=` alone is
                // assignment.
                if b"=!<>+-*/%&|^@:".contains(&b) && src.get(i) == Some(&b'=') {
                    i += 1;
                }
                None
            }
        };
        // A token `start..i` (`depth` is after it for an opening bracket).
        let token = &src[start..i];
        let outer = depth == 0;
        let line = match &mut current {
            Some(line) => {
                line.end = i;
                line.comment_end = None;
                line
            }
            None => {
                let kind = match word {
                    Some(b"def") => LineKind::Def,
                    Some(b"class") => LineKind::Class,
                    Some(b"async") => LineKind::Def,
                    Some(w) if is_keyword(w) => LineKind::Keyword,
                    None if b == b'@' => LineKind::Decorator,
                    _ => LineKind::Simple,
                };
                header = match word {
                    Some(b"async") => Header::Async,
                    Some(b"def" | b"class") => Header::Head,
                    _ => Header::No,
                };
                assign = Assign::Start;
                current.insert(Line {
                    indent,
                    start,
                    end: i,
                    comment_end: None,
                    kind,
                    name: None,
                    body: None,
                    stmts: Vec::new(),
                })
            }
        };
        let first = line.start == start;
        match header {
            Header::Async if !first => {
                header = match word {
                    Some(b"def") => Header::Head,
                    _ => {
                        line.kind = LineKind::Keyword;
                        Header::No
                    }
                };
                continue;
            }
            Header::Head if !first => {
                if line.name.is_none() {
                    line.name = word.map(|_| start..i);
                } else if token == b":" && depth == 0 {
                    header = Header::Colon;
                }
                continue;
            }
            Header::Colon => {
                header = Header::Inline;
                line.body = Some(Body::Inline(start));
                assign = Assign::Start;
            }
            _ => {}
        }
        // Statements are read in simple lines and inline bodies only.
        if !(line.kind == LineKind::Simple || header == Header::Inline) {
            continue;
        }
        // A simple statement's token.
        if token == b";" && depth == 0 {
            assign = Assign::Start;
            continue;
        }
        if assign == Assign::Start {
            line.stmts.push(Stmt {
                end: i,
                assigns: None,
                value: None,
            });
        }
        let stmt = line.stmts.last_mut()?;
        stmt.end = i;
        assign = match assign {
            Assign::Start if word.is_some_and(|w| !is_keyword(w)) => {
                target = Some(start..start + token.len());
                Assign::Name
            }
            Assign::Name if token == b"=" => {
                stmt.assigns = target.take();
                Assign::Equals
            }
            Assign::Name if token == b":" => {
                stmt.assigns = target.take();
                Assign::Annotated
            }
            Assign::Equals => {
                stmt.value = Some(start);
                Assign::Done
            }
            Assign::Annotated if token == b"=" && outer => Assign::Equals,
            Assign::Annotated => Assign::Annotated,
            Assign::Done => Assign::Done,
            _ => {
                stmt.assigns = None;
                Assign::Done
            }
        };
    }
    if depth != 0 {
        return None;
    }
    end_line(&mut current, &mut lines, header);
    Some(Lines { lines, comments })
}

/// Python's keywords (and Python 2's `print` and `exec` statements, which
/// tree-sitter-python knows): a statement starting with one is no assignment.
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"False"
            | b"None"
            | b"True"
            | b"and"
            | b"as"
            | b"assert"
            | b"async"
            | b"await"
            | b"break"
            | b"class"
            | b"continue"
            | b"def"
            | b"del"
            | b"elif"
            | b"else"
            | b"except"
            | b"finally"
            | b"for"
            | b"from"
            | b"global"
            | b"if"
            | b"import"
            | b"in"
            | b"is"
            | b"lambda"
            | b"nonlocal"
            | b"not"
            | b"or"
            | b"pass"
            | b"raise"
            | b"return"
            | b"try"
            | b"while"
            | b"with"
            | b"yield"
    )
}

/// Past the string literal whose opening quote is at `at`; `None` when it does not
/// end (a one-quote string must end on its line).
fn string(src: &[u8], at: usize) -> Option<usize> {
    let quote = src[at];
    let triple = src.get(at + 1) == Some(&quote) && src.get(at + 2) == Some(&quote);
    let mut i = if triple { at + 3 } else { at + 1 };
    while let Some(&b) = src.get(i) {
        i += 1;
        match b {
            b'\\' => {
                i += if src.get(i..i + 2) == Some(b"\r\n") {
                    2
                } else {
                    1
                }
            }
            b'\n' | b'\r' if !triple => return None,
            b if b == quote && !triple => return Some(i),
            b if b == quote && src.get(i..i + 2) == Some(&[quote, quote]) => return Some(i + 2),
            _ => {}
        }
    }
    None
}

/// A string prefix: `r`, `b`, `u`, `f`, `t` and their pairs, in either case.
fn is_prefix(word: &[u8]) -> bool {
    word.len() <= 2
        && word
            .iter()
            .all(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f' | b't'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with each body's interior dotted and its ends quoted.
    fn skeleton(src: &str) -> String {
        let mut text = src.as_bytes().to_vec();
        for gap in skippable(src.as_bytes()) {
            text[gap.clone()].fill(b'.');
            mark(&mut text, &gap);
        }
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn bodies_become_strings_classes_stay() {
        let src = "class A:\n    x = 1\n\n    @d\n    def f(self, a=(1,\n  2)) -> int:  # c\n        return '''\ndef g(): pass\n'''\n        # tail\n\n    async def g(self): return 1;\nx = r'\\'' + f\"{a!r}\"\n";
        assert_eq!(
            skeleton(src),
            "class A:\n    x = 1\n\n    @d\n    def f(self, a=(1,\n  2)) -> int:  # c\n        \"..........................\"\n        # tail\n\n    async def g(self): \".......\"\nx = r'\\'' + f\"{a!r}\"\n"
        );
        // Unterminated strings and unbalanced brackets: no skeleton.
        assert!(skippable(b"def f():\n    return 'x\n").is_empty());
        assert!(skippable(b"def f():\n    return (1\n").is_empty());
        assert!(skippable(b"def f():\n    return 1)\n").is_empty());
    }
}
