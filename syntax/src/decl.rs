//! The declaration model: one answer, per language, to "where does this declaration
//! start, and what travels with it". The range an answer reports, the bytes
//! `replace_symbol_body` touches and the line `insert_before_symbol` lands on are all
//! derived from the three offsets a symbol carries:
//!
//! ```text
//! doc    ─▶ /// Adds.                     the doc comment directly above (no blank line)
//! range  ─▶ #[inline]                     attributes, decorators, annotations
//! core   ─▶ pub fn add(a: u8) -> u8 {…}   the first keyword or modifier, to the end
//! ```
//!
//! - The **reported range** runs from the first attribute (or the core when there is
//!   none) to the end of the declaration; the signature starts at the core.
//! - **Insert-before** lands on the line of `doc`: above the doc comment and every
//!   attribute, so nothing is detached from the item.
//! - **Replace** starts at `doc` when the new text brings a doc comment, at the range
//!   (the first attribute) when it brings attributes, else at the core: attributes
//!   and doc comments the new text does not bring are kept, none is duplicated.
//! - **The hash** an answer shows for a symbol, and an edit's `expected_hash` is
//!   checked against, covers `doc` to the end: everything a replacement may rewrite,
//!   so a doc comment changed on disk since the agent read the symbol is a `CONFLICT`,
//!   not a lost update (`edit::guarded`).
//!
//! | language | attributes in the range | doc comment (travels, not reported) | core starts at |
//! |---|---|---|---|
//! | Rust | outer `#[…]` before the item (a blank line between still attaches, as in rustc) | `///` lines, a `/** */` block | `pub`, `async`, `unsafe`, `extern`, `const`, the item keyword |
//! | Python | `@decorator` lines | none (docstrings are in the body) | `async`, `def`, `class`; an assignment at its target |
//! | TypeScript, TSX, JavaScript | `@decorator`s | a `/** */` block | `export`, `export default`, `declare`, `abstract`, `async`, `const`/`let`/`var`, the keyword |
//! | Go | none | the `//` lines directly above | `func`, `type`, `var`, `const` of an ungrouped declaration; in a `(…)` group, the spec |
//! | Java | annotations (`@Override`) | a `/** */` block | the first modifier (`public`) or the type |
//! | Kotlin | annotations | a `/** */` block | the first modifier (`data`, `private`) or the keyword |
//! | Ruby | none | the `#` lines directly above (not a shebang) | `def`, `class`, `module`; a call wrapping the definition (`private def x`); `attr_reader`; a constant at its name |
//! | PHP | `#[…]` attribute groups | a `/** */` block | the first modifier (`final`, `public`) or the keyword (`function`, `class`, `const`, `case`, `namespace`) |
//! | Bash | none | the `#` lines directly above (not a shebang) | `function`, else the function's name |
//! | Lua | none | the `--` lines directly above (LDoc's `---`; not a `--]]`) | `local`, `function`; an assignment at its target (`M.f = function`) |
//! | C, C++ | `[[…]]`, `__attribute__((…))`, `__declspec(…)` before the declaration; `template <…>` and a braceless `extern "C"` are the core's start | `///` lines, a `/** */` block | `template`, the first specifier (`static`, `typedef`, `virtual`) or the type; `#define` |
//! | C# | `[Attribute]` lists (not `[assembly: …]`) | `///` lines (XML doc), a `/** */` block | the first modifier (`public`, `static`) or the type or keyword |
//! | Scala | annotations (`@tailrec`, `@main`) | a `/** */` block | the first modifier (`case`, `implicit`, `private[this]`) or the keyword (`def`, `given`, `extension`) |
//! | Swift | attributes (`@objc`, `@available(…)`) | `///` lines, a `/** */` block | the first modifier (`public`, `static`) or the keyword (`func`, `init`, `case`) |
//! | Elixir | `@doc`, `@spec`, `@impl`, `@deprecated` above a definition (`@derive`, `@enforce_keys` above `defstruct`; blank lines and comments between still attach) | none (docs are `@doc` attributes, in the range) | the defining macro (`def`, `defmodule`); `@` of an `@type` |
//! | Haskell | none (pragmas are items of their own) | the `--` lines directly above (Haddock's `-- |` and its continuation lines), a `{-| -}` block | a function's type signature (`f :: Int -> Int`, its equations following), else its first equation; `data`, `newtype`, `type`, `class`, `instance` |
//! | OCaml | none (`[@@…]` follows the item, inside its range) | a `(** *)` block | `let`, `type`, `module`, `class`, `exception`, `external`, `val`, `method`; `and` for a group's later binding |
//! | R | none | the `#'` (roxygen) lines directly above | the assigned name (`f <- function(x)`) |
//!
//! Several names in one declaration (`const a = 1, b = 2` in TypeScript and
//! JavaScript, `int a, b;` in Java, `var X, Y float64` and a `(…)` group's
//! `A, B = 1, 2` in Go) share it: each name is a symbol of its own (its own
//! `name_path` and outline row, a signature naming it alone: `const b`), and all
//! report the whole declaration as their range. Insert-before and -after land outside
//! it; `replace_symbol_body` on one of the names is refused (`INVALID_TARGET` naming
//! the others, `edit.rs`), since it would rewrite its siblings too: the declaration's
//! lines are how to rewrite them together. A name alone in its declaration (a Go
//! group's `C = 3`) is edited as any other.

