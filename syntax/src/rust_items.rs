//! Rust declarations read straight off the tokens, without a syntax tree.
//!
//! Even a skeleton parse (`skeleton.rs`) leaves tree-sitter building trees for
//! every signature, type and generic list, which kept the first index of a large
//! corpus at about twice universal-ctags' time. This recursive descent over the
//! skeleton lexer's tokens reads exactly what the symbol walker takes from a tree
//! (kind, name, the node's byte range, where its signature stops, members) for the
//! item grammar of Rust, skipping bodies, values and macro tokens as balanced
//! groups, at the lexer's speed.
//!
//! It is strict on purpose: anything outside the grammar it knows (a trait alias,
//! `default fn`, a qualified `impl` type, unbalanced delimiters, a broken file)
//! answers `None`, and the caller parses with tree-sitter instead. On every file
//! tree-sitter parses cleanly, both must give the same symbols: the test over the
//! vendored crates compares them.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    lookahead::Lookahead,
    skeleton_rust::{RustLexer, Tok, is_keyword},
};

/// One declaration, in the shape the walker builds symbols from.
#[derive(Debug)]
pub(super) struct Decl {
    pub kind: K,
    /// The name's bytes (an impl block: its type's).
    pub name: Range<usize>,
    /// The whole declaration: from its first outer attribute (tree-sitter's
    /// sibling `attribute_item`s), else its first keyword, to its end.
    pub bytes: Range<usize>,
    /// Its first keyword or modifier (`pub`, `fn`), past the attributes.
    pub core: usize,
    /// Where the signature stops when not at the end (a body, a value, a name).
    pub sig_end: Option<usize>,
    /// Fields, variants, or the items of a module, trait or impl block.
    pub members: Vec<Decl>,
    /// An impl block's trait, and the bytes of the type name its members live under.
    pub impl_of: Option<(Option<Range<usize>>, Range<usize>)>,
    /// The bytes of the name its own name path is under (Go methods: the receiver
    /// type, from `go_items`).
    pub qualifier: Option<Range<usize>>,
    /// One of several names of a declaration (`const a = 1, b = 2` in
    /// `ts_items`): the declaration's head (`const `), which its signature starts
    /// with before its own bytes from the name to `sig_end`.
    pub head: Option<Range<usize>>,
}

/// The declarations of a Rust file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut p = Parser {
        lexer: RustLexer::new(src, false),
        src,
        ahead: Lookahead::new(),
        last_end: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    p.items(&mut out, false)?;
    Some(out)
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

struct Parser<'a> {
    lexer: RustLexer<'a>,
    src: &'a [u8],
    /// Tokens looked at but not consumed yet.
    ahead: Lookahead<Token, 2>,
    /// End of the last consumed token.
    last_end: usize,
    /// Item lists entered and not yet left (modules, impls, traits, foreign blocks).
    depth: u32,
}

/// Deeper nesting is declined (tree-sitter's parse is iterative): real code nests a
/// few levels, and a file of ten thousand nested modules must not overflow a stack.
const MAX_NESTING: u32 = 64;

/// The lexer's next token with where it is.
fn lex(lexer: &mut RustLexer<'_>) -> Option<Token> {
    let tok = lexer.next()?;
    Some(Token {
        tok,
        start: lexer.start,
        end: lexer.at,
    })
}

impl<'a> Parser<'a> {
    fn peek(&mut self, n: usize) -> Option<Token> {
        let lexer = &mut self.lexer;
        self.ahead.peek(n, || lex(lexer))
    }

    fn bump(&mut self) -> Option<Token> {
        let lexer = &mut self.lexer;
        let t = self.ahead.take(|| lex(lexer))?;
        self.last_end = t.end;
        Some(t)
    }

