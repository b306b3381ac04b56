//! Skeleton parses: the parts of a file the symbol walker never looks into, found by
//! a lexer, so tree-sitter does not build syntax trees for them.
//!
//! The walker (`symbols.rs`) enters containers only: never function bodies, macro
//! token trees, attribute arguments, constant values, comments or string contents.
//! Those are most of a Rust file's bytes and most of its tokens, and building their
//! trees was most of the first index's time. A lexer that knows strings, raw
//! strings, character literals, lifetimes and nested comments finds their
//! delimiters at a few hundred MB/s. Tree-sitter then sees the skeleton: each skipped
//! range blanked to spaces (same length, so every node keeps its offsets in the
//! real file; a body parses as an empty block, a macro's tokens as an empty token
//! tree), the longest ones left out altogether (`Parser::set_included_ranges`, whose
//! cost grows with the number of ranges, so only a few).
//!
//! The symbols never change with the shortcut: the test over the Rust files the
//! build vendors compares skeleton and whole parses of the files that parse cleanly,
//! and where the skeleton has a syntax error next to a skipped range the caller
//! parses the whole file instead (`symbols::extract_with`). Each language names its
//! lexer (`languages/`): Rust's (`skeleton_rust`) also feeds `rust_items`, which
//! reads declarations without any tree; TypeScript, TSX, JavaScript, Java, Kotlin,
//! Swift and Scala share `skeleton_brace`, C, C++ and C# `skeleton_c`; Go, Python,
//! PHP, Lua, R, Ruby, Bash, Haskell, OCaml and Elixir have their own; all under
//! the same rule and the same test against whole parses.

use std::ops::Range;

use crate::Lang;

/// Skipped ranges at least this long are left out of the parse, not blanked.
const LEAVE_OUT: usize = 256;
/// At most this many of them (the longest), so range switching stays cheap.
const MAX_LEFT_OUT: usize = 64;

/// What tree-sitter parses instead of the whole file.
#[derive(Debug)]
pub struct Skeleton {
    /// The file with the skipped ranges blanked to spaces: same length, same offsets.
    pub text: Vec<u8>,
    /// The ranges to parse: all but the longest skipped ranges.
    pub included: Vec<tree_sitter::Range>,
    /// Every skipped range, in order, disjoint.
    pub skipped: Vec<Range<usize>>,
    /// Any syntax error sends the file to a whole parse, not only one next to a
    /// skipped range (Python: a misread string moves every indentation after it).
    any_error: bool,
}

impl Skeleton {
    /// The skeleton of `src`, or `None` where the language has no skeleton lexer or
    /// nothing can be skipped.
    pub fn of(lang: Lang, src: &[u8]) -> Option<Skeleton> {
        let lexer = lang.language().skeleton.as_ref()?;
        let skipped = (lexer.skippable)(src);
        if skipped.is_empty() {
            return None;
        }
        let mut text = src.to_vec();
        for gap in &skipped {
            text[gap.clone()].fill(b' ');
            if let Some(mark) = lexer.mark {
                mark(&mut text, gap);
            }
        }
        let mut left_out: Vec<Range<usize>> = skipped
            .iter()
            .filter(|gap| gap.len() >= LEAVE_OUT)
            .cloned()
            .collect();
        if left_out.len() > MAX_LEFT_OUT {
            left_out.sort_unstable_by_key(|gap| std::cmp::Reverse(gap.len()));
            left_out.truncate(MAX_LEFT_OUT);
            left_out.sort_unstable_by_key(|gap| gap.start);
        }
        Some(Skeleton {
            included: included(&text, &left_out),
            text,
            skipped,
            any_error: lexer.any_error,
        })
    }

    /// Whether `tree` (parsed from this skeleton) has a syntax error touching a
    /// skipped range: there a misjudged delimiter could be the cause, and only the
    /// whole text can say.
    pub fn error_near_skipped(&self, tree: &tree_sitter::Tree) -> bool {
        let root = tree.root_node();
        if !root.has_error() || self.any_error {
            return root.has_error();
        }
        // The outermost error and missing nodes, with an explicit stack: error trees
        // can be as deep as the file is nested.
        let (mut found, mut stack) = (Vec::new(), vec![root]);
        while let Some(node) = stack.pop() {
            if node.is_error() || node.is_missing() {
                found.push(node.byte_range());
                continue;
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor).filter(|c| c.has_error()));
        }
        found.iter().any(|err| {
            // Skipped ranges are sorted: the first one ending at or after the error's
            // start (less the delimiter byte) is the only candidate.
            let i = self.skipped.partition_point(|gap| gap.end + 1 < err.start);
            self.skipped
                .get(i)
                .is_some_and(|gap| gap.start <= err.end + 1)
        })
    }
}

/// The included ranges tree-sitter needs to parse everything but `skip` (byte offsets
/// and rows/columns); empty (the whole text) when nothing is left out.
fn included(src: &[u8], skip: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    if skip.is_empty() {
        return Vec::new();
    }
    let mut points = Points::new(src);
    let mut out = Vec::with_capacity(skip.len() + 1);
    let mut start = 0;
    for gap in skip {
        out.push(tree_sitter::Range {
            start_byte: start,
            end_byte: gap.start,
            start_point: points.at(start),
            end_point: points.at(gap.start),
        });
        start = gap.end;
    }
    out.push(tree_sitter::Range {
        start_byte: start,
        end_byte: src.len(),
        start_point: points.at(start),
        end_point: points.at(src.len()),
    });
    out
}

/// Rows and byte columns of increasing offsets, in one pass over the text.
struct Points<'a> {
    src: &'a [u8],
    at: usize,
    row: usize,
    line_start: usize,
}

impl<'a> Points<'a> {
    fn new(src: &'a [u8]) -> Points<'a> {
        Points {
            src,
            at: 0,
            row: 0,
            line_start: 0,
        }
    }

    fn at(&mut self, offset: usize) -> tree_sitter::Point {
        debug_assert!(offset >= self.at, "offsets must increase");
        for (i, &b) in self.src[self.at..offset].iter().enumerate() {
            if b == b'\n' {
                self.row += 1;
                self.line_start = self.at + i + 1;
            }
        }
        self.at = offset;
        tree_sitter::Point::new(self.row, offset - self.line_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton_rust::RustLexer;

    #[test]
    fn included_ranges_keep_rows_and_columns() {
        let src = b"fn a() {\n  x\n}\nfn b() { y }\n";
        let skip = RustLexer::new(src, true).skippable();
        let ranges = included(src, &skip);
        let points: Vec<_> = ranges
            .iter()
            .map(|r| (r.start_byte, r.start_point, r.end_byte, r.end_point))
            .collect();
        assert_eq!(
            points,
            vec![
                (
                    0,
                    tree_sitter::Point::new(0, 0),
                    8,
                    tree_sitter::Point::new(0, 8)
                ),
                (
                    13,
                    tree_sitter::Point::new(2, 0),
                    23,
                    tree_sitter::Point::new(3, 8)
                ),
                (
                    26,
                    tree_sitter::Point::new(3, 11),
                    28,
                    tree_sitter::Point::new(4, 0)
                ),
            ]
        );
    }
}
