//! Symbols out of a tree-sitter tree: one walker for every language, driven by a
//! per-language `classify` that says what a node is.
//!
//! The walker only enters containers (modules, types, impl blocks, class bodies), never
//! function bodies, so locals are not symbols. Name paths join the enclosing symbols
//! with `/`; members of a Rust `impl [Trait for] Type` and Go methods live under
//! `Type`; a second symbol with the same path in one file gets `[1]`, `[2]`, ... so a
//! name path always addresses exactly one symbol of a file.

mod codec;

use rustc_hash::FxHashMap;

use crate::{Position, Range, SymbolKind};
use tree_sitter::Node;

use super::{
    decl, go_items, java_items,
    lang::Lang,
    python_items,
    rust_items::{self, Decl},
    skeleton::Skeleton,
    text::LineIndex,
    ts_items,
};

pub use codec::{lang_byte, lang_of};

/// A symbol as the walker builds it: a tree, transient. [`FileSymbols`] stores it
/// flat.
#[derive(Debug)]
struct Built {
    name: String,
    kind: SymbolKind,
    name_path: String,
    bytes: std::ops::Range<usize>,
    /// Where its doc comment and its core start (`decl.rs`).
    doc: usize,
    core: usize,
    range: Range,
    name_range: Range,
    signature: String,
    children: Vec<Built>,
}

/// A slice of [`FileSymbols`]' string arena.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

/// One stored symbol: about 80 bytes plus its strings in the arena (a tree of
/// `String`s and `Vec`s cost four times that on a million-symbol corpus).
#[derive(Clone, Copy, Debug)]
struct Rec {
    kind: SymbolKind,
    name: Span,
    name_path: Span,
    signature: Span,
    bytes: (u32, u32),
    doc: u32,
    core: u32,
    range: Range,
    name_range: Range,
    /// Index one past this symbol's last descendant (records are in pre-order).
    end: u32,
}

/// The parse of one file's content: shared by every root whose file has these bytes.
#[derive(Debug)]
pub struct FileSymbols {
    pub lang: Lang,
    /// The content has NUL bytes: not source, nothing extracted.
    pub binary: bool,
    /// Where the first syntax error is, if the content does not parse cleanly.
    pub syntax_error: Option<Position>,
    pub count: usize,
    /// Heap bytes, for the cache's weigher.
    pub weight: usize,
    arena: Box<str>,
    recs: Box<[Rec]>,
}

/// A symbol of a [`FileSymbols`], with byte offsets (for edits) and agent positions
/// (for answers).
#[derive(Clone, Copy, Debug)]
pub struct Symbol<'a> {
    file: &'a FileSymbols,
    index: usize,
}

impl<'a> Symbol<'a> {
    fn rec(&self) -> &'a Rec {
        &self.file.recs[self.index]
    }

    fn text(&self, span: Span) -> &'a str {
        &self.file.arena[span.start as usize..(span.start + span.len) as usize]
    }

    pub fn name(&self) -> &'a str {
        self.text(self.rec().name)
    }

    pub fn kind(&self) -> SymbolKind {
        self.rec().kind
    }

    pub fn name_path(&self) -> &'a str {
        self.text(self.rec().name_path)
    }

    pub fn signature(&self) -> &'a str {
        self.text(self.rec().signature)
    }

    pub fn bytes(&self) -> std::ops::Range<usize> {
        let (start, end) = self.rec().bytes;
        start as usize..end as usize
    }

    pub fn range(&self) -> Range {
        self.rec().range
    }

    /// Where the doc comment directly above starts (`bytes().start` without one):
    /// insert-before lands on its line (`decl.rs`).
    pub fn doc_start(&self) -> usize {
        self.rec().doc as usize
    }

    /// Where the declaration's first keyword or modifier is, past its attributes,
    /// decorators and annotations (`decl.rs`).
    pub fn core_start(&self) -> usize {
        self.rec().core as usize
    }

    pub fn name_range(&self) -> Range {
        self.rec().name_range
    }

    pub fn children(&self) -> impl Iterator<Item = Symbol<'a>> + use<'a> {
        self.file.siblings(self.index + 1, self.rec().end as usize)
    }
}