use std::borrow::Cow;

use tree_sitter::Node;

/// How a language writes comments and strings, as far as doc comments and
/// signatures go (each language's module says, `languages/`).
#[derive(Debug)]
pub struct Comments {
    /// What opens a line comment: `//`, `#` (Python), `--` (Lua); PHP has two, OCaml
    /// none.
    pub line: &'static [&'static [u8]],
    /// What opens and closes a block comment: `/*` and `*/`, `(*` and `*)` (OCaml),
    /// `{-` and `-}` (Haskell); `None` where there is none.
    pub block: Option<Block>,
    /// Which line comments right above a declaration are its doc comment (Rust's
    /// `///`, Go's every `//`); none where the language has no such lines.
    pub doc_line: Option<fn(&[u8]) -> bool>,
    /// What a doc block (`/** … */`) right above a declaration is.
    pub doc_block: DocBlock,
    /// What opens a string or character literal (closed by the same byte).
    pub quotes: &'static [u8],
}

/// A block comment's delimiters, and what opens one that is a doc comment.
#[derive(Debug)]
pub struct Block {
    pub open: &'static [u8],
    pub close: &'static [u8],
    /// `/**`, `(**`, `{-|`: a block opened so is a doc block (`DocBlock` says whose).
    pub doc: &'static [u8],
}

/// `/* … */`, with `/** … */` its doc comment: the C family's.
pub const C_BLOCK: Block = Block {
    open: b"/*",
    close: b"*/",
    doc: b"/**",
};

/// What a doc block right above a declaration is.
#[derive(Debug, PartialEq, Eq)]
pub enum DocBlock {
    /// Not a doc comment (Go, Python).
    No,
    /// Its doc comment; nothing above it is.
    One,
    /// Its doc comment, and so is every doc comment right above that one (Rust,
    /// where every outer doc comment above an item is its doc).
    Stacked,
}

/// Node kinds that are attributes, decorators or annotations inside a declaration's
/// node, or comments among them: the core starts after them.
const LEADING: &[&str] = &[
    "decorator",
    "annotation",
    "marker_annotation",
    "comment",
    "line_comment",
    "block_comment",
    "multiline_comment",
    // C and C++: `__attribute__((…))`, `[[…]]`, `__declspec(…)`; C#: `[…]`.
    "attribute_specifier",
    "attribute_declaration",
    "ms_declspec_modifier",
    "attribute_list",
    // Swift: `@objc`, `@available(…)`, among the modifiers.
    "attribute",
    // PHP's `#[…]` groups are an `attribute_list` as well (above, with C#'s).
];

/// Where `node`'s core starts: past its decorators and annotations (Python's
/// `decorated_definition`, TypeScript's decorators, the annotations among Java's and
/// Kotlin's modifiers), at the first keyword or modifier.
pub(super) fn core_start(node: Node<'_>) -> usize {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if LEADING.contains(&child.kind()) {
            continue;
        }
        if child.kind() == "modifiers" {
            let mut inner = child.walk();
            let first = child
                .children(&mut inner)
                .find(|m| !LEADING.contains(&m.kind()));
            match first {
                Some(m) => return m.start_byte(),
                None => continue,
            }
        }
        return child.start_byte();
    }
    node.start_byte()
}

