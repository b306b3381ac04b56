//! C# declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter's tree for C# (`languages/csharp.rs`), for the
//! files this reader can vouch for.
//!
//! A C# file is `using` directives, `[assembly: …]` attributes, namespaces (block or
//! file-scoped) and type declarations; a type body holds fields, events, properties,
//! indexers, methods, constructors and nested types, all of one shape: `[…]`
//! attribute lists and modifiers, then a keyword (`class`, `struct`, `interface`,
//! `enum`, `record`, `delegate`, `event`) or a type and a name, ended by a
//! parameter list, accessors, `=>`, `=`, `,` or `;`. Bodies, parameter lists,
//! accessor lists, attribute arguments and initializers are skipped as balanced
//! groups of the C family's tokens (`skeleton_c::Lexer`, which knows C#'s verbatim,
//! raw and interpolated strings, character literals, comments and directives).
//!
//! Directives: `#region`, `#pragma` and the like are extras to tree-sitter, and a
//! conditional (`#if`, `#elif`, `#else`, `#endif`) between whole declarations is a
//! `preproc_if` the walker descends into, so its declarations are listed where they
//! would be without it: both are followed there, and anywhere inside a skipped
//! `{…}` (statements). Every branch must close what it opens
//! (`Lexer::balanced_branches`). Inside a declaration an extra after its core is
//! part of its node (its text in the signature, as the walker takes it); an `#if`
//! around attribute lists (one a branch, tree-sitter-c-sharp's
//! `preproc_if_in_attribute_list`), or an extra after a list, is the first child
//! that is no attribute: the core starts there (`decl::core_start`), and so does
//! the range when nothing is before it. Among an enum's members an `#if` stands
//! for one member, between commas (one member a branch or none, no comma).
//! Operators and destructors are named as the walker names them (`operator +`,
//! `~Name`) by [`name`], from what is before their name.
//!
//! It is strict on purpose: other directives inside a declaration (a conditional
//! around a modifier, a base type or a value, several directives among its
//! attributes), other conditionals among an enum's members, one in a `(…)` or
//! `[…]` at the declaration level, or at the top of a file with a file-scoped
//! namespace (the walker qualifies only the file's direct children); top-level
//! statements; `operator checked` and explicit interface operators; a comment in
//! the signature of the second name of `int a, b;` (which the walker strips from a
//! signature that is no slice of the text); a `<` in a field's initializer that
//! may be a comparison before a `,`; a `;` the grammar reads as no declaration's;
//! delimiters that do not pair and text the lexer cannot follow answer `None`, and
//! the skeleton parse answers. The test over real C# code (`fast_check`) compares
//! its symbols with whole parses.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    lookahead::Lookahead,
    rust_items::Decl,
    skeleton_c::{Dialect, Lexer, Tok},
};

/// The walker's name for a declaration this reader read, when it is not the bytes
/// of its name: `~Name` for a destructor, `operator +` or `operator int` for an
/// operator (whose name is its operator or type), as `languages/csharp.rs` names
/// them. The reader vouches only for blanks between those and what is before.
pub(crate) fn name(src: &[u8], name: Range<usize>) -> Option<String> {
    let before = src[..name.start].trim_ascii_end();
    let own = String::from_utf8_lossy(&src[name]);
    if before.ends_with(b"~") {
        return Some(format!("~{own}"));
    }
    let keyword = before.strip_suffix(b"operator")?;
    let word = |b: &u8| crate::bytes::is_word(*b) || *b == b'@';
    (!keyword.last().is_some_and(word)).then(|| format!("operator {own}"))
}

/// The declarations of a C# file, or `None` where this reader cannot vouch for the
/// answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    Reader::new(src).read()
}

impl<'a> Reader<'a> {
    fn new(src: &'a [u8]) -> Reader<'a> {
        let mut lex = Lexer::new(src, Dialect::CSharp);
        // The comment ranges it would note are the skeleton's business.
        lex.cur.record = false;
        lex.balanced_branches();
        Reader {
            lex,
            src,
            ahead: Lookahead::new(),
            last_end: 0,
            boundary: usize::MAX,
            nesting: 0,
            open: Vec::new(),
            file_namespace: None,
            top_branch: false,
            depth: 0,
            core: usize::MAX,
        }
    }

    fn read(&mut self) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        while let Some(t) = self.boundary(Body::Top) {
            self.top_item(t, &mut out)?;
        }
        let clean = !self.lex.cur.confused && self.lex.conditionals.is_empty();
        // Inside a top-level `#if` a type is no child of the file, and the walker
        // gives it no file-scoped namespace.
        (clean && !(self.top_branch && self.file_namespace.is_some())).then_some(out)
    }
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
    /// The directives read right before it, and the conditionals among them.
    directives: u32,
    branches: u32,
    /// Where the last of those directives and of those conditionals start (their
    /// `#`), and whether that conditional is an `#if`.
    directive_at: usize,
    branch_at: usize,
    branch_if: bool,
    /// The conditionals open at it.
    depth: usize,
}

/// Where a declaration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Top,
    Namespace,
    Type,
    Enum,
}

/// Modifiers tree-sitter-c-sharp reads as `modifier`.
const MODIFIERS: &[&[u8]] = &[
    b"abstract",
    b"async",
    b"const",
    b"extern",
    b"file",
    b"fixed",
    b"internal",
    b"new",
    b"override",
    b"partial",
    b"private",
    b"protected",
    b"public",
    b"readonly",
    b"required",
    b"sealed",
    b"static",
    b"unsafe",
    b"virtual",
    b"volatile",
];