impl FileSymbols {
    /// Every symbol, in document order (parents before their children).
    pub fn all(&self) -> impl Iterator<Item = Symbol<'_>> {
        (0..self.recs.len()).map(move |index| Symbol { file: self, index })
    }

    /// The top-level symbols.
    pub fn top(&self) -> impl Iterator<Item = Symbol<'_>> {
        self.siblings(0, self.recs.len())
    }

    /// The symbols starting at `from` that are siblings, up to `end`.
    fn siblings(&self, from: usize, end: usize) -> impl Iterator<Item = Symbol<'_>> + use<'_> {
        let mut next = from;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let index = next;
                next = self.recs[index].end as usize;
                Symbol { file: self, index }
            })
        })
    }

    fn new(lang: Lang, syntax_error: Option<Position>, tree: Vec<Built>) -> FileSymbols {
        // Sized first: grown as it fills, the arena was copied over and over (a
        // file's symbols and their text are hundreds of kilobytes in generated code).
        fn size(b: &Built) -> (usize, usize) {
            let own = (1, b.name.len() + b.name_path.len() + b.signature.len());
            b.children
                .iter()
                .map(size)
                .fold(own, |(r, a), (cr, ca)| (r + cr, a + ca))
        }
        let (count, text) = tree
            .iter()
            .map(size)
            .fold((0, 0), |(r, a), (cr, ca)| (r + cr, a + ca));
        let mut arena = String::with_capacity(text);
        let mut recs = Vec::with_capacity(count);
        fn flatten(b: Built, arena: &mut String, recs: &mut Vec<Rec>) {
            let mut span = |s: &str| {
                let start = arena.len() as u32;
                arena.push_str(s);
                Span {
                    start,
                    len: s.len() as u32,
                }
            };
            let rec = Rec {
                kind: b.kind,
                name: span(&b.name),
                name_path: span(&b.name_path),
                signature: span(&b.signature),
                bytes: (b.bytes.start as u32, b.bytes.end as u32),
                doc: b.doc as u32,
                core: b.core as u32,
                range: b.range,
                name_range: b.name_range,
                end: 0,
            };
            let at = recs.len();
            recs.push(rec);
            for child in b.children {
                flatten(child, arena, recs);
            }
            recs[at].end = recs.len() as u32;
        }
        for b in tree {
            flatten(b, &mut arena, &mut recs);
        }
        FileSymbols {
            lang,
            binary: false,
            syntax_error,
            count: recs.len(),
            weight: 128 + arena.len() + recs.len() * size_of::<Rec>(),
            arena: arena.into_boxed_str(),
            recs: recs.into_boxed_slice(),
        }
    }

    fn empty(lang: Lang, binary: bool) -> FileSymbols {
        FileSymbols {
            binary,
            ..FileSymbols::new(lang, (!binary).then(|| Position::new(1, 0)), Vec::new())
        }
    }
}

/// How much of a file is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parse {
    /// Everything: exact syntax errors (the write guard).
    Whole,
    /// Tree-sitter over the [`Skeleton`]: no trees for bodies and the like. On its
    /// own only in tests (which compare it with `Whole`); `Declarations` falls back
    /// to it.
    #[cfg(test)]
    Skeleton,
    /// Declarations read off the tokens (the `*_items` readers: Rust, Python, Go,
    /// Java) where the language's reader vouches for them, else the skeleton parse.
    Declarations,
}

/// Parses `src` as `lang` and extracts its symbols: the one extraction the index
/// and the symbol edits share. Bodies, macro token trees and the like are not parsed
/// ([`Parse::Declarations`]), so `syntax_error` only reports errors outside them;
/// the write guard asks [`syntax_error`].
pub fn extract(lang: Lang, src: &[u8]) -> FileSymbols {
    extract_with(lang, src, Parse::Declarations)
}

/// The first syntax error anywhere in `src`, from a whole parse.
pub fn syntax_error(lang: Lang, src: &[u8]) -> Option<Position> {
    extract_with(lang, src, Parse::Whole).syntax_error
}

