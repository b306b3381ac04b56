//! TypeScript, TSX and JavaScript declarations read straight off the brace lexer's
//! tokens, without a syntax tree: what the walker takes from tree-sitter's tree for
//! these languages (`symbols::script`), for the files this reader can vouch for.
//!
//! The walker reads the statements of the file, of namespaces and of bare blocks:
//! functions (and overload signatures), classes, interfaces, enums, type aliases,
//! namespaces and modules, and each name of a `const`/`let`/`var` declaration (a
//! function where its value is one), with the `export`, `export default` and
//! `declare` before them in their range; and the members of classes (methods,
//! fields), interfaces (methods, properties) and enums. The tokens come from the
//! skeleton lexer ([`skeleton_brace::Lexer`]: strings, templates, comments, regular
//! expressions told from division); bodies, values and types are skipped by matching
//! delimiters. A statement ends at a `;`, at the `}` of its block, or at a line
//! break where tree-sitter's scanner inserts a semicolon (the previous token may
//! end an expression and the next one may not continue it).
//!
//! Whatever it cannot vouch for makes the reader decline and the skeleton parse
//! answer: a file the lexer cannot follow (JSX, a `/` it cannot tell), a decorator,
//! a shape it does not expect (a declaration keyword without its name or body, an
//! unbalanced delimiter, a `<` it cannot tell from a comparison before a `,` that
//! would split declarators). The test over real code (`fast_check`) compares its
//! symbols with whole parses.

use std::{collections::VecDeque, ops::Range};

use crate::SymbolKind as K;

use super::{
    rust_items::Decl,
    skeleton_brace::{Dialect, Lexer, Tok},
};

/// Namespaces nested deeper than this decline (the walker stops at its own depth
/// limit; no real file comes near).
const MAX_NESTING: u32 = 32;

/// The declarations of a TypeScript (`ts`), TSX or JavaScript file in `dialect`, or
/// `None` where this reader cannot vouch for the answer.
pub(super) fn parse(dialect: Dialect, ts: bool, src: &[u8]) -> Option<Vec<Decl>> {
    let mut r = Reader {
        lex: Lexer::new(src, dialect),
        src,
        ts,
        ahead: VecDeque::new(),
        taken: 0,
        nesting: 0,
    };
    let mut out = Vec::new();
    r.statements(&mut out, false)?;
    Some(out)
}

/// One token with where it is.
#[derive(Clone, Copy, Debug)]
struct T {
    tok: Tok,
    start: usize,
    end: usize,
    /// A line break comes before it.
    nl: bool,
}

impl T {
    fn is(&self, punct: u8) -> bool {
        self.tok == Tok::Punct(punct)
    }

    fn opens(&self, b: u8) -> bool {
        matches!(self.tok, Tok::Open(o, _) if o == b)
    }
}

/// What a run of tokens is, for where it ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A statement: to a `;`, the enclosing `}` or an inserted semicolon.
    Statement,
    /// A value (an initializer): also to a `,` at its top level.
    Value,
    /// A type: also to a `,` or `=` outside its `<…>`.
    Type,
    /// A type alias's value: a type to a `;`, the enclosing `}` or an inserted
    /// semicolon.
    Alias,
}

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    /// TypeScript syntax (declarations JavaScript has not).
    ts: bool,
    ahead: VecDeque<T>,
    /// Where the token taken last ends.
    taken: usize,
    nesting: u32,
}

impl<'a> Reader<'a> {
    /// The next token from the lexer, a template with its `${…}` as one literal;
    /// `Some(None)` at the end, `None` where the lexer cannot follow the text.
    fn pull(&mut self) -> Option<Option<T>> {
        let Some(tok) = self.lex.next() else {
            return (!self.lex.is_confused()).then_some(None);
        };
        let start = match tok {
            Tok::Word(s, _) | Tok::Open(_, s) => s,
            _ => self.lex.start,
        };
        let nl = self.lex.newline;
        if tok == Tok::Interpolation {
            while self.lex.in_template() {
                self.lex.next()?;
            }
            let end = self.lex.cur.at;
            return Some(Some(T {
                tok: Tok::Literal,
                start,
                end,
                nl,
            }));
        }
        Some(Some(T {
            tok,
            start,
            end: self.lex.cur.at,
            nl,
        }))
    }

    fn next(&mut self) -> Option<Option<T>> {
        let t = match self.ahead.pop_front() {
            Some(t) => Some(t),
            None => self.pull()?,
        };
        if let Some(t) = t {
            self.taken = t.end;
        }
        Some(t)
    }

    /// The token `n` ahead (0: the next), not taken.
    fn peek_at(&mut self, n: usize) -> Option<Option<T>> {
        while self.ahead.len() <= n {
            match self.pull()? {
                Some(t) => self.ahead.push_back(t),
                None => return Some(None),
            }
        }
        Some(self.ahead.get(n).copied())
    }

    fn peek(&mut self) -> Option<Option<T>> {
        self.peek_at(0)
    }

    /// Takes the next token if `pred` holds for it.
    fn take_if(&mut self, pred: impl Fn(&Self, T) -> bool) -> Option<Option<T>> {
        match self.peek()? {
            Some(t) if pred(self, t) => self.next(),
            _ => Some(None),
        }
    }