/// Reserved words: never a name; only the predefined types among them may be a
/// type.
const KEYWORDS: &[&[u8]] = &[
    b"abstract",
    b"as",
    b"base",
    b"break",
    b"case",
    b"catch",
    b"checked",
    b"class",
    b"const",
    b"continue",
    b"default",
    b"delegate",
    b"do",
    b"else",
    b"enum",
    b"event",
    b"explicit",
    b"extern",
    b"false",
    b"finally",
    b"fixed",
    b"for",
    b"foreach",
    b"goto",
    b"if",
    b"implicit",
    b"in",
    b"interface",
    b"internal",
    b"is",
    b"lock",
    b"namespace",
    b"new",
    b"null",
    b"operator",
    b"out",
    b"override",
    b"params",
    b"private",
    b"protected",
    b"public",
    b"readonly",
    b"ref",
    b"return",
    b"sealed",
    b"sizeof",
    b"stackalloc",
    b"static",
    b"struct",
    b"switch",
    b"this",
    b"throw",
    b"true",
    b"try",
    b"typeof",
    b"unchecked",
    b"unsafe",
    b"using",
    b"virtual",
    b"volatile",
    b"while",
];

const PREDEFINED: &[&[u8]] = &[
    b"bool", b"byte", b"char", b"decimal", b"double", b"float", b"int", b"long", b"object",
    b"sbyte", b"short", b"string", b"uint", b"ulong", b"ushort", b"void",
];

/// Whether `word` is in `list` (of lowercase words: most names are not).
fn listed(list: &[&[u8]], word: &[u8]) -> bool {
    word.first().is_some_and(u8::is_ascii_lowercase) && list.contains(&word)
}

/// Deeper nesting of types is declined: the walker stops at 64 containers.
const MAX_NESTING: u32 = 48;

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    /// Tokens looked at but not consumed yet, in order.
    ahead: Lookahead<Token, 3>,
    /// End of the last consumed token.
    last_end: usize,
    /// Where the token starting the current declaration is: directives may stand
    /// right before it.
    boundary: usize,
    /// Types and namespaces entered and not yet left.
    nesting: u32,
    /// Open delimiters of the group being skipped (reused).
    open: Vec<u8>,
    /// The name of the file-scoped namespace (`namespace A.B;`) read so far.
    file_namespace: Option<Range<usize>>,
    /// A conditional stands at the top level.
    top_branch: bool,
    /// The conditionals open at the last consumed token.
    depth: usize,
    /// Where the current declaration's core starts (`usize::MAX` until known):
    /// after it an extra (`#region`, `#pragma`) is inside the declaration's node,
    /// its bytes in the signature as the walker takes it, before it the core.
    core: usize,
}

/// The lexer's next token with where it is.
fn lex(lexer: &mut Lexer<'_>) -> Option<Token> {
    let (directives, branches) = (lexer.directives, lexer.branches);
    let tok = lexer.next()?;
    Some(Token {
        tok,
        start: lexer.start,
        end: lexer.cur.at,
        directives: lexer.directives - directives,
        branches: lexer.branches - branches,
        directive_at: lexer.directive_at,
        branch_at: lexer.branch_at,
        branch_if: lexer.branch_if,
        depth: lexer.conditionals.len(),
    })
}

impl<'a> Reader<'a> {
    /// The `n`th token ahead; `None` at the end of the text or where it does not lex.
    fn peek(&mut self, n: usize) -> Option<Token> {
        let lexer = &mut self.lex;
        self.ahead.peek(n, || lex(lexer))
    }

    /// The next token, whatever stands before it.
    fn take(&mut self) -> Option<Token> {
        let lexer = &mut self.lex;
        let t = self.ahead.take(|| lex(lexer))?;
        self.last_end = t.end;
        self.depth = t.depth;
        Some(t)
    }

    /// The next token: no directive may stand before it unless it starts a
    /// declaration, and no conditional or before the core inside one.
    fn bump(&mut self) -> Option<Token> {
        let t = self.take()?;
        let extra = t.branches == 0 && t.start > self.core;
        (t.directives == 0 || t.start == self.boundary || extra).then_some(t)
    }

    /// The next token, where a declaration (or the end of a body) may start: the
    /// directives right before it are between declarations. `None` at the end of
    /// the text.
    fn boundary(&mut self, body: Body) -> Option<Token> {
        let t = self.peek(0)?;
        if t.directives > 0 {
            if t.branches > 0 {
                match body {
                    Body::Top => self.top_branch = true,
                    Body::Namespace | Body::Type | Body::Enum => {}
                }
            }
            self.boundary = t.start;
        }
        Some(t)
    }

