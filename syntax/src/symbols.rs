//! Symbols out of a tree-sitter tree: one walker for every language, driven by a
//! per-language `classify` that says what a node is.
//!
//! The walker only enters containers (modules, types, impl blocks, class bodies), never
//! function bodies, so locals are not symbols. Name paths join the enclosing symbols
//! with `/`; members of a Rust `impl [Trait for] Type` and Go methods live under
//! `Type`; a second symbol with the same path in one file gets `[1]`, `[2]`, ... so a
//! name path always addresses exactly one symbol of a file.

mod codec;

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use tree_sitter::Node;

use crate::{
    Lang, Position, Range, SymbolKind,
    classify::{Def, Visit, signature},
    decl,
    rust_items::Decl,
    skeleton::Skeleton,
    text::LineCursor,
};

pub use codec::{lang_byte, lang_of};

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

    fn new(
        lang: Lang,
        syntax_error: Option<Position>,
        (arena, recs): (String, Vec<Rec>),
    ) -> FileSymbols {
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
            ..FileSymbols::new(
                lang,
                (!binary).then(|| Position::new(1, 0)),
                Default::default(),
            )
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
/// (`Parse::Declarations`), so `syntax_error` only reports errors outside them;
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
    if !lang.is_code() {
        // Nothing to parse, so nothing that fails to.
        return FileSymbols::new(lang, None, Default::default());
    }
    // Grammars do not expect a byte order mark: parse after it, keep offsets absolute.
    let base = crate::bom::len(src);
    let body = &src[base..];
    let mut walker = Walker {
        lang,
        src: body,
        base,
        lines: LineCursor::new(src),
        counts: FxHashMap::default(),
        depth: 0,
        arena: String::new(),
        recs: Vec::new(),
    };
    let reader = lang.language().declarations;
    if let Some(reader) = reader.filter(|_| how == Parse::Declarations) {
        if let Some(decls) = (reader.read)(body) {
            // A path for each at least: the table grown as it filled rehashed
            // every path a few times over.
            walker.counts.reserve(decls.len());
            for d in decls {
                walker.decl(d, "", None);
            }
            return FileSymbols::new(lang, None, (walker.arena, walker.recs));
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
    walker.container(root, "", None);
    let syntax_error = root
        .has_error()
        .then(|| first_error(root))
        .flatten()
        .map(|n| walker.lines.position(base + n.start_byte()));
    FileSymbols::new(lang, syntax_error, (walker.arena, walker.recs))
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
            .find(|c| c.has_error() || c.is_missing());
        // An error no child holds is in the node itself: tree-sitter-c recovers
        // inside a `#define`'s value (a comment in a continued line, libuv 1.44.2's
        // src/unix/fsevents.c) and marks the macro alone.
        let Some(next) = next else {
            return Some(node);
        };
        node = next;
    }
}

struct Walker<'a> {
    lang: Lang,
    /// The parsed text (after a BOM); node offsets are relative to it.
    src: &'a [u8],
    /// Where `src` starts in the whole file.
    base: usize,
    /// The whole file's positions, asked for in order: each symbol's start and
    /// name, its members', its end.
    lines: LineCursor<'a>,
    /// Name paths seen so far in this file, for `[n]` suffixes.
    counts: FxHashMap<String, usize>,
    /// Containers entered: symbols nested deeper than [`MAX_DEPTH`] are left out, so a
    /// pathological file cannot overflow the stack.
    depth: u32,
    /// The symbols so far, as [`FileSymbols`] stores them: each written as it is
    /// found, in document order (built as a tree of `String`s and `Vec`s first,
    /// then copied flat, they cost a Haskell first index 3% more).
    arena: String,
    recs: Vec<Rec>,
}

const MAX_DEPTH: u32 = 64;

