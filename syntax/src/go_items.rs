//! Go declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter's tree for Go (`symbols::go`), for the files this
//! reader can vouch for.
//!
//! Go's top level is regular: `package`, `import`, and `func`, `type`, `var` and
//! `const` declarations (alone or in a `(…)` group), each ended by a `;` or by a
//! line break after a token that ends a statement (a name, a literal, a closing
//! delimiter, `return`/`break`/`continue`/`fallthrough`: tree-sitter-go's
//! terminator is valid exactly there). Bodies, literals and parameter lists are
//! skipped by matching delimiters ([`skeleton_go::Lexer`]). Members are struct fields
//! (a field declaration of names and a type; an embedded type is not a symbol) and
//! interface methods. Anything else at the top level, a group or a body that does
//! not close, a `[` after a type name that is neither clearly type parameters nor an
//! array, and a receiver that is not `(name T)` / `(T)` make the reader decline, and
//! the skeleton parse answers. The test over real Go code
//! (`fast_check`) compares its symbols with whole parses.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    rust_items::Decl,
    skeleton_go::{Kind, Lexer, Token},
};

/// The declarations of a Go file, or `None` where this reader cannot vouch for the
/// answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut r = Reader {
        lexer: Lexer::new(src),
        peeked: None,
    };
    let mut out = Vec::new();
    while let Some(tok) = r.next()? {
        match r.word(tok) {
            Some(b"package") => {
                r.expect_word()?;
            }
            Some(b"import") => {
                if r.peek()?.is_some_and(|t| t.kind == Kind::Open(b'(')) {
                    r.next()?;
                    r.lexer.matching().ok()?;
                } else {
                    let first = r.next()??;
                    r.until_end(first)?;
                }
            }
            Some(b"func") => out.push(r.func(tok)?),
            Some(b"type") => r.group(tok, Spec::Type, &mut out)?,
            Some(b"var") => r.group(tok, Spec::Value(K::Variable), &mut out)?,
            Some(b"const") => r.group(tok, Spec::Value(K::Constant), &mut out)?,
            _ if tok.kind == Kind::Punct(b';') => continue,
            _ => return None,
        }
        // A declaration ends its statement.
        match r.peek()? {
            Some(t) if !t.newline_before && t.kind != Kind::Punct(b';') => return None,
            _ => {}
        }
    }
    Some(out)
}

#[derive(Clone, Copy)]
enum Spec {
    Type,
    Value(K),
}

struct Reader<'a> {
    lexer: Lexer<'a>,
    /// A token looked at and not taken (`Some(None)`: the end of the file).
    peeked: Option<Option<Token>>,
}

impl<'a> Reader<'a> {
    /// The next token (`Some(None)` at the end), `None` where the file does not lex.
    fn next(&mut self) -> Option<Option<Token>> {
        match self.peeked.take() {
            Some(tok) => Some(tok),
            None => self.lexer.next().ok(),
        }
    }

