//! Scala declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter's tree for Scala (`languages/scala.rs`), for the
//! files this reader can vouch for.
//!
//! It reads Scala 2's brace syntax: `package` clauses and `import`s, then classes
//! (case classes too), objects (package objects too), traits, `def`s, `val`s,
//! `var`s and `type`s, each annotations, modifiers and a keyword; a template's
//! header (type and value parameters, `extends … with …`) up to its braced body,
//! whose members it reads in turn (past a self type, `self: A =>`). Parameter lists, annotation arguments,
//! bodies and initializers are skipped as balanced groups of the brace lexer's
//! tokens (`skeleton_brace::Lexer`, which knows Scala's strings, interpolations,
//! character literals and nested comments).
//!
//! Scala ends a statement at a line break where the line could end and the next
//! could start one, and tree-sitter-scala's scanner decides that with rules of its
//! own (indentation regions, leading infix operators). So an initializer or a body
//! after `=` runs over a line break only after a token no statement ends with (`=`,
//! `=>`, `,`, `.`, `:`, `else`), before a `.`, before the `else` of an open `if` (the
//! `catch` of a `try`) or the `with` of a `new A`, and ends only before a line that
//! starts a declaration (not inside the indented block a line ending open may start),
//! a `}` or the end; any other line break inside one is declined. Where a
//! declaration ends is where the walker's last node ends: a string's escapes and
//! interpolations are its children, so `s"a$b."` ends after `$b`.
//!
//! It is strict on purpose: Scala 3's indented bodies (`class A:`, `end A`), enums,
//! givens, extensions and soft modifiers (`inline`, `opaque`), `package` blocks,
//! statements that are no declaration, patterns (`val (a, b) = …`), several names
//! (`val a, b: Int`), backticked, non-ASCII and operator-suffixed names (`x_=`),
//! assignments in a body, anything else out of place, delimiters that do not pair and
//! text the lexer cannot follow (XML literals, symbol literals) answer `None`, and
//! the skeleton parse answers. The test over real Scala code (`fast_check`) compares
//! its symbols with whole parses.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    lookahead::Lookahead,
    rust_items::Decl,
    skeleton_brace::{self, Dialect, Lexer, Tok},
};

/// The declarations of a Scala file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut lex = Lexer::new(src, Dialect::Scala);
    // The comment ranges it would note are the skeleton's business.
    lex.cur.record = false;
    let mut r = Reader {
        lex,
        src,
        ahead: Lookahead::new(),
        last: None,
        nesting: 0,
        open: Vec::new(),
    };
    let mut out = Vec::new();
    r.statements(true, &mut out)?;
    (!r.lex.cur.confused).then_some(out)
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
    /// A line break comes before it.
    newline: bool,
}

/// Modifiers tree-sitter-scala reads into `modifiers` (`case` is the keyword's
/// own, read with it).
const MODIFIERS: &[&[u8]] = &[
    b"abstract",
    b"final",
    b"sealed",
    b"implicit",
    b"lazy",
    b"override",
    b"private",
    b"protected",
];

/// Reserved words, Scala 3's among them: never a name.
const KEYWORDS: &[&[u8]] = &[
    b"abstract",
    b"case",
    b"catch",
    b"class",
    b"def",
    b"do",
    b"else",
    b"extends",
    b"false",
    b"final",
    b"finally",
    b"for",
    b"forSome",
    b"if",
    b"implicit",
    b"import",
    b"lazy",
    b"macro",
    b"match",
    b"new",
    b"null",
    b"object",
    b"override",
    b"package",
    b"private",
    b"protected",
    b"return",
    b"sealed",
    b"super",
    b"this",
    b"throw",
    b"trait",
    b"try",
    b"true",
    b"type",
    b"val",
    b"var",
    b"while",
    b"with",
    b"yield",
    b"enum",
    b"export",
    b"given",
    b"then",
];

/// Scala 3's soft keywords: names that tree-sitter-scala may read as keywords, so
/// declined as a declaration's name (an annotation may have one: `@inline`).
const SOFT: &[&[u8]] = &[
    b"end",
    b"as",
    b"derives",
    b"extension",
    b"infix",
    b"inline",
    b"opaque",
    b"open",
    b"transparent",
    b"using",
];

/// Words that start a declaration (or a statement this reader declines), with
/// [`MODIFIERS`]: an initializer before a line starting with one has ended
/// ([`starts`]).
const STARTS: &[&[u8]] = &[
    b"def",
    b"val",
    b"var",
    b"type",
    b"class",
    b"object",
    b"trait",
    b"case",
    b"import",
    b"package",
    b"enum",
    b"given",
    b"extension",
    b"export",
    b"end",
];

