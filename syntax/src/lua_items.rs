//! Lua declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter-lua's tree (`languages/lua.rs`), for the files this
//! reader can vouch for.
//!
//! The walker reads the statements of the file and of the `do … end` blocks and
//! `if` branches among them, at any depth; so does this reader, statement by
//! statement, with enough of Lua's expression grammar to know where each statement
//! ends (Lua has no terminators: `x = a` then `(f)()` on the next line is one call).
//! The symbols are `function a.b:m`, `local function f`, and `local f = function
//! … end` / `a.b.f = function … end` where one name is assigned one function and
//! nothing more (`function () end or g` is no symbol). Everything the walker does
//! not enter (function bodies, loops, table constructors, bracketed expressions) is
//! skipped by the skeleton lexer's matching of delimiters and blocks
//! ([`skeleton_lua::Lexer`]: its strings, long brackets and comments too). A token
//! where the grammar has none (a statement that is neither an assignment nor a call,
//! text after `return`), a block that does not close, a keyword where tree-sitter
//! takes it for a name (`local function end`; in parameters the reader does too),
//! Lua 5.5's global declarations but `global function f`, `global` alone as a
//! variable (no node the walker counts), a declaration's table path with invalid
//! UTF-8, a name with a character tree-sitter reads as space or
//! control, and do/if nesting deeper than [`MAX_DEPTH`] make the reader decline,
//! and the skeleton parse answers. The test over real Lua code
//! (`fast_check`) compares its symbols with whole parses.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    lex::Delimited,
    rust_items::Decl,
    skeleton_lua::{DO, FUNCTION, IF, Lexer, REPEAT, Tok},
};

/// The declarations of a Lua file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut lex = Lexer::new(src);
    // Comments are for skeletons: none recorded, nothing allocated for them.
    lex.cur.record = false;
    let mut r = Reader {
        lex,
        src,
        peeked: None,
        out: Vec::new(),
        depth: 0,
    };
    match r.block()?.kind {
        Kind::Eof => Some(r.out),
        _ => None,
    }
}

/// Nested `do` and `if` blocks walked, at most: the walker stops at 64 containers,
/// and each level here is two or three of them (`if_statement`, `else_statement`,
/// `block`).
const MAX_DEPTH: u32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `(`, `[`, `{`, or a block's keyword (`IF`, `DO`, `REPEAT`): pushed on the
    /// lexer's stack.
    Open(u8),
    /// What closed (`(` for `)`, `FUNCTION` for a function's `end`).
    Close(u8),
    Function,
    /// A name or a keyword.
    Word,
    Number,
    Str,
    /// An operator or other punctuation, `..`, `==`, `::` and the like whole.
    Punct,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// A prefix expression (`a.b`, `f(x)`, `(e)[k]`) as a statement or a value starts.
struct Prefix {
    start: usize,
    /// Ends with a call (a statement of its own), not a variable (assignable).
    call: bool,
    /// A name alone (`f`), or a field of a table (`a.b.f`: the bytes of `a.b`).
    named: Option<(Option<Range<usize>>, Range<usize>)>,
}

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    peeked: Option<Token>,
    out: Vec<Decl>,
    /// Nested `do` and `if` blocks being walked.
    depth: u32,
}

/// Lua's reserved words; tree-sitter-lua reads `global` (Lua 5.5's) as a keyword
/// only where a statement starts, as a name elsewhere.
fn is_keyword(w: &[u8]) -> bool {
    matches!(
        w,
        b"and"
            | b"break"
            | b"do"
            | b"else"
            | b"elseif"
            | b"end"
            | b"false"
            | b"for"
            | b"function"
            | b"goto"
            | b"if"
            | b"in"
            | b"local"
            | b"nil"
            | b"not"
            | b"or"
            | b"repeat"
            | b"return"
            | b"then"
            | b"true"
            | b"until"
            | b"while"
    )
}

