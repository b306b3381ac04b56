//! OCaml declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter-ocaml's tree (`languages/ocaml.rs`), for the files
//! this reader can vouch for.
//!
//! It reads the items of the file and of the structures, signatures and objects in
//! it, at any depth: each binding of a `let`, `type`, `module` or `class` group (a
//! later one from its `and`), `module type`s, `exception`s, `external`s and `val`s;
//! a type's constructors and record fields, a class's methods and instance
//! variables. The skeleton lexer's tokenizer reads the text (`skeleton_ocaml.rs`:
//! nested comments holding strings, quoted strings, character literals), and its
//! reading of a `let` body finds where a binding ends and whether it is a `fun` or
//! a `function` ([`Lexer::body`]); so are a script's expressions read (an item
//! first and after `;;`: `let … in …` there is one), and method bodies. Brackets
//! and `struct`/`sig`/`object … end` blocks the walker does not enter are read
//! through whole; an object type (`< m : int; .. >`) to the `>` that closes it,
//! counting the `<` and `>` the lexer glues to other operators (`..>`). A binding,
//! constructor or field ends at its last token: attributes (`[@inline]`) and
//! comments after it are extras tree-sitter leaves out of the node; item
//! attributes (`[@@inline]`) are in it.
//!
//! It declines (and the skeleton parse answers) wherever a token is not one the
//! item grammar it knows has there: binding operators at an item's start (`let*`),
//! a representation substituted (`type t := A`), OxCaml's kinds and modes, a
//! toplevel directive (`#show t`) where no expression can be (right after an
//! item, where tree-sitter may read it into a type: `int #show`), a `let … in`
//! where no expression can be, names with bytes beyond ASCII (tree-sitter reads
//! them by Unicode classes), text the lexer cannot follow, and blocks nested
//! deeper than [`MAX_DEPTH`].

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    rust_items::Decl,
    skeleton_ocaml::{After, Kind, Lexer, Token, is_keyword},
};

/// The declarations of an OCaml file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut lex = Lexer::new(src);
    // The ranges it would note are the skeleton's business.
    lex.cur.record = false;
    let mut r = Reader {
        lex,
        src,
        last: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    r.items(&mut out, Items::File)?;
    Some(out)
}

/// An operator's name as the walker gives it, without the blanks between its
/// brackets (`( +++ )` is `(+++)`); `None` for any other name, read as it is.
pub(crate) fn name(src: &[u8], name: Range<usize>) -> Option<String> {
    let text = &src[name];
    (text.first() == Some(&b'(')).then(|| {
        String::from_utf8_lossy(text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    })
}

/// Structures, signatures and objects nested deeper than this are declined: the
/// walker stops at 64 containers, and a type's constructors and their records are
/// two more.
const MAX_DEPTH: u32 = 48;

/// Where items are read, and so which can be there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Items {
    /// The file's, to its end.
    File,
    /// A `struct`'s, to its `end`.
    Structure,
    /// A `sig`'s, to its `end`.
    Signature,
}

/// A block the walker enters (`struct`, `sig`, an inline record): where it
/// starts, and the declarations in it.
type Block = (usize, Vec<Decl>);

/// What a module expression is, as far as its members go.
enum ModuleExpr {
    /// `struct … end`.
    Structure(Block),
    /// `functor … -> …`: the structure it makes, if it makes one directly.
    Functor(Option<Block>),
    /// A path, an application or a bracketed expression.
    Other,
}

/// What a type reads as, at its outermost level.
#[derive(Default)]
struct TypeShape {
    /// An arrow: a function's type.
    arrow: bool,
    /// `as 'a`, or type variables bound before a `.`: an aliased or polymorphic type.
    aliased: bool,
}

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    /// Where the last token taken ends (extras aside): where what it ends ends.
    last: usize,
    /// Structures, signatures and objects entered.
    depth: u32,
}