pub(crate) fn extract_with(lang: Lang, src: &[u8], how: Parse) -> FileSymbols {
    let binary = src[..src.len().min(8192)].contains(&0);
    if binary {
        return FileSymbols::empty(lang, binary);
    }
    // Grammars do not expect a byte order mark: parse after it, keep offsets absolute.
    let base = crate::bom::len(src);
    let body = &src[base..];
    let lines = LineIndex::new(src);
    let mut walker = Walker {
        lang,
        src: body,
        full: src,
        base,
        lines: &lines,
        line: 0,
        counts: FxHashMap::default(),
        depth: 0,
    };
    let reader = match lang {
        Lang::Rust => Some(rust_items::parse as fn(&[u8]) -> Option<Vec<Decl>>),
        Lang::Go => Some(go_items::parse as fn(&[u8]) -> Option<Vec<Decl>>),
        Lang::Python => Some(python_items::parse as fn(&[u8]) -> Option<Vec<Decl>>),
        Lang::Java => Some(java_items::parse as fn(&[u8]) -> Option<Vec<Decl>>),
        Lang::TypeScript => Some((|s| ts_items::parse(Lang::TypeScript, s)) as fn(&[u8]) -> _),
        Lang::Tsx => Some((|s| ts_items::parse(Lang::Tsx, s)) as fn(&[u8]) -> _),
        Lang::JavaScript => Some((|s| ts_items::parse(Lang::JavaScript, s)) as fn(&[u8]) -> _),
        Lang::Kotlin => None,
    };
    if let Some(read) = reader.filter(|_| how == Parse::Declarations) {
        if let Some(decls) = read(body) {
            let symbols = decls
                .into_iter()
                .map(|d| walker.decl(d, "", None))
                .collect();
            return FileSymbols::new(lang, None, symbols);
        }
    }
    let skeleton = (how != Parse::Whole)
        .then(|| Skeleton::of(lang, body))
        .flatten();
    let tree = match skeleton {
        Some(sk) => lang
            .parse(&sk.text, &sk.included)
            .filter(|tree| !sk.error_near_skipped(tree))
            .or_else(|| lang.parse(body, &[])),
        None => lang.parse(body, &[]),
    };
    let Some(tree) = tree else {
        return FileSymbols::empty(lang, binary);
    };
    let root = tree.root_node();
    let symbols = walker.container(root, "", None);
    let syntax_error = root
        .has_error()
        .then(|| first_error(root))
        .flatten()
        .map(|n| lines.position(src, base + n.start_byte()));
    FileSymbols::new(lang, syntax_error, symbols)
}

/// The first error or missing node, following the children that have errors
/// (iteratively: error trees can be as deep as the file is nested).
fn first_error(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    loop {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        let next = node
            .children(&mut cursor)
            .find(|c| c.has_error() || c.is_missing())?;
        node = next;
    }
}

/// What a node is, as far as symbols go.
enum Visit<'t> {
    Symbol(Box<Def<'t>>),
    /// Not a symbol itself, but its named children may be (export statements,
    /// decorated definitions, grouped declarations).
    Descend,
    Skip,
}

struct Def<'t> {
    kind: SymbolKind,
    /// The name, and the node it is read from (for `name_range`).
    name: String,
    name_node: Node<'t>,
    /// The symbol's range; defaults to the classified node.
    node: Node<'t>,
    /// Where its range starts when before `node` (Rust's attributes are siblings).
    start: Option<usize>,
    /// Where children are (recursed as a container).
    body: Option<Node<'t>>,
    /// Children's name paths start here instead of at this symbol's own path (Rust
    /// impl blocks: the implemented type).
    scope: Option<String>,
    /// Prefix of this symbol's own name path (Go methods: the receiver type).
    qualifier: Option<String>,
    /// Where the signature stops (body or value start); defaults to `body`.
    signature_end: Option<usize>,
    /// A signature that is not a prefix of the node's text.
    signature: Option<String>,
}

impl<'t> Def<'t> {
    fn new(kind: SymbolKind, node: Node<'t>, name_node: Node<'t>, src: &[u8]) -> Def<'t> {
        Def {
            kind,
            name: text(name_node, src).to_string(),
            name_node,
            node,
            start: None,
            body: None,
            scope: None,
            qualifier: None,
            signature_end: None,
            signature: None,
        }
    }

    fn body(mut self, body: Option<Node<'t>>) -> Def<'t> {
        self.body = body;
        self
    }

    fn sig_end(mut self, at: Option<Node<'t>>) -> Def<'t> {
        self.signature_end = at.map(|n| n.start_byte());
        self
    }
}

struct Walker<'a> {
    lang: Lang,
    /// The parsed text (after a BOM); node offsets are relative to it.
    src: &'a [u8],
    /// The whole file, and where `src` starts in it.
    full: &'a [u8],
    base: usize,
    lines: &'a LineIndex,
    /// The line of the last position asked of `lines`: the next is usually near.
    line: usize,
    /// Name paths seen so far in this file, for `[n]` suffixes.
    counts: FxHashMap<String, usize>,
    /// Containers entered: symbols nested deeper than [`MAX_DEPTH`] are left out, so a
    /// pathological file cannot overflow the stack.
    depth: u32,
}

const MAX_DEPTH: u32 = 64;

