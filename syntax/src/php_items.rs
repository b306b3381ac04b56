//! PHP declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter-php's tree (`languages/php.rs`), for the files this
//! reader can vouch for.
//!
//! The walker reads the statements of the file, of braced namespaces, of bare
//! blocks and of the branches of `if`, `elseif` and `else` (braced, braceless or in
//! the alternative syntax `if (…): … endif;`), at any depth; so does this reader,
//! statement by statement. Its symbols are namespaces, functions, `const`s and
//! classes, interfaces, traits and enums, whose members (methods, properties,
//! constants, enum cases) it reads without entering any. Everything else is
//! skipped as the grammar reads it: a statement to its `;` (or `?>`), a control
//! statement (`while`, `for`, `foreach`, `switch`, `declare`, `do`, `try`) with its
//! body, in braces, braceless or in the alternative syntax; bodies and brackets
//! are matched by the skeleton lexer (`skeleton_php::Lexer`: its text outside
//! `<?php … ?>`, strings, heredocs, interpolation holes and comments too).
//!
//! It declines (and the skeleton parse answers) where the lexer cannot follow the
//! text, and on what it does not follow or tree-sitter would not parse cleanly: a
//! token where the grammar has none (a member that is no declaration, a `;` in a
//! class body, a statement that does not end, `case` outside a skipped `switch`), a
//! `?>` where the grammar reads on past the text (after a declaration's last token,
//! as an `if` branch or a loop's body, after a leading `static`), a name that is a
//! reserved word where the grammar forbids one or holds a character tree-sitter
//! reads otherwise (non-ASCII names of functions, constants and types; a word with
//! a character it reads as space), a namespace name with space inside, `static`
//! first in a declaration at the top (`static const A`), and walked blocks nested
//! deeper than [`MAX_DEPTH`]. The test over real PHP code (`fast_check`) compares
//! its symbols with whole parses.

use crate::{
    SymbolKind as K,
    rust_items::Decl,
    skeleton_php::{Lexer, Tok},
};

/// The declarations of a PHP file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut lex = Lexer::new(src);
    // Comments are for skeletons: none recorded, nothing allocated for them.
    lex.cur.record = false;
    let mut r = Reader {
        lex,
        src,
        peeked: None,
        depth: 0,
    };
    let mut out = Vec::new();
    match r.statements(&mut out, true)?.kind {
        Kind::Eof => Some(out),
        _ => None,
    }
}

/// Walked blocks nested, at most: the walker stops at 64 containers, and each
/// level here is two of them (an `if_statement` and its block).
const MAX_DEPTH: u32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A name, keyword or number.
    Word,
    /// `$name`.
    Var,
    /// `(`, `[` or `{`, pushed on the lexer's stack.
    Open(u8),
    /// `#[`, an attribute group's opener (a `[` on the stack).
    Attr,
    Close(u8),
    /// `->`, `?->`, `::`.
    Member,
    /// A real `;`.
    Semi,
    /// `?>`, which ends a statement as `;` does.
    CloseTag,
    /// Other punctuation, a byte at a time (`??` whole), and `$` before no name.
    Punct(u8),
    Literal,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    peeked: Option<Token>,
    /// Walked blocks entered.
    depth: u32,
}

/// Reserved words no function, global constant or class may be named
/// (tree-sitter-php's `BASE_RESERVED_KEYWORD_SET`; `yield from` is `yield`).
const RESERVED: &[&[u8]] = &[
    b"abstract",
    b"and",
    b"as",
    b"break",
    b"callable",
    b"case",
    b"catch",
    b"class",
    b"clone",
    b"const",
    b"continue",
    b"declare",
    b"default",
    b"do",
    b"echo",
    b"else",
    b"elseif",
    b"enddeclare",
    b"endfor",
    b"endforeach",
    b"endif",
    b"endswitch",
    b"endwhile",
    b"extends",
    b"final",
    b"finally",
    b"fn",
    b"for",
    b"foreach",
    b"function",
    b"global",
    b"goto",
    b"if",
    b"implements",
    b"include",
    b"include_once",
    b"instanceof",
    b"insteadof",
    b"interface",
    b"match",
    b"namespace",
    b"new",
    b"or",
    b"print",
    b"private",
    b"protected",
    b"public",
    b"readonly",
    b"require",
    b"require_once",
    b"return",
    b"static",
    b"switch",
    b"throw",
    b"trait",
    b"try",
    b"use",
    b"var",
    b"while",
    b"xor",
    b"yield",
];

/// Reserved for classes besides (`OTHER_RESERVED_KEYWORD_SET`).
const RESERVED_CLASS: &[&[u8]] = &[
    b"bool",
    b"false",
    b"float",
    b"int",
    b"iterable",
    b"mixed",
    b"never",
    b"null",
    b"object",
    b"string",
    b"true",
    b"void",
];

/// A declaration's modifiers (`_modifier`).
const MODIFIERS: &[&[u8]] = &[
    b"public",
    b"protected",
    b"private",
    b"static",
    b"final",
    b"abstract",
    b"readonly",
    b"var",
];