    fn word(&mut self, n: usize) -> Option<&'a [u8]> {
        let src = self.src;
        match self.peek(n)?.tok {
            Tok::Word(s, e) => Some(&src[s..e]),
            _ => None,
        }
    }

    fn is(&mut self, n: usize, tok: Tok) -> bool {
        self.peek(n).is_some_and(|t| t.tok == tok)
    }

    fn is_open(&mut self, n: usize, delimiter: u8) -> bool {
        matches!(self.peek(n), Some(Token { tok: Tok::Open(d, _), .. }) if d == delimiter)
    }

    fn expect(&mut self, tok: Tok) -> Option<Token> {
        self.is(0, tok).then(|| self.bump())?
    }

    /// Consumes an opening delimiter and everything up to its matching closer.
    fn group(&mut self) -> Option<()> {
        let Tok::Open(first, _) = self.bump()?.tok else {
            return None;
        };
        let mut stack = vec![first];
        while let Some(open) = stack.last().copied() {
            match self.bump()?.tok {
                Tok::Open(d, _) => stack.push(d),
                Tok::Close(c) if c == closer(open) => {
                    stack.pop();
                }
                Tok::Close(_) => return None,
                _ => {}
            }
        }
        Some(())
    }

    /// A declaration's name: an identifier that is not a keyword.
    fn name(&mut self) -> Option<Range<usize>> {
        let t = self.peek(0)?;
        match t.tok {
            Tok::Word(s, e) if !is_keyword(&self.src[s..e]) && &self.src[s..e] != b"_" => {
                self.bump();
                Some(s..e)
            }
            _ => None,
        }
    }

    /// Items up to the end of the file, or (`nested`) up to a `}` left unconsumed.
    fn items(&mut self, out: &mut Vec<Decl>, nested: bool) -> Option<()> {
        self.depth += 1;
        let found = if self.depth > MAX_NESTING {
            None
        } else {
            self.item_list(out, nested)
        };
        self.depth -= 1;
        found
    }

    fn item_list(&mut self, out: &mut Vec<Decl>, nested: bool) -> Option<()> {
        // The first outer attribute since the last item: where the next one starts.
        let mut attrs = None;
        loop {
            let Some(t) = self.peek(0) else {
                return (!nested).then_some(());
            };
            match t.tok {
                Tok::Close(b'}') if nested => return Some(()),
                Tok::Punct(b'#') => {
                    self.bump();
                    let inner = self.is(0, Tok::Punct(b'!'));
                    if inner {
                        self.bump();
                        attrs = None;
                    } else {
                        attrs.get_or_insert(t.start);
                    }
                    if !self.is_open(0, b'[') {
                        return None;
                    }
                    self.group()?;
                }
                Tok::Punct(b';') => {
                    attrs = None;
                    self.bump();
                }
                _ => {
                    let first = out.len();
                    self.item(out)?;
                    // The item that starts here (a foreign block's items start inside
                    // it: the block's attributes are not theirs).
                    let attrs = attrs.take();
                    if let (Some(at), Some(decl)) = (attrs, out.get_mut(first)) {
                        if decl.bytes.start == t.start {
                            decl.bytes.start = at;
                        }
                    }
                }
            }
        }
    }

    /// `pub`, `pub(crate)`, `pub(in path)`.
    fn visibility(&mut self) -> Option<()> {
        if self.word(0) == Some(b"pub") {
            self.bump();
            if self.is_open(0, b'(') {
                self.group()?;
            }
        }
        Some(())
    }

    fn item(&mut self, out: &mut Vec<Decl>) -> Option<()> {
        let start = self.peek(0)?.start;
        self.visibility()?;
        loop {
            match self.word(0) {
                Some(b"const")
                    if matches!(self.word(1), Some(b"fn" | b"unsafe" | b"async" | b"extern")) =>
                {
                    self.bump();
                }
                Some(b"async" | b"unsafe") => {
                    self.bump();
                }
                Some(b"extern") => {
                    self.bump();
                    if self.is(0, Tok::Literal) {
                        self.bump();
                    }
                    if self.is_open(0, b'{') {
                        // A foreign block: its items belong to the enclosing scope.
                        self.bump();
                        self.items(out, true)?;
                        self.bump();
                        return Some(());
                    }
                    if self.word(0) == Some(b"crate") {
                        return self.past_semicolon();
                    }
                }
                _ => break,
            }
        }
        if self.is(0, Tok::Joint(b':')) {
            return self.macro_call();
        }
        match self.word(0)? {
            b"fn" => self.function(start, out),
            b"struct" => self.structure(start, K::Struct, out),
            b"union" if self.word(1).is_some() => self.structure(start, K::Union, out),
            b"enum" => self.enumeration(start, out),
            b"trait" => self.trait_item(start, out),
            b"impl" => self.implementation(start, out),
            b"mod" => self.module(start, out),
            b"const" => self.constant(start, K::Constant, out),
            b"static" => self.constant(start, K::Static, out),
            b"type" => self.type_alias(start, out),
            b"use" => self.past_semicolon(),
            b"macro_rules" if self.is(1, Tok::Punct(b'!')) => self.macro_rules(start, out),
            b"crate" | b"self" | b"super" => self.macro_call(),
            w if !is_keyword(w) => self.macro_call(),
            _ => None,
        }
    }

    /// Skips up to and including the next `;` outside delimiters.
    fn past_semicolon(&mut self) -> Option<()> {
        loop {
            match self.peek(0)?.tok {
                Tok::Punct(b';') => {
                    self.bump();
                    return Some(());
                }
                Tok::Open(..) => self.group()?,
                Tok::Close(_) => return None,
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// `path!(…);`, `path![…];` or `path! {…}` among items: not a declaration.
    fn macro_call(&mut self) -> Option<()> {
        if self.word(0).is_some() {
            self.bump();
        }
        while self.is(0, Tok::Joint(b':')) {
            self.bump();
            self.name()?;
        }
        self.expect(Tok::Punct(b'!'))?;
        self.macro_body()
    }

    /// A macro's delimited tokens: `{…}`, or `(…);` / `[…];`.
    fn macro_body(&mut self) -> Option<()> {
        let braces = self.is_open(0, b'{');
        if !matches!(self.peek(0)?.tok, Tok::Open(..)) {
            return None;
        }
        self.group()?;
        if !braces {
            self.expect(Tok::Punct(b';'))?;
        }
        Some(())
    }

    /// After `<`'s opening: to its matching `>`.
    fn generics(&mut self) -> Option<()> {
        if !self.is(0, Tok::Punct(b'<')) {
            return Some(());
        }
        self.bump();
        let mut depth = 1u32;
        while depth > 0 {
            match self.peek(0)?.tok {
                Tok::Punct(b'<') => depth += 1,
                Tok::Punct(b'>') => depth -= 1,
                Tok::Open(..) => {
                    self.group()?;
                    continue;
                }
                Tok::Close(_) | Tok::Punct(b';') => return None,
                _ => {}
            }
            self.bump();
        }
        Some(())
    }

    /// Type-like tokens (types, bounds, where clauses) up to one of `stop` outside
    /// delimiters and generics, left unconsumed; the end of the last one consumed.
    fn until(&mut self, stop: impl Fn(&Tok, &[u8]) -> bool) -> Option<usize> {
        let mut angle = 0u32;
        let mut end = None;
        loop {
            let t = self.peek(0)?;
            let word = match t.tok {
                Tok::Word(s, e) => &self.src[s..e],
                _ => &[],
            };
            if angle == 0 && (stop(&t.tok, word) || matches!(t.tok, Tok::Close(_))) {
                return end;
            }
            match t.tok {
                Tok::Open(..) => self.group()?,
                Tok::Close(_) => return None,
                Tok::Punct(b'<') => {
                    angle += 1;
                    self.bump();
                }
                Tok::Punct(b'>') => {
                    angle = angle.checked_sub(1)?;
                    self.bump();
                }
                Tok::Punct(b';') => return None,
                _ => {
                    self.bump();
                }
            }
            end = Some(self.last_end);
        }
    }

    fn where_clause(&mut self) -> Option<()> {
        if self.word(0) == Some(b"where") {
            self.until(|t, _| matches!(t, Tok::Open(b'{', _) | Tok::Punct(b';')))?;
        }
        Some(())
    }

    fn function(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        self.generics()?;
        if !self.is_open(0, b'(') {
            return None;
        }
        self.group()?;
        // The return type and where clause may be empty: `until` answers None then.
        self.until(|t, _| matches!(t, Tok::Open(b'{', _) | Tok::Punct(b';')));
        let t = self.peek(0)?;
        let sig_end = match t.tok {
            Tok::Open(b'{', _) => {
                self.group()?;
                Some(t.start)
            }
            Tok::Punct(b';') => {
                self.bump();
                None
            }
            _ => return None,
        };
        out.push(Decl::new(K::Function, name, start..self.last_end, sig_end));
        Some(())
    }

    fn structure(&mut self, start: usize, kind: K, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        self.generics()?;
        self.where_clause()?;
        let t = self.peek(0)?;
        let mut decl = match t.tok {
            Tok::Punct(b';') => {
                self.bump();
                Decl::new(kind, name, start..self.last_end, None)
            }
            Tok::Open(b'(', _) if kind == K::Struct => {
                self.group()?;
                self.where_clause()?;
                self.expect(Tok::Punct(b';'))?;
                Decl::new(kind, name, start..self.last_end, Some(t.start))
            }
            Tok::Open(b'{', _) => {
                self.bump();
                let members = self.fields()?;
                Decl {
                    members,
                    ..Decl::new(kind, name, start..self.last_end, Some(t.start))
                }
            }
            _ => return None,
        };
        decl.members.shrink_to_fit();
        out.push(decl);
        Some(())
    }

    /// `name: Type` fields up to and including the `}`.
    fn fields(&mut self) -> Option<Vec<Decl>> {
        let mut fields = Vec::new();
        loop {
            let attrs = self.member_attributes()?;
            if self.is(0, Tok::Close(b'}')) {
                self.bump();
                return Some(fields);
            }
            let start = self.peek(0)?.start;
            self.visibility()?;
            let name = self.name()?;
            self.expect(Tok::Punct(b':'))?;
            let end = self.until(|t, _| matches!(t, Tok::Punct(b',')))?;
            let mut field = Decl::new(K::Field, name, start..end, None);
            field.bytes.start = attrs.unwrap_or(start);
            fields.push(field);
            self.separator()?;
        }
    }

    /// Attributes before a field or variant: where the first one starts.
    fn member_attributes(&mut self) -> Option<Option<usize>> {
        let mut first = None;
        while let Some(t) = self.peek(0).filter(|t| t.tok == Tok::Punct(b'#')) {
            self.bump();
            first.get_or_insert(t.start);
            if !self.is_open(0, b'[') {
                return None;
            }
            self.group()?;
        }
        Some(first)
    }

    /// A `,` between members, or the `}` that ends them (left for the loop).
    fn separator(&mut self) -> Option<()> {
        match self.peek(0)?.tok {
            Tok::Punct(b',') => {
                self.bump();
                Some(())
            }
            Tok::Close(b'}') => Some(()),
            _ => None,
        }
    }

    fn enumeration(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        self.generics()?;
        self.where_clause()?;
        let body = self.peek(0)?;
        if !self.is_open(0, b'{') {
            return None;
        }
        self.bump();
        let mut variants = Vec::new();
        loop {
            let attrs = self.member_attributes()?;
            if self.is(0, Tok::Close(b'}')) {
                self.bump();
                break;
            }
            let start = self.peek(0)?.start;
            self.visibility()?;
            let name = self.name()?;
            if matches!(self.peek(0)?.tok, Tok::Open(b'(' | b'{', _)) {
                self.group()?;
            }
            if self.is(0, Tok::Punct(b'=')) {
                self.bump();
                self.expression()?;
            }
            let mut variant = Decl::new(K::EnumMember, name, start..self.last_end, None);
            variant.bytes.start = attrs.unwrap_or(start);
            variants.push(variant);
            self.separator()?;
        }
        out.push(Decl {
            members: variants,
            ..Decl::new(K::Enum, name, start..self.last_end, Some(body.start))
        });
        Some(())
    }

    /// An expression up to a `,` or `}` outside delimiters (a discriminant).
    fn expression(&mut self) -> Option<()> {
        let mut any = false;
        loop {
            match self.peek(0)?.tok {
                Tok::Punct(b',') | Tok::Close(b'}') => return any.then_some(()),
                // A turbofish's commas are not separators: not worth telling apart.
                Tok::Joint(b':') if self.is(1, Tok::Punct(b'<')) => return None,
                Tok::Open(..) => self.group()?,
                Tok::Close(_) | Tok::Punct(b';') => return None,
                _ => {
                    self.bump();
                }
            }
            any = true;
        }
    }

    fn trait_item(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        self.generics()?;
        if self.is(0, Tok::Punct(b':')) {
            self.bump();
            self.until(|t, w| matches!(t, Tok::Open(b'{', _)) || w == b"where")?;
        }
        self.where_clause()?;
        let (body, members) = self.block()?;
        out.push(Decl {
            members,
            ..Decl::new(K::Trait, name, start..self.last_end, Some(body))
        });
        Some(())
    }

    /// `{ items }`: where it starts, and its items.
    fn block(&mut self) -> Option<(usize, Vec<Decl>)> {
        let open = self.peek(0)?;
        if !self.is_open(0, b'{') {
            return None;
        }
        self.bump();
        let mut members = Vec::new();
        self.items(&mut members, true)?;
        self.bump();
        Some((open.start, members))
    }

    fn implementation(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        self.generics()?;
        let negative = self.is(0, Tok::Punct(b'!'));
        if negative {
            self.bump();
        }
        let first = self.impl_type()?;
        let (trait_bytes, ty) = if self.word(0) == Some(b"for") {
            self.bump();
            (Some(first.0), self.impl_type()?)
        } else if negative {
            return None;
        } else {
            (None, first)
        };
        self.where_clause()?;
        let (body, members) = self.block()?;
        out.push(Decl {
            members,
            impl_of: Some((trait_bytes, ty.1)),
            ..Decl::new(K::Impl, ty.0, start..self.last_end, Some(body))
        });
        Some(())
    }

    /// The type (or trait) of an impl header: its bytes, and the bytes of the name
    /// its members are filed under: the first type name in it, as a depth-first
    /// search of the tree finds it (`Vec` in `&'a mut std::vec::Vec<T>`, `A` in
    /// `(A, B)` and `fn(A) -> B`), else the whole type (`!`, `()`).
    fn impl_type(&mut self) -> Option<(Range<usize>, Range<usize>)> {
        let first = self.peek(0)?;
        if matches!(first.tok, Tok::Punct(b'<')) || (self.word(0) == Some(b"for")) {
            return None;
        }
        let mut name = None;
        let (mut angle, mut depth) = (0u32, 0u32);
        loop {
            let t = self.peek(0)?;
            if angle == 0 && depth == 0 {
                match t.tok {
                    Tok::Open(b'{', _) | Tok::Punct(b';') => break,
                    Tok::Word(s, e) if &self.src[s..e] == b"where" => break,
                    Tok::Word(s, e) if &self.src[s..e] == b"for" => {
                        // `for<'a>` inside a type: a bound, not the trait's `for`.
                        if self.is(1, Tok::Punct(b'<')) {
                            return None;
                        }
                        break;
                    }
                    _ => {}
                }
            }
            self.bump();
            match t.tok {
                Tok::Word(s, e) => {
                    let word = &self.src[s..e];
                    // How a tree files these does not matter once a name is found.
                    if name.is_none() && matches!(word, b"Self" | b"impl") {
                        return None;
                    }
                    // A path segment (`std::`) or a parameter name (`fn(ctx: &T)`).
                    let segment = self.is(0, Tok::Joint(b':')) || self.is(0, Tok::Punct(b':'));
                    if name.is_none() && !segment && !is_keyword(word) && word != b"self" {
                        name = Some(s..e);
                    }
                }
                Tok::Open(..) => depth += 1,
                Tok::Close(_) => depth = depth.checked_sub(1)?,
                Tok::Punct(b'<') => angle += 1,
                Tok::Punct(b'>') => angle = angle.checked_sub(1)?,
                _ => {}
            }
        }
        let bytes = first.start..self.last_end;
        if bytes.is_empty() {
            return None;
        }
        Some((bytes.clone(), name.unwrap_or(bytes)))
    }

    fn module(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        if self.is(0, Tok::Punct(b';')) {
            self.bump();
            out.push(Decl::new(K::Module, name, start..self.last_end, None));
            return Some(());
        }
        let (body, members) = self.block()?;
        out.push(Decl {
            members,
            ..Decl::new(K::Module, name, start..self.last_end, Some(body))
        });
        Some(())
    }

    fn constant(&mut self, start: usize, kind: K, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        if kind == K::Static && self.word(0) == Some(b"mut") {
            self.bump();
        }
        // `const _: () = …;` is an item without a name: the walker files it as `_`.
        let name = match self.word(0) {
            Some(b"_") if kind == K::Constant => {
                let t = self.bump()?;
                t.start..t.end
            }
            _ => self.name()?,
        };
        self.expect(Tok::Punct(b':'))?;
        self.until(|t, _| matches!(t, Tok::Punct(b'=' | b';')))?;
        let mut value = None;
        if self.is(0, Tok::Punct(b'=')) {
            self.bump();
            value = Some(self.peek(0)?.start);
            self.past_semicolon()?;
        } else {
            self.expect(Tok::Punct(b';'))?;
        }
        out.push(Decl::new(kind, name, start..self.last_end, value));
        Some(())
    }

    fn type_alias(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        let name = self.name()?;
        self.generics()?;
        // Bounds, where clauses and the aliased type, with `=` among them.
        let mut angle = 0u32;
        loop {
            match self.peek(0)?.tok {
                Tok::Punct(b';') if angle == 0 => break,
                Tok::Open(..) => self.group()?,
                Tok::Close(_) => return None,
                tok => {
                    match tok {
                        Tok::Punct(b'<') => angle += 1,
                        Tok::Punct(b'>') => angle = angle.checked_sub(1)?,
                        _ => {}
                    }
                    self.bump();
                }
            }
        }
        self.bump();
        out.push(Decl::new(K::TypeAlias, name, start..self.last_end, None));
        Some(())
    }

    fn macro_rules(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.bump();
        self.bump();
        let t = self.peek(0)?;
        let name = match t.tok {
            Tok::Word(s, e) => s..e,
            _ => return None,
        };
        self.bump();
        self.macro_body()?;
        let end = name.end;
        out.push(Decl::new(K::Macro, name, start..self.last_end, Some(end)));
        Some(())
    }
}

impl Decl {
    /// A declaration without members, starting at its first keyword.
    pub(super) fn new(
        kind: K,
        name: Range<usize>,
        bytes: Range<usize>,
        sig_end: Option<usize>,
    ) -> Decl {
        Decl {
            kind,
            name,
            core: bytes.start,
            bytes,
            sig_end,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        }
    }
}

fn closer(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "fn broken( {",
            "struct A { x: u8",
            "impl<T> Tr for T { default fn f() {} }",
            "trait Alias = Send + Sync;",
            "impl for<'a> Tr<'a> for X {}",
            "unsafe extern \"C\" { safe fn f(); }",
            "fn f() { let s = \"unterminated; }",
            "pub enum E { A = f::<u8, u16>(), }",
            "#!/usr/bin/env run-cargo-script\nfn main() {}",
            "struct A; }",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        let deep = |n: usize| "mod m {".repeat(n) + &"}".repeat(n);
        assert!(parse(deep(60).as_bytes()).is_some());
        assert!(
            parse(deep(100_000).as_bytes()).is_none(),
            "declined, not overflowed"
        );
    }
}
