//! What a language's `classify` says of a tree-sitter node (`languages/`): a symbol
//! ([`Def`]: its kind, name, range, body and signature), a node to look inside, or
//! nothing; and the small node helpers every `classify` uses.

use tree_sitter::Node;

use crate::SymbolKind;

/// What a node is, as far as symbols go.
pub(crate) enum Visit<'t> {
    Symbol(Box<Def<'t>>),
    /// Not a symbol itself, but its named children may be (export statements,
    /// decorated definitions, grouped declarations).
    Descend,
    Skip,
}

pub(crate) struct Def<'t> {
    pub(crate) kind: SymbolKind,
    /// The name, and the node it is read from (for `name_range`).
    pub(crate) name: String,
    pub(crate) name_node: Node<'t>,
    /// The symbol's range; defaults to the classified node.
    pub(crate) node: Node<'t>,
    /// Where its range starts when before `node` (Rust's attributes are siblings).
    pub(crate) start: Option<usize>,
    /// Where its core starts when not at `node`'s first keyword (OCaml's `and`, the
    /// keyword of a binding but outside its node); its range starts there too.
    pub(crate) core: Option<usize>,
    /// Where its range ends when not at `node`'s end: past it (a Haskell function's
    /// later equations, sibling nodes of its first), or before it (the comments a
    /// Scala 3 indented body ends with, the next declaration's doc among them).
    pub(crate) end: Option<usize>,
    /// Where children are (recursed as a container).
    pub(crate) body: Option<Node<'t>>,
    /// Children's name paths start here instead of at this symbol's own path (Rust
    /// impl blocks: the implemented type).
    pub(crate) scope: Option<String>,
    /// Prefix of this symbol's own name path (Go methods: the receiver type).
    pub(crate) qualifier: Option<String>,
    /// Where the signature stops (body or value start); defaults to `body`.
    pub(crate) signature_end: Option<usize>,
    /// A signature that is not a prefix of the node's text.
    pub(crate) signature: Option<String>,
}

impl<'t> Def<'t> {
    pub(crate) fn new(
        kind: SymbolKind,
        node: Node<'t>,
        name_node: Node<'t>,
        src: &[u8],
    ) -> Def<'t> {
        Def {
            kind,
            name: text(name_node, src).to_string(),
            name_node,
            node,
            start: None,
            core: None,
            end: None,
            body: None,
            scope: None,
            qualifier: None,
            signature_end: None,
            signature: None,
        }
    }

    pub(crate) fn body(mut self, body: Option<Node<'t>>) -> Def<'t> {
        self.body = body;
        self
    }

    pub(crate) fn sig_end(mut self, at: Option<Node<'t>>) -> Def<'t> {
        self.signature_end = at.map(|n| n.start_byte());
        self
    }
}

pub(crate) fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

/// One line: whitespace collapsed, trailing `{`, `:` or `=` dropped, at most
/// `SIGNATURE_CHARS` characters (the last of a longer one an ellipsis). Invalid UTF-8
/// reads as U+FFFD, as `String::from_utf8_lossy` has it.
///
/// Built in one pass, with no copy of the text between: every symbol of every file
/// the index reads has one, and the pieces a split and a join allocate were a tenth
/// of a Rust first index's time.
pub(crate) fn signature(bytes: &[u8]) -> String {
    // ASCII (nearly every signature) is read byte for byte, with no UTF-8 decoding.
    match bytes.is_ascii() {
        true => squeeze(bytes.iter().map(|&b| char::from(b)), bytes.len()),
        false => squeeze(
            bytes.utf8_chunks().flat_map(|chunk| {
                let invalid = !chunk.invalid().is_empty();
                (chunk.valid().chars()).chain(invalid.then_some(char::REPLACEMENT_CHARACTER))
            }),
            bytes.len(),
        ),
    }
}

/// [`signature`] of the characters of a text of `len` bytes.
fn squeeze(text: impl Iterator<Item = char>, len: usize) -> String {
    let trailing = |c: char| matches!(c, '{' | ':' | '=');
    let mut sig = String::with_capacity(len.min(SIGNATURE_CHARS + 16));
    let mut chars = 0;
    let mut space = false;
    for c in text {
        if c.is_whitespace() {
            space = !sig.is_empty();
            continue;
        }
        if space {
            sig.push(' ');
            chars += 1;
            space = false;
        }
        sig.push(c);
        chars += 1;
        // A character past the limit that the trailing trim below cannot take
        // away: the signature is cut whatever follows, so the rest is not read.
        if chars > SIGNATURE_CHARS && !trailing(c) {
            return cut(sig);
        }
    }
    while let Some(stripped) = sig.strip_suffix(trailing) {
        let kept = stripped.trim_end().len();
        chars -= sig.len() - kept; // what went is ASCII
        sig.truncate(kept);
    }
    if chars > SIGNATURE_CHARS {
        return cut(sig);
    }
    sig
}

const SIGNATURE_CHARS: usize = 200;

/// `sig`'s first `SIGNATURE_CHARS - 1` characters and an ellipsis.
fn cut(mut sig: String) -> String {
    if let Some((at, _)) = sig.char_indices().nth(SIGNATURE_CHARS - 1) {
        sig.truncate(at);
    }
    sig.push('…');
    sig
}

/// Whether `node` has a child (named or not) of `kind`.
pub(crate) fn has_child(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

/// `node`'s first token (an unnamed child: `=`, `where`, `and`) of one of `kinds`.
pub(crate) fn token<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| !c.is_named() && kinds.contains(&c.kind()))
}