/// Whether `w` starts a declaration: one of [`STARTS`] or a modifier.
fn starts(w: &[u8]) -> bool {
    STARTS.contains(&w) || MODIFIERS.contains(&w)
}

/// Deeper nesting of templates is declined: the walker stops at 64 containers.
const MAX_NESTING: u32 = 48;

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    /// Tokens looked at but not consumed yet, in order.
    ahead: Lookahead<Token, 4>,
    /// The last consumed token.
    last: Option<Token>,
    /// Template bodies entered and not yet left.
    nesting: u32,
    /// Open delimiters of the group being skipped (reused).
    open: Vec<u8>,
}

/// The lexer's next token with where it is.
fn lex(lexer: &mut Lexer<'_>) -> Option<Token> {
    let tok = lexer.next()?;
    Some(Token {
        tok,
        start: lexer.start,
        end: lexer.cur.at,
        newline: lexer.newline,
    })
}

/// Whether `b` is one of Scala's operator characters.
fn operator_char(b: u8) -> bool {
    b"!#%&*+-/:<=>?@\\^|~".contains(&b)
}

impl<'a> Reader<'a> {
    /// The `n`th token ahead; `None` at the end of the text or where it does not lex.
    fn peek(&mut self, n: usize) -> Option<Token> {
        let lexer = &mut self.lex;
        self.ahead.peek(n, || lex(lexer))
    }

    fn bump(&mut self) -> Option<Token> {
        let lexer = &mut self.lex;
        let t = self.ahead.take(|| lex(lexer))?;
        self.last = Some(t);
        Some(t)
    }

    fn last_end(&self) -> usize {
        self.last.map_or(0, |t| t.end)
    }