    fn word(&self, t: T) -> Option<&'a [u8]> {
        self.lex.word(t.tok)
    }

    fn is_word(&self, t: Option<T>, w: &[u8]) -> bool {
        t.and_then(|t| self.word(t)) == Some(w)
    }

    /// Whether the next token is the word `w` (not taken).
    fn next_is(&mut self, w: &[u8]) -> Option<bool> {
        let t = self.peek()?;
        Some(self.is_word(t, w))
    }

    /// Past the closer of the delimiter `open` (taken); where it ends.
    fn close(&mut self, open: T) -> Option<usize> {
        debug_assert!(matches!(open.tok, Tok::Open(..)));
        let mut depth = 1u32;
        loop {
            let t = self.next()??;
            match t.tok {
                Tok::Open(..) => depth += 1,
                Tok::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(t.end);
                    }
                }
                _ => {}
            }
        }
    }

    /// Takes `<…>` (type parameters) if next; `None` where it does not close.
    fn angles(&mut self) -> Option<()> {
        if !self.peek()?.is_some_and(|t| t.is(b'<')) {
            return Some(());
        }
        let mut angle = 0u32;
        loop {
            let t = self.next()??;
            match t.tok {
                Tok::Open(..) => {
                    self.close(t)?;
                }
                Tok::Close(_) => return None,
                Tok::Punct(b'<') => angle += 1,
                Tok::Punct(b'>') => {
                    angle -= 1;
                    if angle == 0 {
                        return Some(());
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the `<` next opens type arguments (TypeScript): a balanced `<…>` of
    /// what a type is made of, followed by `(` or a template (a call, as TypeScript
    /// decides `f<A, B>(x)`) or by a line break and what cannot continue an
    /// expression (an instantiation expression).
    fn type_arguments_next(&mut self) -> Option<bool> {
        if !self.ts {
            return Some(false);
        }
        let (mut angle, mut depth) = (0u32, 0u32);
        // Bounded for a comparison followed by a long run of words and commas; the
        // type arguments of a curried signature (`dual<…>(…)` in effect) run to a
        // few hundred tokens.
        for i in 0..4096 {
            let Some(t) = self.peek_at(i)? else {
                return Some(false);
            };
            match t.tok {
                Tok::Punct(b'<') if depth == 0 => angle += 1,
                Tok::Punct(b'>') if depth == 0 => {
                    angle -= 1;
                    if angle == 0 {
                        let after = self.peek_at(i + 1)?;
                        // `>` then `=>` is no comparison: the return type of an
                        // arrow function (`(x): x is A<B, C> => …`). Nor is `>` at a
                        // line's end before what cannot continue an expression: an
                        // instantiation expression (`f<S>`, TypeScript 4.7) that a
                        // semicolon ends there, as in effect's
                        // `… as Uppercase<S>\n\nexport const …`.
                        return Some(after.is_some_and(|a| {
                            a.opens(b'(')
                                || a.tok == Tok::Joint(b'=')
                                || (a.tok == Tok::Literal && self.src[a.start] == b'`')
                                || self.breaks_before(a, false)
                        }));
                    }
                }
                Tok::Open(..) => depth += 1,
                Tok::Close(_) | Tok::Punct(b';') if depth == 0 => return Some(false),
                Tok::Close(_) => depth -= 1,
                Tok::Word(..) | Tok::Literal | Tok::Joint(b'=') => {}
                Tok::Punct(b'.' | b',' | b'|' | b'&' | b'?' | b':' | b';') => {}
                // Inside a delimiter: a parameter's or member's own type arguments.
                Tok::Punct(b'<' | b'>') => {}
                _ => return Some(false),
            }
        }
        Some(false)
    }

    /// Whether a statement may end after `last`: an automatic semicolon is valid
    /// there. In a type (`types`), a word ends it unless it is a type operator.
    fn ends(&self, last: T, types: bool) -> bool {
        match last.tok {
            Tok::Literal | Tok::Close(_) => true,
            // A property's name is no operator: `core.as` ends as `core.x` does.
            Tok::Word(..) if self.after_dot(last) => true,
            Tok::Word(..) if types => !matches!(
                self.word(last),
                Some(
                    b"keyof"
                        | b"typeof"
                        | b"infer"
                        | b"is"
                        | b"extends"
                        | b"readonly"
                        | b"unique"
                        | b"asserts"
                        | b"new"
                )
            ),
            Tok::Word(..) => !matches!(
                self.word(last),
                Some(
                    b"typeof"
                        | b"instanceof"
                        | b"in"
                        | b"of"
                        | b"new"
                        | b"delete"
                        | b"void"
                        | b"await"
                        | b"extends"
                        | b"keyof"
                        | b"as"
                        | b"is"
                        | b"satisfies"
                        | b"infer"
                        | b"readonly"
                        | b"unique"
                        | b"asserts"
                        | b"else"
                        | b"case"
                )
            ),
            _ => false,
        }
    }

    /// Whether `t` follows a `.` (a member's name, `?.` and `...` included).
    fn after_dot(&self, t: T) -> bool {
        self.src[..t.start]
            .iter()
            .rev()
            .find(|b| !b.is_ascii_whitespace())
            == Some(&b'.')
    }

    /// Whether tree-sitter's scanner inserts a semicolon before `next`: a line
    /// break before it, and a first character that cannot continue an expression
    /// (in a type, `types`, a `(` or `[` starts the next member).
    fn breaks_before(&self, next: T, types: bool) -> bool {
        if !next.nl {
            return false;
        }
        match next.tok {
            Tok::Punct(b'!') => self.src.get(next.start + 1) != Some(&b'='),
            Tok::Punct(c) => !b",.:;*%><=?^|&/+-".contains(&c),
            Tok::Open(b'(' | b'[', _) => types,
            Tok::Joint(_) => false,
            Tok::Word(..) => !matches!(self.word(next), Some(b"in" | b"instanceof")),
            // A template after a line break is a tagged template.
            Tok::Literal => self.src[next.start] != b'`',
            _ => true,
        }
    }

    /// Takes the tokens of a run in `mode` after `last` (taken) up to where it
    /// ends, before a `;`, a closer of the enclosing delimiter, a `,` (values and
    /// types) or `=` (types) at its top level, or an inserted semicolon; where its
    /// last token ends.
    fn rest(&mut self, mut last: T, mode: Mode) -> Option<usize> {
        let types = matches!(mode, Mode::Type | Mode::Alias);
        let mut angle = 0u32;
        let mut compared = false;
        let mut function = FunctionHead::default();
        if let Tok::Open(..) = last.tok {
            self.close(last)?;
            last.tok = Tok::Close(0);
        }
        loop {
            let Some(t) = self.peek()? else {
                return Some(self.taken);
            };
            let stop = match t.tok {
                Tok::Close(_) | Tok::Punct(b';') => true,
                Tok::Punct(b',') if mode == Mode::Value && compared => return None,
                Tok::Punct(b',') => mode != Mode::Statement && angle == 0,
                Tok::Punct(b'=') => mode == Mode::Type && angle == 0,
                _ => !function.params && self.breaks_before(t, types) && self.ends(last, types),
            };
            if stop {
                return Some(self.taken);
            }
            if mode == Mode::Value && t.is(b'<') && self.type_arguments_next()? {
                self.angles()?;
                last.tok = Tok::Close(0);
                continue;
            }
            self.next()?;
            function.took(self, t);
            last = t;
            match t.tok {
                Tok::Open(..) => {
                    self.close(t)?;
                    last.tok = Tok::Close(0);
                }
                // Only TypeScript has type arguments: in JavaScript a `<` is a
                // comparison or a shift, and a `,` after it ends the declarator.
                Tok::Punct(b'<') if self.ts => {
                    angle += 1;
                    compared = true;
                }
                Tok::Punct(b'>') if angle > 0 => {
                    angle -= 1;
                    if angle == 0 && types {
                        // A closed `<…>` ends a type as a name does.
                        last.tok = Tok::Close(0);
                    }
                }
                _ => {}
            }
        }
    }

    /// Takes a `;` if next; where the declaration ends then.
    fn semicolon(&mut self) -> Option<usize> {
        self.take_if(|_, t| t.is(b';'))?;
        Some(self.taken)
    }

    /// The statements up to the end of the file, or of the block whose `{` was
    /// taken (`in_block`); their declarations into `out`. Where the block ends.
    fn statements(&mut self, out: &mut Vec<Decl>, in_block: bool) -> Option<usize> {
        loop {
            let Some(t) = self.peek()? else {
                return (!in_block).then_some(self.src.len());
            };
            match t.tok {
                Tok::Close(b'}') if in_block => {
                    self.next()?;
                    return Some(t.end);
                }
                Tok::Close(_) => return None,
                Tok::Punct(b';') => {
                    self.next()?;
                }
                Tok::Punct(b'@') => return None,
                _ => {
                    let first = self.next()??;
                    self.statement(first, out)?;
                }
            }
        }
    }

    /// The statement starting at `first` (taken).
    fn statement(&mut self, first: T, out: &mut Vec<Decl>) -> Option<()> {
        let start = first.start;
        match self.word(first) {
            Some(b"export") => {
                let next = self.peek()?;
                if self.is_word(next, b"default") {
                    self.next()?;
                    let t = self.next()??;
                    return match self.word(t) {
                        Some(b"function" | b"async" | b"class" | b"abstract") => {
                            self.declaration(t, start, out)
                        }
                        _ => self.rest(t, Mode::Statement).map(drop),
                    };
                }
                let declares = match next.and_then(|n| self.word(n)) {
                    Some(b"type") => self.peek_at(1)?.is_some_and(|t| self.word(t).is_some()),
                    Some(b"import" | b"as") => false,
                    Some(_) => true,
                    None => false,
                };
                let t = self.next()??;
                if declares {
                    self.declaration(t, start, out)
                } else {
                    self.rest(t, Mode::Statement).map(drop)
                }
            }
            Some(b"import") => self.rest(first, Mode::Statement).map(drop),
            _ if first.opens(b'{') => {
                // A bare block: the walker reads its statements.
                self.nested(|r| r.statements(out, true)).map(drop)
            }
            _ => self.declaration(first, start, out),
        }
    }

    /// Runs `f` one namespace or block deeper.
    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> Option<R>) -> Option<R> {
        if self.nesting >= MAX_NESTING {
            return None;
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    /// The declaration whose first keyword (past `export`) is `first` (taken), its
    /// range starting at `start`; any other statement is skipped.
    fn declaration(&mut self, mut first: T, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let same_line_word = |r: &mut Self| -> Option<bool> {
            Some(
                r.peek()?
                    .is_some_and(|t| !t.nl && matches!(t.tok, Tok::Word(..))),
            )
        };
        if self.ts && self.is_word(Some(first), b"declare") && same_line_word(self)? {
            first = self.next()??;
            if self.is_word(Some(first), b"global") && self.peek()?.is_some_and(|t| t.opens(b'{')) {
                self.next()?;
                return self.nested(|r| r.statements(out, true)).map(drop);
            }
        }
        let next = self.peek()?;
        match self.word(first) {
            Some(b"async") if self.is_word(next, b"function") && !next?.nl => {
                self.next()?;
                self.function(start, out)
            }
            Some(b"function") => self.function(start, out),
            Some(b"class") => self.class(start, out),
            Some(b"abstract") if self.ts && self.is_word(next, b"class") => {
                self.next()?;
                self.class(start, out)
            }
            Some(b"const") if self.ts && self.is_word(next, b"enum") => {
                self.next()?;
                self.enumeration(start, out)
            }
            Some(b"const" | b"var") => self.variables(first, start, out),
            Some(b"let")
                if next.is_some_and(|t| {
                    matches!(t.tok, Tok::Word(..) | Tok::Open(b'[' | b'{', _))
                }) =>
            {
                self.variables(first, start, out)
            }
            Some(b"interface") if self.ts && same_line_word(self)? => self.interface(start, out),
            Some(b"enum") if self.ts && same_line_word(self)? => self.enumeration(start, out),
            Some(b"namespace" | b"module")
                if self.ts
                    && next.is_some_and(|t| {
                        !t.nl
                            && (matches!(t.tok, Tok::Word(..))
                                || (t.tok == Tok::Literal
                                    && matches!(self.src[t.start], b'"' | b'\'')))
                    }) =>
            {
                self.module(start, out)
            }
            Some(b"type")
                if self.ts
                    && same_line_word(self)?
                    && self.peek_at(1)?.is_some_and(|t| t.is(b'=') || t.is(b'<')) =>
            {
                self.alias(start, out)
            }
            _ => self.skip_statement(first),
        }
    }

    /// A statement that declares nothing the walker reads, `first` taken. Control
    /// statements are followed through their parts, so a statement inside one ends
    /// where tree-sitter ends it.
    fn skip_statement(&mut self, first: T) -> Option<()> {
        let next = self.peek()?;
        match self.word(first) {
            Some(b"if" | b"for" | b"while" | b"with") => {
                if self.is_word(next, b"await") {
                    self.next()?;
                }
                let open = self.next()??;
                if !open.opens(b'(') {
                    return None;
                }
                self.close(open)?;
                self.substatement()?;
                if self.is_word(Some(first), b"if") && self.next_is(b"else")? {
                    self.next()?;
                    self.substatement()?;
                }
                Some(())
            }
            Some(b"switch") => {
                let open = self.next()??;
                if !open.opens(b'(') {
                    return None;
                }
                self.close(open)?;
                self.block()
            }
            Some(b"do") => {
                self.substatement()?;
                if !self.next_is(b"while")? {
                    return None;
                }
                self.next()?;
                let open = self.next()??;
                if !open.opens(b'(') {
                    return None;
                }
                self.close(open)?;
                self.take_if(|_, t| t.is(b';'))?;
                Some(())
            }
            Some(b"try") => {
                self.block()?;
                if self.next_is(b"catch")? {
                    self.next()?;
                    if let Some(open) = self.take_if(|_, t| t.opens(b'('))? {
                        self.close(open)?;
                    }
                    self.block()?;
                }
                if self.next_is(b"finally")? {
                    self.next()?;
                    self.block()?;
                }
                Some(())
            }
            Some(b"function" | b"class") => self.through_block(),
            Some(b"async") if self.is_word(next, b"function") => self.through_block(),
            Some(_) if next.is_some_and(|t| t.is(b':')) => {
                // A label.
                self.next()?;
                self.substatement()
            }
            _ if first.opens(b'{') => self.close(first).map(drop),
            _ => self.rest(first, Mode::Statement).map(drop),
        }
    }

    /// The statement a control statement governs.
    fn substatement(&mut self) -> Option<()> {
        let t = self.next()??;
        match t.tok {
            Tok::Punct(b';') => Some(()),
            _ => self.skip_statement(t),
        }
    }

    /// A `{…}` block, next.
    fn block(&mut self) -> Option<()> {
        let open = self.next()??;
        if !open.opens(b'{') {
            return None;
        }
        self.close(open).map(drop)
    }

    /// Up to and through the first `{…}` (a function or class declaration the
    /// walker does not read).
    fn through_block(&mut self) -> Option<()> {
        loop {
            let t = self.next()??;
            match t.tok {
                Tok::Open(b'{', _) => return self.close(t).map(drop),
                Tok::Open(..) => {
                    self.close(t)?;
                }
                Tok::Close(_) | Tok::Punct(b';') => return None,
                _ => {}
            }
        }
    }

    /// A name, next: its bytes.
    fn name(&mut self) -> Option<Range<usize>> {
        let t = self.next()??;
        self.word(t).map(|_| t.start..t.end)
    }

    /// A return type annotation, if next, up to the body `{` or the end of the
    /// signature (neither taken).
    fn return_type(&mut self) -> Option<()> {
        if !self.peek()?.is_some_and(|t| t.is(b':')) {
            return Some(());
        }
        let mut last = self.next()??;
        let mut angle = 0u32;
        loop {
            let Some(t) = self.peek()? else {
                return Some(());
            };
            let type_ends = angle == 0
                && match last.tok {
                    Tok::Word(..) => self.ends(last, true),
                    Tok::Close(_) | Tok::Literal => true,
                    _ => false,
                };
            match t.tok {
                Tok::Open(b'{', _) if type_ends => return Some(()),
                Tok::Close(_) | Tok::Punct(b';' | b',') if angle == 0 => return Some(()),
                _ if type_ends && self.breaks_before(t, true) => return Some(()),
                _ => {}
            }
            self.next()?;
            last = t;
            match t.tok {
                Tok::Open(..) => {
                    self.close(t)?;
                    last.tok = Tok::Close(0);
                }
                Tok::Punct(b'<') => angle += 1,
                Tok::Punct(b'>') if angle > 0 => {
                    angle -= 1;
                    if angle == 0 {
                        last.tok = Tok::Close(0);
                    }
                }
                _ => {}
            }
        }
    }

    /// A call signature: type parameters, parameters, return type; where the
    /// parameters end.
    fn call_signature(&mut self) -> Option<()> {
        self.angles()?;
        let open = self.next()??;
        if !open.opens(b'(') {
            return None;
        }
        self.close(open)?;
        self.return_type()
    }

    /// After `function`: a declaration, or an overload signature.
    fn function(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        self.take_if(|_, t| t.is(b'*'))?;
        let name = match self.peek()? {
            Some(t) if self.word(t).is_some() => self.name()?,
            // `export default function () {}`: no name, no symbol.
            _ => return self.through_block(),
        };
        self.call_signature()?;
        let (end, sig_end) = match self.peek()? {
            Some(t) if t.opens(b'{') => {
                self.next()?;
                (self.close(t)?, Some(t.start))
            }
            _ if self.ts => (self.semicolon()?, None),
            _ => return None,
        };
        out.push(decl(K::Function, name, start..end, sig_end, Vec::new()));
        Some(())
    }

    /// After `class` (and `abstract`): the class and its members.
    fn class(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let name = match self.peek()? {
            Some(t)
                if self.word(t).is_some()
                    && !matches!(self.word(t), Some(b"extends" | b"implements")) =>
            {
                Some(self.name()?)
            }
            _ => None,
        };
        self.angles()?;
        let open = self.past_heritage()?;
        let (members, end) = self.class_body()?;
        if let Some(name) = name {
            out.push(decl(K::Class, name, start..end, Some(open.start), members));
        }
        Some(())
    }

    /// The members of a class body whose `{` was taken; where it ends.
    fn class_body(&mut self) -> Option<(Vec<Decl>, usize)> {
        let mut members = Vec::new();
        loop {
            let first = self.peek()??;
            match first.tok {
                Tok::Close(b'}') => {
                    self.next()?;
                    return Some((members, first.end));
                }
                Tok::Punct(b';' | b',') => {
                    self.next()?;
                }
                Tok::Punct(b'@') => return None,
                _ => {
                    if let Some(m) = self.class_member()? {
                        members.push(m);
                    }
                }
            }
        }
    }

    /// Takes the modifiers before a member's name.
    fn modifiers(&mut self, allowed: &[&[u8]]) -> Option<()> {
        loop {
            let Some(t) = self.peek()? else {
                return Some(());
            };
            let is_modifier = self.word(t).is_some_and(|w| allowed.contains(&w));
            if !is_modifier {
                return Some(());
            }
            // A modifier only where a name follows it (`get() {}` is a method named
            // `get`); one on a line of its own is left to tree-sitter.
            let Some(after) = self.peek_at(1)? else {
                return Some(());
            };
            let name_follows = matches!(
                after.tok,
                Tok::Word(..) | Tok::Literal | Tok::Open(b'[', _) | Tok::Punct(b'#' | b'*')
            );
            if !name_follows {
                return Some(());
            }
            if after.nl {
                return None;
            }
            self.next()?;
        }
    }

    /// A member's name, next: `x`, `'x'`, `1`, `#x`, `[computed]`.
    fn property_name(&mut self) -> Option<Range<usize>> {
        let t = self.next()??;
        match t.tok {
            Tok::Word(..) | Tok::Literal => Some(t.start..t.end),
            Tok::Punct(b'#') => {
                let w = self.next()??;
                (self.word(w).is_some() && w.start == t.end).then_some(t.start..w.end)
            }
            Tok::Open(b'[', _) => Some(t.start..self.close(t)?),
            _ => None,
        }
    }

    /// Whether the next tokens are an index signature (`[key: T]`).
    fn index_signature_next(&mut self) -> Option<bool> {
        let open = self.peek()?;
        if !open.is_some_and(|t| t.opens(b'[')) {
            return Some(false);
        }
        let key = self.peek_at(1)?;
        let colon = self.peek_at(2)?;
        Some(key.is_some_and(|k| self.word(k).is_some()) && colon.is_some_and(|c| c.is(b':')))
    }

    /// One member of a class body; `None` inside where the reader declines.
    fn class_member(&mut self) -> Option<Option<Decl>> {
        let start = self.peek()??.start;
        let first = self.peek()??;
        if self.is_word(Some(first), b"static") && self.peek_at(1)?.is_some_and(|t| t.opens(b'{')) {
            // A static initialization block.
            self.next()?;
            self.block()?;
            return Some(None);
        }
        self.modifiers(&[
            b"static",
            b"public",
            b"private",
            b"protected",
            b"readonly",
            b"abstract",
            b"override",
            b"declare",
            b"async",
            b"get",
            b"set",
            b"accessor",
        ])?;
        self.take_if(|_, t| t.is(b'*'))?;
        if self.ts && self.index_signature_next()? {
            let open = self.next()??;
            self.rest(open, Mode::Type)?;
            return Some(None);
        }
        let name = self.property_name()?;
        self.take_if(|_, t| t.is(b'?') || t.is(b'!'))?;
        let next = self.peek()??;
        if next.opens(b'(') || next.is(b'<') {
            self.call_signature()?;
            let kind = if &self.src[name.clone()] == b"constructor" {
                K::Constructor
            } else {
                K::Method
            };
            return Some(Some(match self.peek()? {
                Some(body) if body.opens(b'{') => {
                    self.next()?;
                    let end = self.close(body)?;
                    decl(kind, name, start..end, Some(body.start), Vec::new())
                }
                _ if self.ts => decl(kind, name, start..self.taken, None, Vec::new()),
                _ => return None,
            }));
        }
        if next.is(b':') {
            let colon = self.next()??;
            self.rest(colon, Mode::Type)?;
        }
        let mut sig_end = None;
        if self.peek()?.is_some_and(|t| t.is(b'=')) {
            self.next()?;
            let value = self.next()??;
            sig_end = Some(value.start);
            self.rest(value, Mode::Value)?;
        }
        Some(Some(decl(
            K::Field,
            name,
            start..self.taken,
            sig_end,
            Vec::new(),
        )))
    }

    /// Past a class's or interface's heritage (`extends …`, `implements …`, their type
    /// arguments) to the `{` of its body.
    fn past_heritage(&mut self) -> Option<T> {
        let mut angle = 0u32;
        loop {
            let t = self.next()??;
            match t.tok {
                Tok::Open(b'{', _) if angle == 0 => return Some(t),
                Tok::Open(..) => {
                    self.close(t)?;
                }
                Tok::Close(_) | Tok::Punct(b';') => return None,
                Tok::Punct(b'<') => angle += 1,
                Tok::Punct(b'>') => angle = angle.checked_sub(1)?,
                _ => {}
            }
        }
    }

    /// After `interface`: the interface and its members.
    fn interface(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let name = self.name()?;
        self.angles()?;
        let open = self.past_heritage()?;
        let mut members = Vec::new();
        let end = loop {
            let first = self.peek()??;
            match first.tok {
                Tok::Close(b'}') => {
                    self.next()?;
                    break first.end;
                }
                Tok::Punct(b';' | b',') => {
                    self.next()?;
                    continue;
                }
                _ => {}
            }
            let start = first.start;
            self.modifiers(&[b"readonly"])?;
            let t = self.peek()??;
            let signature_only = t.opens(b'(')
                || t.is(b'<')
                || self.is_word(Some(t), b"new")
                    && self
                        .peek_at(1)?
                        .is_some_and(|n| n.opens(b'(') || n.is(b'<'));
            if signature_only {
                // A call or construct signature: no symbol.
                self.take_if(|r, t| r.is_word(Some(t), b"new"))?;
                self.call_signature()?;
                continue;
            }
            if self.index_signature_next()? {
                let t = self.next()??;
                self.rest(t, Mode::Type)?;
                continue;
            }
            // An accessor signature (`get size(): number`) is a method signature to
            // tree-sitter, named by what follows the `get`/`set`.
            let accessor = matches!(self.word(t), Some(b"get" | b"set"));
            self.modifiers(&[b"get", b"set"])?;
            let name = self.property_name()?;
            self.take_if(|_, t| t.is(b'?'))?;
            let next = self.peek()??;
            let kind = if next.opens(b'(') || next.is(b'<') {
                self.call_signature()?;
                K::Method
            } else if accessor && start != name.start {
                return None;
            } else {
                if next.is(b':') {
                    let colon = self.next()??;
                    self.rest(colon, Mode::Type)?;
                }
                K::Property
            };
            members.push(decl(kind, name, start..self.taken, None, Vec::new()));
        };
        out.push(decl(
            K::Interface,
            name,
            start..end,
            Some(open.start),
            members,
        ));
        Some(())
    }

    /// After `enum` (and `const`): the enum and its members.
    fn enumeration(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let name = self.name()?;
        let open = self.next()??;
        if !open.opens(b'{') {
            return None;
        }
        let mut members = Vec::new();
        let end = loop {
            let t = self.next()??;
            match t.tok {
                Tok::Close(b'}') => break t.end,
                Tok::Punct(b',') => continue,
                Tok::Word(..) | Tok::Literal => {}
                _ => return None,
            }
            let bare = matches!(t.tok, Tok::Word(..));
            if self.peek()?.is_some_and(|n| n.is(b'=')) {
                let eq = self.next()??;
                let end = self.rest(eq, Mode::Value)?;
                members.push(decl(
                    K::EnumMember,
                    t.start..t.end,
                    t.start..end,
                    None,
                    Vec::new(),
                ));
            } else if bare {
                members.push(decl(
                    K::EnumMember,
                    t.start..t.end,
                    t.start..t.end,
                    None,
                    Vec::new(),
                ));
            }
        };
        out.push(decl(K::Enum, name, start..end, Some(open.start), members));
        Some(())
    }

    /// After `namespace` or `module`: the namespace and its declarations.
    fn module(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let first = self.next()??;
        let mut name = first.start..first.end;
        if self.word(first).is_some() {
            while self.peek()?.is_some_and(|t| t.is(b'.')) {
                self.next()?;
                name.end = self.name()?.end;
            }
        }
        match self.peek()? {
            Some(open) if open.opens(b'{') => {
                self.next()?;
                let mut members = Vec::new();
                let end = self.nested(|r| r.statements(&mut members, true))?;
                out.push(decl(K::Module, name, start..end, Some(open.start), members));
            }
            _ => {
                let end = name.end;
                out.push(decl(K::Module, name, start..end, None, Vec::new()));
            }
        }
        Some(())
    }

    /// After `type`: a type alias.
    fn alias(&mut self, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let name = self.name()?;
        self.angles()?;
        if !self.next()?.is_some_and(|t| t.is(b'=')) {
            return None;
        }
        let value = self.next()??;
        self.rest(value, Mode::Alias)?;
        let end = self.semicolon()?;
        out.push(decl(
            K::TypeAlias,
            name,
            start..end,
            Some(value.start),
            Vec::new(),
        ));
        Some(())
    }

    /// After `const`, `let` or `var` (`keyword`): each name it declares.
    fn variables(&mut self, keyword: T, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let constant = self.word(keyword) == Some(b"const");
        // Each declarator: its name (a pattern has none), where it starts and ends,
        // and its value's (whether a function, where the signature ends).
        let mut declarators = Vec::new();
        loop {
            let t = self.next()??;
            let name = match t.tok {
                Tok::Word(..) => Some(t.start..t.end),
                Tok::Open(b'[' | b'{', _) => {
                    self.close(t)?;
                    None
                }
                _ => return None,
            };
            self.take_if(|_, t| t.is(b'!'))?;
            if self.peek()?.is_some_and(|t| t.is(b':')) {
                let colon = self.next()??;
                self.rest(colon, Mode::Type)?;
            }
            let mut value = None;
            if self.peek()?.is_some_and(|t| t.is(b'=')) {
                self.next()?;
                let first = self.next()??;
                value = Some(self.value(first)?);
            }
            declarators.push((name, t.start, self.taken, value));
            if self.take_if(|_, t| t.is(b','))?.is_none() {
                break;
            }
        }
        let end = self.semicolon()?;
        let shared = declarators.len() > 1;
        let first = declarators.first().map_or(start, |d| d.1);
        for (name, own_start, own_end, value) in declarators {
            let Some(name) = name else { continue };
            let kind = match value {
                Some((true, _)) => K::Function,
                _ if constant => K::Constant,
                _ => K::Variable,
            };
            let sig_end = value.map(|(_, s)| s);
            let mut d = decl(kind, name, start..end, sig_end, Vec::new());
            if shared {
                // The walker's signature for one of several names: the
                // declaration's head, then this declarator up to its value.
                d.sig_end = Some(sig_end.unwrap_or(own_end).max(own_start));
                d.head = Some(start..first);
            }
            out.push(d);
        }
        Some(())
    }

    /// A variable's value starting at `first` (taken), up to its end (a `,` or
    /// `;` after it is not taken): whether it is a function (`function … {…}`
    /// alone, or an arrow function: `x =>`, `(…) =>`, `(…): T =>`, maybe `async`),
    /// and where its signature ends (the function's body, else the value's start).
    fn value(&mut self, first: T) -> Option<(bool, usize)> {
        let mut t = first;
        if self.is_word(Some(t), b"async") {
            let next = self.peek()??;
            if !next.nl && (self.word(next).is_some() || next.opens(b'(')) {
                t = self.next()??;
            }
        }
        if t.is(b'<') {
            // A generic arrow function's type parameters (`.ts`: in `.tsx` and
            // JavaScript the lexer reads this `<` as JSX and gives up); a type
            // assertion is left to tree-sitter.
            self.ahead.push_front(t);
            self.angles()?;
            t = self.next()??;
            if !t.opens(b'(') {
                return None;
            }
        }
        let function = self.is_word(Some(t), b"function");
        let mut arrow = t.opens(b'(') || (self.word(t).is_some() && !function);
        let mut typed = false;
        let mut last = t;
        if let Tok::Open(..) = t.tok {
            self.close(t)?;
            last.tok = Tok::Close(0);
        }
        let mut after = 0;
        let mut compared = false;
        let mut head = FunctionHead::default();
        head.took(self, t);
        while let Some(n) = self.peek()? {
            let stop = match n.tok {
                Tok::Close(_) | Tok::Punct(b';') => true,
                Tok::Punct(b',') if compared => return None,
                Tok::Punct(b',') => true,
                _ => !head.params && self.breaks_before(n, false) && self.ends(last, false),
            };
            if stop {
                break;
            }
            if n.is(b'<') && ((arrow && typed) || self.type_arguments_next()?) {
                // A return type's `<…>`, or a generic call's type arguments.
                self.angles()?;
                after += 1;
                last.tok = Tok::Close(0);
                continue;
            }
            self.next()?;
            head.took(self, n);
            after += 1;
            // In a return type, a `=>` right after a `(…)` is a function type's.
            let type_arrow = typed && after > 1 && last.tok == Tok::Close(b'(');
            if arrow && !type_arrow {
                if n.tok == Tok::Joint(b'=') {
                    let body = self.peek()??;
                    self.rest(n, Mode::Value)?;
                    return Some((true, body.start));
                }
                if after == 1 && n.is(b':') && t.opens(b'(') {
                    typed = true;
                }
                arrow = typed;
            }
            if n.is(b'<') && self.ts {
                compared = true;
            }
            last = n;
            if let Tok::Open(o, _) = n.tok {
                self.close(n)?;
                last.tok = Tok::Close(o);
                if function && o == b'{' {
                    // The function expression is the whole value only where it ends
                    // here (not `function () {}.call(this)`).
                    let ends = match self.peek()? {
                        None => true,
                        Some(a) => {
                            matches!(a.tok, Tok::Close(_) | Tok::Punct(b';' | b','))
                                || self.breaks_before(a, false)
                        }
                    };
                    if ends {
                        return Some((true, n.start));
                    }
                }
            }
        }
        Some((false, first.start))
    }
}

/// Where a `function` expression's parameters end, which no inserted semicolon
/// follows: its body may start on the next line (`f = function (a)\n{ … }`).
#[derive(Default)]
struct FunctionHead {
    /// Past the word `function` (and its name or `*`), before its parameters.
    head: bool,
    /// The parameters' `(…)` was the token taken last: the body may follow.
    params: bool,
}

impl FunctionHead {
    /// Notes the token `t`, just taken (a `(` is closed right after).
    fn took(&mut self, r: &Reader<'_>, t: T) {
        self.params = self.head && t.opens(b'(');
        if self.params {
            self.head = false;
        } else if r.is_word(Some(t), b"function") && !r.after_dot(t) {
            self.head = true;
        }
    }
}

fn decl(
    kind: K,
    name: Range<usize>,
    bytes: Range<usize>,
    sig_end: Option<usize>,
    members: Vec<Decl>,
) -> Decl {
    Decl {
        kind,
        core: bytes.start,
        name,
        bytes,
        sig_end,
        members,
        impl_of: None,
        qualifier: None,
        head: None,
    }
}

#[cfg(test)]
mod tests {
    use super::Decl;
    use crate::{
        Lang,
        fast_check::outline,
        symbols::{Parse, extract_with},
    };

    /// The reader as `lang` registers it (`languages/script.rs`).
    fn parse(lang: Lang, src: &[u8]) -> Option<Vec<Decl>> {
        (lang.language().declarations.unwrap().read)(src)
    }

    /// The shapes the reader vouches for give exactly the whole parse's symbols.
    #[test]
    fn declarations_read_off_tokens_are_the_whole_parses() {
        let ts = r#"#!/usr/bin/env node
import a, { b } from "a";
import x = require("x");
export * from "y";
export { b as c };
export type { T } from "t";
/** Doc. */
export declare const version: string;
var one = require('one'),
    /* two */ two = function (a) { return a; },
    [three] = t, four;
let counter = 0
const re = /a{2}\//g, half = 4 / 2
export const handler = async (req: Request): Promise<void> => { const inner = 1; };
export const iife = function () { return 1; }.call(this);
export const arrow = (a: number, b: Map<string, number>) => a
export const generic = <A, B>(a: A, b: B): Map<A, B> => new Map<A, B>(), after = 1;
export const tag = Context.GenericTag<A, { b: B }>("x"), tagged = 1
export const upper = <S extends string>(self: S): Uppercase<S> => self as Uppercase<S>

export const instantiated = make<S>
const lower = f<S>
(x)
const compared = d < e > f
export function over(a: string): void;
export function over(a: number): void
export function over(a: any) { return `${a}${`${a}`}`; }
function* gen() { yield 1; }
if (x) function inIf() {} else { function inElse() {} }
label: for (;;) { break label; }
do { } while (x)
try { } catch { } finally { }
{ function inBlock() {} }
export default class extends Base {}
export abstract class Shape<T extends { a: 1 }> extends Base<{ b: 2 }> implements I, J {
  static #count = 0;
  private readonly name?: string
  declare value: T;
  [key: string]: unknown;
  static { Shape.#count++; }
  abstract area(): number;
  constructor(private r = { x: 1 }) { super(); }
  get size(): { w: number } { return { w: 1 }; }
  set size(v) {}
  static async *[Symbol.iterator]() {}
  'quoted'() {}
  handle = (e: Event) => { this.x = e; };
  get = 1;
  over(): void
  over(a?: string): void {}
}
export interface Props<T = string> extends A<T>, B {
  (call: number): string;
  new (x: number): Props;
  [key: string]: any;
  readonly id: number,
  name?: string
  method<U>(u: U): T;
  nested: { deep: string };
  union:
    | "a"
    | "b";
}
export const enum Color { Red, Green = "g", "Blue", 'Quoted' = 4 }
export type Id<T> = T extends string ? { s: T } : never
type Fn = (a: number) => void;
declare module "m" { export function inModule(): void; }
declare module "bare";
declare global { interface Window { app: string } }
export namespace Outer.Inner { export const x = 1; namespace Deep { class C {} } }
module Legacy { }
export interface Sym {
  readonly [TypeId]: TypeId;
  [symbol](that: Sym): boolean;
  <T>(u: string): T
  new <T>(x: T): Sym;
  get: () => void
  toJSON(): unknown
  [NodeInspectSymbol](): unknown
}
export const pretty = (s: S): (a: A) => string => (a) => s, thunk = (): () => void => f
export interface Fiber<A> extends Effect<A>, Fiber.Variance<A> {
  get currentOpCount(): number
  set label(v: string)
  get [Symbol.toStringTag](): string
  get(): void
}
export const as = core.as
export const asSome: <A, E>(self: E<A, E>) => E<Option.Option<A>, E> = effect.asSome
export const dual2 = dual<
  <A2>(a: A2) => <A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z>(self: Sink.Sink<A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z>) => Sink.Sink<A2, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z>,
  <A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z, A2>(self: Sink.Sink<A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z>, a: A2) => Sink.Sink<A2, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z>
>(2, (self, a) => map(self, () => a)), after2 = 1
const guard = <T extends AST["_tag"]>(tag: T) => (ast: AST): ast is Extract<AST, { _tag: T }> =>
  ast._tag === tag, guard2 = 2
module.exports = { a };
"#;
        let js = r#"'use strict';
var _ = require('./lodash'),
    isObject = require('./isObject');

/** Doc. */
function baseX(value) {
  return isObject(value) ? value / 2 : /x/.test(value);
}
const arrow = x => x * 2, other = (a, b) => { return a + b; };
class Mask{set(e){this.mask=1<<e}enable(e){this.mask|=1<<e>>>0}}var shifted=a<<b,more=(c<<2)+1;
execComponent = function(glyph, state)
{
    var points = glyph.points || [];
};
var encode = function named(rgba)
{
	var idf = { "t256": [1] };
}, after = function* () {}
var lt = a < b, gt = c > d;
class Counter extends Base {
  static count = 0;
  #secret = 1
  constructor() { super(); }
  *gen() {}
  static method() {}
}
let f = function named() {}
;(function () { var local = 1; }.call(this));
module.exports = baseX;
"#;
        // In TSX a `<` starting an expression is JSX: the lexer gives up there.
        let generic = "export const generic = <A, B>";
        let curried = &ts[ts.find("export const dual2").unwrap()..ts.find("const guard").unwrap()];
        let tsx = ts
            .replace(generic, "export const generic = ")
            .replace("<S extends string>(self: S)", "(self: S)")
            .replace(curried, "")
            .replace(r#"<T extends AST["_tag"]>(tag"#, "(tag")
            .replace("asSome: <A, E>(self", "asSome: (self")
            .replace("<T>(", "(");
        for (lang, src) in [
            (Lang::TypeScript, ts),
            (Lang::Tsx, &tsx),
            (Lang::JavaScript, js),
        ] {
            assert!(parse(lang, src.as_bytes()).is_some(), "{lang:?} declined");
            let whole = extract_with(lang, src.as_bytes(), Parse::Whole);
            assert_eq!(whole.syntax_error, None, "{lang:?}");
            assert!(whole.count > 10, "{lang:?}: {}", whole.count);
            let read = extract_with(lang, src.as_bytes(), Parse::Declarations);
            assert_same(&outline(&whole), &outline(&read), lang);
        }
    }

    fn assert_same(whole: &str, read: &str, lang: Lang) {
        let first = whole
            .lines()
            .zip(read.lines().chain(std::iter::repeat("(none)")))
            .find(|(w, r)| w != r);
        assert_eq!(whole, read, "{lang:?}: first difference {first:?}");
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for (lang, src) in [
            (Lang::TypeScript, "@Component() class A {}"),
            (Lang::TypeScript, "class A { @Input() x = 1; }"),
            (Lang::Tsx, "const A = () => <div>{'}'}</div>;"),
            (Lang::JavaScript, "function f() { return <a/>; }"),
            (Lang::TypeScript, "const f = <T>x, g = 1;"),
            (Lang::TypeScript, "const a = b < c, d = e > f;"),
            (Lang::TypeScript, "function f() { return 'x\n'; }"),
            (Lang::TypeScript, "class A { m() { }"),
            (Lang::TypeScript, "function f( { }"),
            (Lang::TypeScript, "class A { static\n x() {} }"),
        ] {
            assert!(parse(lang, src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(Lang::TypeScript, b"").is_some_and(|d| d.is_empty()));
    }
}