impl Walker<'_> {
    /// Symbols among the named children of `node`, with name paths under `scope`.
    fn container(&mut self, node: Node<'_>, scope: &str, parent: Option<SymbolKind>) -> Vec<Built> {
        if self.depth >= MAX_DEPTH {
            return Vec::new();
        }
        self.depth += 1;
        let out = self.container_at(node, scope, parent);
        self.depth -= 1;
        out
    }

    fn container_at(
        &mut self,
        node: Node<'_>,
        scope: &str,
        parent: Option<SymbolKind>,
    ) -> Vec<Built> {
        let mut out = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        // Attributes that are the item's siblings (Rust's outer attributes; a Kotlin
        // annotation the grammar reads as an expression after a function): the first
        // one since the last item is where the next item's range starts (comments
        // between them do not detach it).
        let sibling_attribute = match self.lang {
            Lang::Rust => "attribute_item",
            Lang::Kotlin => "annotated_expression",
            _ => "",
        };
        let mut attrs = None;
        for child in children {
            match child.kind() {
                k if k == sibling_attribute => {
                    if decl::attributes_only(child) {
                        attrs.get_or_insert(child.start_byte());
                    } else {
                        attrs = None;
                    }
                    continue;
                }
                "line_comment" | "block_comment" | "multiline_comment"
                    if !sibling_attribute.is_empty() =>
                {
                    continue;
                }
                _ => {}
            }
            let attrs = attrs.take();
            for visit in classify(self.lang, child, self.src, parent) {
                match visit {
                    // A name the grammar's error recovery made up (a missing node,
                    // nothing) names nothing in the file: such a symbol would list
                    // as `function ` (Kotlin's `fun A.f(` in a file it fails on).
                    Visit::Symbol(def) if def.name.is_empty() || def.name_node.is_missing() => {}
                    Visit::Symbol(mut def) => {
                        def.start = attrs;
                        out.push(self.symbol(*def, scope, parent))
                    }
                    Visit::Descend => out.extend(self.container(child, scope, parent)),
                    Visit::Skip => {}
                }
            }
        }
        out
    }

    fn symbol(&mut self, def: Def<'_>, scope: &str, parent: Option<SymbolKind>) -> Built {
        let shape = Shape {
            kind: def.kind,
            name: def.name,
            name_bytes: def.name_node.byte_range(),
            bytes: def.start.unwrap_or(def.node.start_byte())..def.node.end_byte(),
            core: decl::core_start(def.node),
            scope: def.scope,
            qualifier: def.qualifier,
            signature_end: def.signature_end.or(def.body.map(|b| b.start_byte())),
            signature: def.signature,
        };
        let body = def.body;
        self.build(
            shape,
            scope,
            parent,
            |walker, child_scope, kind| match body {
                Some(body) => walker.container(body, child_scope, Some(kind)),
                None => Vec::new(),
            },
        )
    }

    /// A declaration read without a tree (`rust_items`), and its members.
    fn decl(&mut self, decl: Decl, scope: &str, parent: Option<SymbolKind>) -> Built {
        let text = |r: std::ops::Range<usize>| String::from_utf8_lossy(&self.src[r]).into_owned();
        let (name, impl_scope) = match decl.impl_of {
            Some((trait_bytes, type_name)) => {
                let ty = signature(&self.src[decl.name.clone()]);
                let header = match trait_bytes {
                    Some(tr) => format!("impl {} for {ty}", signature(&self.src[tr])),
                    None => format!("impl {ty}"),
                };
                (header, Some(text(type_name)))
            }
            None => (text(decl.name.clone()), None),
        };
        // One of several names (`ts_items`): the signature as `script` builds it.
        let shared = decl.head.map(|head| {
            let own = decl.name.start..decl.sig_end.unwrap_or(decl.name.end);
            signature(&[&self.src[head], &self.src[own]].concat())
        });
        let shape = Shape {
            kind: decl.kind,
            name,
            name_bytes: decl.name,
            bytes: decl.bytes,
            core: decl.core,
            scope: impl_scope,
            qualifier: decl.qualifier.map(text),
            signature_end: decl.sig_end,
            signature: shared,
        };
        let members = decl.members;
        self.build(shape, scope, parent, |walker, child_scope, kind| {
            members
                .into_iter()
                .map(|m| walker.decl(m, child_scope, Some(kind)))
                .collect()
        })
    }

    /// The symbol `shape` describes under `scope`: its name path counted in document
    /// order (so `[n]` suffixes agree however the declarations were found), then its
    /// `members`.
    fn build(
        &mut self,
        shape: Shape,
        scope: &str,
        parent: Option<SymbolKind>,
        members: impl FnOnce(&mut Self, &str, SymbolKind) -> Vec<Built>,
    ) -> Built {
        let mut kind = shape.kind;
        if kind == SymbolKind::Function
            && matches!(
                parent,
                Some(
                    SymbolKind::Impl
                        | SymbolKind::Trait
                        | SymbolKind::Class
                        | SymbolKind::Interface
                        | SymbolKind::Object
                        | SymbolKind::Enum
                )
            )
        {
            kind = SymbolKind::Method;
        }
        let base = match shape.qualifier.as_deref() {
            Some(qualifier) => join(&join(scope, qualifier), &shape.name),
            None => join(scope, &shape.name),
        };
        let name_path = match self.counts.get_mut(base.as_str()) {
            Some(seen) => {
                *seen += 1;
                format!("{base}[{}]", *seen - 1)
            }
            None => {
                self.counts.insert(base.clone(), 1);
                base
            }
        };
        let children = match &shape.scope {
            Some(s) => members(self, &join(scope, s), kind),
            None => members(self, &name_path, kind),
        };
        // A declaration ends at its last non-blank byte (a grammar may end a
        // statement past its line break).
        let bytes =
            shape.bytes.start..shape.bytes.start + self.src[shape.bytes].trim_ascii_end().len();
        let core = shape.core.clamp(bytes.start, bytes.end);
        let sig_end = shape
            .signature_end
            .unwrap_or(bytes.end)
            .clamp(core, bytes.end);
        let (lines, full, at) = (self.lines, self.full, self.base);
        let mut pos = |b: usize| lines.position_near(full, at + b, &mut self.line);
        let range = Range::new(pos(bytes.start), pos(bytes.end));
        let name_range = Range::new(pos(shape.name_bytes.start), pos(shape.name_bytes.end));
        let doc = decl::doc_start(self.lang, self.src, bytes.start);
        Built {
            name: shape.name,
            kind,
            name_path,
            bytes: self.base + bytes.start..self.base + bytes.end,
            doc: self.base + doc,
            core: self.base + core,
            range,
            name_range,
            signature: shape.signature.unwrap_or_else(|| {
                signature(&decl::strip_comments(self.lang, &self.src[core..sig_end]))
            }),
            children,
        }
    }
}