    /// Where the declaration just read ends. The walker ends a declaration with
    /// its last node's last child, and a string's children are its escapes and an
    /// interpolated one's its interpolations too: one that ends with a string
    /// (`"a\n"`, `s"(${a})"`, `s"n=$n."`) ends with the last of them. Declined
    /// where a backslash may be no escape (a raw or multi-line string).
    fn end(&self) -> Option<usize> {
        let last = self.last?;
        let text = &self.src[last.start..last.end];
        if last.tok != Tok::Literal || text[0] == b'\'' {
            return Some(last.end);
        }
        let resumed = text[0] == b'}';
        let prefix = &self.src[..last.start];
        let interpolator = prefix.len()
            - prefix
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
        let interpolated = resumed || interpolator < last.start;
        let plain = !resumed
            && !text.starts_with(b"\"\"\"")
            && &self.src[interpolator..last.start] != b"raw";
        let mut end = resumed.then_some(last.start + 1);
        let mut i = 0;
        while i < text.len() {
            i += 1;
            match text[i - 1] {
                b'\\' if !plain => return None,
                b'\\' => {
                    // `\uXXXX` (its `u`s may repeat), or one character.
                    i += match text.get(i) {
                        Some(b'u') => text[i..].iter().take_while(|b| **b == b'u').count() + 4,
                        Some(b) if b.is_ascii_digit() => return None,
                        _ => 1,
                    };
                    end = Some(last.start + i);
                }
                // `$name` (a `$$` is a dollar).
                b'$' if interpolated => match text.get(i) {
                    Some(b'$') => i += 1,
                    Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
                        i += text[i..]
                            .iter()
                            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                            .count();
                        end = Some(last.start + i);
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        Some(end.unwrap_or(last.end))
    }

    fn text(&self, t: Token) -> &'a [u8] {
        t.tok.text(self.src)
    }

    fn is(&self, t: Token, word: &[u8]) -> bool {
        self.text(t) == word
    }

    /// Whether `t` is a plain alphanumeric name: not reserved nor a soft keyword,
    /// not backticked, not a number or an operator word (`++`).
    fn identifier(&self, t: Token) -> bool {
        self.word(t) && !SOFT.contains(&self.text(t))
    }

    /// Whether `t` may be a declaration's name: an identifier in ASCII (the lexer
    /// reads other characters as a word's, Scala some as an operator's: `a≺`).
    fn declared(&self, t: Token) -> bool {
        self.identifier(t) && self.text(t).is_ascii()
    }

    /// Whether `t` is an alphanumeric word that is not reserved (a soft keyword
    /// too).
    fn word(&self, t: Token) -> bool {
        let w = self.text(t);
        w.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b >= 0x80)
            && !KEYWORDS.contains(&w)
    }

    /// Whether `t` is punctuation made of operator characters (or an operator
    /// word the lexer made of `++` or `--`).
    fn operator(&self, t: Token) -> bool {
        match t.tok {
            Tok::Punct(b) => operator_char(b),
            Tok::Joint(b':') => true,
            Tok::Word(..) => self
                .text(t)
                .first()
                .is_some_and(|b| *b == b'+' || *b == b'-'),
            _ => false,
        }
    }

    /// Whether `t` is the `=` of a definition, not part of `=>`, `==` or `<=`.
    fn assignment(&mut self, t: Token) -> Option<bool> {
        if t.tok != Tok::Punct(b'=')
            || self
                .last
                .is_some_and(|l| l.end == t.start && self.operator(l))
        {
            return Some(false);
        }
        let next = self.peek(1);
        Some(!next.is_some_and(|n| n.start == t.end && self.operator(n)))
    }

    /// Skips the rest of the group `open` (taken) opens, through its closer.
    fn skip_group(&mut self, open: Token) -> Option<()> {
        let Tok::Open(b, _) = open.tok else {
            return None;
        };
        let mut stack = std::mem::take(&mut self.open);
        let skipped = skeleton_brace::skip_group(b, &mut stack, || self.bump().map(|t| t.tok));
        self.open = stack;
        skipped
    }

    /// The statements of the file (`top`) or of a template body, `{` taken, through
    /// its `}`.
    fn statements(&mut self, top: bool, out: &mut Vec<Decl>) -> Option<()> {
        loop {
            let Some(t) = self.peek(0) else {
                return top.then_some(());
            };
            match t.tok {
                Tok::Close(b'}') if !top => {
                    self.bump()?;
                    return Some(());
                }
                Tok::Punct(b';') => {
                    self.bump()?;
                }
                _ => {
                    self.statement(top, out)?;
                    // The next statement starts on a line of its own or after a `;`.
                    if let Some(next) = self.peek(0)
                        && !next.newline
                        && !matches!(next.tok, Tok::Punct(b';') | Tok::Close(b'}'))
                    {
                        return None;
                    }
                }
            }
        }
    }

    /// One statement: a `package` clause (`top`), an `import` or a declaration,
    /// added to `out`.
    fn statement(&mut self, top: bool, out: &mut Vec<Decl>) -> Option<()> {
        let first = self.peek(0)?;
        if self.is(first, b"package") && top {
            self.bump()?;
            if self
                .peek(0)
                .is_some_and(|t| self.is(t, b"object") && !t.newline)
            {
                out.push(self.template(K::Object, first.start, first.start)?);
                return Some(());
            }
            return self.package();
        }
        if self.is(first, b"import") {
            self.bump()?;
            return self.import();
        }
        while self.peek(0)?.tok == Tok::Punct(b'@') {
            self.annotation()?;
        }
        let core = self.peek(0)?.start;
        // Modifiers, on the keyword's line.
        let mut at = 0;
        let head = loop {
            let t = self.peek(0)?;
            if at > 0 && t.newline {
                return None;
            }
            at += 1;
            let word = self.text(t);
            if MODIFIERS.contains(&word) {
                self.bump()?;
                if matches!(word, b"private" | b"protected") {
                    self.qualifier()?;
                }
                continue;
            }
            if word == b"case" {
                let next = self.peek(1)?;
                if !(self.is(next, b"class") || self.is(next, b"object")) || next.newline {
                    return None;
                }
                self.bump()?;
                continue;
            }
            break t;
        };
        let start = first.start;
        let decl = match self.text(head) {
            b"class" => self.template(K::Class, start, core)?,
            b"trait" => self.template(K::Trait, start, core)?,
            b"object" => self.template(K::Object, start, core)?,
            b"def" => self.def(start, core)?,
            b"val" | b"var" => self.val(start, core)?,
            b"type" => self.type_member(start, core)?,
            _ => return None,
        };
        out.push(decl);
        Some(())
    }

    /// An access modifier's qualifier, `[this]` or `[pkg]`, right after it.
    fn qualifier(&mut self) -> Option<()> {
        let t = self.peek(0)?;
        if let Tok::Open(b'[', _) = t.tok
            && t.start == self.last_end()
        {
            self.bump()?;
            self.skip_group(t)?;
        }
        Some(())
    }

    /// `package a.b`, `package` taken: a name on its line (a block is declined).
    fn package(&mut self) -> Option<()> {
        self.path()?;
        let next = self.peek(0);
        next.is_none_or(|n| n.newline || n.tok == Tok::Punct(b';'))
            .then_some(())
    }

    /// A dotted name: `a`, `a.b.c`.
    fn path(&mut self) -> Option<()> {
        loop {
            let t = self.bump()?;
            if !self.word(t) || t.newline {
                return None;
            }
            match self.peek(0) {
                Some(dot) if dot.tok == Tok::Punct(b'.') && !dot.newline => {
                    self.bump()?;
                }
                _ => return Some(()),
            }
        }
    }

    /// An `import`'s clauses, `import` taken: names, `.`, `,`, `_`, `*`, `as` and
    /// braced selectors, continued on the next line only after a `.` or `,`.
    fn import(&mut self) -> Option<()> {
        let mut first = true;
        loop {
            let Some(t) = self.peek(0) else {
                return (!first).then_some(());
            };
            let continues = self
                .last
                .is_some_and(|l| matches!(l.tok, Tok::Punct(b'.' | b',')));
            if t.newline && !continues {
                return (!first).then_some(());
            }
            match t.tok {
                Tok::Word(..) | Tok::Punct(b'.' | b',') => {
                    self.bump()?;
                }
                // `import a.*`, `import a.===`.
                _ if self.operator(t) => {
                    self.bump()?;
                }
                Tok::Open(b'{', _) => {
                    self.bump()?;
                    self.skip_group(t)?;
                }
                _ if continues => return None,
                _ => return (!first).then_some(()),
            }
            first = false;
        }
    }

    /// `@name`, `@a.b.Name[T](…)`, at its `@`: the arguments right after it.
    fn annotation(&mut self) -> Option<()> {
        let at = self.bump()?;
        let name = self.peek(0)?;
        if name.start != at.end {
            return None;
        }
        self.path()?;
        while let Some(t) = self.peek(0)
            && let Tok::Open(b'(' | b'[', _) = t.tok
        {
            if t.start != self.last_end() {
                return None;
            }
            self.bump()?;
            self.skip_group(t)?;
        }
        // `@a (x)`: arguments or a class's parameters?
        match self.peek(0) {
            Some(t) if !t.newline && matches!(t.tok, Tok::Open(..)) => None,
            _ => Some(()),
        }
    }

    /// A class, trait or object, at its keyword, through its body.
    fn template(&mut self, kind: K, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        let name = self.bump()?;
        if !self.declared(name) || name.newline {
            return None;
        }
        self.after_name()?;
        let mut sig_end = None;
        let mut members = Vec::new();
        while let Some(t) = self.peek(0) {
            let word = self.text(t);
            // `extends A` or `with B` may go on the next line.
            let goes_on = matches!(word, b"extends" | b"with") && self.with_type()?;
            if t.newline && !goes_on {
                if matches!(t.tok, Tok::Open(..)) {
                    return None;
                }
                break;
            }
            match t.tok {
                // `extends { val x = 1 } with A`: an early definition.
                Tok::Open(b'{', _) if self.last.is_some_and(|l| self.is(l, b"extends")) => {
                    return None;
                }
                Tok::Open(b'{', _) => {
                    self.bump()?;
                    sig_end = Some(t.start);
                    self.self_type()?;
                    self.nesting += 1;
                    if self.nesting > MAX_NESTING {
                        return None;
                    }
                    self.statements(false, &mut members)?;
                    self.nesting -= 1;
                    break;
                }
                Tok::Open(..) => {
                    self.bump()?;
                    self.skip_group(t)?;
                }
                Tok::Word(..)
                    if self.identifier(t)
                        || matches!(word, b"extends" | b"with" | b"private" | b"protected") =>
                {
                    self.bump()?;
                }
                Tok::Punct(b'.' | b'#' | b'@') => {
                    self.bump()?;
                }
                Tok::Punct(b';') | Tok::Close(b'}') => break,
                _ => return None,
            }
        }
        Some(Decl {
            kind,
            name: name.start..name.end,
            bytes: start..self.end()?,
            core,
            sig_end,
            members,
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// A `def`'s or `type`'s name, on its keyword's line: a word, or an
    /// operator's characters, adjacent (`++`, `|+|`, `~>`).
    fn name(&mut self) -> Option<Range<usize>> {
        let first = self.bump()?;
        if first.newline {
            return None;
        }
        let mut name = first.start..first.end;
        if self.operator(first) && first.tok != Tok::Punct(b'@') {
            while let Some(t) = self.peek(0)
                && t.start == name.end
                && self.operator(t)
            {
                self.bump()?;
                name.end = t.end;
            }
            if let Some(t) = self.peek(0)
                && t.start == name.end
                && !matches!(t.tok, Tok::Open(b'(' | b'[', _))
            {
                return None;
            }
        } else if !self.declared(first) {
            return None;
        } else {
            self.after_name()?;
        }
        Some(name)
    }

    /// Past a name: declined where the name would go on (`x_=`, `a_+`), as one
    /// operator identifier to tree-sitter.
    fn after_name(&mut self) -> Option<()> {
        let name = self.last?;
        let next = self.peek(0);
        match next {
            Some(n)
                if n.start == name.end && self.operator(n) && self.text(name).ends_with(b"_") =>
            {
                None
            }
            _ => Some(()),
        }
    }

    /// A self type at the start of a template body (`self =>`, `self: A with B =>`,
    /// `_: A =>`), taken where there is one.
    fn self_type(&mut self) -> Option<()> {
        let name = self.peek(0)?;
        if !(self.identifier(name) || self.is(name, b"this") || self.is(name, b"_")) {
            return Some(());
        }
        match self.peek(1)?.tok {
            Tok::Punct(b'=') if self.arrow(1)? => {
                for _ in 0..3 {
                    self.bump()?;
                }
                Some(())
            }
            Tok::Punct(b':') => {
                self.bump()?;
                self.bump()?;
                loop {
                    let t = self.peek(0)?;
                    match t.tok {
                        Tok::Punct(b'=') if self.arrow(0)? => {
                            self.bump()?;
                            self.bump()?;
                            return Some(());
                        }
                        Tok::Word(..) | Tok::Punct(b'.' | b'#') => {
                            self.bump()?;
                        }
                        Tok::Open(..) => {
                            self.bump()?;
                            self.skip_group(t)?;
                        }
                        _ => return None,
                    }
                }
            }
            _ => Some(()),
        }
    }

    /// An interpolated string from its start to its first hole (`s"a${`, not
    /// taken) through its end: the holes' line breaks are none of the statement's.
    /// The lexer's pieces of a string start with the `}` that closes a hole, and end
    /// with the `{` that opens one.
    fn holes(&mut self) -> Option<()> {
        let mut depth = 0u32;
        loop {
            let t = self.bump()?;
            if !matches!(t.tok, Tok::Literal | Tok::Interpolation) {
                continue;
            }
            if self.src[t.start] == b'}' {
                depth = depth.checked_sub(1)?;
            }
            if self.src[t.end - 1] == b'{' {
                depth += 1;
            }
            if depth == 0 {
                return Some(());
            }
        }
    }

    /// The column of the byte at `at`.
    fn column(&self, at: usize) -> usize {
        at - self.src[..at]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |n| n + 1)
    }

    /// Whether the `with` (or `extends`) ahead goes on with a type on its line
    /// (`new A`, a type or a template's header, then `with B` on the next line).
    fn with_type(&mut self) -> Option<bool> {
        Some(
            self.peek(1)
                .is_some_and(|n| !n.newline && self.identifier(n)),
        )
    }

    /// Whether the `=` `n` tokens ahead starts a `=>`.
    fn arrow(&mut self, n: usize) -> Option<bool> {
        let (eq, gt) = (self.peek(n)?, self.peek(n + 1)?);
        Some(gt.tok == Tok::Punct(b'>') && gt.start == eq.end)
    }

    /// A `def`, at its keyword, through its body.
    fn def(&mut self, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        let (kind, name) = match self.peek(0)? {
            t if self.is(t, b"this") && !t.newline => {
                self.bump()?;
                (K::Constructor, t.start..t.end)
            }
            _ => (K::Function, self.name()?),
        };
        let mut typed = false;
        let mut sig_end = None;
        while let Some(t) = self.peek(0) {
            // The result type may go on the next line; a clause or the body there
            // is tree-sitter's call.
            if t.newline && (typed || t.tok != Tok::Punct(b':')) {
                if matches!(t.tok, Tok::Open(..) | Tok::Punct(b':' | b'=')) {
                    return None;
                }
                break;
            }
            match t.tok {
                Tok::Open(b'(' | b'[', _) if !typed => {
                    self.bump()?;
                    self.skip_group(t)?;
                }
                // Procedure syntax: `def f() { … }`.
                Tok::Open(b'{', _) if !typed => {
                    self.bump()?;
                    self.skip_group(t)?;
                    sig_end = Some(t.start);
                    break;
                }
                Tok::Punct(b':') if !typed => {
                    self.bump()?;
                    typed = true;
                    self.type_()?;
                }
                Tok::Punct(b'=') if self.assignment(t)? => {
                    self.bump()?;
                    sig_end = Some(self.peek(0)?.start);
                    self.expression()?;
                    break;
                }
                Tok::Punct(b';') | Tok::Close(b'}') => break,
                _ => return None,
            }
        }
        Some(Decl {
            kind,
            name,
            bytes: start..self.end()?,
            core,
            sig_end,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// A type after its `:`, up to a `=` (not taken), a line break (but one
    /// before `with`) or the end of the statement: names, paths, infix operators
    /// (`=>`, `~>`, `<:<`), brackets, parentheses and refinements.
    fn type_(&mut self) -> Option<()> {
        let mut empty = true;
        loop {
            let Some(t) = self.peek(0) else {
                return (!empty).then_some(());
            };
            if t.newline && !(self.is(t, b"with") && !empty && self.with_type()?) {
                return (!empty).then_some(());
            }
            match t.tok {
                Tok::Punct(b';') | Tok::Close(b'}') => return (!empty).then_some(()),
                _ if self.operator(t) => {
                    if self.assignment(t)? {
                        return (!empty).then_some(());
                    }
                    // An operator is its characters, adjacent; a `:` or `@` alone is
                    // none of a type's.
                    self.bump()?;
                    let mut alone = true;
                    while let Some(n) = self.peek(0)
                        && n.start == self.last_end()
                        && self.operator(n)
                    {
                        self.bump()?;
                        alone = false;
                    }
                    if alone && matches!(t.tok, Tok::Punct(b':' | b'@')) {
                        return None;
                    }
                }
                Tok::Punct(b'.') => {
                    self.bump()?;
                }
                Tok::Word(..)
                    if self.identifier(t)
                        || self.is(t, b"with")
                        || (self.is(t, b"type") && self.last?.tok == Tok::Punct(b'.')) =>
                {
                    self.bump()?;
                }
                Tok::Open(..) => {
                    self.bump()?;
                    self.skip_group(t)?;
                }
                _ => return None,
            }
            empty = false;
        }
    }

    /// A `val` or `var`, at its keyword, through its initializer: one name.
    fn val(&mut self, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        let name = self.bump()?;
        if !self.declared(name) || name.newline {
            return None;
        }
        self.after_name()?;
        let mut sig_end = None;
        if let Some(t) = self.peek(0)
            && t.tok == Tok::Punct(b':')
        {
            self.bump()?;
            self.type_()?;
        }
        match self.peek(0) {
            Some(t) if !t.newline && self.assignment(t)? => {
                self.bump()?;
                sig_end = Some(self.peek(0)?.start);
                self.expression()?;
            }
            Some(t) if !t.newline && !matches!(t.tok, Tok::Punct(b';') | Tok::Close(b'}')) => {
                return None;
            }
            // `val x` alone is no declaration.
            _ if self.last?.start == name.start => return None,
            _ => {}
        }
        Some(Decl {
            kind: K::Property,
            name: name.start..name.end,
            bytes: start..self.end()?,
            core,
            sig_end,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// A `type` member, at its keyword, through its bounds or definition.
    fn type_member(&mut self, start: usize, core: usize) -> Option<Decl> {
        self.bump()?;
        let name = self.name()?;
        // Type parameters and bounds, then its definition.
        if let Some(t) = self.peek(0)
            && !t.newline
            && !matches!(t.tok, Tok::Punct(b';') | Tok::Close(_))
            && !self.assignment(t)?
        {
            self.type_()?;
        }
        if let Some(t) = self.peek(0)
            && !t.newline
            && self.assignment(t)?
        {
            self.bump()?;
            self.expression()?;
        }
        Some(Decl {
            kind: K::TypeAlias,
            name,
            bytes: start..self.end()?,
            core,
            sig_end: None,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// An initializer, a body or a type alias's type, through its last token: up
    /// to a `;` or a closer, or a line break where the statement surely ends (see
    /// the module doc).
    fn expression(&mut self) -> Option<()> {
        let first = self.peek(0)?;
        // An indented block of statements (Scala 3).
        if starts(self.text(first)) || first.tok == Tok::Punct(b'@') {
            return None;
        }
        // The `if`s not yet closed by an `else`; whether a `for` or `while` came
        // (`yield`, `do`), and a `try` (`catch`, `finally`): these go on with the
        // keyword on the next line, and a keyword without its opener is
        // tree-sitter's recovery (`a else b`).
        let (mut ifs, mut looped, mut tried) = (0u32, false, false);
        let (mut empty, mut new) = (true, false);
        // The column of the lines after one that ends open (`=`, `=>`, `else`): an
        // indented block's (Scala 3), which a declaration at that column or deeper
        // is in.
        let mut block = first.newline.then(|| self.column(first.start));
        loop {
            let Some(t) = self.peek(0) else {
                return (!empty).then_some(());
            };
            if t.newline && !empty {
                let last = self.last?;
                // A token no statement ends with (`=`, `=>`, `,`, `.`, `:`); an
                // operator (`+`, `???`) may end one.
                let open = match last.tok {
                    Tok::Punct(b'=' | b',' | b'.' | b':') => true,
                    Tok::Punct(b'>') => self.src[last.start - 1] == b'=',
                    _ => matches!(self.text(last), b"else" | b"yield" | b"try" | b"finally"),
                };
                let starts = starts(self.text(t))
                    || matches!(t.tok, Tok::Punct(b'@' | b';') | Tok::Close(_));
                let with = self.is(t, b"with") && new && self.with_type()?;
                let tail = match self.text(t) {
                    b"else" => ifs > 0,
                    b"catch" | b"finally" => tried,
                    _ => false,
                } && self.src[last.end..t.start]
                    .iter()
                    .all(|b| *b == b' ' || *b == b'\n')
                    && self.src[last.end..t.start]
                        .iter()
                        .filter(|b| **b == b'\n')
                        .count()
                        == 1;
                let column = self.column(t.start);
                match () {
                    _ if t.tok == Tok::Punct(b';') && block.is_some() => return None,
                    _ if matches!(t.tok, Tok::Close(_) | Tok::Punct(b';')) => {
                        return (!open).then_some(());
                    }
                    _ if starts => {
                        return (!open && block.is_none_or(|b| column < b)).then_some(());
                    }
                    _ if open => {
                        block.get_or_insert(column);
                    }
                    _ if with || tail || t.tok == Tok::Punct(b'.') => {}
                    _ => return None,
                }
            }
            match t.tok {
                Tok::Open(..) => {
                    self.bump()?;
                    self.skip_group(t)?;
                }
                // A `;` in an indented block separates its statements.
                Tok::Punct(b';') if block.is_some() => return None,
                Tok::Close(_) | Tok::Punct(b';') => return (!empty).then_some(()),
                Tok::Literal if self.src[t.end - 1] == b'{' => self.holes()?,
                // An assignment (`def reset() = x = 0`): tree-sitter reads on past
                // the line after it.
                Tok::Punct(b'=') if self.assignment(t)? => return None,
                _ => {
                    match self.text(t) {
                        b"if" => ifs += 1,
                        b"else" => ifs = ifs.checked_sub(1)?,
                        b"then" if ifs == 0 => return None,
                        b"for" | b"while" => looped = true,
                        b"yield" | b"do" if !looped => return None,
                        b"try" => tried = true,
                        b"catch" | b"finally" if !tried => return None,
                        _ => {}
                    }
                    new |= self.is(t, b"new");
                    self.bump()?;
                }
            }
            empty = false;
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
        tests::Generated,
    };

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does.
    #[test]
    fn reads_what_the_walker_takes_from_a_whole_parse() {
        let src = r#"/** Docs. */
package a.b
package c

import cats.syntax.all._
import scala.collection.{mutable, immutable => im},
  java.util.Map

/** A class. */
@deprecated("x", "1") @SerialVersionUID(1L)
sealed abstract class Foo[+A <: B : C](val x: Int)(implicit y: Y[A]) extends Bar[A](x) with Baz {
  self: Qux with Quux =>
  def f(a: Int): Int = a + 1
  private[this] var z = 3
  def abs: Int
  val d: Int
  type T = Int
  type U <: Int
  type F[X] =
    Either[String, X]
  implicit def conv(x: Int): Foo[A] = ???
  def ++[B >: A](that: Foo[B]): Foo[B] = that
  def |+|(that: Int) = that
  def ::(that: Int) = that
  def this(s: String) = this(s.length)
  override def toString: String = s"Foo(${x}) { $y }"
  lazy val m: Map[Int, String => Int] =
    Map.empty
      .updated(1, _.length)
  def proc() { println("}") }
  final val k = 'k'
  def g =
    if (a) 1
    else 2
}

object Foo extends FooInstances {
  case class C(a: Int)
  case object O
  final implicit class Ops[A](private val x: Foo[A]) extends AnyVal {
    def run[F[_]](implicit F: Monad[F]): F[Unit] = F.unit
  }
  private[cats] trait Impl { _: Foo[_] => }
  val f: Int => Int = x => {
    x + 1
  }
  def t = try { 1 } catch { case _: Exception => 2 }
  def m(x: Int) = x match {
    case 1 => "one"
    case _ => "other"
  };
  val xs = List(1,
    2)
}
trait Tr { def g = 1 }
class Empty
object Main { def main(args: Array[String]): Unit = () }
package object p extends q.Base {
  type ~>[F[_], G[_]] = FunctionK[F, G]
  def show(a: A): String = s"A(${a.x}, ${a.y})"
  def hi: String = s"hi $name!"
  val multi = s"""a ${
    b
  } $c"""
  val esc = "a\n"
  val esc2 = s"a\n"
  val uni = "\u0041"
  val q = """a""""
  val c = '\''
}
trait WithTypes { type T; type U }
"#;
        assert!(parse(src.as_bytes()).is_some(), "declined");
        let whole = extract_with(Lang::Scala, src.as_bytes(), Parse::Whole);
        assert_eq!(whole.syntax_error, None);
        let fast = extract_with(Lang::Scala, src.as_bytes(), Parse::Declarations);
        assert_eq!(outline(&fast), outline(&whole));
        assert!(whole.count > 35, "{}", outline(&whole));
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "object A { def f = {",
            "object A:\n  def f = 1\n",
            "class A extends B:\n  def f = 1\nend A\n",
            "enum Color { case Red }",
            "given Ord[Int] = ???",
            "extension (s: String) def shout = s",
            "object A { inline val x = 1 }",
            "package a { object B }",
            "object A { println(1) }",
            "object A { val (a, b) = (1, 2) }",
            "object A { val a, b: Int }",
            "object A { def x_=(v: Int) = () }",
            "object A { def `type` = 1 }",
            "object A { def f =\n  val x = 1\n  x\n}",
            "object A { val x = a\n  b }",
            "object A { def f =\n  1 +\n    2\n}",
            "object A { val x = <a>{1}</a> }",
            "object A { val s = 'sym }",
            "object A { def f = 1 } }",
            "object A { @foo (x) def f = 1 }",
            "class A\n(x: Int)",
            "object A { val r = raw\"a\\d\" }",
            "object A { val m = \"\"\"a\\d\"\"\" }",
            "object A extends { val x = 1 } with B",
            "object A { def f(x: Int)\n  (y: Int) = 1 }",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        assert!(parse(b"package a.b\nimport c._\nclass A {}").is_some());
    }

    /// Generated programs of members, stray tokens and line breaks: what the reader
    /// vouches for, it lists as the whole parse does.
    #[test]
    fn generated_programs_read_as_the_whole_parse_reads_them() {
        let statements = [
            "def f(a: Int): Int = a",
            "def g = { 1 }",
            "def h: Int",
            "def +(x: Int) = x",
            "def this(x: Int) = this()",
            "val v = 1",
            "val w: Int",
            "var x: Int = _",
            "lazy val y = f(1)",
            "private[this] val p = 2",
            "override protected def q = 3",
            "type T = Int",
            "type U <: Int",
            "type F[A] = List[A]",
            "case class C(a: Int)",
            "case object O",
            "class K[A](x: A) extends B with C { def k = x }",
            "trait Tr { self: Tr => def t: Int }",
            "object Ob { val o = 1 }",
            "@deprecated(\"x\", \"1\") def d = 1",
            "@inline final def i = 1",
            "implicit val ord: Ordering[Int] = Ordering.Int",
            "import a.b._",
            "import a.{b => c}",
            "val l = xs.map(_ + 1)",
            "def m = x match { case _ => 1 }",
            "println(1)",
            "val s = s\"${a} }\"",
            "def n = a +",
            "val t = (a, b)",
            "val e = \"a\\n\"",
            "def i = s\"$a b ${c}\"",
            "val u = \"\\u0041\"",
            "def n = new A\n  with B",
            "def e = if (a) b\n  else c",
        ];
        let tokens = [
            "def", "val", "f", "a", ".", ":", "(", ")", "=", ",", "{", "}", "[", "]", "1",
            "/* c */", "+", "=>", "@a", "with", "extends", "case", "if", "else", "_", ";", "class",
            "object", "\"s\"",
        ];
        let breaks = [" ", "\n", " // c\n", "\n\n", ";", "\n  "];
        let (clean, vouched) = Generated {
            lang: Lang::Scala,
            prefix: "package gen\n",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 3,
            breaks: &breaks,
            respace: true,
            rounds: 4000,
        }
        .run();
        assert!(vouched > 300 && vouched * 4 > clean, "{vouched} of {clean}");
    }

    /// The reader vouches for most files of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: cats and the Scala 3 library), or the
    /// first index is slow again; `fast_check` compares what it reads with whole
    /// parses.
    #[test]
    fn the_reader_vouches_for_most_files_of_real_code() {
        crate::tests::follows_real_code("scala", &["scala"], 100, 20, |src| parse(src).is_some());
    }
}
