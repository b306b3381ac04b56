//! Python declarations read straight off the logical lines, without a syntax tree:
//! what the walker takes from tree-sitter's tree for Python (`symbols::python`), for
//! the files this reader can vouch for.
//!
//! The walker reads the statements of a module and of class bodies: `def` and
//! `class` (with their decorators), and `NAME = …`, `NAME: T = …`, `NAME: T`. The
//! skeleton lexer ([`skeleton_python::lines`]) gives logical lines with their
//! indentation, kind, names and simple statements; a block is the lines indented
//! deeper than its header. A definition ends where tree-sitter-python's scanner ends
//! its block: at the block's last token, or past a comment after it on the same
//! line, or past the comments on lines of their own that follow, as long as each is
//! indented at least as deep as the block (the scanner holds its dedent back for
//! those). An unexpected or inconsistent indentation, a decorator not followed by a
//! definition, a header without its body, or a file that does not lex make the
//! reader decline, and the skeleton parse answers. The test over real Python code
//! (`fast_check`) compares its symbols with whole parses.

use crate::SymbolKind as K;

use super::{
    rust_items::Decl,
    skeleton_python::{Body, Comment, Line, LineKind, Lines, Stmt, block_len, lines},
};

/// The declarations of a Python file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let Lines { lines, comments } = lines(src)?;
    if lines.first().is_some_and(|l| l.indent != 0) {
        return None;
    }
    Reader {
        src,
        lines: &lines,
        comments: &comments,
    }
    .block(0, lines.len(), false)
}

struct Reader<'a> {
    src: &'a [u8],
    lines: &'a [Line],
    comments: &'a [Comment],
}

impl Reader<'_> {
    /// The declarations among lines `from..to`, a block (of a class when
    /// `in_class`).
    fn block(&self, from: usize, to: usize, in_class: bool) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        let Some(level) = self.lines.get(from).map(|l| l.indent) else {
            return Some(out);
        };
        let mut decorated = None;
        let mut k = from;
        while k < to {
            let line = &self.lines[k];
            if line.indent != level {
                return None;
            }
            let inside = block_len(self.lines, k);
            let next = k + 1 + inside;
            if decorated.is_some()
                && !matches!(
                    line.kind,
                    LineKind::Decorator | LineKind::Def | LineKind::Class
                )
            {
                return None;
            }
            match line.kind {
                LineKind::Decorator if inside == 0 => {
                    decorated.get_or_insert(line.start);
                }
                LineKind::Def | LineKind::Class => {
                    out.push(self.definition(k, inside, decorated.take())?);
                }
                // A compound statement (`if`, `for`, `match`, ...) and its block, or a
                // statement starting with a keyword: no symbols.
                LineKind::Keyword | LineKind::Simple if inside > 0 => {
                    if self.src[line.end - 1] != b':' {
                        return None;
                    }
                }
                LineKind::Keyword => {}
                LineKind::Simple => out.extend(assignments(&line.stmts, self.src, in_class)),
                LineKind::Decorator => return None,
            }
            k = next;
        }
        decorated.is_none().then_some(out)
    }

    /// The `def` or `class` on line `k`, whose block is the `inside` lines after it.
    fn definition(&self, k: usize, inside: usize, decorated: Option<usize>) -> Option<Decl> {
        let line = &self.lines[k];
        let name = line.name.clone()?;
        let class = line.kind == LineKind::Class;
        let (body, end, members) = match line.body? {
            Body::Inline(at) if inside == 0 => {
                let members = match class {
                    true => assignments(&line.stmts, self.src, true).collect(),
                    false => Vec::new(),
                };
                (at, line.comment_end.unwrap_or(line.end), members)
            }
            Body::Block if inside > 0 => {
                let members = match class {
                    true => self.block(k + 1, k + 1 + inside, true)?,
                    false => Vec::new(),
                };
                (self.lines[k + 1].start, self.block_end(k, inside), members)
            }
            _ => return None,
        };
        Some(Decl {
            kind: if class { K::Class } else { K::Function },
            name,
            bytes: decorated.unwrap_or(line.start)..end,
            core: line.start,
            sig_end: Some(body),
            members,
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// Where the block of the `inside` lines after line `k` ends: its last line, a
    /// comment after it on that line, and the comments on lines of their own after
    /// it indented at least as deep as the block.
    fn block_end(&self, k: usize, inside: usize) -> usize {
        let level = self.lines[k + 1].indent;
        let last = &self.lines[k + inside];
        let mut end = last.comment_end.unwrap_or(last.end);
        let after = k + 1 + inside;
        let first = self.comments.partition_point(|c| c.after < after);
        for c in self.comments[first..]
            .iter()
            .take_while(|c| c.after == after)
        {
            if c.indent < level {
                break;
            }
            end = c.end;
        }
        end
    }
}

/// The assignments among `stmts`: fields in a class, else constants (an all-caps
/// name) and variables.
fn assignments<'s>(
    stmts: &'s [Stmt],
    src: &'s [u8],
    in_class: bool,
) -> impl Iterator<Item = Decl> + 's {
    stmts.iter().filter_map(move |stmt| {
        let name = stmt.assigns.clone()?;
        let kind = if in_class {
            K::Field
        } else if src[name.clone()]
            .iter()
            .all(|b| b.is_ascii_uppercase() || *b == b'_' || b.is_ascii_digit())
        {
            K::Constant
        } else {
            K::Variable
        };
        Some(Decl {
            kind,
            core: name.start,
            bytes: name.start..stmt.end,
            name,
            sig_end: stmt.value,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "def f(:\n    pass\n",
            "def f():\nx = 1\n",
            "x = 1\n    y = 2\n",
            "class A:\n        x = 1\n    y = 2\n",
            "@dec\nx = 1\n",
            "s = 'unterminated\n",
            "  x = 1\n",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
    }
}