/// What a symbol is made of, however it was found.
struct Shape {
    kind: SymbolKind,
    name: String,
    name_bytes: std::ops::Range<usize>,
    /// The reported range: from the first attribute, else the core.
    bytes: std::ops::Range<usize>,
    /// The first keyword or modifier: the signature starts here.
    core: usize,
    scope: Option<String>,
    qualifier: Option<String>,
    signature_end: Option<usize>,
    signature: Option<String>,
}

fn join(scope: &str, name: &str) -> String {
    match (scope.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (_, true) => scope.to_string(),
        // Not `format!`: once a symbol, its machinery showed in a profile.
        _ => [scope, "/", name].concat(),
    }
}

fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

/// One line: whitespace collapsed, trailing `{`, `:` or `=` dropped, at most
/// `SIGNATURE_CHARS` characters (the last of a longer one an ellipsis). Invalid UTF-8
/// reads as U+FFFD, as `String::from_utf8_lossy` has it.
///
/// Built in one pass, with no copy of the text between: every symbol of every file
/// the index reads has one, and the pieces a split and a join allocate were a tenth
/// of a Rust first index's time.
fn signature(bytes: &[u8]) -> String {
    let trailing = |c: char| matches!(c, '{' | ':' | '=');
    let mut sig = String::with_capacity(bytes.len().min(SIGNATURE_CHARS + 16));
    let mut chars = 0;
    let mut space = false;
    for chunk in bytes.utf8_chunks() {
        let invalid = (!chunk.invalid().is_empty()).then_some(char::REPLACEMENT_CHARACTER);
        for c in chunk.valid().chars().chain(invalid) {
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
fn has_child(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| kinds.contains(&c.kind()))
}

/// First descendant (depth first) of one of `kinds`.
fn descendant<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
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
fn named<'t>(kind: SymbolKind, node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    field(node, "name").map(|n| Def::new(kind, node, n, src))
}

fn one(def: Option<Def<'_>>) -> Vec<Visit<'_>> {
    vec![def.map_or(Visit::Skip, |d| Visit::Symbol(Box::new(d)))]
}

fn classify<'t>(
    lang: Lang,
    node: Node<'t>,
    src: &[u8],
    parent: Option<SymbolKind>,
) -> Vec<Visit<'t>> {
    match lang {
        Lang::Rust => rust(node, src),
        Lang::Python => python(node, src, parent),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => script(node, src),
        Lang::Go => go(node, src),
        Lang::Java => java(node, src),
        Lang::Kotlin => kotlin(node, src),
    }
}