impl Walker<'_> {
    /// Symbols among the named children of `node`, with name paths under `scope`.
    fn container(&mut self, node: Node<'_>, scope: &str, parent: Option<SymbolKind>) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.container_at(node, scope, parent);
        self.depth -= 1;
    }

    fn container_at(&mut self, node: Node<'_>, scope: &str, parent: Option<SymbolKind>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        // Attributes that are the item's siblings (Rust's outer attributes; a Kotlin
        // annotation the grammar reads as an expression after a function): the first
        // one since the last item is where the next item's range starts (comments
        // between them do not detach it).
        let sibling_attribute = self.lang.language().sibling_attribute.unwrap_or("");
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
            for visit in (self.lang.language().classify)(child, self.src, parent) {
                match visit {
                    // A name the grammar's error recovery made up (a missing node,
                    // nothing) names nothing in the file: such a symbol would list
                    // as `function ` (Kotlin's `fun A.f(` in a file it fails on).
                    Visit::Symbol(def) if def.name.is_empty() || def.name_node.is_missing() => {}
                    Visit::Symbol(mut def) => {
                        def.start = attrs;
                        self.symbol(*def, scope, parent);
                    }
                    Visit::Descend => self.container(child, scope, parent),
                    Visit::Skip => {}
                }
            }
        }
    }

    fn symbol(&mut self, def: Def<'_>, scope: &str, parent: Option<SymbolKind>) {
        let core = def.core.unwrap_or_else(|| decl::core_start(def.node));
        let shape = Shape {
            kind: def.kind,
            name: def.name,
            name_bytes: def.name_node.byte_range(),
            bytes: def.start.unwrap_or(def.node.start_byte()).min(core)
                ..def.end.unwrap_or(def.node.end_byte()),
            core,
            scope: def.scope,
            qualifier: def.qualifier,
            signature_end: def.signature_end.or(def.body.map(|b| b.start_byte())),
            signature: def.signature,
        };
        let body = def.body;
        self.build(shape, scope, parent, |walker, child_scope, kind| {
            if let Some(body) = body {
                walker.container(body, child_scope, Some(kind));
            }
        })
    }

    /// A declaration read without a tree (`rust_items`), and its members.
    fn decl(&mut self, decl: Decl, scope: &str, parent: Option<SymbolKind>) {
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
            // A reader's own naming where the walker's is not the bytes as they stand.
            None => (self.lang.language().declarations)
                .and_then(|r| r.name?(self.src, decl.kind, decl.name.clone()))
                .map_or_else(|| (text(decl.name.clone()), None), |name| (name, None)),
        };
        // One of several names (`ts_items`): the signature as `script` builds it.
        let shared = decl.head.map(|head| {
            let start = (self.lang.language().declarations)
                .and_then(|r| r.own_start)
                .map_or(decl.name.start, |own_start| {
                    own_start(self.src, decl.name.start)
                });
            let own = start..decl.sig_end.unwrap_or(decl.name.end);
            signature(&[&self.src[head], &self.src[own]].concat())
        });
        let shape = Shape {
            kind: decl.kind,
            name,
            name_bytes: decl.name,
            bytes: decl.bytes,
            core: decl.core,
            scope: impl_scope,
            // A table path (`a.b` of Lua's `function a.b.f`) or a scope (`A::B` of
            // Ruby's `class A::B::C`) is a name path, as `languages/lua.rs` and
            // `languages/ruby.rs` make it; Go's receiver types have neither.
            qualifier: decl
                .qualifier
                .map(|q| text(q).replace('.', "/").replace("::", "/")),
            signature_end: decl.sig_end,
            signature: shared,
        };
        let members = decl.members;
        self.build(shape, scope, parent, |walker, child_scope, kind| {
            for m in members {
                walker.decl(m, child_scope, Some(kind));
            }
        })
    }

    /// The position of `offset` in the parsed text.
    fn position(&mut self, offset: usize) -> Position {
        self.lines.position(self.base + offset)
    }

    /// The symbol `shape` describes under `scope`: its name path counted in document
    /// order (so `[n]` suffixes agree however the declarations were found), then its
    /// `members`.
    fn build(
        &mut self,
        shape: Shape,
        scope: &str,
        parent: Option<SymbolKind>,
        members: impl FnOnce(&mut Self, &str, SymbolKind),
    ) {
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
        // One hash of the path, not one to look and one to insert.
        let name_path = match self.counts.entry(base) {
            Entry::Occupied(mut seen) => {
                *seen.get_mut() += 1;
                format!("{}[{}]", seen.key(), seen.get() - 1)
            }
            Entry::Vacant(unseen) => {
                let base = unseen.key().clone();
                unseen.insert(1);
                base
            }
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
        let start = self.position(bytes.start);
        let name_range = Range::new(
            self.position(shape.name_bytes.start),
            self.position(shape.name_bytes.end),
        );
        let doc = decl::doc_start(self.lang.comments(), self.src, bytes.start);
        let signature = shape.signature.unwrap_or_else(|| {
            signature(&decl::strip_comments(
                self.lang.comments(),
                &self.src[core..sig_end],
            ))
        });
        // Its text before its members' (the arena is in document order), its range
        // once their positions are asked.
        let at = self.recs.len();
        let rec = Rec {
            kind,
            name: span(&mut self.arena, &shape.name),
            name_path: span(&mut self.arena, &name_path),
            signature: span(&mut self.arena, &signature),
            bytes: (
                (self.base + bytes.start) as u32,
                (self.base + bytes.end) as u32,
            ),
            doc: (self.base + doc) as u32,
            core: (self.base + core) as u32,
            range: Range::new(start, start),
            name_range,
            end: 0,
        };
        self.recs.push(rec);
        match &shape.scope {
            Some(s) => members(self, &join(scope, s), kind),
            None => members(self, &name_path, kind),
        }
        let (end, past) = (self.position(bytes.end), self.recs.len() as u32);
        let rec = &mut self.recs[at];
        rec.range = Range::new(start, end);
        rec.end = past;
    }
}

/// `s` appended to `arena`, and where.
fn span(arena: &mut String, s: &str) -> Span {
    let start = arena.len() as u32;
    arena.push_str(s);
    Span {
        start,
        len: s.len() as u32,
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