fn is_binary(op: &[u8]) -> bool {
    matches!(
        op,
        b"+" | b"-"
            | b"*"
            | b"/"
            | b"//"
            | b"%"
            | b"^"
            | b".."
            | b"=="
            | b"~="
            | b"<"
            | b"<="
            | b">"
            | b">="
            | b"&"
            | b"|"
            | b"~"
            | b"<<"
            | b">>"
    )
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
        let end = self.lex.cur.at;
        let (kind, start) = match tok {
            Tok::Open(what, start) => (Kind::Open(what), start),
            Tok::Close(what) => {
                let len = match what {
                    FUNCTION | IF | DO => b"end".len(),
                    REPEAT => b"until".len(),
                    _ => 1,
                };
                (Kind::Close(what), end - len)
            }
            Tok::Function => (Kind::Function, end - b"function".len()),
            Tok::Literal(start) => (Kind::Str, start),
            Tok::Word(start) if self.src[start].is_ascii_digit() => {
                return Some(self.number(start));
            }
            Tok::Word(start) => {
                if !self.src[start..end].is_ascii() && odd_word(&self.src[start..end]) {
                    return None;
                }
                (Kind::Word, start)
            }
            Tok::Punct(b) => {
                let start = end - 1;
                let next = self.src.get(end).copied();
                if b == b'.' && next.is_some_and(|n| n.is_ascii_digit()) {
                    return Some(self.number(start));
                }
                let len = match (b, next) {
                    (b'.', Some(b'.')) if self.src.get(end + 1) == Some(&b'.') => 3,
                    (b'.', Some(b'.'))
                    | (b'=' | b'~' | b'<' | b'>', Some(b'='))
                    | (b'<', Some(b'<'))
                    | (b'>', Some(b'>'))
                    | (b'/', Some(b'/'))
                    | (b':', Some(b':')) => 2,
                    _ => 1,
                };
                self.lex.cur.at = start + len;
                (Kind::Punct, start)
            }
        };
        Some(Token {
            kind,
            start,
            end: self.lex.cur.at,
        })
    }

    /// A numeral from `start`: its digits, letters, points and an exponent's sign
    /// (how it splits does not matter, only where the expression ends).
    fn number(&mut self, start: usize) -> Token {
        let mut at = start;
        while let Some(&b) = self.src.get(at) {
            let sign = matches!(b, b'+' | b'-')
                && at > start
                && matches!(self.src[at - 1], b'e' | b'E' | b'p' | b'P');
            if !(b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || sign) {
                break;
            }
            at += 1;
        }
        self.lex.cur.at = at;
        Token {
            kind: Kind::Number,
            start,
            end: at,
        }
    }

    fn peek(&mut self) -> Option<Token> {
        if self.peeked.is_none() {
            self.peeked = Some(self.next()?);
        }
        self.peeked
    }

    /// Whether the next token is the punctuation `p`; taken if so.
    fn eat(&mut self, p: &[u8]) -> Option<bool> {
        let t = self.peek()?;
        let is = t.kind == Kind::Punct && self.text(t) == p;
        if is {
            self.peeked = None;
        }
        Some(is)
    }

    fn is_word(&self, t: Token, w: &[u8]) -> bool {
        t.kind == Kind::Word && self.text(t) == w
    }

    /// A name (no keyword); `None` if the token is not one.
    fn name(&mut self) -> Option<Token> {
        let t = self.next()?;
        (t.kind == Kind::Word && !is_keyword(self.text(t))).then_some(t)
    }

    /// Past what closes the opener just taken (a block, a function's body, a
    /// bracket): its interior is never walked.
    fn skip_open(&mut self) -> Option<()> {
        debug_assert!(self.peeked.is_none());
        let floor = self.lex.cur.open.len();
        self.lex.skip_to_depth(floor)
    }

    /// Past a function's parameters and body, after its name (or `function`);
    /// where its parameters and its `end` end.
    fn function_body(&mut self) -> Option<(usize, usize)> {
        if self.next()?.kind != Kind::Open(b'(') {
            return None;
        }
        // Names, commas and `...`, to the `)`. tree-sitter reads a keyword where
        // no keyword can be as a name (LDoc's `function string.dump(function)`):
        // the block the lexer opened for one is none.
        loop {
            match self.lex.next()? {
                Tok::Close(b'(') => break,
                Tok::Function | Tok::Open(IF | DO | REPEAT, _) => {
                    self.lex.cur.open.pop();
                }
                Tok::Word(start) if !self.src[start].is_ascii_digit() => {}
                Tok::Punct(b',') => {}
                Tok::Punct(b'.') if self.src[self.lex.cur.at..].starts_with(b"..") => {
                    self.lex.cur.at += 2;
                }
                _ => return None,
            }
        }
        let params = self.lex.cur.at;
        debug_assert_eq!(self.lex.cur.open.last(), Some(&FUNCTION));
        self.skip_open()?;
        Some((params, self.lex.cur.at))
    }

    /// The statements of a walked block, up to what ends it, which is taken: the
    /// end of the text, a `Close` (of `do` or `if`), `elseif` or `else`.
    fn block(&mut self) -> Option<Token> {
        loop {
            let t = self.next()?;
            match t.kind {
                Kind::Eof | Kind::Close(_) => return Some(t),
                Kind::Punct => match self.text(t) {
                    b";" => {}
                    b"::" => {
                        self.name()?;
                        if !self.eat(b"::")? {
                            return None;
                        }
                    }
                    _ => return None,
                },
                Kind::Word => match self.text(t) {
                    b"else" | b"elseif" => return Some(t),
                    b"global" => self.global(t)?,
                    b"local" => self.local(t)?,
                    b"return" => {
                        if self.starts_expression()? {
                            self.expression_list()?;
                        }
                        self.eat(b";")?;
                        let end = self.next()?;
                        return match end.kind {
                            Kind::Eof | Kind::Close(_) => Some(end),
                            Kind::Word if matches!(self.text(end), b"else" | b"elseif") => {
                                Some(end)
                            }
                            _ => None,
                        };
                    }
                    b"break" => {}
                    b"goto" => {
                        self.name()?;
                    }
                    b"while" => {
                        self.expression()?;
                        if self.next()?.kind != Kind::Open(DO) {
                            return None;
                        }
                        self.skip_open()?;
                    }
                    b"for" => {
                        // The clause: names, `=` or `in`, expressions; brackets and
                        // functions in it are matched by the lexer.
                        let floor = self.lex.cur.open.len();
                        loop {
                            let t = self.next()?;
                            if t.kind == Kind::Open(DO) && self.lex.cur.open.len() == floor + 1 {
                                break;
                            }
                            if t.kind == Kind::Eof {
                                return None;
                            }
                        }
                        self.skip_open()?;
                    }
                    w if is_keyword(w) => return None,
                    _ => self.statement(t)?,
                },
                Kind::Open(b'(') => self.statement(t)?,
                Kind::Open(DO) => {
                    if self.nested()?.kind != Kind::Close(DO) {
                        return None;
                    }
                }
                Kind::Open(IF) => self.if_statement()?,
                Kind::Open(REPEAT) => {
                    self.skip_open()?;
                    self.expression()?;
                }
                Kind::Function => self.function(t)?,
                _ => return None,
            }
        }
    }

    /// A block one level deeper ([`Reader::block`]).
    fn nested(&mut self) -> Option<Token> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let end = self.block();
        self.depth -= 1;
        end
    }

    /// After `if`: its conditions and branches, through its `end`.
    fn if_statement(&mut self) -> Option<()> {
        loop {
            self.expression()?;
            let then = self.next()?;
            if !self.is_word(then, b"then") {
                return None;
            }
            let end = self.nested()?;
            match end.kind {
                Kind::Close(IF) => return Some(()),
                Kind::Word if self.text(end) == b"elseif" => {}
                Kind::Word if self.text(end) == b"else" => {
                    return (self.nested()?.kind == Kind::Close(IF)).then_some(());
                }
                _ => return None,
            }
        }
    }

    /// After `function` at a statement's start: `function a.b.f` or `function
    /// a.b:m`, a symbol.
    fn function(&mut self, keyword: Token) -> Option<()> {
        let first = self.name()?;
        let (mut name, mut table_end, mut kind) = (first, None, K::Function);
        loop {
            let method = self.eat(b":")?;
            if method || self.eat(b".")? {
                table_end = Some(name.end);
                name = self.name()?;
                if method {
                    kind = K::Method;
                    break;
                }
            } else {
                break;
            }
        }
        let (params, end) = self.function_body()?;
        let table = table_end.map(|e| first.start..e);
        self.symbol(kind, name, table, keyword.start..end, params)
    }

    /// `global` at a statement's start: `global function f`, a symbol, or a
    /// statement where it is a variable (`global.f = function … end`, a symbol).
    /// Lua 5.5's other global declarations are declined.
    fn global(&mut self, global: Token) -> Option<()> {
        let t = self.peek()?;
        match t.kind {
            Kind::Function => {
                self.next()?;
                let name = self.name()?;
                let (params, end) = self.function_body()?;
                self.symbol(K::Function, name, None, global.start..end, params)
            }
            Kind::Word => None,
            Kind::Punct if matches!(self.text(t), b"<" | b"*") => None,
            _ => self.statement(global),
        }
    }

    /// After `local`: `local function f`, a symbol; `local f = function … end`, one
    /// too; other names and values.
    fn local(&mut self, local: Token) -> Option<()> {
        if self.peek()?.kind == Kind::Function {
            self.next()?;
            let name = self.name()?;
            let (params, end) = self.function_body()?;
            return self.symbol(K::Function, name, None, local.start..end, params);
        }
        let (mut names, mut attributes) = (0, 0);
        let mut first = None;
        loop {
            let name = self.name()?;
            first.get_or_insert(name);
            names += 1;
            if self.eat(b"<")? {
                self.name()?;
                if !self.eat(b">")? {
                    return None;
                }
                attributes += 1;
            }
            if !self.eat(b",")? {
                break;
            }
        }
        if !self.eat(b"=")? {
            return Some(());
        }
        let value = self.expression_list()?;
        if let (Some((params, end)), 1, 0, Some(name)) = (value, names, attributes, first) {
            return self.symbol(K::Function, name, None, local.start..end, params);
        }
        Some(())
    }

    /// A statement starting with a name or `(`: an assignment (`a.b.f = function …
    /// end` a symbol) or a call.
    fn statement(&mut self, first: Token) -> Option<()> {
        let target = self.prefix(first)?;
        let t = self.peek()?;
        let is = |p: &[u8]| t.kind == Kind::Punct && self.text(t) == p;
        if !is(b"=") && !is(b",") {
            return target.call.then_some(());
        }
        let mut targets = 1;
        while self.eat(b",")? {
            let t = self.next()?;
            if self.prefix(t)?.call {
                return None;
            }
            targets += 1;
        }
        if target.call || !self.eat(b"=")? {
            return None;
        }
        let value = self.expression_list()?;
        if let (Some((params, end)), 1, Some((table, name))) = (value, targets, target.named) {
            let name = Token {
                kind: Kind::Word,
                start: name.start,
                end: name.end,
            };
            return self.symbol(K::Function, name, table, target.start..end, params);
        }
        Some(())
    }

    /// A prefix expression from its first token `first` (a name or `(`), with its
    /// fields, indexes and calls.
    fn prefix(&mut self, first: Token) -> Option<Prefix> {
        let mut p = Prefix {
            start: first.start,
            call: false,
            named: None,
        };
        let mut last = first.end;
        match first.kind {
            // `global` is a variable there, but no node the walker counts
            // (tree-sitter-lua's `_contextual_keyword`): alone, it is declined below.
            Kind::Word if self.text(first) == b"global" => {}
            Kind::Word if !is_keyword(self.text(first)) => {
                p.named = Some((None, first.start..first.end));
            }
            Kind::Open(b'(') => {
                self.skip_open()?;
                last = self.lex.cur.at;
            }
            _ => return None,
        }
        loop {
            let t = self.peek()?;
            match t.kind {
                Kind::Punct if matches!(self.text(t), b"." | b":") => {
                    self.next()?;
                    let name = self.name()?;
                    if self.text(t) == b":" {
                        // A method call: its arguments must follow.
                        let args = self.next()?;
                        match args.kind {
                            Kind::Open(b'(' | b'{') => self.skip_open()?,
                            Kind::Str => {}
                            _ => return None,
                        }
                        (p.call, p.named) = (true, None);
                    } else {
                        (p.call, p.named) =
                            (false, Some((Some(p.start..last), name.start..name.end)));
                    }
                }
                Kind::Open(b'[') => {
                    self.next()?;
                    self.skip_open()?;
                    (p.call, p.named) = (false, None);
                }
                Kind::Open(b'(' | b'{') | Kind::Str => {
                    self.next()?;
                    if t.kind != Kind::Str {
                        self.skip_open()?;
                    }
                    (p.call, p.named) = (true, None);
                }
                // In a list, the walker would not count it: `global, a.f = function
                // … end` is a symbol `a.f` to it.
                _ if last == first.end && self.text(first) == b"global" => return None,
                _ => return Some(p),
            }
            last = self.lex.cur.at;
        }
    }

    /// Whether the next token starts an expression.
    fn starts_expression(&mut self) -> Option<bool> {
        let t = self.peek()?;
        Some(match t.kind {
            Kind::Word => {
                let w = self.text(t);
                !is_keyword(w) || matches!(w, b"nil" | b"true" | b"false" | b"not")
            }
            Kind::Punct => matches!(self.text(t), b"-" | b"#" | b"~" | b"..."),
            Kind::Open(b'(' | b'{') | Kind::Str | Kind::Number | Kind::Function => true,
            _ => false,
        })
    }

    /// Expressions separated by commas: where the parameters and the `end` of the
    /// function that is the one expression, if it is one.
    fn expression_list(&mut self) -> Option<Option<(usize, usize)>> {
        let first = self.expression()?;
        let mut one = true;
        while self.eat(b",")? {
            self.expression()?;
            one = false;
        }
        Some(first.filter(|_| one))
    }

    /// An expression: where the parameters and the `end` of the function it is, if
    /// it is a function definition and nothing more.
    fn expression(&mut self) -> Option<Option<(usize, usize)>> {
        let mut operands = 0;
        loop {
            let mut t = self.next()?;
            let mut unary = false;
            while (t.kind == Kind::Punct && matches!(self.text(t), b"-" | b"#" | b"~"))
                || self.is_word(t, b"not")
            {
                unary = true;
                t = self.next()?;
            }
            let value = self.operand(t)?;
            operands += 1;
            let function = value.filter(|_| operands == 1 && !unary);
            let op = self.peek()?;
            let binary = match op.kind {
                Kind::Punct => is_binary(self.text(op)),
                Kind::Word => matches!(self.text(op), b"and" | b"or"),
                _ => false,
            };
            if !binary {
                return Some(function.filter(|_| operands == 1));
            }
            self.next()?;
        }
    }

    /// One operand of an expression, from its first token `t`: a function
    /// definition's parameters' and `end`'s ends, if it is one.
    fn operand(&mut self, t: Token) -> Option<Option<(usize, usize)>> {
        match t.kind {
            Kind::Number | Kind::Str => {}
            Kind::Punct if self.text(t) == b"..." => {}
            Kind::Open(b'{') => self.skip_open()?,
            Kind::Function => return self.function_body().map(Some),
            Kind::Word if matches!(self.text(t), b"nil" | b"true" | b"false") => {}
            Kind::Word | Kind::Open(b'(') => {
                self.prefix(t)?;
            }
            _ => return None,
        }
        Some(None)
    }

    /// A function declared by `name` (in `table`, when a field of one) over `bytes`,
    /// its parameters ending at `params`.
    fn symbol(
        &mut self,
        kind: K,
        name: Token,
        table: Option<Range<usize>>,
        bytes: Range<usize>,
        params: usize,
    ) -> Option<()> {
        // tree-sitter's walker names a symbol only by valid UTF-8, and stores it in
        // a table path of ASCII names (`languages/lua.rs`), else it lists none.
        if std::str::from_utf8(&self.src[name.start..name.end]).is_err() {
            return Some(());
        }
        if let Some(table) = &table {
            let path = &self.src[table.clone()];
            if !path.is_ascii() {
                // Read as UTF-8 there, invalid bytes would be an empty path.
                return std::str::from_utf8(path).is_ok().then_some(());
            }
            if !path
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            {
                return Some(());
            }
        }
        self.out.push(Decl {
            kind,
            name: name.start..name.end,
            core: bytes.start,
            bytes,
            sig_end: Some(params),
            members: Vec::new(),
            impl_of: None,
            qualifier: table,
            head: None,
        });
        Some(())
    }
}