/// Whether a sibling the grammar leaves before a declaration holds attributes and
/// nothing else. tree-sitter-kotlin-ng reads `@Suppress("x")` after a function as an
/// `annotated_expression` (the annotation, then its arguments as a parenthesized
/// expression): those are the next declaration's. But it also reads whole
/// declarations as one (`@InternalCoroutinesApi public actual open class
/// LockFreeLinkedListNode {…}` in kotlinx-coroutines 1.8.1 becomes an infix
/// expression): taken for attributes, they would put a whole class into the range of
/// the next declaration, and a replacement bringing attributes would delete it.
pub(super) fn attributes_only(node: Node<'_>) -> bool {
    if node.kind() != "annotated_expression" {
        return true;
    }
    let mut cursor = node.walk();
    let mut after_annotation = false;
    node.named_children(&mut cursor).all(|child| {
        let ok = match child.kind() {
            "annotation" | "annotated_expression" => attributes_only(child),
            "parenthesized_expression" => after_annotation,
            k => LEADING.contains(&k),
        };
        after_annotation = child.kind() == "annotation";
        ok
    })
}

/// Where the doc comment directly above `at` starts, past its indentation (`at`
/// when there is none): `at` must begin its line; the comment lines are whole lines
/// right above it.
pub fn doc_start(comments: &Comments, src: &[u8], at: usize) -> usize {
    // Only blanks before it on its line, found from `at` backwards: a minified
    // file's one long line holds thousands of declarations, and a scan from the
    // line's start for each was quadratic (seconds on three.js's builds).
    let blanks = src[..at]
        .iter()
        .rev()
        .take_while(|b| **b != b'\n' && b.is_ascii_whitespace())
        .count();
    let mut start = at - blanks;
    if start > 0 && src[start - 1] != b'\n' {
        return at;
    }
    let mut doc = at;
    'up: while start > 0 {
        let above = line_start(src, start - 1);
        let line = trim(&src[above..start]);
        if comments.doc_line.is_some_and(|doc| doc(line)) {
            start = above;
            doc = past_indentation(src, above);
            continue;
        }
        // A doc block (`/** … */`) ending on the line above: one block, then stop
        // (in Rust, where every outer doc comment above an item is its doc, `///`
        // lines and further blocks above it too). The lines up are inside that
        // comment until the one holding its opener.
        let block = comments.block.as_ref().filter(|b| line.ends_with(b.close));
        if let Some(block) = block.filter(|_| comments.doc_block != DocBlock::No) {
            let open_len = block.open.len();
            let mut first = above;
            loop {
                let end = memchr::memchr(b'\n', &src[first..]).map_or(src.len(), |i| first + i);
                let l = &src[first..end];
                // Found by their first byte (as are the closers below): a
                // comparison at every byte showed in profiles of PHP's doc blocks.
                let open =
                    memchr::memchr_iter(block.open[0], l).find(|&i| l[i..].starts_with(block.open));
                if let Some(open) = open {
                    let whole = l[..open].trim_ascii().is_empty();
                    let opening = &l[open..];
                    let inside = &src[first..start];
                    let closes = memchr::memchr_iter(block.close[0], inside)
                        .filter(|&i| inside[i..].starts_with(block.close))
                        .count();
                    // `/**/` is an empty comment, not a doc block.
                    if whole
                        && opening.starts_with(block.doc)
                        && !opening[open_len..].starts_with(block.close)
                        && closes == 1
                    {
                        doc = past_indentation(src, first);
                        if comments.doc_block == DocBlock::Stacked {
                            start = first;
                            continue 'up;
                        }
                    }
                    break;
                }
                if first == 0 {
                    break;
                }
                first = line_start(src, first - 1);
            }
        }
        break;
    }
    doc
}

/// The first byte of the line at `line` that is not a space or tab: a doc comment
/// starts where its text does, like the declaration below it.
fn past_indentation(src: &[u8], line: usize) -> usize {
    line + src[line..]
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count()
}

fn line_start(src: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1)
}