    fn peek(&mut self) -> Option<Option<Token>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next().ok()?);
        }
        self.peeked
    }

    fn word(&self, tok: Token) -> Option<&'a [u8]> {
        self.lexer.word(tok)
    }

    fn expect_word(&mut self) -> Option<Token> {
        let tok = self.next()??;
        self.word(tok).map(|_| tok)
    }

    /// Past the delimiter that closes `open` (just taken); where that delimiter ends.
    fn close(&mut self, open: Token) -> Option<usize> {
        debug_assert!(self.peeked.is_none() && matches!(open.kind, Kind::Open(_)));
        Some(self.lexer.matching().ok()? + 1)
    }

    /// Takes tokens through the delimiter that closes the group they are in; where
    /// it ends.
    fn rest_of_group(&mut self) -> Option<usize> {
        let mut depth = 0u32;
        loop {
            let tok = self.next()??;
            match tok.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) if depth == 0 => return Some(tok.end),
                Kind::Close(_) => depth -= 1,
                _ => {}
            }
        }
    }

    /// Whether a line break after `tok` ends the statement (tree-sitter-go accepts a
    /// terminator there).
    fn ends_statement(&self, tok: Token) -> bool {
        match tok.kind {
            Kind::Literal | Kind::Close(_) => true,
            Kind::Word => !self.word(tok).is_some_and(|w| {
                matches!(
                    w,
                    b"case"
                        | b"chan"
                        | b"const"
                        | b"default"
                        | b"defer"
                        | b"else"
                        | b"for"
                        | b"func"
                        | b"go"
                        | b"goto"
                        | b"if"
                        | b"import"
                        | b"interface"
                        | b"map"
                        | b"package"
                        | b"range"
                        | b"select"
                        | b"struct"
                        | b"switch"
                        | b"type"
                        | b"var"
                )
            }),
            _ => false,
        }
    }

    /// Takes the tokens of the declaration, spec or member that `last` (taken) is
    /// part of, up to a `;`, a closing delimiter of the enclosing group or a line
    /// break that ends it; where its last token ends. The `=` at its top level and
    /// the start of what follows it are noted in `value`.
    fn until_end_with(
        &mut self,
        mut last: Token,
        mut value: Option<&mut Option<usize>>,
    ) -> Option<usize> {
        let mut end = last.end;
        if let Kind::Open(_) = last.kind {
            end = self.close(last)?;
            last.kind = Kind::Close(0);
        }
        loop {
            let Some(tok) = self.peek()? else {
                return Some(end);
            };
            if matches!(tok.kind, Kind::Punct(b';') | Kind::Close(_))
                || (tok.newline_before && self.ends_statement(last))
            {
                return Some(end);
            }
            self.next()?;
            if let Some(value) = value.as_deref_mut() {
                if value.is_none()
                    && last.kind == Kind::Punct(b'=')
                    && tok.kind != Kind::Punct(b'=')
                {
                    *value = Some(tok.start);
                }
            }
            end = match tok.kind {
                Kind::Open(_) => self.close(tok)?,
                _ => tok.end,
            };
            last = tok;
            if let Kind::Open(_) = tok.kind {
                last.kind = Kind::Close(0);
            }
        }
    }

    fn until_end(&mut self, last: Token) -> Option<usize> {
        self.until_end_with(last, None)
    }

    /// `func [(receiver)] Name[…](…) [result] [{ body }]`, `func` taken.
    fn func(&mut self, func: Token) -> Option<Decl> {
        let mut tok = self.next()??;
        let mut qualifier = None;
        if tok.kind == Kind::Open(b'(') {
            qualifier = Some(self.receiver()?);
            tok = self.next()??;
        }
        self.word(tok)?;
        let name = tok.start..tok.end;
        let (mut end, mut last, mut type_body) = (tok.end, tok, false);
        let mut body = None;
        while let Some(next) = self.peek()? {
            if matches!(next.kind, Kind::Punct(b';') | Kind::Close(_))
                || (next.newline_before && self.ends_statement(last))
            {
                break;
            }
            self.next()?;
            if next.kind == Kind::Open(b'{') && !type_body {
                body = Some(next.start);
                end = self.close(next)?;
                break;
            }
            type_body = matches!(self.word(next), Some(b"struct" | b"interface"));
            last = next;
            end = match next.kind {
                Kind::Open(_) => {
                    last.kind = Kind::Close(0);
                    self.close(next)?
                }
                _ => next.end,
            };
        }
        Some(Decl {
            kind: if qualifier.is_some() {
                K::Method
            } else {
                K::Function
            },
            name,
            bytes: func.start..end,
            core: func.start,
            sig_end: body,
            members: Vec::new(),
            impl_of: None,
            qualifier,
            head: None,
        })
    }

    /// A method's receiver, `(` taken, through its `)`: the bytes of its type's name
    /// (`(p *List[T])`: `List`).
    fn receiver(&mut self) -> Option<Range<usize>> {
        let mut words = Vec::new();
        loop {
            let tok = self.next()??;
            match tok.kind {
                Kind::Close(b')') => break,
                Kind::Open(b'[') => {
                    self.close(tok)?;
                    words.push(None);
                }
                Kind::Word => words.push(Some(tok)),
                Kind::Punct(b'*') => {}
                Kind::Punct(b'.') => words.push(None),
                _ => return None,
            }
        }
        // `p T`, `p *T`, `T`, `*T`, `T[P]`, `p T[P]`; a qualified `pkg.T` is `T`.
        let ty = match words.as_slice() {
            [Some(t)] | [Some(_), Some(t)] | [Some(t), None] | [Some(_), Some(t), None] => t,
            [Some(_), None, Some(t)] | [Some(_), Some(_), None, Some(t)] => t,
            _ => return None,
        };
        Some(ty.start..ty.end)
    }

    /// `type`, `var` or `const` (taken), then one spec or a `(…)` group of them.
    fn group(&mut self, keyword: Token, spec: Spec, out: &mut Vec<Decl>) -> Option<()> {
        let first = self.next()??;
        if first.kind != Kind::Open(b'(') {
            return self.spec(first, Some(keyword), spec, out);
        }
        loop {
            let tok = self.next()??;
            match tok.kind {
                Kind::Close(b')') => return Some(()),
                Kind::Punct(b';') => continue,
                Kind::Word => self.spec(tok, None, spec, out)?,
                _ => return None,
            }
            match self.peek()?? {
                t if t.kind == Kind::Close(b')') || t.kind == Kind::Punct(b';') => {}
                t if t.newline_before => {}
                _ => return None,
            }
        }
    }

    /// One spec starting at `first` (taken); `keyword` when it is not grouped (its
    /// range then starts at the keyword).
    fn spec(
        &mut self,
        first: Token,
        keyword: Option<Token>,
        spec: Spec,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        self.word(first)?;
        let start = keyword.map_or(first.start, |k| k.start);
        match spec {
            Spec::Type => out.push(self.type_spec(first, start)?),
            Spec::Value(kind) => {
                let mut names = vec![first];
                while self.peek()??.kind == Kind::Punct(b',') {
                    self.next()?;
                    names.push(self.expect_word()?);
                }
                let mut value = None;
                let last = *names.last()?;
                let end = self.until_end_with(last, Some(&mut value))?;
                for name in names {
                    out.push(Decl {
                        kind,
                        name: name.start..name.end,
                        bytes: start..end,
                        core: start,
                        sig_end: value,
                        members: Vec::new(),
                        impl_of: None,
                        qualifier: None,
                        head: None,
                    });
                }
            }
        }
        Some(())
    }

    /// `Name [type parameters] [=] Type`, `Name` taken.
    fn type_spec(&mut self, name: Token, start: usize) -> Option<Decl> {
        let mut ty = self.next()??;
        if ty.kind == Kind::Open(b'[') {
            // Type parameters (`[T any]`, `[K comparable, V any]`, `[T ~int]`) or an
            // array or slice type (`[4]int`, `[]T`): anything else is declined.
            let a = self.next()??;
            let params = match (a.kind, self.peek()??.kind) {
                (Kind::Close(b']'), _) => false,
                (Kind::Word, Kind::Close(b']')) => false,
                (Kind::Word, Kind::Word | Kind::Punct(b',' | b'~') | Kind::Open(b'[')) => true,
                (Kind::Literal, _) => false,
                _ if self.word(a).is_some_and(|w| w[0].is_ascii_digit()) => false,
                _ => return None,
            };
            let close = match a.kind {
                Kind::Close(_) => a.end,
                _ => self.rest_of_group()?,
            };
            if !params {
                // An array or slice type: the whole spec is the type.
                let last = Token {
                    kind: Kind::Close(b']'),
                    end: close,
                    ..a
                };
                let end = self.until_end(last)?;
                return Some(self.type_decl(K::TypeAlias, name, start..end, None, Vec::new()));
            }
            ty = self.next()??;
        }
        if ty.kind == Kind::Punct(b'=') {
            ty = self.next()??;
        }
        let kind = match self.word(ty) {
            Some(b"struct") => K::Struct,
            Some(b"interface") => K::Interface,
            _ => {
                let end = self.until_end(ty)?;
                return Some(self.type_decl(K::TypeAlias, name, start..end, None, Vec::new()));
            }
        };
        let open = self.next()??;
        if open.kind != Kind::Open(b'{') {
            return None;
        }
        let (members, end) = self.members(kind)?;
        let sig_end = if kind == K::Struct {
            open.start
        } else {
            ty.start
        };
        Some(self.type_decl(kind, name, start..end, Some(sig_end), members))
    }

    fn type_decl(
        &self,
        kind: K,
        name: Token,
        bytes: Range<usize>,
        sig_end: Option<usize>,
        members: Vec<Decl>,
    ) -> Decl {
        Decl {
            kind,
            name: name.start..name.end,
            core: bytes.start,
            bytes,
            sig_end,
            members,
            impl_of: None,
            qualifier: None,
            head: None,
        }
    }

    /// A struct's fields or an interface's methods, `{` taken, through its `}`;
    /// where the `}` ends.
    fn members(&mut self, of: K) -> Option<(Vec<Decl>, usize)> {
        let mut out = Vec::new();
        loop {
            let first = self.next()??;
            match first.kind {
                Kind::Close(b'}') => return Some((out, first.end)),
                Kind::Punct(b';') => continue,
                _ => {}
            }
            let next = self.peek()??;
            let named = self.word(first).is_some()
                && !matches!(
                    self.word(first),
                    Some(b"struct" | b"interface" | b"func" | b"map" | b"chan")
                );
            let mut names = Vec::new();
            let end = if of == K::Interface {
                // `Name(…) result`: a method; anything else (embedded interfaces,
                // type sets) is not a symbol.
                if named && next.kind == Kind::Open(b'(') {
                    names.push(first);
                }
                self.until_end(first)?
            } else if named && next.kind == Kind::Punct(b',') {
                names.push(first);
                while self.peek()??.kind == Kind::Punct(b',') {
                    self.next()?;
                    names.push(self.expect_word()?);
                }
                let last = *names.last()?;
                self.until_end(last)?
            } else if named && next.kind == Kind::Open(b'[') {
                // `a []int` (a field) or `T[int]` (an embedded generic type): which
                // one shows after the brackets.
                let open = self.next()??;
                let after = self.close(open)?;
                let embedded = match self.peek()?? {
                    t if t.newline_before => true,
                    t => matches!(t.kind, Kind::Literal | Kind::Punct(b';') | Kind::Close(_)),
                };
                if !embedded {
                    names.push(first);
                }
                let last = Token {
                    kind: Kind::Close(b']'),
                    end: after,
                    ..open
                };
                self.until_end(last)?
            } else {
                let embedded = next.newline_before
                    || matches!(
                        next.kind,
                        Kind::Literal | Kind::Punct(b';' | b'.') | Kind::Close(_)
                    );
                if named && !embedded {
                    names.push(first);
                }
                self.until_end(first)?
            };
            let kind = if of == K::Interface {
                K::Method
            } else {
                K::Field
            };
            for name in names {
                out.push(Decl {
                    kind,
                    name: name.start..name.end,
                    bytes: first.start..end,
                    core: first.start,
                    sig_end: None,
                    members: Vec::new(),
                    impl_of: None,
                    qualifier: None,
                    head: None,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "package p\nfunc f() {",
            "package p\nfunc (a, b T) f() {}",
            "package p\nx := 1",
            "package p\ntype A [N*M]struct{}",
            "package p\nvar s = \"unterminated\n",
            "package p\nfunc f() {} func g() {}",
            "package p\n}",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
    }
}