impl<'a> Reader<'a> {
    fn text(&self, t: Token) -> &'a [u8] {
        &self.src[t.start..t.end]
    }

    /// The next token, attributes (`[@…]`, extras anywhere) read through; at the
    /// end of the text an empty token there; `None` where the lexer cannot follow
    /// the text.
    fn next(&mut self) -> Option<Token> {
        loop {
            let Some(t) = self.lex.next() else {
                let end = self.src.len();
                return (!self.lex.cur.confused).then_some(Token {
                    start: end,
                    end,
                    kind: Kind::Op,
                });
            };
            if t.kind == Kind::Open(b'[')
                && self.src.get(t.end) == Some(&b'@')
                && self.src.get(t.end + 1) != Some(&b'@')
            {
                self.lex.through(t)?;
                continue;
            }
            return Some(t);
        }
    }

    /// The next token, taken.
    fn take(&mut self) -> Option<Token> {
        let t = self.next()?;
        self.last = t.end;
        Some(t)
    }

    /// The next token, not taken.
    fn peek(&mut self) -> Option<Token> {
        let t = self.next()?;
        if !self.at_end(t) {
            self.lex.back = Some(t);
        }
        Some(t)
    }

    fn at_end(&self, t: Token) -> bool {
        t.start == self.src.len()
    }

    fn is(&self, t: Token, word: &[u8]) -> bool {
        self.lex.is(t, word)
    }

    fn is_op(&self, t: Token, op: &[u8]) -> bool {
        t.kind == Kind::Op && self.text(t) == op
    }

    /// Takes the next token if it is the word or operator `what`.
    fn eat(&mut self, what: &[u8]) -> Option<Option<Token>> {
        let t = self.peek()?;
        let is = matches!(t.kind, Kind::Word | Kind::Op) && self.text(t) == what;
        Some(if is { Some(self.take()?) } else { None })
    }

    /// Takes the next token, which must be the word or operator `what`.
    fn expect(&mut self, what: &[u8]) -> Option<Token> {
        self.eat(what)?
    }

    /// After an opener just taken: past its closer.
    fn through(&mut self, open: Token) -> Option<()> {
        self.lex.through(open)?;
        self.last = self.lex.cur.at;
        Some(())
    }

    /// Whether an operator's byte follows `t` right after it: a binding operator
    /// (`let*`), or an extension (`let%ext`).
    fn extended(&self, t: Token) -> bool {
        self.src
            .get(t.end)
            .is_some_and(|b| b"!$%&*+-./:<=>?@^|~#".contains(b))
    }

    /// After an item's keyword: its extension, if it has one (`let%ext`,
    /// `let%foo.bar`); `None` for a binding operator (`let*`) or anything else
    /// right after it.
    fn extension(&mut self, keyword: Token) -> Option<()> {
        if !self.extended(keyword) {
            return Some(());
        }
        let percent = self.take()?;
        if !self.is_op(percent, b"%") {
            return None;
        }
        let mut end = percent.end;
        loop {
            let id = self.take()?;
            if id.kind != Kind::Word || id.start != end || !self.text(id).is_ascii() {
                return None;
            }
            let dot = self.peek()?;
            if !self.is_op(dot, b".") || dot.start != id.end {
                return Some(());
            }
            end = self.take()?.end;
        }
    }

    /// Whether `t` is the first token of its line.
    fn line_start(&self, t: Token) -> bool {
        let before = &self.src[..t.start];
        let blanks = before
            .iter()
            .rev()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        matches!(
            before.len().checked_sub(blanks + 1).map(|i| before[i]),
            None | Some(b'\n')
        )
    }

    /// An item attribute or extension (`[@@…]`, `[%%…]`) opens here: the item
    /// before it ends.
    fn item_bracket(&self, t: Token) -> bool {
        let rest = &self.src[t.end..];
        t.kind == Kind::Open(b'[') && (rest.starts_with(b"@@") || rest.starts_with(b"%%"))
    }

    /// A lowercase name (a value's, a type's, a field's, a class's): ASCII, no
    /// keyword, not `_` (a wildcard).
    fn lower(&self, t: Token) -> bool {
        let w = self.text(t);
        t.kind == Kind::Word
            && w.is_ascii()
            && matches!(w[0], b'a'..=b'z' | b'_')
            && !is_keyword(w)
            && !matches!(w, b"_" | b"end" | b"done" | b"true" | b"false")
    }

    /// A capitalized name (a module's, a constructor's): ASCII.
    fn upper(&self, t: Token) -> bool {
        let w = self.text(t);
        t.kind == Kind::Word && w.is_ascii() && w[0].is_ascii_uppercase()
    }

    /// The items of a structure, signature or file, up to the `end` of a block
    /// (taken) or the end of the file.
    fn items(&mut self, out: &mut Vec<Decl>, at: Items) -> Option<()> {
        if at != Items::File {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return None;
            }
        }
        // An expression can be an item first and after `;;`, in a structure.
        let mut expression = at != Items::Signature;
        loop {
            let t = self.take()?;
            if self.at_end(t) {
                return (at == Items::File).then_some(());
            }
            let word = if t.kind == Kind::Word {
                self.text(t)
            } else {
                b""
            };
            match word {
                b"end" if at != Items::File => {
                    self.depth -= 1;
                    return Some(());
                }
                b"let" if at != Items::Signature => self.value_definition(t, out, expression)?,
                b"val" => self.value_specification(t, out)?,
                b"type" => self.type_definition(t, out)?,
                b"module" => self.module_definition(t, out)?,
                b"class" => self.class_definition(t, out)?,
                b"exception" => self.exception(t, out)?,
                b"external" => self.external(t, out)?,
                b"open" | b"include" => {
                    if self.eat(b"!")?.is_none() {
                        self.extension(t)?;
                    }
                    match at {
                        Items::Signature => {
                            self.module_type()?;
                        }
                        _ => {
                            self.module_expr()?;
                        }
                    }
                    self.attributes()?;
                }
                _ if self.is_op(t, b";;") => {
                    expression = at != Items::Signature;
                    continue;
                }
                _ if self.item_extension(t)? => {}
                _ if expression && (!is_keyword(word) || starts_expression(word)) => {
                    // An expression item, which names nothing: read as a body is.
                    self.lex.back = Some(t);
                    if self.lex.body()?.after != After::Item {
                        return None;
                    }
                    self.attributes()?;
                }
                _ => return None,
            }
            expression = false;
        }
    }

    /// After a token at an item's start: whether it was a floating attribute
    /// (`[@@@…]`) or an item extension (`[%%…]`, `{%%ext|…|}`), read with its
    /// item attributes.
    fn item_extension(&mut self, t: Token) -> Option<bool> {
        let rest = &self.src[t.end..];
        match t.kind {
            Kind::Open(b'[') if rest.starts_with(b"@@@") => self.through(t)?,
            Kind::Open(b'[') if rest.starts_with(b"%%") => {
                self.through(t)?;
                self.attributes()?;
            }
            Kind::Literal if self.text(t).starts_with(b"{%%") => self.attributes()?,
            _ => return Some(false),
        }
        Some(true)
    }

    /// Item attributes (`[@@…]`), which end the item they follow.
    fn attributes(&mut self) -> Option<()> {
        loop {
            let t = self.peek()?;
            let rest = &self.src[t.end..];
            if t.kind != Kind::Open(b'[') || !rest.starts_with(b"@@") || rest.starts_with(b"@@@") {
                return Some(());
            }
            self.take()?;
            self.through(t)?;
        }
    }

    /// After the group's keyword or `and`: whether the next binding follows (its
    /// `and` taken: where it starts).
    fn and(&mut self) -> Option<Option<usize>> {
        Some(self.eat(b"and")?.map(|t| t.start))
    }

    /// After `let`: each binding, a symbol when it names a value; where an
    /// `expression` can be an item, a `let … in …` is one, which names nothing.
    fn value_definition(
        &mut self,
        keyword: Token,
        out: &mut Vec<Decl>,
        expression: bool,
    ) -> Option<()> {
        self.extension(keyword)?;
        let local = self.peek()?;
        if expression
            && [&b"module"[..], b"open", b"exception"]
                .iter()
                .any(|w| self.is(local, w))
        {
            // `let module M = … in …`: an expression, to its `in`.
            self.take()?;
            if self.lex.body()?.after != After::In {
                return None;
            }
            return self.after_in();
        }
        self.eat(b"rec")?;
        let mut core = keyword.start;
        let before = out.len();
        loop {
            let (name, params, eq) = self.let_head()?;
            let body = self.lex.body()?;
            self.last = body.end;
            let (end, and) = match body.after {
                After::In if expression => {
                    out.truncate(before);
                    return self.after_in();
                }
                After::In => return None,
                // The body took the `and`, the last token read.
                After::And => (body.end, Some(self.lex.cur.at - b"and".len())),
                After::Item => {
                    self.attributes()?;
                    let end = self.last;
                    (end, self.and()?)
                }
            };
            if let Some(name) = name {
                let kind = if params || body.function {
                    K::Function
                } else {
                    K::Variable
                };
                out.push(Decl::new(kind, name, core..end, Some(eq)));
            }
            match and {
                Some(and) => core = and,
                None => return Some(()),
            }
        }
    }

    /// After the `in` of an expression's `let`: the rest of the expression, to the
    /// item's end.
    fn after_in(&mut self) -> Option<()> {
        loop {
            match self.lex.body()?.after {
                After::In => {}
                After::And => return None,
                After::Item => return self.attributes(),
            }
        }
    }

    /// A `let` binding's head, through its `=`: the value it names (none for a
    /// pattern: `()`, `(a, b)`, `x :: y`), whether it takes parameters, and where its
    /// `=` is.
    fn let_head(&mut self) -> Option<(Option<Range<usize>>, bool, usize)> {
        let first = self.take()?;
        let name = if self.lower(first) {
            Some(first.start..first.end)
        } else if first.kind == Kind::Word && !self.text(first).is_ascii() {
            // A name, or a constructor, by Unicode classes.
            return None;
        } else if first.kind == Kind::Open(b'(') {
            self.operator(first)?
        } else {
            return Some((None, false, self.pattern_end(first)?));
        };
        let Some(name) = name else {
            let next = self.take()?;
            return Some((None, false, self.pattern_end(next)?));
        };
        let t = self.peek()?;
        if (t.kind == Kind::Op && matches!(self.text(t), b"," | b"::" | b"|")) || self.is(t, b"as")
        {
            self.take()?;
            return Some((None, false, self.pattern_end(t)?));
        }
        let params = self.params()?;
        let mut t = self.take()?;
        if self.is_op(t, b":") {
            self.typed()?;
            t = self.take()?;
        }
        if self.is_op(t, b":>") {
            self.ty()?;
            t = self.take()?;
        }
        self.is_op(t, b"=").then_some((Some(name), params, t.start))
    }

    /// From a token of a pattern (taken) through the `=` after the pattern: where
    /// the `=` is.
    fn pattern_end(&mut self, first: Token) -> Option<usize> {
        let mut t = first;
        loop {
            let w = self.text(t);
            match t.kind {
                Kind::Op if w == b"=" => return Some(t.start),
                Kind::Op
                    if matches!(
                        w,
                        b"," | b"::"
                            | b"|"
                            | b":"
                            | b"."
                            | b".."
                            | b"`"
                            | b"->"
                            | b"*"
                            | b"~"
                            | b"?"
                    ) => {}
                Kind::Open(_) => self.through(t)?,
                Kind::Literal => {}
                Kind::Word if !is_keyword(w) || matches!(w, b"as" | b"lazy") => {
                    if matches!(w, b"end" | b"done") {
                        return None;
                    }
                }
                _ => return None,
            }
            t = self.take()?;
        }
    }

    /// After `(` where a value's name can be: the operator it brackets (`( +++ )`,
    /// `( let* )`, `( .%{} )`), its range with the brackets; none for a pattern
    /// (`()`, `(x, y)`, `( :: )`), read through.
    fn operator(&mut self, open: Token) -> Option<Option<Range<usize>>> {
        let t = self.peek()?;
        let w = self.text(t);
        let op = match t.kind {
            Kind::Op => !matches!(
                w,
                b"::" | b"," | b";" | b";;" | b"`" | b"." | b".." | b":" | b"|"
            ),
            Kind::Word => {
                matches!(
                    w,
                    b"mod" | b"land" | b"lor" | b"lxor" | b"lsl" | b"lsr" | b"asr" | b"or"
                ) || (matches!(w, b"let" | b"and" | b"match") && self.extended(t))
            }
            _ => false,
        };
        self.through(open)?;
        if !op {
            return Some(None);
        }
        // A comment or a string between the brackets would be in the name.
        let text = &self.src[open.start..self.last];
        let odd = text
            .windows(2)
            .any(|p| p == b"(*" || p[0] == b'"' || p[0] == b'\'');
        (!odd).then_some(Some(open.start..self.last))
    }

    /// A binding's parameters (`x`, `(x : t)`, `~x`, `?(x = 0)`, `~x:p`, but not
    /// `(type a)`): whether there is one.
    fn params(&mut self) -> Option<bool> {
        let mut any = false;
        loop {
            let t = self.peek()?;
            let w = self.text(t);
            match t.kind {
                Kind::Word if !is_keyword(w) && !matches!(w, b"end" | b"done") => {
                    self.take()?;
                }
                Kind::Literal => {
                    self.take()?;
                }
                Kind::Open(b) if !self.item_bracket(t) => {
                    self.take()?;
                    let inner = self.peek()?;
                    let abstract_type = b == b'(' && self.is(inner, b"type");
                    self.through(t)?;
                    if abstract_type {
                        continue;
                    }
                }
                Kind::Op if matches!(w, b"~" | b"?") => {
                    self.take()?;
                    let label = self.take()?;
                    if label.kind == Kind::Open(b'(') {
                        self.through(label)?;
                    } else if !self.lower(label) {
                        return None;
                    } else if let colon = self.peek()?
                        && self.is_op(colon, b":")
                        && colon.start == label.end
                    {
                        // `~x:p`: the pattern right after the colon.
                        self.take()?;
                        let p = self.take()?;
                        match p.kind {
                            Kind::Open(_) => self.through(p)?,
                            Kind::Word | Kind::Literal => {}
                            _ => return None,
                        }
                    }
                }
                // `M.{ a; b }`, `M.(x, y)`: a pattern in a module's scope.
                Kind::Op if w == b"." => {
                    self.take()?;
                }
                Kind::Op if w == b"`" || w == b"#" => {
                    self.take()?;
                    if self.take()?.kind != Kind::Word {
                        return None;
                    }
                }
                _ => return Some(any),
            }
            any = true;
        }
    }

    /// A type after `:`, a polymorphic one too (`'a. 'a -> 'a`, `type a. a t`).
    fn typed(&mut self) -> Option<TypeShape> {
        if self.eat(b"type")?.is_none() {
            return self.ty();
        }
        loop {
            let t = self.take()?;
            if self.is_op(t, b".") {
                break;
            }
            if !self.lower(t) {
                return None;
            }
        }
        let shape = self.ty()?;
        Some(TypeShape {
            aliased: true,
            ..shape
        })
    }

    /// A type, up to the first token that cannot be in one (not taken); what it is
    /// at its outermost level. `object … end` (a class type) and brackets are read
    /// through; no type holds a `{`.
    fn ty(&mut self) -> Option<TypeShape> {
        let mut shape = TypeShape::default();
        let mut any = false;
        // Only type variables (`'a 'b`) so far, and whether the last token was the
        // quote of one.
        let (mut vars, mut quote) = (true, false);
        // Object types open (`< m : int; .. >`), which hold anything but closers:
        // the lexer reads `<` and `>` as operators, glued to others (`..>`).
        let mut angles = 0usize;
        loop {
            let t = self.peek()?;
            let w = self.text(t);
            let ok = match t.kind {
                _ if self.at_end(t) => false,
                Kind::Close(_) => false,
                _ if angles > 0 => true,
                Kind::Word => !is_keyword(w) || matches!(w, b"as" | b"object"),
                Kind::Literal => w == b"'",
                Kind::Op => {
                    matches!(w, b"->" | b"*" | b"." | b":" | b"?" | b"~")
                        || w[0] == b'<'
                        // `#c`, a class's type; at a line's start, a directive.
                        || (w == b"#" && !self.line_start(t))
                }
                Kind::Open(b) => b != b'{' && !self.item_bracket(t),
            };
            if !ok || (angles == 0 && matches!(w, b"end" | b"done")) {
                return (any && angles == 0).then_some(shape);
            }
            self.take()?;
            match t.kind {
                Kind::Open(_) => self.through(t)?,
                Kind::Word if w == b"object" => self.through(t)?,
                _ => {}
            }
            let outer = angles == 0;
            if t.kind == Kind::Op {
                let arrows = w.windows(2).filter(|p| p == b"->").count();
                let closes = w.iter().filter(|&&b| b == b'>').count() - arrows;
                angles = (angles + w.iter().filter(|&&b| b == b'<').count()).checked_sub(closes)?;
            }
            shape.arrow |= outer && w == b"->";
            shape.aliased |= outer && (w == b"as" || (w == b"." && vars && any && !quote));
            (vars, quote) = match t.kind {
                Kind::Literal => (vars && !quote, true),
                Kind::Word => (vars && quote, false),
                _ => (false, false),
            };
            any = true;
        }
    }

    /// After `type`: each binding, a symbol.
    fn type_definition(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        self.eat(b"nonrec")?;
        let mut core = keyword.start;
        loop {
            let (name, path) = self.type_name()?;
            let t = self.peek()?;
            let (mut kind, mut members, mut sig_end) = (K::TypeAlias, Vec::new(), None);
            if path && !self.is_op(t, b"+=") {
                return None;
            }
            if self.is_op(t, b"=") || self.is_op(t, b"+=") {
                self.take()?;
                sig_end = Some(t.start);
                (kind, members) = self.type_body(self.is_op(t, b"+="))?;
            } else if self.is_op(t, b":=") {
                // A substitution (`type t := u`, in a signature): its signature is
                // all of it, as the walker has no `=` to end it at.
                self.take()?;
                let body = self.peek()?;
                if self.variant_next()? || self.is_op(body, b"..") || body.kind == Kind::Open(b'{')
                {
                    return None;
                }
                self.eat(b"private")?;
                self.ty()?;
            }
            while self.eat(b"constraint")?.is_some() {
                self.ty()?;
                self.expect(b"=")?;
                self.ty()?;
            }
            self.attributes()?;
            out.push(Decl {
                members,
                ..Decl::new(kind, name, core..self.last, sig_end)
            });
            match self.and()? {
                Some(and) => core = and,
                None => return Some(()),
            }
        }
    }

    /// A type binding's parameters (`'a`, `+'a`, `_`, `('a, 'b)`) and its name; a
    /// path (`M.t`, an extension's) with whether it is one.
    fn type_name(&mut self) -> Option<(Range<usize>, bool)> {
        let mut t = self.take()?;
        if t.kind == Kind::Open(b'(') {
            self.through(t)?;
            t = self.take()?;
        } else {
            // `+'a`, `-!'a`, `+ !'a`.
            let mut variance = false;
            while t.kind == Kind::Op && self.text(t).iter().all(|b| b"+-!".contains(b)) {
                (variance, t) = (true, self.take()?);
            }
            if t.kind == Kind::Literal && self.text(t) == b"'" {
                if self.take()?.kind != Kind::Word {
                    return None;
                }
                t = self.take()?;
            } else if self.is(t, b"_") && {
                // `_ t`, `_ Effect.t`: a parameter before the name.
                let next = self.peek()?;
                self.lower(next) || self.upper(next)
            } {
                t = self.take()?;
            } else if variance {
                return None;
            }
        }
        let start = t.start;
        let path = self.upper(t);
        while self.upper(t) {
            self.expect(b".")?;
            t = self.take()?;
        }
        // `t#` is OxCaml's.
        (self.lower(t) && self.src.get(t.end) != Some(&b'#')).then_some((start..t.end, path))
    }

    /// A type binding's body after `=` (`+=` when `extension`): an `Enum` and its
    /// constructors, a `Struct` and its fields, else a `TypeAlias`.
    fn type_body(&mut self, extension: bool) -> Option<(K, Vec<Decl>)> {
        self.eat(b"private")?;
        if extension {
            return self
                .variant_next()?
                .then(|| self.variant())?
                .map(|m| (K::Enum, m));
        }
        let t = self.peek()?;
        if !self.variant_next()? && !self.is_op(t, b"..") && t.kind != Kind::Open(b'{') {
            // An abbreviation, or the type a representation re-exports (`t = u = A`).
            self.ty()?;
            if self.eat(b"=")?.is_none() {
                return Some((K::TypeAlias, Vec::new()));
            }
            self.eat(b"private")?;
        }
        let t = self.peek()?;
        if self.is_op(t, b"..") {
            self.take()?;
            Some((K::TypeAlias, Vec::new()))
        } else if t.kind == Kind::Open(b'{') {
            self.take()?;
            Some((K::Struct, self.record()?))
        } else {
            Some((K::Enum, self.variant()?))
        }
    }

    /// Whether a variant follows: `|`, a constructor (`A`, not a module's `A.t`),
    /// `[]`, `(::)`, `true`, `false`.
    fn variant_next(&mut self) -> Option<bool> {
        let t = self.peek()?;
        fn after(s: &[u8]) -> &[u8] {
            s.trim_ascii_start()
        }
        let rest = &self.src[t.end..];
        Some(match t.kind {
            Kind::Op => self.text(t) == b"|",
            // Not a path (`M.t`, `F(M).t`).
            Kind::Word => {
                (self.upper(t)
                    && !after(rest).starts_with(b".")
                    && (!rest.starts_with(b"(") || rest.starts_with(b"(*")))
                    || matches!(self.text(t), b"true" | b"false")
            }
            Kind::Open(b'[') => after(rest).starts_with(b"]"),
            Kind::Open(b'(') => after(rest)
                .strip_prefix(b"::")
                .is_some_and(|r| after(r).starts_with(b")")),
            _ => false,
        })
    }

    /// The constructors of a variant, each a symbol (bar `[]`, `()`, `true`,
    /// `false`, which name none), if any.
    fn variant(&mut self) -> Option<Vec<Decl>> {
        let mut members = Vec::new();
        // `type t = |`: none at all.
        if self.eat(b"|")?.is_some() && !self.variant_next()? {
            return Some(members);
        }
        loop {
            let t = self.take()?;
            let (name, record) = self.constructor(t)?;
            if let Some(name) = name {
                let mut member = Decl::new(K::EnumMember, name, t.start..self.last, None);
                if let Some((at, fields)) = record {
                    (member.sig_end, member.members) = (Some(at), fields);
                }
                members.push(member);
            }
            if self.eat(b"|")?.is_none() {
                return Some(members);
            }
        }
    }

    /// A constructor from its first token (taken) through its arguments: its name
    /// (none for `[]`, `()`, `true`, `false`), and where its inline record starts
    /// and the record's fields.
    fn constructor(&mut self, first: Token) -> Option<(Option<Range<usize>>, Option<Block>)> {
        let name = match first.kind {
            Kind::Word if self.upper(first) => Some(first.start..first.end),
            Kind::Word if matches!(self.text(first), b"true" | b"false") => None,
            Kind::Open(b'[') => (self.take()?.kind == Kind::Close(b']')).then_some(None)?,
            Kind::Open(b'(') => {
                let t = self.take()?;
                if t.kind == Kind::Close(b')') {
                    None
                } else if self.is_op(t, b"::") && self.take()?.kind == Kind::Close(b')') {
                    Some(t.start..t.end)
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        let t = self.peek()?;
        let mut record = None;
        if self.is(t, b"of") {
            self.take()?;
            if self.peek()?.kind == Kind::Open(b'{') {
                record = Some(self.inline_record()?);
            } else {
                self.ty()?;
            }
        } else if self.is_op(t, b":") {
            // `: int -> t`, `: 'a. 'a -> t`, `: { x : int } -> t`.
            self.take()?;
            if self.peek()?.kind != Kind::Open(b'{') {
                self.ty()?;
            }
            if self.peek()?.kind == Kind::Open(b'{') {
                record = Some(self.inline_record()?);
                self.expect(b"->")?;
                self.ty()?;
            }
        } else if self.is_op(t, b"=") {
            self.take()?;
            self.ty()?;
        }
        Some((name, record))
    }

    /// A constructor's record: where it starts, and its fields.
    fn inline_record(&mut self) -> Option<Block> {
        let open = self.take()?;
        Some((open.start, self.record()?))
    }

    /// After `{`: the fields of a record, each a symbol, through the `}`.
    fn record(&mut self) -> Option<Vec<Decl>> {
        let mut fields = Vec::new();
        loop {
            let mut t = self.take()?;
            if t.kind == Kind::Close(b'}') && !fields.is_empty() {
                return Some(fields);
            }
            let start = t.start;
            if self.is(t, b"mutable") {
                t = self.take()?;
            }
            if !self.lower(t) {
                return None;
            }
            self.expect(b":")?;
            self.typed()?;
            fields.push(Decl::new(K::Field, t.start..t.end, start..self.last, None));
            let sep = self.take()?;
            if sep.kind == Kind::Close(b'}') {
                return Some(fields);
            }
            if !self.is_op(sep, b";") {
                return None;
            }
        }
    }

    /// After `module`: a `module type`, or each binding of the group, a symbol.
    fn module_definition(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        if let Some(t) = self.eat(b"type")? {
            self.extension(t)?;
            return self.module_type_definition(keyword, out);
        }
        self.eat(b"rec")?;
        let mut core = keyword.start;
        loop {
            let name = self.take()?;
            if !self.upper(name) && !self.is(name, b"_") {
                return None;
            }
            // Its parameters: `(X : S)`, `()`.
            while self.peek()?.kind == Kind::Open(b'(') {
                let t = self.take()?;
                self.through(t)?;
            }
            let typed = self.eat(b":")?.is_some();
            let signature = if typed { self.module_type()? } else { None };
            let eq = self.eat(b"=")?;
            if !typed && eq.is_none() {
                // `module M := N` (in a signature), its signature all of it.
                self.expect(b":=")?;
                let path = self.take()?;
                if !self.upper(path) {
                    return None;
                }
                self.module_path()?;
            }
            let structure = match eq {
                Some(_) => match self.module_expr()? {
                    ModuleExpr::Structure(block) | ModuleExpr::Functor(Some(block)) => Some(block),
                    _ => None,
                },
                None => None,
            };
            self.attributes()?;
            // Declared by its signature alone, it holds `val`s, an interface's.
            let (kind, (at, members)) = match (structure, signature) {
                (None, Some((at, items))) => (K::Interface, (Some(at), items)),
                (structure, _) => {
                    let (at, items) = structure.unzip();
                    (K::Module, (at, items.unwrap_or_default()))
                }
            };
            let sig_end = match kind {
                K::Interface => at,
                _ => eq.map(|t| t.start).or(at),
            };
            out.push(Decl {
                members,
                ..Decl::new(kind, name.start..name.end, core..self.last, sig_end)
            });
            match self.and()? {
                Some(and) => core = and,
                None => return Some(()),
            }
        }
    }

    /// After `module type`: a symbol, its signature's items its members.
    fn module_type_definition(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        let name = self.take()?;
        let w = self.text(name);
        if name.kind != Kind::Word || !w.is_ascii() || !w[0].is_ascii_alphabetic() || is_keyword(w)
        {
            return None;
        }
        let eq = match self.eat(b"=")? {
            Some(eq) => Some(eq),
            None => self.eat(b":=")?,
        };
        let signature = match eq {
            Some(_) => self.module_type()?,
            None => None,
        };
        self.attributes()?;
        let (at, members) = signature.unzip();
        out.push(Decl {
            members: members.unwrap_or_default(),
            ..Decl::new(
                K::Interface,
                name.start..name.end,
                keyword.start..self.last,
                at,
            )
        });
        Some(())
    }

    /// A module type: the signature it is, if it is one (`sig … end` and nothing
    /// more): where it starts, and its items.
    fn module_type(&mut self) -> Option<Option<Block>> {
        let t = self.take()?;
        let mut signature = None;
        match t.kind {
            Kind::Word if self.is(t, b"sig") => {
                let mut items = Vec::new();
                self.items(&mut items, Items::Signature)?;
                signature = Some((t.start, items));
            }
            Kind::Word if self.is(t, b"functor") => {
                self.module_params()?;
                self.expect(b"->")?;
                self.module_type()?;
                return Some(None);
            }
            Kind::Word if self.is(t, b"module") => {
                self.expect(b"type")?;
                self.expect(b"of")?;
                self.module_expr()?;
            }
            Kind::Word if self.upper(t) || self.lower(t) => self.module_path()?,
            Kind::Open(b'(') => {
                self.through(t)?;
                while self.peek()?.kind == Kind::Open(b'(') {
                    let t = self.take()?;
                    self.through(t)?;
                }
            }
            _ => return None,
        }
        loop {
            let t = self.peek()?;
            if self.is_op(t, b"->") {
                self.take()?;
                self.module_type()?;
                return Some(None);
            }
            if !self.is(t, b"with") {
                return Some(signature);
            }
            self.take()?;
            signature = None;
            self.constraints()?;
        }
    }

    /// After `with`: its constraints (`type t = u`, `module M = N`, `module type S
    /// = T`), joined by `and`.
    fn constraints(&mut self) -> Option<()> {
        loop {
            let t = self.take()?;
            if self.is(t, b"type") {
                self.constrained()?;
                self.eat(b"private")?;
                self.ty()?;
            } else if self.is(t, b"module") {
                let of_type = self.eat(b"type")?.is_some();
                self.constrained()?;
                if of_type {
                    self.module_type()?;
                } else {
                    let path = self.take()?;
                    if !self.upper(path) {
                        return None;
                    }
                    self.module_path()?;
                }
            } else {
                return None;
            }
            // An `and` before another constraint joins it; before anything else it
            // is the next binding's.
            let t = self.peek()?;
            let rest = self.src[t.end..].trim_ascii_start();
            let joins = [&b"type"[..], b"module"].iter().any(|w| {
                rest.starts_with(w) && !rest.get(w.len()).is_some_and(|&b| crate::bytes::is_word(b))
            });
            if !self.is(t, b"and") || !joins {
                return Some(());
            }
            self.take()?;
        }
    }

    /// What a constraint constrains (parameters, a path), through its `=` or `:=`.
    fn constrained(&mut self) -> Option<()> {
        loop {
            let t = self.take()?;
            match t.kind {
                Kind::Op if matches!(self.text(t), b"=" | b":=") => return Some(()),
                Kind::Op if matches!(self.text(t), b"." | b"+" | b"-") => {}
                Kind::Open(b'(') => self.through(t)?,
                Kind::Literal => {}
                Kind::Word if !is_keyword(self.text(t)) => {}
                _ => return None,
            }
        }
    }

    /// A module expression.
    fn module_expr(&mut self) -> Option<ModuleExpr> {
        let t = self.take()?;
        Some(match t.kind {
            Kind::Word if self.is(t, b"struct") => {
                let mut items = Vec::new();
                self.items(&mut items, Items::Structure)?;
                ModuleExpr::Structure((t.start, items))
            }
            Kind::Word if self.is(t, b"functor") => {
                self.module_params()?;
                self.expect(b"->")?;
                ModuleExpr::Functor(match self.module_expr()? {
                    ModuleExpr::Structure(block) => Some(block),
                    _ => None,
                })
            }
            Kind::Word if self.upper(t) => {
                self.module_path()?;
                ModuleExpr::Other
            }
            Kind::Open(b'(') => {
                self.through(t)?;
                self.module_path()?;
                ModuleExpr::Other
            }
            _ => return None,
        })
    }

    /// After a module's name or a bracketed module: the rest of its path and the
    /// arguments applied (`.N`, `(X)`).
    fn module_path(&mut self) -> Option<()> {
        loop {
            let t = self.peek()?;
            if self.is_op(t, b".") {
                self.take()?;
                let part = self.take()?;
                if !self.upper(part) && !self.lower(part) {
                    return None;
                }
            } else if t.kind == Kind::Open(b'(') {
                self.take()?;
                self.through(t)?;
            } else {
                return Some(());
            }
        }
    }

    /// A functor's parameters: one bracketed group or more.
    fn module_params(&mut self) -> Option<()> {
        let mut any = false;
        while self.peek()?.kind == Kind::Open(b'(') {
            let t = self.take()?;
            self.through(t)?;
            any = true;
        }
        any.then_some(())
    }

    /// After `class`: a `class type` (no symbol), or each binding of the group, a
    /// symbol; an `object … end` body's fields its members.
    fn class_definition(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        if self.eat(b"type")?.is_some() {
            return self.nameless_group();
        }
        let mut core = keyword.start;
        loop {
            self.eat(b"virtual")?;
            if self.peek()?.kind == Kind::Open(b'[') {
                let t = self.take()?;
                self.through(t)?;
            }
            let name = self.take()?;
            if !self.lower(name) {
                return None;
            }
            self.params()?;
            if self.eat(b":")?.is_some() {
                self.ty()?;
            }
            let (mut sig_end, mut members, mut and) = (None, Vec::new(), None);
            let mut end = self.last;
            if let Some(eq) = self.eat(b"=")? {
                sig_end = Some(eq.start);
                if self.eat(b"object")?.is_some() {
                    members = self.object()?;
                } else {
                    // Any other class expression (`fun x -> …`, `let … in …`, an
                    // application) is read as a body is.
                    let body = self.lex.body()?;
                    self.last = body.end;
                    match body.after {
                        After::In => return None,
                        After::And => {
                            and = Some(self.lex.cur.at - b"and".len());
                            end = body.end;
                        }
                        After::Item => {}
                    }
                }
            }
            if and.is_none() {
                self.attributes()?;
                end = self.last;
                and = self.and()?;
            }
            out.push(Decl {
                members,
                ..Decl::new(K::Class, name.start..name.end, core..end, sig_end)
            });
            match and {
                Some(and) => core = and,
                None => return Some(()),
            }
        }
    }

    /// After `object`: the fields of a class through its `end`, its methods and
    /// instance variables symbols.
    fn object(&mut self) -> Option<Vec<Decl>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        // Its self: `(self)`, `(self : 'a)`.
        if self.peek()?.kind == Kind::Open(b'(') {
            let t = self.take()?;
            self.through(t)?;
        }
        let mut fields = Vec::new();
        loop {
            let t = self.take()?;
            let w = if t.kind == Kind::Word {
                self.text(t)
            } else {
                b""
            };
            match w {
                b"end" => {
                    self.depth -= 1;
                    return Some(fields);
                }
                b"val" | b"method" => {
                    self.eat(b"!")?;
                    let mut name = self.take()?;
                    while matches!(self.text(name), b"mutable" | b"virtual" | b"private") {
                        name = self.take()?;
                    }
                    if !self.lower(name) {
                        return None;
                    }
                    let method = w == b"method";
                    if method {
                        self.params()?;
                    }
                    if self.eat(b":")?.is_some() {
                        self.typed()?;
                    }
                    if self.eat(b":>")?.is_some() {
                        self.ty()?;
                    }
                    let eq = self.eat(b"=")?;
                    if eq.is_some() {
                        self.expression()?;
                    }
                    self.attributes()?;
                    let kind = if method { K::Method } else { K::Field };
                    let (name, at) = (name.start..name.end, eq.map(|t| t.start));
                    fields.push(Decl::new(kind, name, t.start..self.last, at));
                }
                b"inherit" | b"initializer" | b"constraint" => {
                    self.expression()?;
                    self.attributes()?;
                }
                _ if self.item_extension(t)? => {}
                _ => return None,
            }
        }
    }

    /// An expression read as a body is, to the item's end (not taken).
    fn expression(&mut self) -> Option<()> {
        let body = self.lex.body()?;
        self.last = body.end;
        (body.after == After::Item).then_some(())
    }

    /// A group that names nothing (`class type`), binding by binding.
    fn nameless_group(&mut self) -> Option<()> {
        loop {
            match self.lex.body()?.after {
                After::In => return None,
                After::And => {}
                After::Item => {
                    self.attributes()?;
                    if self.and()?.is_none() {
                        return Some(());
                    }
                }
            }
        }
    }

    /// After `exception`: its constructor, a symbol.
    fn exception(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        let t = self.take()?;
        let name = self.constructor(t)?.0?;
        self.attributes()?;
        out.push(Decl::new(K::Class, name, keyword.start..self.last, None));
        Some(())
    }

    /// After `external`: a function, its signature to its `=`.
    fn external(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        let name = self.value_name()?;
        self.expect(b":")?;
        self.typed()?;
        let eq = self.expect(b"=")?;
        let mut strings = 0;
        while let t = self.peek()?
            && t.kind == Kind::Literal
            && matches!(self.src[t.start], b'"' | b'{')
        {
            self.take()?;
            strings += 1;
        }
        if strings == 0 {
            return None;
        }
        self.attributes()?;
        out.push(Decl::new(
            K::Function,
            name,
            keyword.start..self.last,
            Some(eq.start),
        ));
        Some(())
    }

    /// After `val` in a signature: a function or a variable, by its type.
    fn value_specification(&mut self, keyword: Token, out: &mut Vec<Decl>) -> Option<()> {
        self.extension(keyword)?;
        let name = self.value_name()?;
        self.expect(b":")?;
        let shape = self.typed()?;
        self.attributes()?;
        let kind = if shape.arrow && !shape.aliased {
            K::Function
        } else {
            K::Variable
        };
        out.push(Decl::new(kind, name, keyword.start..self.last, None));
        Some(())
    }

    /// A value's name: `f`, or an operator (`( +++ )`).
    fn value_name(&mut self) -> Option<Range<usize>> {
        let t = self.take()?;
        if self.lower(t) {
            return Some(t.start..t.end);
        }
        (t.kind == Kind::Open(b'(')).then_some(())?;
        self.operator(t)?
    }
}

/// Whether a keyword starts an expression (an item, where one can be).
fn starts_expression(word: &[u8]) -> bool {
    matches!(
        word,
        b"match"
            | b"if"
            | b"try"
            | b"begin"
            | b"while"
            | b"for"
            | b"assert"
            | b"function"
            | b"fun"
            | b"lazy"
            | b"new"
            | b"object"
    )
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        tests::{Generated, reader_agrees},
    };

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does: bindings and patterns, operators, types of every
    /// shape, modules, functors and signatures, classes, scripts' expressions and
    /// extensions, and where extras (comments, `[@…]`) and item attributes go.
    #[test]
    fn items_read_as_the_whole_parse_reads_them() {
        for src in [
            "let rec f x = x and g = fun y -> y\nlet h = function A -> 1 | B -> 2\n",
            "let ( +++ ) a b = a\nlet ( let* ) = bind\nlet (let+) x f = f x\nlet ( * ) = ( *. )\nlet ( mod ) = 1\n",
            "let (x : int) = 1\nlet f (type a) : a = 1\nlet g (type a) x = 1\nlet () = ()\nlet _ = 1\nlet x, y = 1, 2\nlet a :: b = l\nlet x as y = 1\n",
            "let f ~x ?(y = 1) ~z:(a, b) ?w:c = x\nlet f M.{ a } `A #t 'c' \"s\" = a\nlet x : int :> int = 1\n",
            "let x = 1 (* c *) [@inline] and y = 2 [@x] [@@y] (* d *)\nlet z = 3 [@@inline] and w = 4\n",
            "let%ext x = 1\nlet%foo.bar \"test\" = ()\nlet f : type a b. a -> b = fun x -> x\nlet x = let y = 1 in y\n",
            "let f x = let g : type a. a -> a = fun y -> y in g x\nlet x = 'a' and y = '\\'' and z = {|let|} and w = {id|in|id}\n",
            "type 'a t = 'a list = [] | (::) of 'a * 'a list\ntype b = false | true\ntype w = ..\ntype w += C | D\n",
            "type u = A.t = A | B of { x : int; mutable y : 'a. 'a list }\ntype v = private A\ntype nonrec t = t\n",
            "type e = A : { x : int } -> e | B : int -> e | C : 'a. 'a -> e\ntype r = R of r list [@@unboxed]\n",
            "type o = < m : int; n : 'a. 'a -> int; .. >\ntype p = [ `A | `B of int ] and q = < f : < g : int > >\n",
            "type ('a, 'b) t = 'a * 'b constraint 'a = int\ntype +'a c = 'a #d -> int\ntype _ g = G : int g\ntype M.N.t += X = Y.X\n",
            "type _ Effect.t += Foo : int Effect.t\ntype ('a, _) M.t += private Bar of 'a\n",
            "module type S = sig type t' := t type 'a u := 'a list type v := private int end\n",
            "module type S = sig module M := N module type T := S end\n",
            "type t = { a : int; (* c *) b : float [@default 0.]; }\nand u = int [@@deriving x]\ntype x = A (** doc *) | B [@attr]\n",
            "module M = struct let x = 1 module N = struct type t = A end end\nmodule G = functor (X : S) -> struct let y = 1 end\nmodule H = F (struct end) (X)\n",
            "module F (X : S) (Y : T) : S with type t = X.t and type 'a u = int and module N = X.N = struct let x = 1 end\n",
            "module rec A : sig val x : int end = struct let x = 1 end and B : sig end = struct end\nmodule M : sig val f : int -> int end = F (X)\n",
            "module type S = sig\n  val x : int\n  val f : 'a. 'a -> 'a\n  val g : int -> int as 'a\n  val h : x:int -> int\n  type t\n  module N : sig val g : t -> t end\n  module O : S\n  module type P = sig end\n  include S with type t := t\n  open M\n  class c : object method m : int end\n  external e : int -> int = \"e\"\n  exception X\nend\nmodule type T = S with type t = int\nmodule type U = functor (X : S) -> S\n",
            "class c = object (self)\n  val mutable n = 0\n  val! v : int = 1\n  method get = n\n  method private set x = n <- x\n  method virtual m : int\n  method! p : 'a. 'a -> 'a = fun x -> x\n  initializer ()\n  inherit d as super\n  constraint 'a = int\nend\n",
            "class ['a] d x = let y = x in object end and e = object end\nclass virtual f = fun x -> object method m = x end\nclass type ct = object method m : int end and cu = object end\n",
            "exception E of string\nexception F = E\nexception G of { x : int }\nexternal f : int -> int = \"f\" [@@noalloc]\nexternal ( + ) : int -> int -> int = \"%add\"\n",
            "let x = 1;;\nprint_int x;;\nlet y = 2 in y;;\nif true then ()\n;;\nmatch x with _ -> ()\nlet z = 3\n",
            "let module M = struct end in ();;\nlet open M in f ();;\nlet a = 1 and b = 2 in a + b\n",
            "#!/usr/bin/env ocaml\n#use \"topfind\";;\n#require \"unix\";;\nlet x = 1\n",
            "let%expect_test \"x\" =\n  f ();\n  [%expect {| x |}]\nlet rec f : type a. a t -> int = function Int -> 1\n",
            "type empty = |\ntype t = F(M).t\ntype + !'a u = 'a\nexternal id : < .. > -> int = \"%id\"\n",
            "[%%expect {| x |}]\n[@@@warning \"-3\"]\n{%%foo|bar|}\nopen! M\ninclude struct let hidden = 1 end\nopen struct type t end\n",
            "val top : int\nmodule M = struct end [@@attr]\nmodule type S = sig end [@@attr]\ninclude (val m : S)\n",
            "module _ = struct end\nlet[@inline] f x = x\nlet f [@a] x = x\nmodule M : functor (X : S) -> sig end = F\n",
            "module F (X : S) : sig val x : int end = struct let x = 1 end\nmodule G : sig val y : int end\n",
        ] {
            assert_eq!(reader_agrees(Lang::OCaml, src), Some(true), "{src}");
        }
    }

    /// Clean text it does not vouch for: left to tree-sitter.
    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            // A directive right after an item (tree-sitter reads `int #show` as a
            // type elsewhere).
            "let x = 1;;\n[%%expect {||}]\n#labels true;;\n",
            "let café = 1\n",
        ] {
            assert_eq!(reader_agrees(Lang::OCaml, src), Some(false), "{src}");
        }
        for src in [
            "let x = (1\n",
            "let f x = g (* x\n",
            "module M = struct let x = 1\n",
            "let x = 1 end\n",
            "type t = A of\n",
            "let f x =\n",
            // A `let … in` where no expression can be.
            "let x = 1\nlet y = 2 in y\n",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        // Blocks nested past the walker's depth decline.
        let deep = "module M = struct ".repeat(100) + &"end ".repeat(100);
        assert!(parse(deep.as_bytes()).is_none());
    }

    /// Items and stray tokens strung together at random, with comments and line
    /// breaks between tokens: on every text the grammar reads cleanly, the reader
    /// declines or lists what the whole parse does.
    #[test]
    fn generated_items_read_as_the_whole_parse_reads_them() {
        let statements = [
            "let f x = x",
            "let rec g = fun y -> y and h = 1",
            "let ( +++ ) a b = a",
            "let () = print ()",
            "let x : int = 1 [@@inline]",
            "let a, b = 1, 2",
            "type t = A | B of int",
            "type 'a r = { x : 'a; mutable y : int }",
            "type u = int and v = t",
            "type w = A.t = A of { z : int }",
            "type e = E : int -> e",
            "type o = < m : int >",
            "exception X of string",
            "external e : int -> int = \"e\"",
            "module M = struct",
            "module F (X : S) = struct",
            "module type S = sig",
            "val v : int -> int",
            "end",
            "class c = object",
            "method m = 1",
            "val mutable n = 0",
            "open M",
            "include F (X)",
            ";;",
            "[@@@warning \"-3\"]",
            "[%%expect {||}]",
            "let g = function | A -> 1 | B -> 2",
            "type p = private < m : int; .. >",
            "let x = 1 in x",
            "if x then y",
            "module N : sig val x : int end = F (X)",
            "class d = fun x -> object end",
            "class type ct = object end",
            "let rec f ~x:y = y and ( + ) = 1",
            "type t += A",
            "type 'a l = 'a list = [] | (::) of 'a * 'a l",
            "let%ext x = 1",
            "module R = (val m : S)",
            "val w : 'a. 'a -> 'a",
            "exception E = M.E",
            "type s = { f : 'a. 'a -> int }",
            "let[@inline] f x = x",
            "let f = fun [@a] x -> x",
            "let ( .%{} ) a i = a",
            "let f : < m : int > -> int = fun o -> o#m",
            "let f (module M : S) = M.x",
            "let f ?(x : int option) () = x",
            "let _ : int = 1",
            "class c (x : int) ~y = object (self) val v = x method m = let z = 1 in z end",
            "class virtual ['a] d = object method virtual m : 'a end",
            "type _ g = I : int g | P : 'a g * 'b g -> ('a * 'b) g",
            "exception F : int -> exn",
            "module type T = module type of M",
            "module N : S with type t = int = struct type t = int end",
            "type t = [ `A | `B ] [@@deriving x]",
            "let x = 1 [@@a] and y = 2",
            "include struct let z = 1 end",
            "module M = F (struct let x = 1 end)",
        ];
        let tokens = [
            "let", "and", "in", "=", "x", "M", "(", ")", "struct", "sig", "end", "type", "|", "of",
            ":", "->", "'a", "{", "}", ";", "[@@a]", "[@b]", "(* c *)", "fun", "1", "\"s\"",
            "[@@@x]", ";;", "'a.", "<", ">", "#", "as", "with", "private", "..", "+=", "object",
            "method", "val", "module", "(::)", "[]", "*", "~x", "?x", ":>", "(", "f x",
        ];
        let breaks = [" ", "\n", " (* c *)\n", "(* c *)", "\t", "\r\n"];
        let (clean, vouched) = Generated {
            lang: Lang::OCaml,
            prefix: "",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 4,
            breaks: &breaks,
            respace: true,
            rounds: 4000,
        }
        .run();
        assert!(
            vouched > 300 && vouched * 10 > clean * 9,
            "{vouched} of {clean}"
        );
    }

    /// The reader vouches for nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: menhir and ocaml-re), or the first
    /// index is slow again; `fast_check` compares what it reads with whole parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("ocaml", &["ml"], 200, 1, |src| parse(src).is_some());
    }
}