fn rust<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_item" | "function_signature_item" => {
            one(named(K::Function, node, src).map(|d| d.sig_end(body)))
        }
        "struct_item" => one(named(K::Struct, node, src).map(|d| d.body(body))),
        "union_item" => one(named(K::Union, node, src).map(|d| d.body(body))),
        "enum_item" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "trait_item" => one(named(K::Trait, node, src).map(|d| d.body(body))),
        "mod_item" => one(named(K::Module, node, src).map(|d| d.body(body))),
        "field_declaration" => one(named(K::Field, node, src)),
        "enum_variant" => one(named(K::EnumMember, node, src)),
        "const_item" => one(named(K::Constant, node, src).map(|d| d.sig_end(field(node, "value")))),
        "static_item" => one(named(K::Static, node, src).map(|d| d.sig_end(field(node, "value")))),
        "type_item" | "associated_type" => one(named(K::TypeAlias, node, src)),
        "macro_definition" => one(named(K::Macro, node, src).map(|d| {
            let end = d.name_node;
            Def {
                signature_end: Some(end.end_byte()),
                ..d
            }
        })),
        "impl_item" => {
            let Some(ty) = field(node, "type") else {
                return vec![Visit::Skip];
            };
            let type_name = descendant(ty, &["type_identifier", "primitive_type"])
                .map_or_else(|| text(ty, src), |n| text(n, src));
            let header = match field(node, "trait") {
                Some(tr) => format!(
                    "impl {} for {}",
                    signature(text(tr, src).as_bytes()),
                    signature(text(ty, src).as_bytes())
                ),
                None => format!("impl {}", signature(text(ty, src).as_bytes())),
            };
            let mut def = Def::new(K::Impl, node, ty, src).body(body);
            def.name = header;
            def.scope = Some(type_name.to_string());
            vec![Visit::Symbol(Box::new(def))]
        }
        "declaration_list" | "foreign_mod_item" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

fn python<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    // A decorated definition's range starts at its first decorator.
    let decorated = |d: Def<'t>| Def {
        node: node
            .parent()
            .filter(|p| p.kind() == "decorated_definition")
            .unwrap_or(node),
        ..d
    };
    match node.kind() {
        "function_definition" => {
            one(named(K::Function, node, src).map(|d| decorated(d.sig_end(body))))
        }
        "class_definition" => one(named(K::Class, node, src).map(|d| decorated(d.body(body)))),
        "decorated_definition" => vec![Visit::Descend],
        // `NAME = value` at module or class level.
        "expression_statement" => {
            let Some(assign) = child_of_kind(node, &["assignment"]) else {
                return vec![Visit::Skip];
            };
            let Some(left) = field(assign, "left").filter(|l| l.kind() == "identifier") else {
                return vec![Visit::Skip];
            };
            let name = text(left, src);
            let kind = match parent {
                Some(K::Class) => K::Field,
                _ if name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()) =>
                {
                    K::Constant
                }
                _ => K::Variable,
            };
            let mut def = Def::new(kind, assign, left, src);
            def.signature_end = field(assign, "right").map(|r| r.start_byte());
            vec![Visit::Symbol(Box::new(def))]
        }
        _ => vec![Visit::Skip],
    }
}

/// TypeScript, TSX and JavaScript share most node kinds. A declaration's range
/// takes in what wraps it: `export`/`export default` (and decorators before them),
/// `declare`, and the `const`/`let`/`var` of its declaration, which several names
/// share (`const a = 1, b = 2`: each name's range is the whole declaration, its
/// signature names it alone, `const b`, as Java's `int a, b;`).
fn script<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let mut visits = script_kind(node, src);
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit {
            let own = def.node;
            def.node = wrapped(own);
            let decl = own.parent().filter(|p| {
                own.kind() == "variable_declarator" && {
                    let mut cursor = p.walk();
                    p.named_children(&mut cursor)
                        .filter(|c| c.kind() == "variable_declarator")
                        .count()
                        > 1
                }
            });
            if let Some(decl) = decl {
                let core = decl::core_start(def.node);
                // A tree recovered from a syntax error may put the first declarator
                // before the core.
                let first = child_of_kind(decl, &["variable_declarator"])
                    .map_or(core, |d| d.start_byte())
                    .max(core);
                let end = def
                    .signature_end
                    .unwrap_or(own.end_byte())
                    .max(own.start_byte());
                let mut sig = src[core..first].to_vec();
                sig.extend_from_slice(&src[own.start_byte()..end]);
                def.signature = Some(signature(&sig));
            }
        }
    }
    visits
}