    fn text(&self, t: Token) -> &'a [u8] {
        match t.tok {
            Tok::Word(s, e) => &self.src[s..e],
            _ => b"",
        }
    }

    fn is(&self, t: Token, word: &[u8]) -> bool {
        self.text(t) == word
    }

    /// Whether `t` is an identifier that is not a reserved word.
    fn identifier(&self, t: Token) -> bool {
        let w = self.text(t);
        w.first().is_some_and(|b| !b.is_ascii_digit())
            && !listed(KEYWORDS, w)
            && !listed(PREDEFINED, w)
    }

    /// Takes an identifier.
    fn name(&mut self) -> Option<Token> {
        let t = self.bump()?;
        self.identifier(t).then_some(t)
    }

    fn peek_is(&mut self, tok: Tok) -> bool {
        self.peek(0).is_some_and(|t| t.tok == tok)
    }

    /// Whether `=>` is next.
    fn arrow(&mut self) -> bool {
        match (self.peek(0), self.peek(1)) {
            (Some(eq), Some(gt)) => {
                eq.tok == Tok::Punct(b'=') && gt.tok == Tok::Punct(b'>') && gt.start == eq.end
            }
            _ => false,
        }
    }

    /// Skips the rest of the group `open` (taken) opens, through its closer. A
    /// conditional inside must stand among statements, in braces.
    fn skip_group(&mut self, open: Token) -> Option<()> {
        let Tok::Open(b, _) = open.tok else {
            return None;
        };
        self.open.clear();
        self.open.push(b);
        loop {
            // Most of a file's tokens: straight from the lexer, past what cannot
            // matter, while nothing is looked ahead.
            let t = if self.ahead.is_empty() {
                self.lex.skip_plain();
                let t = lex(&mut self.lex)?;
                (self.last_end, self.depth) = (t.end, t.depth);
                t
            } else {
                self.take()?
            };
            if t.branches > 0 && self.open.first() != Some(&b'{') {
                return None;
            }
            match t.tok {
                Tok::Open(b, _) => self.open.push(b),
                // The lexer pairs delimiters (it gives up on a mismatch).
                Tok::Close(_) => {
                    self.open.pop();
                    if self.open.is_empty() {
                        return Some(());
                    }
                }
                _ => {}
            }
        }
    }

    /// Takes the group opening next, if one of `opens` does.
    fn group(&mut self, opens: &[u8]) -> Option<bool> {
        match self.peek(0)?.tok {
            Tok::Open(b, _) if opens.contains(&b) => {
                let open = self.bump()?;
                self.skip_group(open)?;
                Some(true)
            }
            _ => Some(false),
        }
    }

    /// One item of the file.
    fn top_item(&mut self, t: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.core = usize::MAX;
        match t.tok {
            Tok::Word(..) if self.is(t, b"using") || self.is(t, b"global") => self.using(),
            Tok::Word(..)
                if self.is(t, b"extern") && self.peek(1).is_some_and(|a| self.is(a, b"alias")) =>
            {
                self.bump()?;
                self.bump()?;
                self.name()?;
                (self.bump()?.tok == Tok::Punct(b';')).then_some(())
            }
            // `[assembly: …]`, `[module: …]`: no declaration's.
            Tok::Open(b'[', _)
                if self
                    .peek(1)
                    .is_some_and(|w| self.is(w, b"assembly") || self.is(w, b"module"))
                    && self.peek(2)?.tok == Tok::Punct(b':') =>
            {
                let open = self.bump()?;
                self.skip_group(open)
            }
            _ => self.declaration(Body::Top, out),
        }
    }

    /// A `using` directive, at its `global` or `using`, through its `;`: a name
    /// after `static` or `unsafe`, or an alias (`using A = B<C>;`). Two words in a
    /// row otherwise are a statement (`using var x = …;`).
    fn using(&mut self) -> Option<()> {
        let first = self.bump()?;
        if self.is(first, b"global") {
            let using = self.bump()?;
            if !self.is(using, b"using") {
                return None;
            }
        }
        let (mut alias, mut prev_word) = (false, None::<Token>);
        loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Punct(b';') => return Some(()),
                Tok::Word(..) => {
                    if let Some(p) = prev_word
                        && !(self.is(p, b"static") || self.is(p, b"unsafe"))
                        && !alias
                    {
                        return None;
                    }
                    if !self.identifier(t)
                        && !listed(PREDEFINED, self.text(t))
                        && !self.is(t, b"static")
                        && !self.is(t, b"unsafe")
                    {
                        return None;
                    }
                    prev_word = Some(t);
                    continue;
                }
                Tok::Punct(b'=') if !alias => alias = true,
                Tok::Punct(b'.' | b'<' | b'>' | b',' | b'?' | b'*') | Tok::Scope => {}
                Tok::Open(b'(' | b'[', _) if alias => self.skip_group(t)?,
                _ => return None,
            }
            prev_word = None;
        }
    }

    /// One declaration in `body` (or a `using` directive in a namespace, which is
    /// none), added to `out`.
    fn declaration(&mut self, body: Body, out: &mut Vec<Decl>) -> Option<()> {
        let first = self.peek(0)?;
        let mut start = first.start;
        self.core = usize::MAX;
        if body == Body::Namespace && self.is(first, b"using") {
            return self.using();
        }
        // Attribute lists, and an `#if` around some (one list a branch): it is the
        // declaration's first child that is no attribute, so its core starts there
        // (`decl::core_start`), and so does its range if nothing is before it.
        let opens = |t: Token| matches!(t.tok, Tok::Open(b'[', _));
        // Right after an `#if`, the first list may open such a group or the whole
        // declaration be in its branch: the depth of its head tells.
        let tentative = first.branches > 0 && first.branch_if && opens(first);
        // The conditionals open around the declaration.
        let mut outer = first.depth - usize::from(tentative);
        // Where the first child that is no attribute list starts, before the
        // modifiers: an `#if` around lists, or an extra (`#pragma`) after one.
        let mut wrapped = tentative.then_some(first.branch_at);
        let (mut open, mut lists, mut only_tentative) = (tentative, 0, tentative);
        loop {
            let t = self.peek(0)?;
            if t.start != first.start && t.directives > 0 {
                if t.directives != 1 {
                    return None;
                }
                if t.branches == 0 {
                    if wrapped.is_some() {
                        return None;
                    }
                    wrapped = Some(t.directive_at);
                } else {
                    match (open, t.depth) {
                        (false, d) if d == outer + 1 && wrapped.is_none() => {
                            wrapped = Some(t.branch_at);
                            open = true;
                        }
                        // `#elif`, `#else`.
                        (true, d) if d == outer + 1 => {}
                        // `#endif`.
                        (true, d) if d == outer => open = false,
                        _ => return None,
                    }
                    lists = 0;
                    only_tentative = false;
                }
                self.boundary = t.start;
            }
            if !opens(t) {
                break;
            }
            lists += 1;
            if open && lists > 1 {
                if !only_tentative {
                    return None;
                }
                // Two lists in the branch: it holds the whole declaration.
                (wrapped, open, only_tentative) = (None, false, false);
                outer = first.depth;
            }
            self.group(b"[")?;
        }
        if open {
            if !only_tentative {
                return None;
            }
            wrapped = None;
        } else if let Some(at) = wrapped.filter(|at| tentative && *at == first.branch_at) {
            start = at;
        }
        // The first modifier, past the attributes: where the signature starts.
        let mut core = wrapped;
        let mut constant = false;
        loop {
            let t = self.peek(0)?;
            if !listed(MODIFIERS, self.text(t)) {
                break;
            }
            core.get_or_insert(t.start);
            constant |= self.is(t, b"const");
            self.bump()?;
        }
        let head = self.peek(0)?;
        let core = core.unwrap_or(head.start);
        self.core = core;
        let in_file = (body == Body::Top)
            .then(|| self.file_namespace.clone())
            .flatten();
        let kind = match self.text(head) {
            b"class" => Some(K::Class),
            b"struct" => Some(K::Struct),
            b"interface" => Some(K::Interface),
            b"enum" => Some(K::Enum),
            b"ref" if self.peek(1).is_some_and(|s| self.is(s, b"struct")) => {
                self.bump()?;
                Some(K::Struct)
            }
            b"record" => {
                let next = self.peek(1)?;
                if self.is(next, b"struct") {
                    self.bump()?;
                    Some(K::Struct)
                } else if self.is(next, b"class") || self.identifier(next) {
                    if self.is(next, b"class") {
                        self.bump()?;
                    }
                    Some(K::Class)
                } else {
                    return None;
                }
            }
            _ => None,
        };
        if let Some(kind) = kind {
            let mut decl = self.type_declaration(kind, start, core)?;
            decl.qualifier = in_file;
            out.push(decl);
            return Some(());
        }
        let pointer = self.peek(1).is_some_and(|p| p.tok == Tok::Punct(b'*'));
        if self.is(head, b"delegate") && !pointer {
            let mut decl = self.delegate(start, core)?;
            decl.qualifier = in_file;
            out.push(decl);
            return Some(());
        }
        if self.is(head, b"namespace") {
            return match body {
                Body::Top | Body::Namespace if start == head.start => {
                    out.push(self.namespace(body, start)?);
                    Some(())
                }
                _ => None,
            };
        }
        match body {
            Body::Type => self.member(start, core, constant, out),
            _ => None,
        }
    }

    /// `namespace A.B { … }` or (at the top) `namespace A.B;`, at its keyword.
    fn namespace(&mut self, body: Body, start: usize) -> Option<Decl> {
        self.bump()?;
        self.core = start;
        let first = self.name()?;
        let (mut last, mut qualifier) = (first, None);
        while self.peek_is(Tok::Punct(b'.')) {
            let dot = self.bump()?;
            let next = self.name()?;
            // `A . B` would need `scope_path`'s tidying.
            if dot.start != last.end || next.start != dot.end {
                return None;
            }
            qualifier = Some(first.start..dot.start);
            last = next;
        }
        let t = self.bump()?;
        let (sig_end, members) = match t.tok {
            Tok::Open(b'{', _) => {
                self.nesting += 1;
                if self.nesting > MAX_NESTING {
                    return None;
                }
                let members = self.body(Body::Namespace)?;
                self.nesting -= 1;
                self.optional_semicolon()?;
                (t.start, members)
            }
            Tok::Punct(b';') if body == Body::Top && self.file_namespace.is_none() => {
                self.file_namespace = Some(first.start..last.end);
                (t.start, Vec::new())
            }
            _ => return None,
        };
        Some(Decl {
            kind: K::Module,
            name: last.start..last.end,
            bytes: start..self.last_end,
            core: start,
            sig_end: Some(sig_end),
            members,
            impl_of: None,
            qualifier,
            head: None,
        })
    }

    /// The `;` tree-sitter-c-sharp reads into a type or namespace right after its
    /// body (its scanner's `_optional_semi`, blanks before it not skipped).
    fn optional_semicolon(&mut self) -> Option<()> {
        let end = self.last_end;
        if self
            .peek(0)
            .is_some_and(|t| t.tok == Tok::Punct(b';') && t.start == end)
        {
            self.bump()?;
        }
        Some(())
    }

    /// A class, struct, interface, enum or record, at its (last) keyword, through
    /// its body or `;`.
    fn type_declaration(&mut self, kind: K, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        let name = self.name()?;
        // The header: type parameters, a record's or primary constructor's
        // parameters, bases (with arguments), constraints (`new()`).
        let end = loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Open(b'{', _) | Tok::Punct(b';') => break t,
                Tok::Open(..) => self.skip_group(t)?,
                Tok::Word(..)
                | Tok::Scope
                | Tok::Punct(b'.' | b',' | b'<' | b'>' | b'?' | b':' | b'*') => {}
                _ => return None,
            }
        };
        let mut members = Vec::new();
        if let Tok::Open(..) = end.tok {
            self.nesting += 1;
            if self.nesting > MAX_NESTING {
                return None;
            }
            members = match kind {
                K::Enum => self.enum_body()?,
                _ => self.body(Body::Type)?,
            };
            self.nesting -= 1;
            self.optional_semicolon()?;
        }
        Some(Decl {
            kind,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core,
            sig_end: Some(end.start),
            members,
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// The declarations of a namespace's or type's body, `{` taken, through its `}`.
    fn body(&mut self, body: Body) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        loop {
            let t = self.boundary(body)?;
            if t.tok == Tok::Close(b'}') {
                self.bump()?;
                return Some(out);
            }
            self.declaration(body, &mut out)?;
        }
    }

    /// An enum's members, `{` taken, through its `}`.
    fn enum_body(&mut self) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        let mut after_member = false;
        // tree-sitter-c-sharp's `#if` among enum members stands for one member,
        // between commas: each branch holds one member or none, and no comma.
        let base = self.depth;
        let mut in_branch = false;
        loop {
            let t = self.boundary(Body::Enum)?;
            if t.branches > 0 {
                if t.directives != 1 {
                    return None;
                }
                match t.depth {
                    // `#if`.
                    d if d == base + 1 && t.branch_if && !in_branch && !after_member => {
                        in_branch = true;
                    }
                    // `#elif`, `#else`.
                    d if d == base + 1 && !t.branch_if && in_branch => after_member = false,
                    // `#endif`: the `#if` was a member.
                    d if d == base && in_branch => {
                        in_branch = false;
                        after_member = true;
                    }
                    _ => return None,
                }
            }
            match t.tok {
                Tok::Close(b'}') if !in_branch => {
                    self.bump()?;
                    return Some(out);
                }
                Tok::Punct(b',') if after_member && !in_branch => {
                    self.bump()?;
                    after_member = false;
                }
                _ if after_member => return None,
                _ => {
                    out.push(self.enum_member()?);
                    after_member = true;
                }
            }
        }
    }

    /// `[A] Name = value`, attributes and value optional.
    fn enum_member(&mut self) -> Option<Decl> {
        let start = self.peek(0)?.start;
        self.core = usize::MAX;
        while self.group(b"[")? {}
        let name = self.name()?;
        self.core = name.start;
        if self.peek_is(Tok::Punct(b'=')) {
            self.bump()?;
            // To the `,` or `}` after it, or the conditional ending its branch: no
            // generic type is in an enum's value (`1 << 2` is a shift).
            let mut empty = true;
            loop {
                let t = self.peek(0)?;
                if t.branches > 0 && !empty {
                    break;
                }
                match t.tok {
                    Tok::Punct(b',') | Tok::Close(b'}') if !empty => break,
                    Tok::Punct(b',') => return None,
                    Tok::Open(..) => {
                        let open = self.bump()?;
                        self.skip_group(open)?;
                    }
                    Tok::Close(_) | Tok::Punct(b';') => return None,
                    _ => {
                        self.bump()?;
                    }
                }
                empty = false;
            }
        }
        self.plain(name)?;
        Some(Decl {
            kind: K::EnumMember,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core: name.start,
            sig_end: None,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// `delegate R Name<T>(…) where …;`, at its keyword.
    fn delegate(&mut self, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        self.ty()?;
        let name = self.name()?;
        if self.peek_is(Tok::Punct(b'<')) {
            self.angles()?;
        }
        let open = self.bump()?;
        if !matches!(open.tok, Tok::Open(b'(', _)) {
            return None;
        }
        self.skip_group(open)?;
        let end = self.constraints()?;
        if end.tok != Tok::Punct(b';') {
            return None;
        }
        self.bump()?;
        Some(Decl {
            kind: K::TypeAlias,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core,
            sig_end: Some(end.start),
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// `where T : class, new()` clauses, if any: the token after them (not taken).
    fn constraints(&mut self) -> Option<Token> {
        let mut clause = false;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Word(..) if self.is(t, b"where") => clause = true,
                Tok::Open(b'(', _) if clause => {
                    let open = self.bump()?;
                    self.skip_group(open)?;
                    continue;
                }
                Tok::Word(..)
                | Tok::Scope
                | Tok::Punct(b':' | b',' | b'<' | b'>' | b'.' | b'?' | b'*')
                    if clause && !self.arrow() => {}
                _ => return Some(t),
            }
            self.bump()?;
        }
    }

    /// A type: a name (`global::A.B<C>`), a predefined type or a tuple, then `?`,
    /// `*` and array ranks.
    fn ty(&mut self) -> Option<()> {
        let t = self.peek(0)?;
        if self.is(t, b"ref") {
            self.bump()?;
            if self.peek(0).is_some_and(|r| self.is(r, b"readonly")) {
                self.bump()?;
            }
        }
        let pointer = self.peek(1).is_some_and(|p| p.tok == Tok::Punct(b'*'));
        if self.peek(0).is_some_and(|d| self.is(d, b"delegate")) && pointer {
            // `delegate* unmanaged[Cdecl]<int, void>`.
            self.bump()?;
            self.bump()?;
            if self
                .peek(0)
                .is_some_and(|c| self.is(c, b"managed") || self.is(c, b"unmanaged"))
            {
                self.bump()?;
                self.group(b"[")?;
            }
            if !self.peek_is(Tok::Punct(b'<')) {
                return None;
            }
            self.angles()?;
        } else if !self.group(b"(")? {
            let t = self.bump()?;
            if !self.identifier(t) && !listed(PREDEFINED, self.text(t)) {
                return None;
            }
            loop {
                let t = self.peek(0)?;
                match t.tok {
                    Tok::Punct(b'<') => self.angles()?,
                    Tok::Punct(b'.') | Tok::Scope => {
                        self.bump()?;
                        self.name()?;
                    }
                    _ => break,
                }
            }
        }
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b'?' | b'*') => {
                    self.bump()?;
                }
                Tok::Open(b'[', _) => {
                    self.bump()?;
                    loop {
                        match self.bump()?.tok {
                            Tok::Punct(b',') => {}
                            Tok::Close(b']') => break,
                            _ => return None,
                        }
                    }
                }
                _ => return Some(()),
            }
        }
    }

    /// Type parameters or arguments, at their `<`, through the matching `>`.
    fn angles(&mut self) -> Option<()> {
        let mut depth = 0u32;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b'<') => depth += 1,
                Tok::Punct(b'>') => depth -= 1,
                Tok::Word(..) | Tok::Scope | Tok::Punct(b',' | b'.' | b'?' | b'*') => {}
                Tok::Open(b'[' | b'(', _) => {
                    let open = self.bump()?;
                    self.skip_group(open)?;
                    continue;
                }
                _ => return None,
            }
            self.bump()?;
            if depth == 0 {
                return Some(());
            }
        }
    }

    /// A member of a type after its attributes and modifiers, through its end.
    fn member(
        &mut self,
        start: usize,
        core: usize,
        constant: bool,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        let head = self.peek(0)?;
        let event = self.is(head, b"event");
        if event {
            self.bump()?;
        } else if self.identifier(head) && matches!(self.peek(1)?.tok, Tok::Open(b'(', _)) {
            // A constructor: its name, its parameters.
            self.bump()?;
            let open = self.bump()?;
            self.skip_group(open)?;
            let sig_end = self.function_body(true)?;
            self.plain(head)?;
            out.push(self.decl(K::Constructor, head.start..head.end, start, core, sig_end));
            return Some(());
        } else if head.tok == Tok::Punct(b'~') {
            // A destructor: `~Name()`, named `~Name`.
            self.bump()?;
            let name = self.name()?;
            self.blanks(head.end..name.start)?;
            return self.operator(name.start..name.end, start, core, out);
        } else if self.is(head, b"implicit") || self.is(head, b"explicit") {
            // `implicit operator int(…)`: named by its type, `operator int`.
            self.bump()?;
            let operator = self.bump()?;
            let ty = self.peek(0)?;
            if !self.is(operator, b"operator") {
                return None;
            }
            self.blanks(operator.end..ty.start)?;
            self.ty()?;
            return self.operator(ty.start..self.last_end, start, core, out);
        }
        self.ty()?;
        let next = self.peek(0)?;
        if self.is(next, b"operator") && !event {
            // `T operator +(…)`, `operator ==`, `operator true`: named by its operator.
            self.bump()?;
            let first = self.bump()?;
            self.blanks(next.end..first.start)?;
            let mut last = first;
            match first.tok {
                Tok::Word(..) if self.is(first, b"true") || self.is(first, b"false") => {}
                Tok::Punct(_) => {
                    while let Some(t) = self
                        .peek(0)
                        .filter(|t| matches!(t.tok, Tok::Punct(_)) && t.start == last.end)
                    {
                        self.bump()?;
                        last = t;
                    }
                }
                _ => return None,
            }
            return self.operator(first.start..last.end, start, core, out);
        }
        // The name, after the interface it implements, if any (`IList<T>.Add`).
        let mut simple = true;
        let name = loop {
            let t = self.bump()?;
            if self.is(t, b"this") && !event {
                if !matches!(self.peek(0)?.tok, Tok::Open(b'[', _)) {
                    return None;
                }
                let open = self.bump()?;
                self.skip_group(open)?;
                let sig_end = self.accessors(false)?;
                out.push(self.decl(K::Property, t.start..t.end, start, core, sig_end));
                return Some(());
            }
            if !self.identifier(t) {
                return None;
            }
            if self.peek_is(Tok::Punct(b'<')) {
                self.angles()?;
                simple = false;
            }
            if !self.peek_is(Tok::Punct(b'.')) {
                break t;
            }
            self.bump()?;
            simple = false;
        };
        let next = self.peek(0)?;
        match next.tok {
            Tok::Open(b'(', _) if !event => {
                let open = self.bump()?;
                self.skip_group(open)?;
                let sig_end = self.function_body(false)?;
                out.push(self.decl(K::Method, name.start..name.end, start, core, sig_end));
                Some(())
            }
            Tok::Open(b'{', _) => {
                let sig_end = self.accessors(!event)?;
                out.push(self.decl(K::Property, name.start..name.end, start, core, sig_end));
                Some(())
            }
            Tok::Punct(b'=') if !event && self.arrow() => {
                let sig_end = self.accessors(false)?;
                out.push(self.decl(K::Property, name.start..name.end, start, core, sig_end));
                Some(())
            }
            Tok::Punct(b'=' | b',' | b';') | Tok::Open(b'[', _) if simple => {
                let kind = if constant { K::Constant } else { K::Field };
                self.fields(kind, start, core, name, out)
            }
            _ => None,
        }
    }

    /// An operator's or destructor's parameters and body, its name read: a method
    /// the walker names by what is before its name (`name`).
    fn operator(
        &mut self,
        name: Range<usize>,
        start: usize,
        core: usize,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        if !self.group(b"(")? {
            return None;
        }
        let sig_end = self.function_body(false)?;
        out.push(self.decl(K::Method, name, start, core, sig_end));
        Some(())
    }

    /// A name first in its declaration, which the walker would not name by what is
    /// before it (a comment ending in `~`).
    fn plain(&self, t: Token) -> Option<()> {
        name(self.src, t.start..t.end).is_none().then_some(())
    }

    /// Only blanks in `range`: what `name` looks back over.
    fn blanks(&self, range: Range<usize>) -> Option<()> {
        self.src[range]
            .iter()
            .all(u8::is_ascii_whitespace)
            .then_some(())
    }

    fn decl(&self, kind: K, name: Range<usize>, start: usize, core: usize, sig_end: usize) -> Decl {
        Decl {
            kind,
            name,
            bytes: start..self.last_end,
            core,
            sig_end: Some(sig_end),
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        }
    }

    /// A property's, event's or indexer's accessors (`{ get; set; }`, then maybe
    /// `= value;` when `initializer`) or `=> value;`: where its signature stops.
    fn accessors(&mut self, initializer: bool) -> Option<usize> {
        let t = self.peek(0)?;
        if self.arrow() {
            self.bump()?;
            self.bump()?;
            self.through_semicolon()?;
            return Some(t.start);
        }
        if !matches!(t.tok, Tok::Open(b'{', _)) {
            return None;
        }
        self.group(b"{")?;
        if initializer && self.peek_is(Tok::Punct(b'=')) {
            self.bump()?;
            self.through_semicolon()?;
        }
        Some(t.start)
    }

    /// A method's or constructor's rest after its parameters: constraints, a
    /// constructor's `: base(…)`, then a block, `=> value;` or `;`. Where its
    /// signature stops.
    fn function_body(&mut self, constructor: bool) -> Option<usize> {
        let mut t = self.constraints()?;
        let mut sig_end = None;
        if constructor && t.tok == Tok::Punct(b':') {
            sig_end = Some(t.start);
            self.bump()?;
            let base = self.bump()?;
            if !(self.is(base, b"base") || self.is(base, b"this")) || !self.group(b"(")? {
                return None;
            }
            t = self.peek(0)?;
        }
        let sig_end = sig_end.unwrap_or(t.start);
        match t.tok {
            Tok::Open(b'{', _) => {
                self.group(b"{")?;
            }
            Tok::Punct(b';') => {
                self.bump()?;
            }
            Tok::Punct(b'=') if self.arrow() => {
                self.bump()?;
                self.bump()?;
                self.through_semicolon()?;
            }
            _ => return None,
        }
        Some(sig_end)
    }

    /// A value, through the `;` after it.
    fn through_semicolon(&mut self) -> Option<()> {
        let mut empty = true;
        loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Punct(b';') if !empty => return Some(()),
                Tok::Open(..) => self.skip_group(t)?,
                Tok::Close(_) | Tok::Punct(b';') => return None,
                _ => {}
            }
            empty = false;
        }
    }

    /// A field declaration's declarators, the type and the first name taken,
    /// through its `;`: one field per declarator, each over the whole declaration.
    fn fields(
        &mut self,
        kind: K,
        start: usize,
        core: usize,
        first: Token,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        let from = out.len();
        let mut name = first;
        loop {
            // A fixed-size buffer's length (`fixed byte b[4];`).
            self.group(b"[")?;
            let mut sig_end = self.last_end;
            let t = self.bump()?;
            let t = if t.tok == Tok::Punct(b'=') {
                sig_end = t.start;
                self.value()?;
                self.bump()?
            } else {
                t
            };
            // The walker's signature of a later name is the head and its own
            // bytes, its comments stripped: a slice of the text when there are none.
            let head = (name.start != first.start).then_some(core..first.start);
            if let Some(head) = &head {
                let comment =
                    |r: &[u8]| memchr::memmem::find(r, b"//").or(memchr::memmem::find(r, b"/*"));
                if comment(&self.src[head.clone()]).is_some()
                    || comment(&self.src[name.start..sig_end]).is_some()
                {
                    return None;
                }
            }
            out.push(Decl {
                kind,
                name: name.start..name.end,
                bytes: start..start,
                core,
                sig_end: Some(sig_end),
                members: Vec::new(),
                impl_of: None,
                qualifier: None,
                head,
            });
            match t.tok {
                Tok::Punct(b';') => break,
                Tok::Punct(b',') => name = self.name()?,
                _ => return None,
            }
        }
        for d in &mut out[from..] {
            d.bytes.end = self.last_end;
        }
        Some(())
    }

    /// An initializer, up to the `,` or `;` after it (not taken). A `<` at its top
    /// level may open type arguments (`new Dictionary<K, V>()`) or compare: a `,`
    /// after it is declined unless a `>` closes it before a token that cannot be in
    /// type arguments. `<<` shifts.
    fn value(&mut self) -> Option<()> {
        let (mut angle, mut comma_in_angle, mut empty) = (0u32, false, true);
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b';') => {
                    let ambiguous = angle > 0 && comma_in_angle;
                    return (!empty && !ambiguous).then_some(());
                }
                Tok::Punct(b',') if angle == 0 => return (!empty).then_some(()),
                Tok::Punct(b',') => comma_in_angle = true,
                Tok::Punct(b'<') => {
                    if self
                        .peek(1)
                        .is_some_and(|n| n.tok == Tok::Punct(b'<') && n.start == t.end)
                    {
                        self.bump()?;
                        angle = 0;
                    } else {
                        angle += 1;
                    }
                }
                Tok::Punct(b'>') => angle = angle.saturating_sub(1),
                Tok::Open(..) => {
                    let open = self.bump()?;
                    self.skip_group(open)?;
                    empty = false;
                    continue;
                }
                Tok::Close(_) => return None,
                Tok::Word(..) | Tok::Scope | Tok::Punct(b'.' | b'?' | b'*') => {}
                _ if angle > 0 && comma_in_angle => return None,
                _ => angle = 0,
            }
            if angle == 0 {
                comma_in_angle = false;
            }
            empty = false;
            self.bump()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        fast_check::outline,
        symbols::{Parse, extract_with},
    };

    fn same(src: &str) {
        let mut r = super::Reader::new(src.as_bytes());
        assert!(
            r.read().is_some(),
            "declined at {:?}",
            &src[r.last_end.saturating_sub(40)..r.last_end]
        );
        let whole = extract_with(Lang::CSharp, src.as_bytes(), Parse::Whole);
        assert_eq!(whole.syntax_error, None, "{src}");
        let fast = extract_with(Lang::CSharp, src.as_bytes(), Parse::Declarations);
        assert_eq!(outline(&fast), outline(&whole), "{src}");
    }

    #[test]
    fn reads_what_the_walker_takes_from_a_whole_parse() {
        let src = r#"using System;
using static System.Math;
using Alias = System.Collections.Generic.Dictionary<string, (int, int)>;
global using G = global::System.Text;
extern alias Other;

[assembly: CLSCompliant(true)]

namespace Python.Runtime.Native
{
    using System.IO;

    /// <summary>
    /// A borrowed reference.
    /// </summary>
    [Serializable]
    [DebuggerDisplay("{Name}")]
    public sealed partial class PyRef<T> : IDisposable, IEquatable<PyRef<T>> where T : class, new()
    {
        public const int Max = 3, Min = 1;
        private readonly IntPtr handle;
        internal static event EventHandler Changed, Closing;
        private Dictionary<int, string> map = new Dictionary<int, string>(), other;
        int[,] grid = { { 1, 2 } }, flags = null;
        static readonly string s = $"{x}{{}}" + @"a""}" + """ } """;
        char c = '}';
        Func<int, int> f = x => x << 2;
        unsafe fixed byte buf[16];
        internal static delegate* unmanaged[Cdecl]<IntPtr, void> fp;
        (int a, string b) pair;
        global::System.String? full;

        /// <summary>The name.</summary>
        public string Name { get; set; } = "";
        public int Count => 1;
        public event EventHandler Closed { add { } remove { } }
        event EventHandler IFoo.Opened { add { } remove { } }
        public T this[int index] => default;
        int IList<T>.this[int i] { get { return 1; } set { } }
        public ref readonly int Ref => ref x;

        public PyRef(IntPtr handle) : base() { this.handle = handle; }
        static PyRef() { }
        ~PyRef() { }
        public static PyRef<T> operator +(PyRef<T> a, PyRef<T> b) => a;
        public static bool operator ==(PyRef<T> a, PyRef<T> b) { return true; }
        public static bool operator !=(PyRef<T> a, PyRef<T> b) => false;
        public static PyRef<T> operator >>(PyRef<T> a, int b) => a;
        public static bool operator true(PyRef<T> a) => true;
        public static implicit operator IntPtr(PyRef<T> r) => r.handle;
        public static explicit operator Dictionary<int, string>(PyRef<T> r) => null;

        [Obsolete("Use Dispose")]
        [return: NotNull]
        public void Close() { var local = 1; }
        void IDisposable.Dispose() { }
        public async Task<(int, string)> GetAsync<U>(U u, params object[] rest) where U : struct => await Task.FromResult((1, ""));
        protected abstract void Abstract();
        public override string ToString() =>
            "x";

        public delegate void Callback(int code);
        public delegate T Make<T>(T x) where T : class;

        internal struct Slot { public int Index; };
        public readonly ref struct Span { }

        enum Kind : byte
        {
            None = 0,
            [Obsolete] Legacy = 1 << 2,
            Modern,
        }

        #region Nested
        interface INested<in T> { T Get(); int P { get; } }
        #endregion

#if DEBUG
        void Debug() { }
#else
        void Debug() {
#if TRACE
            Trace();
#endif
        }
#endif
    }

    public record Pair(int A, int B);
    public record struct Point(int X, int Y) { public int Sum() => X + Y; }
    public record class Named : Pair { }
}

namespace A.B.C { class D { } }
"#;
        same(src);
        let whole = extract_with(Lang::CSharp, src.as_bytes(), Parse::Whole);
        assert!(whole.count > 50, "{}", outline(&whole));
    }

    #[test]
    fn an_if_around_attributes_is_where_the_declaration_starts() {
        same(
            "namespace N\n{\n    /// Doc.\n#if !X\n    [Serializable]\n#endif\n    public class A : B\n    {\n        /// D.\n#if Y\n        [Obsolete]\n#elif Z\n        [Other]\n#endif\n        [Other]\n        public void F() { }\n        [C]\n#if X\n        [A]\n#endif\n        int G() => 1;\n#if X\n        [A]\n        [B]\n        int H() => 1;\n#endif\n        public\n#pragma warning disable 1\n        void I() { }\n        [A]\n#pragma warning disable 1 // c\n        void J() { }\n#if X\n        void K() { }\n#endif\n#if Y\n        [B]\n#endif\n        [C]\n        struct L { }\n    }\n}\n",
        );
    }

    #[test]
    fn members_of_every_shape_read_as_a_whole_parse_does() {
        for src in [
            "class A { int a = 1, b = 2; int x = F<int>(1), y; T t = default(T), u; }",
            "class A { Dictionary<int, string> d = new(), e; int s = 1 << 2, t; }",
            "class A { Func<int, int> f = (a) => a, g; int x = y > 1 ? 2 : 3, z; }",
            "class A { A() : this(1) { } A(int x) { } public A(int x, int y) : base(x) => X = x; }",
            "class A { int I.P { get; } void I.M() {} int I<int>.Q => 1; }",
            "class A { event EventHandler I.E { add { } remove { } } public event Action E, F; }",
            "class A { public static A operator + (A a, A b) => a; static A operator ++(A a) => a; }",
            "class A { public static A operator >>>(A a, int b) => a; static bool operator <(A a, A b) => true; }",
            "class A { public static explicit operator global::System.Int32(A a) => 1; ~ A() { } }",
            "interface I { static abstract I operator +(I a, I b); int this[int i] { get; } }",
            "class A { int where; void record() {} int get { get; } int @class; void @void() {} }",
            "class A { ref int R() => ref x; ref readonly int RR => ref x; unsafe void* P() => null; }",
            "class A { public (int a, int b) T() => (1, 2); int[][] jag; int[,] m; }",
            "unsafe struct S { public fixed char buf[4]; public delegate*<int, void> P; }",
            "enum E : long { A = 1L << 40, B = A | 2, C = ~0, }",
            "class A<T, U> : B, I<C> where T : class where U : struct { }",
            "#region R\n#nullable enable\n#define X\nclass A { int x\n#region\n = 1; }\n#endregion\n",
            "namespace A.B { } namespace A.B { }",
            "enum E { A,\n#if X\n B = 2\n#elif Y\n C\n#endif\n, D }",
            "enum E {\n#if X\n B = 2\n#endif\n}",
        ] {
            same(src);
        }
    }

    #[test]
    fn a_file_scoped_namespace_qualifies_its_types() {
        same(
            "using X;\n\nnamespace Python.Runtime;\n\n/// Doc.\ninternal static class Util\n{\n    internal static int Read(IntPtr ptr) => 0;\n}\n\npublic delegate void Handler();\nenum E { A, B }\n",
        );
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "class A { void f() {",
            "class A { } }",
            "class A { void F() {) }",
            "class A { string s = \"unterminated\n; }",
            // Top-level statements.
            "Console.WriteLine(1);",
            "using var x = new Foo();",
            "using (var x = y) { }",
            // Directives inside a declaration, conditionals among enum members.
            "class A {\n#if X\n [A]\n [B]\n#endif\n void F() { } }",
            "class A {\n [A]\n#if X\n [B]\n#endif\n#if Y\n [C]\n#endif\n void F() { } }",
            "class A {\n [A]\n#region\n#region\n void F() { } }",
            "class A {\n [A]\n#if X\n#pragma warning disable 1\n#endif\n void F() { } }",
            "class A {\n#if A\n public\n#endif\n void F() { } }",
            "enum E { A,\n#if X\n B,\n#endif\n C }",
            "enum E { A,\n#if X\n B\n C\n#endif\n }",
            "enum E { A\n#if X\n , B\n#endif\n }",
            "enum E { A,\n#if X\n#if Y\n B\n#endif\n#endif\n }",
            "class A { void F(\n#if X\n int a\n#endif\n) { } }",
            // A branch that opens what it does not close.
            "class A {\n#if X\n void F() {\n#else\n void G() {\n#endif\n } }",
            "#if X\nclass A { }",
            "namespace N;\n#if X\nclass A { }\n#endif\n",
            // What the walker reads as no operator's name.
            "class A { public static A operator checked +(A a, A b) => a; }",
            "class A { static A I.operator +(A a, A b) => a; }",
            "class A { ~ /* c */ A() { } }",
            // The second name's signature would keep its comment.
            "class A { int a, b /* c */ = 1; }",
            "class A { int x = a < b, y; }",
            "class A { ; }",
            // Blanks before it: no `;` of the class's, and a statement.
            "class A { } ;",
            // A comment the walker's look back would take for a destructor's `~`.
            "class A { A() { } // ~\n B() { } }",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
    }
}