fn is_in(word: &[u8], words: &[&[u8]]) -> bool {
    words.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether a word holds a character tree-sitter-php's names cannot: one it reads
/// as space (its `extras`: U+00A0, U+200B, U+2060, U+FEFF) or one past U+FFFF
/// (its `name` pattern, `common/define-grammar.js`).
fn odd_word(word: &[u8]) -> bool {
    word.iter().any(|&b| b >= 0xf0)
        || ["\u{a0}", "\u{200b}", "\u{2060}", "\u{feff}"]
            .iter()
            .any(|s| memchr::memmem::find(word, s.as_bytes()).is_some())
}

/// A word lowercased into a small buffer (keywords are read in any case), or
/// empty when longer than any keyword.
fn lower(word: &[u8]) -> ([u8; 16], usize) {
    let mut buf = [0; 16];
    if word.len() > buf.len() {
        return (buf, 0);
    }
    for (b, w) in buf.iter_mut().zip(word) {
        *b = w.to_ascii_lowercase();
    }
    (buf, word.len())
}

impl<'a> Reader<'a> {
    fn text(&self, t: Token) -> &'a [u8] {
        &self.src[t.start..t.end]
    }

    /// The next token; `None` where the lexer cannot follow the text.
    fn next(&mut self) -> Option<Token> {
        if let Some(t) = self.peeked.take() {
            return Some(t);
        }
        let Some(tok) = self.lex.next() else {
            return match self.lex.cur.confused {
                true => None,
                false => Some(Token {
                    kind: Kind::Eof,
                    start: self.src.len(),
                    end: self.src.len(),
                }),
            };
        };
        let start = self.lex.start;
        let kind = match tok {
            // Where the lexer and tree-sitter-php split the text apart.
            Tok::Word(s, e) if !self.src[s..e].is_ascii() && odd_word(&self.src[s..e]) => {
                return None;
            }
            Tok::Word(s, _) if self.src[s] == b'$' => Kind::Var,
            Tok::Word(..) => Kind::Word,
            Tok::Open(b'[', _) if self.src[start] == b'#' => Kind::Attr,
            Tok::Open(b, _) => Kind::Open(b),
            Tok::Close(b) => Kind::Close(b),
            Tok::Member => Kind::Member,
            Tok::Punct(b';') if self.src[start] == b'?' => Kind::CloseTag,
            Tok::Punct(b';') => Kind::Semi,
            Tok::Punct(b) => Kind::Punct(b),
            Tok::Dollar => Kind::Punct(b'$'),
            Tok::Literal => Kind::Literal,
        };
        Some(Token {
            kind,
            start,
            end: self.lex.cur.at,
        })
    }

    fn peek(&mut self) -> Option<Token> {
        if self.peeked.is_none() {
            self.peeked = Some(self.next()?);
        }
        self.peeked
    }

    /// The next token, which must be of `kind`.
    fn expect(&mut self, kind: Kind) -> Option<Token> {
        self.next().filter(|t| t.kind == kind)
    }

    fn is_word(&self, t: Token, w: &[u8]) -> bool {
        t.kind == Kind::Word && self.text(t).eq_ignore_ascii_case(w)
    }

    /// Whether the next token is the word `w` (in any case); taken if so.
    fn eat_word(&mut self, w: &[u8]) -> Option<bool> {
        let t = self.peek()?;
        let is = self.is_word(t, w);
        if is {
            self.peeked = None;
        }
        Some(is)
    }

    /// A name where the grammar reads one, ASCII (tree-sitter-php reads some other
    /// characters as space), none of `reserved`.
    fn name(&mut self, reserved: &[&[&[u8]]]) -> Option<Token> {
        let t = self.expect(Kind::Word)?;
        let w = self.text(t);
        let ok = w.is_ascii() && !w[0].is_ascii_digit() && !reserved.iter().any(|r| is_in(w, r));
        ok.then_some(t)
    }

    /// Past what closes the opener just taken (a body, brackets, an attribute
    /// group): its interior is never walked.
    fn skip_open(&mut self) -> Option<()> {
        debug_assert!(self.peeked.is_none());
        self.lex.skip_body(self.lex.cur.open.len())
    }

    /// Past a statement's end (`;` or `?>`), brackets and bodies on the way skipped
    /// whole.
    fn past_statement(&mut self) -> Option<()> {
        loop {
            let t = self.next()?;
            match t.kind {
                Kind::Semi | Kind::CloseTag if self.lex.holes.is_empty() => return Some(()),
                Kind::Open(_) | Kind::Attr => self.skip_open()?,
                Kind::Close(_) | Kind::Eof => return None,
                _ => {}
            }
        }
    }

    /// The statements of a block, up to what ends it, which is taken: the end of
    /// the text, a `}`, or (first in a statement) `else`, `elseif` or an `end…`
    /// keyword of the alternative syntax. `walk`: its declarations are symbols,
    /// else they are dropped.
    fn statements(&mut self, out: &mut Vec<Decl>, walk: bool) -> Option<Token> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        loop {
            let t = self.next()?;
            match t.kind {
                Kind::Eof | Kind::Close(b'}') => {
                    self.depth -= 1;
                    return Some(t);
                }
                Kind::Word => {
                    let (buf, len) = lower(self.text(t));
                    if matches!(
                        &buf[..len],
                        b"else"
                            | b"elseif"
                            | b"endif"
                            | b"endwhile"
                            | b"endfor"
                            | b"endforeach"
                            | b"endswitch"
                            | b"enddeclare"
                    ) {
                        self.depth -= 1;
                        return Some(t);
                    }
                    self.statement(t, out, walk)?;
                }
                Kind::Close(_) => return None,
                _ => self.statement(t, out, walk)?,
            }
        }
    }

    /// One statement from its first token `t`.
    fn statement(&mut self, t: Token, out: &mut Vec<Decl>, walk: bool) -> Option<()> {
        match t.kind {
            Kind::Semi | Kind::CloseTag => Some(()),
            Kind::Open(b'{') if !walk => self.skip_open(),
            // A bare block: walked as the file is.
            Kind::Open(b'{') => {
                (self.statements(out, walk)?.kind == Kind::Close(b'}')).then_some(())
            }
            Kind::Attr => {
                self.skip_open()?;
                while self.peek()?.kind == Kind::Attr {
                    self.next()?;
                    self.skip_open()?;
                }
                let first = self.next()?;
                self.declaration(Some(t.start), first, out, walk)
            }
            Kind::Word => self.word_statement(t, out, walk),
            Kind::Punct(b':') | Kind::Close(_) | Kind::Eof => None,
            // `(new A())->f();`, `[$a, $b] = $c;`.
            Kind::Open(_) => {
                self.skip_open()?;
                self.past_statement()
            }
            _ => self.past_statement(),
        }
    }

    /// A statement starting with a word.
    fn word_statement(&mut self, t: Token, out: &mut Vec<Decl>, walk: bool) -> Option<()> {
        let (buf, len) = lower(self.text(t));
        match &buf[..len] {
            b"function" | b"abstract" | b"final" | b"readonly" | b"public" | b"protected"
            | b"private" | b"var" | b"static" | b"const" | b"class" | b"interface" | b"trait"
            | b"enum" => self.declaration(None, t, out, walk),
            b"namespace" => self.namespace(t, out, walk),
            b"if" => self.if_statement(out, walk),
            b"while" | b"for" | b"foreach" | b"switch" | b"declare" => {
                self.expect(Kind::Open(b'('))?;
                self.skip_open()?;
                let colon = self.peek()?;
                if colon.kind != Kind::Punct(b':') {
                    let body = self.next()?;
                    // `?>` after `declare (…)` ends it as a `;` would; after a loop's
                    // head, the grammar takes the statement after the text for its
                    // body.
                    if body.kind == Kind::CloseTag && &buf[..len] != b"declare" {
                        return None;
                    }
                    return self.statement(body, &mut Vec::new(), false);
                }
                self.next()?;
                let end = self.statements(&mut Vec::new(), false)?;
                let closer = [b"end", &buf[..len]].concat();
                if !self.is_word(end, &closer) {
                    return None;
                }
                self.semicolon()
            }
            b"do" => {
                let body = self.next().filter(|b| b.kind != Kind::CloseTag)?;
                self.statement(body, &mut Vec::new(), false)?;
                if !self.eat_word(b"while")? {
                    return None;
                }
                self.expect(Kind::Open(b'('))?;
                self.skip_open()?;
                self.semicolon()
            }
            b"try" => {
                self.expect(Kind::Open(b'{'))?;
                self.skip_open()?;
                loop {
                    if self.eat_word(b"catch")? {
                        self.expect(Kind::Open(b'('))?;
                        self.skip_open()?;
                    } else if !self.eat_word(b"finally")? {
                        return Some(());
                    }
                    self.expect(Kind::Open(b'{'))?;
                    self.skip_open()?;
                }
            }
            // A label of `switch (…): … endswitch;`, whose statements are skipped.
            b"case" | b"default" if !walk => loop {
                let t = self.next()?;
                match t.kind {
                    Kind::Punct(b':') | Kind::Semi => return Some(()),
                    Kind::Open(_) | Kind::Attr => self.skip_open()?,
                    Kind::Close(_) | Kind::Eof | Kind::CloseTag => return None,
                    _ => {}
                }
            },
            b"case" | b"default" | b"else" | b"elseif" | b"endif" | b"endwhile" | b"endfor"
            | b"endforeach" | b"endswitch" | b"enddeclare" => None,
            _ => {
                // `label:`, a statement of its own.
                if self.peek()?.kind == Kind::Punct(b':') {
                    self.next()?;
                    return Some(());
                }
                self.past_statement()
            }
        }
    }

    /// A statement's `;` or `?>`.
    fn semicolon(&mut self) -> Option<()> {
        matches!(self.next()?.kind, Kind::Semi | Kind::CloseTag).then_some(())
    }

    /// After `if`: its condition and branches.
    fn if_statement(&mut self, out: &mut Vec<Decl>, walk: bool) -> Option<()> {
        self.expect(Kind::Open(b'('))?;
        self.skip_open()?;
        if self.peek()?.kind == Kind::Punct(b':') {
            self.next()?;
            let mut seen_else = false;
            loop {
                let end = self.statements(out, walk)?;
                let (buf, len) = lower(self.text(end));
                match &buf[..len] {
                    b"elseif" if !seen_else => {
                        self.expect(Kind::Open(b'('))?;
                        self.skip_open()?;
                    }
                    b"else" if !seen_else => seen_else = true,
                    b"endif" => return self.semicolon(),
                    _ => return None,
                }
                self.expect(Kind::Punct(b':'))?;
            }
        }
        self.branch(out, walk)?;
        loop {
            if self.eat_word(b"elseif")? {
                self.expect(Kind::Open(b'('))?;
                self.skip_open()?;
                self.branch(out, walk)?;
            } else if self.eat_word(b"else")? {
                return self.branch(out, walk);
            } else {
                return Some(());
            }
        }
    }

    /// A braced or braceless branch of `if`.
    fn branch(&mut self, out: &mut Vec<Decl>, walk: bool) -> Option<()> {
        let body = self.next()?;
        // A branch is a statement, which `?>` does not end; the grammar takes the
        // one after the text.
        if matches!(body.kind, Kind::Punct(b':') | Kind::CloseTag) {
            return None;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.statement(body, out, walk)?;
        self.depth -= 1;
        Some(())
    }

    /// After `namespace`: a namespace of the lines after it, a braced one, the
    /// global one's block, or a name relative to the namespace (an expression).
    fn namespace(&mut self, keyword: Token, out: &mut Vec<Decl>, walk: bool) -> Option<()> {
        let first = self.peek()?;
        match first.kind {
            Kind::Open(b'{') => {
                self.next()?;
                return (self.statements(out, walk)?.kind == Kind::Close(b'}')).then_some(());
            }
            Kind::Punct(b'\\') => return self.past_statement(),
            Kind::Word => {}
            _ => return None,
        }
        self.next()?;
        let mut name_end = first.end;
        while self.peek()?.kind == Kind::Punct(b'\\') {
            self.next()?;
            name_end = self.expect(Kind::Word)?.end;
        }
        let name = first.start..name_end;
        if !self.src[name.clone()]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'\\'))
        {
            return None;
        }
        let t = self.next()?;
        let (end, sig_end, members) = match t.kind {
            Kind::Semi => (t.end, None, Vec::new()),
            Kind::Open(b'{') => {
                let mut members = Vec::new();
                if self.statements(&mut members, walk)?.kind != Kind::Close(b'}') {
                    return None;
                }
                (self.lex.cur.at, Some(t.start), members)
            }
            _ => return None,
        };
        if walk {
            out.push(decl(
                K::Module,
                name,
                keyword.start..end,
                keyword.start,
                sig_end,
                members,
            ));
        }
        Some(())
    }

    /// A declaration from its first keyword or modifier `t`, after its attribute
    /// groups (`attrs`: where the first starts), or a closure's statement.
    fn declaration(
        &mut self,
        attrs: Option<usize>,
        t: Token,
        out: &mut Vec<Decl>,
        walk: bool,
    ) -> Option<()> {
        let start = attrs.unwrap_or(t.start);
        let core = t.start;
        let mut kw = t;
        if t.kind != Kind::Word {
            return None;
        }
        let (buf, len) = lower(self.text(t));
        match &buf[..len] {
            b"function" => {
                let next = self.peek()?;
                let after_ref = match next.kind {
                    Kind::Punct(b'&') => {
                        self.next()?;
                        self.peek()?
                    }
                    _ => next,
                };
                if after_ref.kind != Kind::Word {
                    // A closure, called or not: an expression.
                    return self.past_statement();
                }
                let name = self.name(&[RESERVED])?;
                let (_, body) = self.function_rest(true)?;
                let end = self.lex.cur.at;
                if walk {
                    out.push(decl(
                        K::Function,
                        name.start..name.end,
                        start..end,
                        core,
                        body,
                        Vec::new(),
                    ));
                }
                return Some(());
            }
            b"const" => {
                let decls = self.constants(start, core, K::Constant, &[RESERVED])?;
                if walk {
                    out.extend(decls);
                }
                return Some(());
            }
            // Modifiers, which the grammar takes at the top too (`public const A`).
            w if is_in(w, MODIFIERS) && w != b"static" => {
                loop {
                    kw = self.next()?;
                    if !(kw.kind == Kind::Word && is_in(self.text(kw), MODIFIERS)) {
                        break;
                    }
                }
                if self.is_word(kw, b"const") {
                    let decls = self.constants(start, core, K::Constant, &[RESERVED])?;
                    if walk {
                        out.extend(decls);
                    }
                    return Some(());
                }
                if !self.is_word(kw, b"class") {
                    return None;
                }
            }
            b"class" | b"interface" | b"trait" | b"enum" => {}
            // `static $a;`, `static::f();`, `static fn() => 1;`: not a modifier
            // (first, the grammar takes it for one of a declaration's).
            b"static" => {
                let next = self.peek()?;
                // `?>` is no `;` there: what follows the text may be a declaration.
                // What may follow `static` in a declaration: `static` first there is
                // declined.
                let declares = |w: &[u8]| is_in(w, MODIFIERS) || w == b"class" || w == b"const";
                if next.kind == Kind::CloseTag
                    || (next.kind == Kind::Word && declares(self.text(next)))
                {
                    return None;
                }
                return self.past_statement();
            }
            // `#[A] fn() => 1;`, `#[A] function () {};`.
            _ if attrs.is_some() => return self.past_statement(),
            _ => return None,
        }
        let (buf, len) = lower(self.text(kw));
        let kind = match &buf[..len] {
            b"class" => K::Class,
            b"interface" => K::Interface,
            b"trait" => K::Trait,
            _ => K::Enum,
        };
        if kind == K::Enum && attrs.is_none() && self.peek()?.kind != Kind::Word {
            // `enum` as a name (a call, a constant).
            return self.past_statement();
        }
        let name = self.name(&[RESERVED, RESERVED_CLASS])?;
        // The header, to the body.
        let body = loop {
            let h = self.next()?;
            match h.kind {
                Kind::Open(b'{') => break h.start,
                Kind::Word | Kind::Punct(b'\\' | b',') => {}
                Kind::Punct(b':') if kind == K::Enum => {}
                _ => return None,
            }
        };
        if !walk {
            return self.skip_open();
        }
        let members = self.members(kind == K::Enum)?;
        let end = self.lex.cur.at;
        out.push(decl(
            kind,
            name.start..name.end,
            start..end,
            core,
            Some(body),
            members,
        ));
        Some(())
    }

    /// After a function's name: its parameters, return type and body (required or
    /// not): where its header ends and where its body starts, if it has one.
    fn function_rest(&mut self, body_required: bool) -> Option<(usize, Option<usize>)> {
        self.expect(Kind::Open(b'('))?;
        self.skip_open()?;
        let mut header = self.lex.cur.at;
        if self.peek()?.kind == Kind::Punct(b':') {
            self.next()?;
            loop {
                let t = self.peek()?;
                match t.kind {
                    Kind::Open(b'{') | Kind::Semi => break,
                    Kind::Word | Kind::Punct(b'?' | b'|' | b'&' | b'\\') => {
                        self.next()?;
                    }
                    Kind::Open(b'(') => {
                        self.next()?;
                        self.skip_open()?;
                    }
                    _ => return None,
                }
                header = self.lex.cur.at;
            }
        }
        let t = self.next()?;
        match t.kind {
            Kind::Open(b'{') => {
                self.skip_open()?;
                Some((header, Some(t.start)))
            }
            Kind::Semi if !body_required => Some((header, None)),
            _ => None,
        }
    }

    /// After `const` (at `at`; the declaration's range from `start`, its core at
    /// `core`): its type, names and values, through its `;`; a symbol per name.
    fn constants(
        &mut self,
        start: usize,
        core: usize,
        kind: K,
        reserved: &[&[&[u8]]],
    ) -> Option<Vec<Decl>> {
        // A type before the first name: the name is the word an `=` follows.
        let first = loop {
            let t = self.next()?;
            match t.kind {
                Kind::Word if self.peek()?.kind == Kind::Punct(b'=') => break t,
                Kind::Word | Kind::Punct(b'?' | b'|' | b'&' | b'\\') => {}
                Kind::Open(b'(') => self.skip_open()?,
                _ => return None,
            }
        };
        let w = self.text(first);
        if !w.is_ascii() || reserved.iter().any(|r| is_in(w, r)) {
            return None;
        }
        let head = core..first.start;
        let mut names = vec![(first, self.value()?)];
        while names.last()?.1.1.kind == Kind::Punct(b',') {
            let name = self.name(reserved)?;
            names.push((name, self.value()?));
        }
        if names.last()?.1.1.kind != Kind::Semi {
            return None;
        }
        let end = self.lex.cur.at;
        Some(
            names
                .into_iter()
                .map(|(name, (value, _))| Decl {
                    head: Some(head.clone()),
                    ..decl(
                        kind,
                        name.start..name.end,
                        start..end,
                        core,
                        value,
                        Vec::new(),
                    )
                })
                .collect(),
        )
    }

    /// After a name: its `= value` if it has one, and the `,` or `;` after (taken):
    /// where the value starts.
    fn value(&mut self) -> Option<(Option<usize>, Token)> {
        let t = self.next()?;
        if t.kind != Kind::Punct(b'=') {
            return Some((None, t));
        }
        let mut value = None;
        loop {
            let t = self.next()?;
            match t.kind {
                // A property's hooks (`{ get => …; }`) follow its value too.
                Kind::Punct(b',') | Kind::Semi | Kind::Open(b'{')
                    if value.is_some() && self.lex.holes.is_empty() =>
                {
                    return Some((value, t));
                }
                Kind::Punct(b',') | Kind::Semi | Kind::Close(_) | Kind::Eof | Kind::CloseTag => {
                    return None;
                }
                Kind::Open(_) | Kind::Attr => {
                    value.get_or_insert(t.start);
                    self.skip_open()?;
                }
                _ => {
                    value.get_or_insert(t.start);
                }
            }
        }
    }

    /// A class-like body's members after its `{`, through its `}`.
    fn members(&mut self, is_enum: bool) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        let mut attrs = None;
        let mut core = None;
        loop {
            let t = self.next()?;
            let start = attrs.unwrap_or(t.start);
            match t.kind {
                Kind::Close(b'}') if attrs.is_none() && core.is_none() => return Some(out),
                Kind::Attr if core.is_none() => {
                    attrs.get_or_insert(t.start);
                    self.skip_open()?;
                    continue;
                }
                // A property, typed or not.
                Kind::Var | Kind::Punct(b'?' | b'\\') | Kind::Open(b'(') if core.is_some() => {
                    self.properties(attrs.take().or(core), core.take()?, t, &mut out)?;
                    continue;
                }
                Kind::Word => {}
                _ => return None,
            }
            let (buf, len) = lower(self.text(t));
            match &buf[..len] {
                b"public" | b"protected" | b"private" => {
                    core.get_or_insert(t.start);
                    // `private(set)`.
                    if self.peek()?.kind == Kind::Open(b'(') && self.peek()?.start == t.end {
                        self.next()?;
                        self.skip_open()?;
                    }
                }
                b"static" | b"final" | b"abstract" | b"readonly" | b"var" => {
                    core.get_or_insert(t.start);
                }
                b"use" if attrs.is_none() && core.is_none() => loop {
                    let u = self.next()?;
                    match u.kind {
                        Kind::Semi => break,
                        Kind::Open(b'{') => {
                            self.skip_open()?;
                            break;
                        }
                        Kind::Word | Kind::Punct(b'\\' | b',') => {}
                        _ => return None,
                    }
                },
                b"case" if is_enum && core.is_none() => {
                    let name = self.name(&[])?;
                    let (value, end) = self.value()?;
                    if end.kind != Kind::Semi {
                        return None;
                    }
                    out.push(decl(
                        K::EnumMember,
                        name.start..name.end,
                        start..end.end,
                        t.start,
                        value,
                        Vec::new(),
                    ));
                    attrs = None;
                }
                b"const" => {
                    let core = core.take().unwrap_or(t.start);
                    let start = attrs.take().unwrap_or(core);
                    out.extend(self.constants(start, core, K::Constant, &[])?);
                }
                b"function" => {
                    let core = core.take().unwrap_or(t.start);
                    let start = attrs.take().unwrap_or(core);
                    if self.peek()?.kind == Kind::Punct(b'&') {
                        self.next()?;
                    }
                    let name = self.name(&[])?;
                    let (header, body) = self.function_rest(false)?;
                    let kind = match self.text(name) {
                        b"__construct" => K::Constructor,
                        _ => K::Method,
                    };
                    let end = self.lex.cur.at;
                    let sig_end = body.unwrap_or(header);
                    out.push(decl(
                        kind,
                        name.start..name.end,
                        start..end,
                        core,
                        Some(sig_end),
                        Vec::new(),
                    ));
                }
                _ if core.is_some() => {
                    self.properties(attrs.take().or(core), core.take()?, t, &mut out)?;
                }
                _ => return None,
            }
        }
    }

    /// A property declaration from its type's first token or its first name
    /// (`t`) through its `;` or hooks; its range from `start`, its core at `core`.
    fn properties(
        &mut self,
        start: Option<usize>,
        core: usize,
        mut first: Token,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        while first.kind != Kind::Var {
            match first.kind {
                Kind::Word | Kind::Punct(b'?' | b'|' | b'&' | b'\\') => {}
                Kind::Open(b'(') => self.skip_open()?,
                _ => return None,
            }
            first = self.next()?;
        }
        let start = start.unwrap_or(core).min(core);
        let head = core..first.start;
        let mut names = vec![(first, self.value()?)];
        while names.last()?.1.1.kind == Kind::Punct(b',') {
            let name = self.expect(Kind::Var)?;
            names.push((name, self.value()?));
        }
        match names.last()?.1.1.kind {
            Kind::Semi => {}
            Kind::Open(b'{') => self.skip_open()?,
            _ => return None,
        }
        let end = self.lex.cur.at;
        out.extend(names.into_iter().map(|(name, (value, _))| Decl {
            head: Some(head.clone()),
            ..decl(
                K::Property,
                name.start..name.end,
                start..end,
                core,
                value,
                Vec::new(),
            )
        }));
        Some(())
    }
}