fn wrapped(mut node: Node<'_>) -> Node<'_> {
    while let Some(parent) = node.parent() {
        if !matches!(
            parent.kind(),
            "export_statement"
                | "ambient_declaration"
                | "lexical_declaration"
                | "variable_declaration"
        ) {
            break;
        }
        node = parent;
    }
    node
}

fn script_kind<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            one(named(K::Function, node, src).map(|d| d.sig_end(body)))
        }
        "class_declaration" | "abstract_class_declaration" | "class" => {
            one(named(K::Class, node, src).map(|d| d.body(body)))
        }
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            one(named(K::Method, node, src).map(|d| {
                let kind = if d.name == "constructor" {
                    K::Constructor
                } else {
                    K::Method
                };
                Def {
                    kind,
                    ..d.sig_end(body)
                }
            }))
        }
        "public_field_definition" => {
            one(named(K::Field, node, src).map(|d| d.sig_end(field(node, "value"))))
        }
        "field_definition" => one(field(node, "property")
            .map(|n| Def::new(K::Field, node, n, src).sig_end(field(node, "value")))),
        "property_signature" => one(named(K::Property, node, src)),
        "interface_declaration" => one(named(K::Interface, node, src).map(|d| d.body(body))),
        "type_alias_declaration" => {
            one(named(K::TypeAlias, node, src).map(|d| d.sig_end(field(node, "value"))))
        }
        "enum_declaration" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "enum_assignment" => one(named(K::EnumMember, node, src)),
        "property_identifier" if node.parent().is_some_and(|p| p.kind() == "enum_body") => {
            vec![Visit::Symbol(Box::new(Def::new(
                K::EnumMember,
                node,
                node,
                src,
            )))]
        }
        "internal_module" | "module" => one(named(K::Module, node, src).map(|d| d.body(body))),
        "variable_declarator" => {
            let Some(name) = field(node, "name").filter(|n| n.kind() == "identifier") else {
                return vec![Visit::Skip];
            };
            let value = field(node, "value");
            let is_fn = value.is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function" | "generator_function"
                )
            });
            let is_const = node
                .parent()
                .and_then(|p| field(p, "kind"))
                .is_some_and(|k| text(k, src) == "const");
            let kind = match (is_fn, is_const) {
                (true, _) => K::Function,
                (false, true) => K::Constant,
                (false, false) => K::Variable,
            };
            let mut def = Def::new(kind, node, name, src);
            def.signature_end = if is_fn {
                value.and_then(|v| field(v, "body")).map(|b| b.start_byte())
            } else {
                value.map(|v| v.start_byte())
            };
            vec![Visit::Symbol(Box::new(def))]
        }
        "export_statement"
        | "lexical_declaration"
        | "variable_declaration"
        | "ambient_declaration"
        | "expression_statement"
        | "statement_block"
        | "class_body"
        | "interface_body"
        | "object_type"
        | "enum_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

fn go<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_declaration" => one(named(K::Function, node, src).map(|d| d.sig_end(body))),
        "method_declaration" => one(named(K::Method, node, src).map(|d| {
            let receiver =
                field(node, "receiver").and_then(|r| descendant(r, &["type_identifier"]));
            Def {
                qualifier: receiver.map(|r| text(r, src).to_string()),
                ..d.sig_end(body)
            }
        })),
        "type_spec" | "type_alias" => {
            let ty = field(node, "type");
            let (kind, inner) = match ty.map(|t| t.kind()) {
                Some("struct_type") => (
                    K::Struct,
                    ty.and_then(|t| child_of_kind(t, &["field_declaration_list"])),
                ),
                Some("interface_type") => (K::Interface, ty),
                _ => (K::TypeAlias, None),
            };
            // `type X struct {...}` alone (no parentheses): the range includes `type`.
            let whole = node
                .parent()
                .filter(|p| p.kind() == "type_declaration" && !has_child(*p, "("));
            one(named(kind, node, src).map(|d| Def {
                node: whole.unwrap_or(node),
                ..d.body(inner).sig_end(inner)
            }))
        }
        "field_declaration" | "method_elem" | "const_spec" | "var_spec" => {
            let kind = match node.kind() {
                "field_declaration" => K::Field,
                "method_elem" => K::Method,
                "const_spec" => K::Constant,
                _ => K::Variable,
            };
            // `a, b int` declares several names.
            let mut cursor = node.walk();
            let names: Vec<Node<'t>> = node
                .children_by_field_name("name", &mut cursor)
                .filter(|n| n.is_named())
                .collect();
            // `var X int = 5` alone (no parentheses): the range includes `var`.
            let whole = node
                .parent()
                .filter(|p| matches!(p.kind(), "const_declaration" | "var_declaration"))
                .filter(|p| !has_child(*p, "("));
            names
                .into_iter()
                .map(|n| {
                    Visit::Symbol(Box::new(Def {
                        node: whole.unwrap_or(node),
                        ..Def::new(kind, node, n, src).sig_end(field(node, "value"))
                    }))
                })
                .collect()
        }
        "type_declaration" | "const_declaration" | "var_declaration" | "var_spec_list" => {
            vec![Visit::Descend]
        }
        _ => vec![Visit::Skip],
    }
}