/// Whether a word the lexer read whole holds a character tree-sitter-lua's names
/// cannot (white space, a control character): there the two split the text apart.
fn odd_word(word: &[u8]) -> bool {
    String::from_utf8_lossy(word)
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        fast_check::outline,
        symbols::{Parse, extract_with},
        tests::{Generated, reader_agrees},
    };

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does: the statements it reads (and where each ends),
    /// names, tables, comments in the middle of declarations, what is no symbol.
    #[test]
    fn statements_names_and_tables_read_as_the_whole_parse_reads_them() {
        for src in [
            "local f = function() end;\nlocal g <const> = function() end\n",
            "local x = a\n(f)()\nM.f = function(a) end\n",
            "function a . b:c(x) end\nfunction a.--[[c]]b() end\n",
            "M.f --c\n= --d\nfunction() end\n",
            "x = 1.5e+3 .. .5 .. 0x1p-2\nfunction f(...) end\n",
            "if a then function x() end elseif b then function y() end else local function z() end end",
            "local global = require 'x'\nfunction global.f() end\nglobal.g = function() end\nglobal function h() end\nfunction global:m() end\nfunction global() end\n",
            "function debug.getinfo(thread, function , what) end\nlocal function f(a, do, if, repeat, ...) end\n",
            "local --[[a]] function --b\n f --c\n ( --d\n a --e\n ) end\nM . f = function ( a ) end\na.b.c.d = function() end\n",
            "a[1].f = function() end\n(a).f = function() end\na.b, c = function() end\nx = function() end or g\nx = not function() end\n",
            "f = function() end\n(g)()\ng = function() end -- c\n;(h)()",
            "if a then elseif b then else end\ndo local function a() end do function b() end end end\n",
            "while true do function w() end end\nfor i = 1, 10 do function w() end end\nfor k, v in pairs(t) do end\nrepeat local function r() end until x > 1\n",
            "goto done ::done:: local a <close>, b = 1, 2\nlocal x\nlocal f = function(...) return ... end\nif x then if y then function deep() end end end\n",
            "local s = [==[ end ]==] f\"str\" f[[x]] f{1} a.b:c(1):d{2}.e = function() end\nfunction a:b() end\n",
            "#!/usr/bin/lua\nfunction f() end\nfunction f() end\r\nlocal function g()\r\nend\r\n",
            "x = 0x10 + 1e10 + 3.14 + .5 + 1LL + 0x1p-2 - 1e-3\nx = a..b x = #t x = ~a x = a // b x = a ~= b x = a >> 2 x = a == b x = ... local t = { f = function() end }\nf = function() end, 1\n;;local function s() end;\n",
            "--- Doc.\n-- More.\nfunction f() end -- trailing\n\n-- Detached?\n\nlocal function g() end\n--[[ block ]]\nM.h = function() end\n",
            "return M",
            "return",
            "do return 1, 2; end",
            "function f() return end return;",
            "local x = y\n[[s]]:upper()\nfunction z() end",
            "local x = y\n'a':upper()\nfunction z() end",
            "x = a.b\n.c\nfunction z() end",
            "x = -function() end\ny = function() end",
            "x = function() end\n-1",
            "local function f() end local function f() end function f() end f = function() end",
            "a.b.c:d\"x\" a:b{} a:b[[s]]",
        ] {
            let whole = extract_with(Lang::Lua, src.as_bytes(), Parse::Whole);
            assert_eq!(whole.syntax_error, None, "{src}");
            assert!(parse(src.as_bytes()).is_some(), "declined {src:?}");
            let read = extract_with(Lang::Lua, src.as_bytes(), Parse::Declarations);
            assert_eq!(outline(&read), outline(&whole), "{src}");
        }
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "function f() ",
            "do",
            "end",
            "if x then",
            "if x then else elseif y then end",
            "x",
            "x.y",
            "1",
            "f() = 1",
            "return 1 x = 2",
            "local 1 = 2",
            "::a:",
            "global x = 1",
            "global *",
            "global = function() end",
            "x, global = function() end, 1",
            "local\u{a0}function f() end",
            "function f",
            "x = function g() end",
            "local s = 'unterminated",
            "--[[ unterminated",
            "function f() end end",
            // Keywords as names, which tree-sitter-lua reads where no keyword can be.
            "x = a.end",
            "local function end() end",
            "f(",
            "x = }",
            "function f(a.b) end",
            "function f(1) end",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        // Walked blocks nested past the walker's depth decline; skipped ones are
        // matched on the lexer's stack, without recursion.
        let deep = "do ".repeat(100_000) + &"end ".repeat(100_000);
        assert!(parse(deep.as_bytes()).is_none());
        let skipped =
            "function f() ".to_string() + &"do ".repeat(100_000) + &"end ".repeat(100_001);
        assert_eq!(parse(skipped.as_bytes()).map(|d| d.len()), Some(1));
    }

    /// Bodies and tables skipped block by block (`skeleton_lua`), whatever they
    /// hold and wherever in a block it falls: nested functions, `end` and `[==[` in
    /// long strings and comments, words that start or end as a keyword does, goto
    /// labels, tables of functions, the last bytes of the text.
    #[test]
    fn bodies_are_skipped_as_the_whole_parse_reads_them() {
        let src = r#"local M = {}
function M.a(x)
  local function inner(y) if y then return [[ end ]] end end
  local s = "end \" end" .. 'until \' do' .. [==[ ]] end ]=] ]==] .. "\\"
  --[==[ end
  function ]] ]==] local t = { f = function() end, [ [[k]] ] = 1, ["end"] = 2 }
  -- end if do function
  for i = 1, 10 do goto continue ::continue:: end
  repeat x = x - 1 until x < 0
  while endx and xend and fend and undo and reend and ifx and done do ends = iff end
  local a, b = unit(dofile), repeated, functional, endless, untill, end_, _end
  return a.b.c(x)[1]:d{e = f"g"}