fn decl(
    kind: K,
    name: std::ops::Range<usize>,
    bytes: std::ops::Range<usize>,
    core: usize,
    sig_end: Option<usize>,
    members: Vec<Decl>,
) -> Decl {
    Decl {
        kind,
        name,
        bytes,
        core,
        sig_end,
        members,
        impl_of: None,
        qualifier: None,
        head: None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        fast_check::outline,
        symbols::{Parse, extract_with},
        tests::Generated,
    };

    fn reads_as_whole(src: &str) {
        let whole = extract_with(Lang::Php, src.as_bytes(), Parse::Whole);
        assert_eq!(whole.syntax_error, None, "{src}");
        assert!(parse(src.as_bytes()).is_some(), "declined {src:?}");
        let read = extract_with(Lang::Php, src.as_bytes(), Parse::Declarations);
        assert_eq!(outline(&read), outline(&whole), "{src}");
    }

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does: the statements it walks and skips (and where each
    /// ends), members, attributes and doc comments, what is no symbol.
    #[test]
    fn statements_and_members_read_as_the_whole_parse_reads_them() {
        for src in [
            "<?php\nnamespace App\\Models;\nuse A\\{B, C};\nconst TOP = 1, NEXT = [1, 2];\nfunction &f(int $a = 1, ...$b): ?int { return $a; }\n",
            "<?php\n/** Doc. */\n#[A(1)]\n#[B, C]\nfinal class User extends \\Base implements I, J\n{\n    use T { a as b; }\n    use U;\n    /** Roles. */\n    public const ROLE = 'a', OTHER = self::ROLE;\n    final protected const int TYPED = 1;\n    private static ?int $count = 0, $b;\n    var $legacy;\n    public readonly A|(B&C)|null $dnf;\n    private(set) string $s = \"{$x}\";\n    public function __construct(private readonly int $id) {}\n    #[Override]\n    abstract protected static function &make(int $a = 1): static;\n    public function list(): array { ?>html<?php return []; }\n}\n",
            "<?php\ninterface Shape extends A, B { const C = 1; public function area(): float; }\ntrait Named { public $name { get => 1; } function name() {} }\nenum Suit: string implements I\n{\n    case Hearts = 'H';\n    case Spades /* c */ = /* d */ 'S';\n    #[A] case None;\n    const Wild = self::Spades;\n    public function color(): string { return match ($this) { default => 'x' }; }\n}\n",
            "<?php\nif (!function_exists('a')) {\n    function a() {}\n} elseif (x()) function b() {}\nelse if (y()) { class C {} } else { { function d() {} } }\nif (z()): function e() {} elseif (w()): function g() {} else: function h() {} endif;\nif (1) if (2) function i() {} else function j() {}\n",
            "<?php\nwhile (x()) { function never() {} }\nforeach ($a as $b): function never2() {} endforeach;\nfor (;;) function never3() {}\nswitch ($x): case 1: function n4() {} break; default: endswitch;\nswitch ($x) { case 1: class N5 {} }\ndo { function n6() {} } while (0);\ntry { function n7() {} } catch (A | B $e) { } finally { }\ndeclare(ticks=1) { function n8() {} }\ndeclare(strict_types=1);\nfunction after() {}\n",
            "<?php\n$f = function () use ($a) { function inner() {} };\n$g = fn($x) => $x;\n$h = new class(1) extends B { public function m() {} };\n(new A())->f();\n[, $q] = explode('?', $s);\n$o->{'x'} = ${'y'}; A::{$c}();\nnamespace\\helper();\nlabel:\n#[A] fn() => 1;\n#[A] static function () {};\nenum_exists('x');\nstatic $s = 1;\nfunction last() {}\n",
            "<html><?php function a() { ?><b>}</b><?php } ?>\n<p><?= h(\"}\") ?></p>\n<?php if ($a): ?>\n<?php function b() {} ?>\n<?php endif; ?>\n<?php\n$text = <<<EOT\n    } {$a['x']} <?php {\n    EOT;\nfunction c() {}\n?>\ntrailing\n",
            "<?php\nnamespace A\\B {\n    function f() {}\n    class C { function m() {} }\n    if (x()) { function g() {} }\n}\nnamespace {\n    function top() {}\n}\n",
            "<?php\nnamespace One;\nfunction f() {}\nnamespace Two;\nfunction f() {}\nfunction f() {}\nclass K { function m() {} function m() {} }\n",
            "<?php\nFUNCTION Up() {}\nCLASS Low { PUBLIC FUNCTION M() {} Public Static $p; }\nIF (x()) { Function g() {} } ELSE { }\n",
            "<?php\nabstract class A { abstract public function f(\n    int $a, // c\n    /* d */ $b,\n): void; }\nreadonly final class R {}\n",
            "<?php\nfunction f() {} ?>\n<?php if ($a): ?>\n<p>x</p>\n<?php function g() {} else: ?>\n<?php function h() {} endif ?>\n<?php foreach ($a as $b): if ($c): function n() {} endif; endforeach ?>",
            "<?php\ndeclare(ticks=1): function n() {} enddeclare;\nwhile (1): endwhile;\nfor (;;): endfor;\nswitch (1) { }\nfunction after() {}\n",
            "<?php\nnamespace A;\n?>\n<?php\nl: function f() {}\nif (a) { if (b) { function g() {} } }\nif (c) abstract class K {}\nelse final class L {}\nglobal $x;\nstatic fn() => 1;\necho enum;\n",
            "<?php\nconst A = <<<EOT\n  x {$y}\n  EOT, B = <<<'N'\n  z\n  N;\nfinal public const C = 1;\npublic class P {}\n",
            "<?php\nfunction f(): static|null {}\nclass C {\n    use A, B { A::x insteadof B; B::x as protected y; }\n    #[A] public $a = 1 { get => 2; }\n    #[B] final public const FINAL = 1, NEW = 2;\n    public function function() {} public function list() {} public function new() {}\n    protected ?\\A\\B $q = null;\n    public static function &refs(array &$a): ?array { return $a; }\n}\nenum E { #[A] case A; #[B] const B = 1; }\n",
            "",
            "no php at all { function f() {} }",
            "<?php",
        ] {
            reads_as_whole(src);
        }
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "<?php function f() {",
            "<?php function f() {} }",
            "<?php class C { $x; }",
            "<?php class C { ; }",
            "<?php class C { public }",
            "<?php class C { case A; }",
            "<?php class C { const A = 1 ?> <?php }",
            "<?php const A = 1 ?>",
            "<?php namespace A ?>",
            "<?php namespace A \\ B;",
            "<?php function print() {}",
            "<?php class int {}",
            "<?php function f\u{a0}() {}",
            "<?php function\u{a0}f() {}",
            "<?php class C { public $\u{1f600}; }",
            "<?php final function f() {}",
            "<?php else {}",
            "<?php case 1:",
            "<?php if (x) { } else: endif;",
            "<?php if (x) ?> <?php function f() {}",
            "<?php while (x) ?> <?php function f() {}",
            "<?php if (x): else if (y): endif;",
            "<?php foreach ($a as $b): endwhile;",
            "<?php $s = 'unterminated",
            "<?php /* unterminated",
            "<?php f() __halt_compiler(); {",
            "<?php x",
            "<?php const A;",
            "<?php class C { public $a = ; }",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        // Walked blocks nested past the walker's depth decline; skipped ones are
        // matched on the lexer's stack, without recursion.
        let deep = "<?php ".to_string() + &"{ ".repeat(100) + &"} ".repeat(100);
        assert!(parse(deep.as_bytes()).is_none());
        let skipped =
            "<?php function f() ".to_string() + &"{ ".repeat(100_000) + &"} ".repeat(100_000);
        assert_eq!(parse(skipped.as_bytes()).map(|d| d.len()), Some(1));
    }

    /// Statements and stray tokens strung together at random, with comments, tags
    /// and line breaks between tokens: on every text the grammar reads cleanly, the
    /// reader declines or lists what the whole parse does.
    #[test]
    fn generated_statements_read_as_the_whole_parse_reads_them() {
        let statements = [
            "function f() {}",
            "function &g($a = [1]): int {}",
            "class C { public $a = 1, $b; function m(); }",
            "abstract class D { abstract function m(): void; }",
            "interface I { const A = 1; }",
            "trait T { use U; }",
            "enum E: int { case A = 1; case B; }",
            "const K = 1;",
            "namespace N;",
            "namespace N {",
            "namespace {",
            "if (x()) {",
            "if (x()):",
            "elseif (y()):",
            "else:",
            "endif;",
            "} else {",
            "} elseif (z()) {",
            "}",
            "{",
            "while (x()) {",
            "foreach ($a as $b):",
            "endforeach;",
            "$x = function () {};",
            "$y = new class { function m() {} };",
            "echo 1;",
            "?>text<?php",
            "#[A]",
            "/** Doc. */",
            "use A\\B;",
            "l:",
            ";",
            "public const P = 1;",
            "switch ($x):",
            "case 1:",
            "endswitch;",
            "declare(ticks=1):",
            "enddeclare;",
            "do {} while (0);",
            "try {} catch (E $e) {} finally {}",
            "if (x) function g() {}",
            "else function e() {}",
            "#[A] function h() {}",
            "$a = <<<EOT\n  } {$b}\n  EOT;",
            "final class F { public function __construct(private int $a) {} }",
            "trait T { public int $p { get => 1; } }",
        ];
        let tokens = [
            "function",
            "class",
            "f",
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            "=",
            ",",
            ";",
            ":",
            "$v",
            "public",
            "static",
            "const",
            "#[A]",
            "?>",
            "<?php",
            "else",
            "if",
            "'s'",
            "abstract",
            "final",
            "readonly",
            "enum",
            "case",
            "namespace",
            "\\",
            "&",
            "?",
            "fn",
            "use",
            "endif",
            "while",
            "(x)",
            "{}",
            "=>",
            "new",
        ];
        let breaks = [" ", "\n", " // c\n", "/* c */", "\t", "\r\n", "\n\n"];
        let (clean, vouched) = Generated {
            lang: Lang::Php,
            prefix: "<?php\n",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 4,
            breaks: &breaks,
            respace: false,
            rounds: 3000,
        }
        .run();
        // Declined: mostly stray `else:`, `endif;` and `endforeach;`, which the
        // grammar reads as a label or a constant where no `if` or loop opened them.
        assert!(
            vouched > 200 && vouched * 10 > clean * 7,
            "{vouched} of {clean}"
        );
    }

    /// The reader vouches for nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: composer and monolog), or the first
    /// index is slow again; `fast_check` compares what it reads with whole parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("php", &["php"], 40, 1, |src| parse(src).is_some());
    }
}