fn java<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "class_declaration" | "record_declaration" => {
            one(named(K::Class, node, src).map(|d| d.body(body)))
        }
        "interface_declaration" | "annotation_type_declaration" => {
            one(named(K::Interface, node, src).map(|d| d.body(body)))
        }
        "enum_declaration" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "enum_constant" => one(named(K::EnumMember, node, src)),
        "method_declaration" | "annotation_type_element_declaration" => {
            one(named(K::Method, node, src).map(|d| d.sig_end(body)))
        }
        "constructor_declaration" | "compact_constructor_declaration" => {
            one(named(K::Constructor, node, src).map(|d| d.sig_end(body)))
        }
        "variable_declarator" => one(named(K::Field, node, src).map(|d| {
            // `int a = 1, b = 2;`: the range is the whole declaration, the signature
            // names this declarator only: `private static int b`.
            let decl = node.parent().unwrap_or(node);
            let core = decl::core_start(decl);
            let head =
                &src[core..field(decl, "declarator").map_or(core, |first| first.start_byte())];
            let end = field(node, "value").map_or(node.end_byte(), |v| v.start_byte());
            let mut sig = head.to_vec();
            sig.extend_from_slice(&src[node.start_byte()..end]);
            Def {
                node: decl,
                signature: Some(signature(&sig)),
                ..d
            }
        })),
        "field_declaration"
        | "constant_declaration"
        | "class_body"
        | "interface_body"
        | "enum_body_declarations"
        | "annotation_type_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

fn kotlin<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = child_of_kind(node, &["class_body", "enum_class_body"]);
    let has_token = |token: &str| has_child(node, token);
    match node.kind() {
        "class_declaration" => {
            let is_enum = child_of_kind(node, &["modifiers"])
                .is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "enum"));
            let kind = if has_token("interface") {
                K::Interface
            } else if is_enum {
                K::Enum
            } else {
                K::Class
            };
            one(named(kind, node, src).map(|d| d.body(body)))
        }
        "object_declaration" => one(named(K::Object, node, src).map(|d| d.body(body))),
        "companion_object" => one(match field(node, "name") {
            Some(n) => Some(Def::new(K::Object, node, n, src).body(body)),
            None => {
                let mut d = Def::new(K::Object, node, node, src).body(body);
                d.name = "Companion".into();
                Some(d)
            }
        }),
        "function_declaration" => one(named(K::Function, node, src)
            .map(|d| d.sig_end(child_of_kind(node, &["function_body"])))),
        "secondary_constructor" => {
            let mut d =
                Def::new(K::Constructor, node, node, src).sig_end(child_of_kind(node, &["block"]));
            d.name = "constructor".into();
            vec![Visit::Symbol(Box::new(d))]
        }
        "property_declaration" => {
            let name = child_of_kind(node, &["variable_declaration"])
                .and_then(|v| child_of_kind(v, &["identifier"]));
            let mut cursor = node.walk();
            let value = node
                .children(&mut cursor)
                .find(|c| matches!(c.kind(), "=" | "property_delegate"));
            one(name.map(|n| Def::new(K::Property, node, n, src).sig_end(value)))
        }
        "enum_entry" => {
            one(child_of_kind(node, &["identifier"]).map(|n| Def::new(K::EnumMember, node, n, src)))
        }
        "type_alias" => one(child_of_kind(node, &["identifier", "type_identifier"])
            .map(|n| Def::new(K::TypeAlias, node, n, src))),
        "class_body" | "enum_class_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
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