end
M.b = function(...) return function() return ... end end
local function c() do do if x then elseif y then else end end end end
local t = { function() end, { { } }, [[ } ]], "{", xend, fend, reend, undo }
"#;
        for pad in 0..=64 {
            let spaces = " ".repeat(pad);
            for text in [
                spaces.clone() + src,
                src.replace(" = ", &format!("{spaces}= ")),
                src.replace("{ function", &format!("{{{spaces}function")),
            ] {
                assert_eq!(reader_agrees(Lang::Lua, &text), Some(true), "{text}");
            }
        }
    }

    /// Statements and stray tokens strung together at random, with comments and
    /// line breaks between tokens: on every text the grammar reads cleanly, the
    /// reader declines or lists what the whole parse does.
    #[test]
    fn generated_statements_read_as_the_whole_parse_reads_them() {
        let statements = [
            "function f() end",
            "local function g(a, ...) end",
            "a.b.c = function() end",
            "function a.b:m(x) end",
            "local h = function() end",
            "x = 1",
            "f()",
            "do",
            "end",
            "if x then",
            "elseif y then",
            "else",
            "return x",
            "local a, b = 1",
            "while x do",
            "for i = 1, 2 do",
            "repeat",
            "until x",
            "(a).b = function() end",
            "a[1] = function() end",
            "x = function() end or 1",
            "f\"s\"",
            "a:b{}",
            "t = {f = function() end}",
            "global function q() end",
            "M.f = function(a) return function() end end",
            ";",
        ];
        let tokens = [
            "local",
            "function",
            "f",
            "a",
            ".",
            ":",
            "(",
            ")",
            "=",
            ",",
            "end",
            "do",
            "if",
            "then",
            "return",
            "{",
            "}",
            "[[s]]",
            "1",
            "--[[c]]",
            "..",
            "or",
            "not",
            "-",
            "...",
            "global",
            "<const>",
            "::l::",
            "function() end",
            "a.b",
            "(a)",
        ];
        let breaks = [" ", "\n", " --c\n", "--[[c]]", "\t", "\r\n"];
        let (clean, vouched) = Generated {
            lang: Lang::Lua,
            prefix: "",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 3,
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
    /// (`daemon/benches/fetch-conformance.sh`: luarocks), or the first index is
    /// slow again; `fast_check` compares what it reads with whole parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("lua", &["lua"], 100, 1, |src| parse(src).is_some());
    }
}