fn trim(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// `text` with its comments removed (a signature never carries one); strings are
/// kept whole.
pub fn strip_comments<'t>(comments: &Comments, text: &'t [u8]) -> Cow<'t, [u8]> {
    // Without a comment's opener there is nothing to remove (strings are kept byte
    // for byte): most signatures, which then cost a scan for its first byte and no
    // copy. Not that byte alone: Haskell's arrows hold `--`'s, C's divisions `//`'s.
    let opens =
        |open: &[u8]| memchr::memchr_iter(open[0], text).any(|i| text[i..].starts_with(open));
    let blocks = comments.block.as_ref().is_some_and(|b| opens(b.open));
    if !blocks && !comments.line.iter().any(|l| opens(l)) {
        return Cow::Borrowed(text);
    }
    let quotes = comments.quotes;
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let rest = &text[i..];
        if quotes.contains(&b) {
            let mut j = i + 1;
            while j < text.len() && text[j] != b {
                j += if text[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(text.len());
            out.extend_from_slice(&text[i..end]);
            i = end;
        } else if let Some(b) = comments.block.as_ref().filter(|b| rest.starts_with(b.open)) {
            // Before line comments: Lua's `--[[` opens a block, not a line.
            let (open, close) = (b.open.len(), b.close.len());
            let end = rest[open..].windows(close).position(|w| w == b.close);
            i += end.map_or(rest.len(), |c| open + c + close);
            out.push(b' ');
        } else if comments.line.iter().any(|l| rest.starts_with(l)) {
            i += rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len());
        } else {
            out.push(b);
            i += 1;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    #[test]
    fn doc_comments_directly_above_travel_and_nothing_else_does() {
        fn at(src: &str, lang: Lang) -> &str {
            let decl = src
                .find("fn ")
                .or(src.find("func "))
                .or(src.find("class "))
                .unwrap();
            &src[doc_start(lang.comments(), src.as_bytes(), decl)..]
        }
        assert_eq!(
            at("//! inner\n/// one\n/// two\nfn f() {}", Lang::Rust),
            "/// one\n/// two\nfn f() {}"
        );
        assert_eq!(at("/// detached\n\nfn f() {}", Lang::Rust), "fn f() {}");
        assert_eq!(at("//// not doc\nfn f() {}", Lang::Rust), "fn f() {}");
        assert_eq!(at("// plain\nfn f() {}", Lang::Rust), "fn f() {}");
        assert_eq!(
            at("/** Doc. */\nfn f() {}", Lang::Rust),
            "/** Doc. */\nfn f() {}"
        );
        // Rust: every outer doc comment above the item, lines and blocks in any order
        // (displaydoc's tests mix them); elsewhere the one block right above.
        for mixed in [
            "/// line\n/**\n * block\n */\nfn f() {}",
            "/**\n * one\n */\n/**\n * two\n */\nfn f() {}",
            "/** a */\n/// b\n/** c */\nfn f() {}",
        ] {
            assert_eq!(at(&format!("// plain\n{mixed}"), Lang::Rust), mixed);
        }
        assert_eq!(
            at("/** one */\n/** two */\nclass A {}", Lang::Java),
            "/** two */\nclass A {}"
        );
        assert_eq!(at("x(); // trailing\nfunc f() {}", Lang::Go), "func f() {}");
        assert_eq!(
            at("// F does.\n//go:noinline\nfunc f() {}", Lang::Go),
            "// F does.\n//go:noinline\nfunc f() {}"
        );
        assert_eq!(
            at("/* a */ x /* b */\nclass A {}", Lang::Java),
            "class A {}"
        );
        assert_eq!(
            at("/**\n * Doc.\n */\nclass A {}", Lang::Java),
            "/**\n * Doc.\n */\nclass A {}"
        );
        assert_eq!(at("/* plain */\nclass A {}", Lang::Java), "class A {}");
        assert_eq!(at("x = 1; class A {}", Lang::Java), "class A {}");
    }

    #[test]
    fn comments_are_stripped_and_strings_kept() {
        let s = |lang, t: &str| {
            String::from_utf8(strip_comments(Lang::comments(lang), t.as_bytes()).into_owned())
                .unwrap()
        };
        assert_eq!(
            s(Lang::Python, "def __init__(self): # Instance variables"),
            "def __init__(self): "
        );
        assert_eq!(s(Lang::Python, "def f(a='#'): # c"), "def f(a='#'): ");
        assert_eq!(
            s(Lang::Rust, "fn f(/* x */ a: u8) // c\n-> &'a str"),
            "fn f(  a: u8) \n-> &'a str"
        );
        assert_eq!(
            s(Lang::TypeScript, "f(url = \"http://x\") // c"),
            "f(url = \"http://x\") "
        );
    }
}