pub(crate) fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

pub(crate) fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| kinds.contains(&c.kind()))
}

/// First descendant (depth first) of one of `kinds`.
pub(crate) fn descendant<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    // A cursor, not recursion: a type can be nested as deep as a file likes.
    let mut cursor = node.walk();
    loop {
        let at = cursor.node();
        if at.is_named() && kinds.contains(&at.kind()) {
            return Some(at);
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// `kind` symbol named by `node`'s `name` field; `Skip` if it has none.
pub(crate) fn named<'t>(kind: SymbolKind, node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    field(node, "name").map(|n| Def::new(kind, node, n, src))
}

pub(crate) fn one(def: Option<Def<'_>>) -> Vec<Visit<'_>> {
    vec![def.map_or(Visit::Skip, |d| Visit::Symbol(Box::new(d)))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_one_line_without_its_opener_and_cut_at_its_limit() {
        let sig = |s: &[u8]| signature(s);
        assert_eq!(
            sig(b"  pub fn f(\n\ta: u8,\r\n) -> X {"),
            "pub fn f( a: u8, ) -> X"
        );
        assert_eq!(sig("let\u{a0}x\u{3000}= {".as_bytes()), "let x");
        assert_eq!(sig(b"x: = {  "), "x");
        assert_eq!(sig(b"a \xff b\xe6\x97"), "a \u{fffd} b\u{fffd}");
        assert_eq!(sig(b" \n "), "");
        let a = |n: usize| "a".repeat(n);
        assert_eq!(sig(a(200).as_bytes()), a(200));
        assert_eq!(sig(a(201).as_bytes()), a(199) + "…");
        // What the trim takes away does not count against the limit.
        assert_eq!(sig(format!("{} {{", a(199)).as_bytes()), a(199));
        assert_eq!(sig(format!("{} = {{ x", a(199)).as_bytes()), a(199) + "…");
        assert_eq!(sig("é".repeat(300).as_bytes()), "é".repeat(199) + "…");
    }

    /// The signature as it was built before it was one pass: split, joined, trimmed
    /// and cut in turn. The one pass must agree with it on anything.
    fn reference(bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        let mut sig = text.split_whitespace().collect::<Vec<_>>().join(" ");
        while let Some(stripped) = sig.strip_suffix(['{', ':', '=']) {
            sig = stripped.trim_end().to_string();
        }
        if sig.chars().count() > 200 {
            sig = sig.chars().take(199).collect::<String>() + "…";
        }
        sig
    }

    #[test]
    fn the_one_pass_signature_agrees_with_split_join_trim_and_cut() {
        // Pieces where the passes could part: whitespace of every kind, what the trim
        // takes, wide characters, invalid and truncated UTF-8.
        let pieces: [&[u8]; 12] = [
            b"a",
            b"fn",
            b" ",
            b"\t\n",
            b"{",
            b":",
            b"=",
            "é".as_bytes(),
            "日".as_bytes(),
            "\u{a0}".as_bytes(),
            b"\xff",
            b"\xe6\x97",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 260) as usize;
            let mut text = Vec::new();
            for _ in 0..len {
                // Mostly words, so lengths reach the limit.
                let pick = next() as usize % (pieces.len() + 8);
                text.extend_from_slice(pieces.get(pick).copied().unwrap_or(b"x"));
            }
            assert_eq!(signature(&text), reference(&text), "{text:?}");
        }
    }
}
