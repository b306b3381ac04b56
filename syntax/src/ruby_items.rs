//! Ruby declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter-ruby's tree (`languages/ruby.rs`), for the files
//! this reader can vouch for.
//!
//! The tokens are the skeleton lexer's ([`skeleton_ruby::events`]), which already
//! reads Ruby's literals (heredocs, `%w[]`, regular expressions, `?c`), tells a
//! modifier `if` from one that opens a block, matches every `end`, and leaves out
//! method bodies, interpolations, and brackets and `do` blocks with nothing in them
//! that may be a symbol (each of those one group). The reader follows the
//! statements the walker reads, as the walker does: the file's; a class's, a
//! module's or a block's body and its `else` (not its `rescue` and `ensure`
//! clauses); `class << self`; the branches of `if`/`unless` and their conditions;
//! `begin` and its `else` (not a `begin … end while x` loop); and the `do` or brace
//! block of a call that is the statement (`describe … do`, `included do`, not
//! `expect do … end.to …`, whose call is `to`). `case`, loops, method bodies and
//! values are not walked. The symbols are `class`, `module`, `def` (also wrapped in
//! calls: `private def x`), `attr_reader`/`attr_writer`/`attr_accessor` with their
//! symbols, and constants assigned at the start of a statement (`A = 1`, `A ||= 1`,
//! `A::B = 1`, `self::A = 1`, `A, b = …`; `Struct.new … do` a class and
//! `Module.new` a module, the methods of their block their members). A statement
//! ends at a line break after a value or at `;` (not before a line starting with
//! `.` or `&.`), a declaration before a modifier `if` or `unless`; `alias` and
//! `undef` take their line (the lexer may read `alias eql? ==` or `undef x=` on
//! past it).
//!
//! A block the reader cannot tell the walker enters or not (an argument's, an
//! operand's, a literal's) is read all the same: where it lists nothing, the answer
//! is the same either way. The reader declines (the skeleton parse answers) on text
//! the lexer cannot follow; on such a block that lists symbols, or a block before a
//! later call's block (the walker enters both then); on a definition or accessor
//! inside a statement (also in brackets: `private(def x …)` wraps it); on a
//! constant assigned inside a statement but its targets (`foo A = 1`) or in a
//! condition; on `rescue`, `while` and `until` after a declaration's value and
//! `and`, `or`, `not` or an operator after a walked block (the declaration would be
//! an operand); on an accessor inside an accessor's arguments (`attr_reader
//! protected attr_reader :e` wraps it), or several symbols in parentheses (each
//! one's signature is the call's name, a space and the symbol, which `symbols.rs`
//! builds from a head ending in a space); on a keyword among `alias`'s or `undef`'s
//! names (`alias next succ`) but a modifier after them; on names that are not plain
//! ASCII constants where the grammar wants a constant; on text few write, where
//! tree-sitter-ruby joins or splits statements otherwise than the lexer (a
//! statement starting with an operator, `and` or `or`, a `.` ending a line or not
//! followed by a name, a `do` after an operator, `A ::B`, `def foo` then a line
//! starting with `.`, a `do` block then a line starting with `.` in a value,
//! `__END__` or `=begin` inside a line, an operator after a `\` line continuation,
//! `def @a`); and on bodies nested deeper than [`MAX_DEPTH`]. The test over real
//! code (`fast_check`) compares its symbols with whole parses.

use std::ops::Range;

use crate::{
    SymbolKind as K,
    rust_items::Decl,
    skeleton_ruby::{self, Ev, Frame},
};

/// The declarations of a Ruby file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let events = skeleton_ruby::events(src)?;
    let mut r = Reader {
        src,
        ev: &events,
        at: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    r.body(None, &mut out)?;
    (r.at == events.len()).then_some(out)
}

/// Bodies walked one in another, at most: the walker stops at 64 containers, and
/// each body here is up to three of them (`if`, `then`, `else`).
const MAX_DEPTH: u32 = 20;

/// Ruby's keywords: no call starts with one (`self` aside).
const KEYWORDS: &[&[u8]] = &[
    b"alias",
    b"and",
    b"begin",
    b"BEGIN",
    b"break",
    b"case",
    b"class",
    b"def",
    b"defined",
    b"do",
    b"else",
    b"elsif",
    b"end",
    b"END",
    b"ensure",
    b"false",
    b"for",
    b"if",
    b"in",
    b"module",
    b"next",
    b"nil",
    b"not",
    b"or",
    b"redo",
    b"rescue",
    b"retry",
    b"return",
    b"super",
    b"then",
    b"true",
    b"undef",
    b"unless",
    b"until",
    b"when",
    b"while",
    b"yield",
    b"__FILE__",
    b"__LINE__",
    b"__ENCODING__",
    b"__END__",
];

/// The assignment operators (`=` itself aside).
const ASSIGNS: &[&[u8]] = &[
    b"+=", b"-=", b"*=", b"/=", b"%=", b"**=", b"||=", b"&&=", b"|=", b"&=", b"^=", b"<<=", b">>=",
];

const ACCESSORS: &[&[u8]] = &[b"attr_reader", b"attr_writer", b"attr_accessor"];

struct Reader<'a> {
    src: &'a [u8],
    ev: &'a [Ev],
    at: usize,
    /// Bodies being walked.
    depth: u32,
}

/// What a constant's value makes of it.
struct Value {
    kind: K,
    sig_end: Option<usize>,
    /// The methods of a `Struct.new … do` block.
    members: Vec<Decl>,
    /// Where the value ends, and how.
    end: usize,
    stop: Stop,
}

/// How a statement's expression ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// At a line break or `;` (taken), the end of the text, or what ends the body.
    End,
    /// At a modifier `if` or `unless` (not taken).
    Modifier,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<Ev> {
        self.ev.get(self.at).copied()
    }

    fn peek_at(&self, i: usize) -> Option<Ev> {
        self.ev.get(i).copied()
    }

    fn text(&self, start: usize, end: usize) -> &'a [u8] {
        &self.src[start..end]
    }

    /// The keyword or name `ev` is, where it may be a keyword.
    fn word(&self, ev: Option<Ev>) -> Option<&'a [u8]> {
        match ev? {
            Ev::Word {
                start,
                end,
                name: false,
            } => Some(self.text(start, end)),
            _ => None,
        }
    }

    fn is_word(&self, ev: Option<Ev>, w: &[u8]) -> bool {
        self.word(ev) == Some(w)
    }

    fn is_op(&self, ev: Option<Ev>, op: &[u8]) -> bool {
        matches!(ev, Some(Ev::Op { start, end }) if self.text(start, end) == op)
    }

    /// The keyword whose block an `Open` at `start` is.
    fn keyword_at(&self, start: usize) -> &'a [u8] {
        let len = self.src[start..]
            .iter()
            .take_while(|&&b| crate::bytes::is_word(b))
            .count();
        &self.src[start..start + len]
    }

    /// Whether the `Term` at `i` only breaks a line before `.` or `&.`: the
    /// statement goes on.
    fn continued(&self, i: usize) -> bool {
        self.is_op(self.peek_at(i + 1), b".") || self.is_op(self.peek_at(i + 1), b"&.")
    }

    /// Whether the statement ends at the next event without taking it: the end of
    /// the text, a body's `end`, or a keyword that ends a body's statements.
    fn at_body_end(&self) -> bool {
        match self.peek() {
            None | Some(Ev::Close { .. }) => true,
            ev => matches!(
                self.word(ev),
                Some(b"else" | b"elsif" | b"ensure" | b"when" | b"in" | b"then")
            ),
        }
    }

    /// After an `Open` (taken): past its `Close`; whether anything in it may be a
    /// symbol, and where it ends.
    fn skip_frame(&mut self) -> Option<(bool, usize)> {
        let mut depth = 1;
        loop {
            let ev = self.peek()?;
            self.at += 1;
            match ev {
                Ev::Open { .. } => depth += 1,
                Ev::Close { end, symbolic, .. } => {
                    depth -= 1;
                    if depth == 0 {
                        return Some((symbolic, end));
                    }
                }
                _ => {}
            }
        }
    }

    /// After an `Open` (taken) the walker does not enter, in a statement it
    /// walks: past its `Close`, and where that ends; `None` if the walker may find
    /// a symbol in it all the same. Only the lexer's guess makes a bracket's
    /// interior symbolic (`[A, B]`: a constant before a comma): no symbol is read
    /// in brackets and hashes but a call's wrapped definition (`private(def x …)`);
    /// a block, a `do` or brace block may be walked.
    fn opaque(&mut self) -> Option<usize> {
        let open = self.at - 1;
        let Some(Ev::Open { frame, start }) = self.peek_at(open) else {
            return None;
        };
        // A class or module inside a statement: the lexer may see one statement
        // where tree-sitter-ruby sees two.
        if matches!(self.keyword_at(start), b"class" | b"module") {
            return None;
        }
        let hash = frame == Frame::Delim(b'{')
            && match open.checked_sub(1).and_then(|i| self.peek_at(i)) {
                None | Some(Ev::Term | Ev::Op { .. } | Ev::Label { .. } | Ev::Open { .. }) => true,
                ev => self.word(ev).is_some_and(|w| {
                    KEYWORDS.contains(&w) && !matches!(w, b"self" | b"BEGIN" | b"END")
                }),
            };
        if frame == Frame::Do || (frame == Frame::Delim(b'{') && !hash) {
            // Walked or not, a block without symbols lists none.
            let mut found = Vec::new();
            let end = self.block_body(None, &mut found)?;
            return found.is_empty().then_some(end);
        }
        let (symbolic, end) = self.skip_frame()?;
        let bracket = matches!(frame, Frame::Delim(b'(' | b'[')) || hash;
        if symbolic && !bracket {
            return None;
        }
        // A definition or accessor right in the brackets (not in a block there).
        let mut depth = 0;
        let declares = self.ev[open + 1..self.at].iter().any(|ev| match *ev {
            Ev::Open { .. } => {
                depth += 1;
                false
            }
            Ev::Close { .. } => {
                depth -= 1;
                false
            }
            Ev::Def { .. } => depth == 0,
            Ev::Word {
                start,
                end,
                name: false,
            } => depth == 0 && ACCESSORS.contains(&self.text(start, end)),
            _ => false,
        });
        (!declares).then_some(end)
    }

    /// The operator the `Op`s from `i` make together (`||=` is three), and the
    /// index after them, if it assigns: `=` (not `==`, `=~`, `=>`) or `op=`.
    fn assigns(&self, i: usize) -> Option<usize> {
        let Some(Ev::Op { start, end }) = self.peek_at(i) else {
            return None;
        };
        if self.text(start, end) == b"=" {
            return (!matches!(self.src.get(end), Some(b'=' | b'~' | b'>'))).then_some(i + 1);
        }
        let first = start;
        let mut j = i + 1;
        let mut last = end;
        while let Some(Ev::Op { start, end }) = self.peek_at(j) {
            if start != last {
                break;
            }
            last = end;
            j += 1;
            let op = self.text(first, last);
            if op.ends_with(b"=") {
                return ASSIGNS.contains(&op).then_some(j);
            }
        }
        None
    }

    /// The statements of a body, up to what ends it (not taken): the end of the
    /// text, an `end`, or `else`, `elsif`, `rescue` or `ensure` where a statement
    /// starts.
    fn body(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        loop {
            match self.peek() {
                Some(Ev::Term) => self.at += 1,
                _ if self.at_body_end() || self.is_word(self.peek(), b"rescue") => break,
                _ => self.statement(parent, out)?,
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// A body that must end with its `end`: past it, and where it ends.
    fn closed_body(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<usize> {
        self.body(parent, out)?;
        // A body's `rescue` and `ensure` clauses are not walked, its `else` is.
        loop {
            match self.word(self.peek()) {
                Some(b"rescue" | b"ensure") => {
                    self.at += 1;
                    self.clause()?;
                }
                Some(b"else") => {
                    self.at += 1;
                    self.body(parent, out)?;
                }
                _ => break,
            }
        }
        match self.peek()? {
            Ev::Close { end, .. } => {
                self.at += 1;
                Some(end)
            }
            _ => None,
        }
    }

    /// One statement of a walked body (`parent` its container's kind), its
    /// declarations into `out`, to its end (taken) or what ends the body.
    fn statement(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        let first = self.peek()?;
        match first {
            Ev::Open {
                frame: Frame::Block { .. },
                start,
            } => match self.keyword_at(start) {
                b"class" => self.class(start, parent, out),
                b"module" => {
                    self.at += 1;
                    self.container(K::Module, start, out)
                }
                b"if" | b"unless" => self.conditional(parent, out),
                b"begin" => self.begin(parent, out),
                b"case" | b"while" | b"until" | b"for" => {
                    // Never walked, whatever is in them.
                    self.at += 1;
                    self.skip_frame()?;
                    self.tail()
                }
                _ => None,
            },
            Ev::Def { start, .. } => self.def(start, parent, out),
            Ev::Word {
                start,
                end,
                name: false,
            } => {
                let w = self.text(start, end);
                // No statement starts with these, but tree-sitter-ruby may read a
                // name there; and `__END__` not alone on its line ends the code for
                // tree-sitter-ruby all the same, not for the lexer.
                if matches!(w, b"and" | b"or" | b"do" | b"end" | b"__END__") {
                    return None;
                }
                if ACCESSORS.contains(&w) {
                    return self.accessors(start, out);
                }
                if matches!(w, b"alias" | b"undef") {
                    return self.alias(start);
                }
                if let Some(handled) = self.wrapped(start, parent, out) {
                    return handled;
                }
                if !KEYWORDS.contains(&w) && self.assignment(start, out)? {
                    return Some(());
                }
                self.generic(parent, out)
            }
            // `::A = 1`, `@a, B = 1, 2`.
            Ev::Op { start, .. } | Ev::Value { start, .. }
                if self.is_op(Some(first), b"::") || matches!(self.src[start], b'@' | b'$') =>
            {
                if self.assignment(start, out)? {
                    return Some(());
                }
                self.generic(parent, out)
            }
            // An operator no expression starts with: tree-sitter-ruby may join the
            // line to the one before (`a, B\n= 1`).
            Ev::Op { start, end }
                if !matches!(
                    self.text(start, end),
                    b"-" | b"!" | b"~" | b"*" | b".." | b"..."
                ) =>
            {
                None
            }
            _ => self.generic(parent, out),
        }
    }

    /// After a statement's declaration: the end of the statement, perhaps after
    /// modifiers `if` and `unless` (their conditions walked).
    fn tail(&mut self) -> Option<()> {
        loop {
            match self.peek() {
                Some(Ev::Term) => {
                    if self.continued(self.at) {
                        return None;
                    }
                    self.at += 1;
                    return Some(());
                }
                _ if self.at_body_end() => return Some(()),
                ev if self.is_word(ev, b"if") || self.is_word(ev, b"unless") => {
                    self.at += 1;
                    match self.expression(true)? {
                        (0, _) => return None,
                        (_, Stop::End) => return Some(()),
                        (_, Stop::Modifier) => {}
                    }
                }
                _ => return None,
            }
        }
    }

    /// An expression that holds no symbol, to a modifier `if`/`unless` or the end
    /// of its statement (see [`Stop`]); where its last token ends (0 for none) and
    /// why it stopped. A condition (`walked`) is read by the walker: no constant
    /// is assigned in it. Declines on a modifier `rescue`, `while` or `until`, and
    /// in `walked` expressions, or anything that may hold a symbol.
    fn expression(&mut self, walked: bool) -> Option<(usize, Stop)> {
        let mut last = 0;
        // A `do` block read: tree-sitter-ruby may end the expression before a line
        // that goes on with `.` after it.
        let mut block = false;
        loop {
            let Some(ev) = self.peek() else {
                return Some((last, Stop::End));
            };
            if self.odd(ev) {
                return None;
            }
            if let Ev::Word { start, end, .. } = ev
                && walked
                && is_constant(self.text(start, end))
                && (self.assigns(self.at + 1).is_some()
                    || self.is_op(self.peek_at(self.at + 1), b","))
            {
                return None;
            }
            match ev {
                Ev::Term => {
                    if self.continued(self.at) {
                        if block {
                            return None;
                        }
                        self.at += 1;
                        continue;
                    }
                    self.at += 1;
                    return Some((last, Stop::End));
                }
                _ if self.at_body_end() => return Some((last, Stop::End)),
                Ev::Word {
                    start,
                    end,
                    name: false,
                } => match self.text(start, end) {
                    b"if" | b"unless" => return Some((last, Stop::Modifier)),
                    b"while" | b"until" | b"rescue" | b"do" => return None,
                    // `A = 1 and foo` is an operand.
                    b"and" | b"or" | b"not" if !walked => return None,
                    w if walked && ACCESSORS.contains(&w) => return None,
                    _ => {
                        self.at += 1;
                        last = end;
                    }
                },
                Ev::Open { frame, .. } => {
                    block |= frame == Frame::Do;
                    self.at += 1;
                    last = match walked {
                        true => self.opaque()?,
                        false => self.skip_frame()?.1,
                    };
                }
                Ev::Def { .. } | Ev::Close { .. } => return None,
                Ev::Group { frame, end, .. } => {
                    block |= frame == Frame::Do;
                    self.at += 1;
                    last = end;
                }
                Ev::Word { end, .. }
                | Ev::Label { end, .. }
                | Ev::Value { end, .. }
                | Ev::Op { end, .. } => {
                    self.at += 1;
                    last = end;
                }
            }
        }
    }

    /// Whether `ev` (the next event) is text few write, which tree-sitter-ruby may
    /// read otherwise than the lexer: `__END__` or `=begin` inside a line (the
    /// lexer reads on, tree-sitter-ruby ends the code or starts a comment), a `do`
    /// after an operator (no call's block), an operator after a `\` line
    /// continuation, a `.` or `&.` not followed by a method's name on its line.
    fn odd(&self, ev: Ev) -> bool {
        if let Ev::Word { start, end, .. } = ev {
            return self.text(start, end) == b"__END__";
        }
        if matches!(
            ev,
            Ev::Open {
                frame: Frame::Do,
                ..
            } | Ev::Group {
                frame: Frame::Do,
                ..
            }
        ) {
            return matches!(
                self.at.checked_sub(1).and_then(|i| self.peek_at(i)),
                None | Some(Ev::Op { .. } | Ev::Label { .. } | Ev::Term)
            );
        }
        let Ev::Op { start, end } = ev else {
            return false;
        };
        // An operator after a `\` line continuation: `x \` then `<<~E` is a
        // heredoc to tree-sitter-ruby.
        if self.src[..start].trim_ascii_end().ends_with(b"\\") {
            return true;
        }
        if self.src[end..].starts_with(b"begin") && self.src[end - 1] == b'=' {
            return true;
        }
        if !(self.is_op(Some(ev), b".") || self.is_op(Some(ev), b"&.")) {
            return false;
        }
        // A name right after (an operator's too: `a.+(b)`), or a name after blanks.
        match self.peek_at(self.at + 1) {
            Some(Ev::Word { start, .. }) => {
                start != end && !crate::bytes::is_word(self.src[start])
                    || self.src[end..start].contains(&b'\n')
            }
            Some(
                Ev::Group {
                    frame: Frame::Delim(b'('),
                    start,
                    ..
                }
                | Ev::Open {
                    frame: Frame::Delim(b'('),
                    start,
                },
            ) => start != end,
            _ => true,
        }
    }

    /// `class Name [< superclass] … end`, or `class << value … end` (its
    /// members the enclosing body's).
    fn class(&mut self, start: usize, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        self.at += 1;
        if self.src[start + b"class".len()..]
            .trim_ascii_start()
            .starts_with(b"<<")
        {
            // `class << self`: one value (not walked), then the body.
            match self.peek()? {
                Ev::Word { .. } | Ev::Value { .. } | Ev::Group { .. } => self.at += 1,
                Ev::Open {
                    frame: Frame::Delim(b'('),
                    ..
                } => {
                    self.at += 1;
                    self.skip_frame()?;
                }
                _ => return None,
            }
            if self.peek() == Some(Ev::Term) {
                self.at += 1;
            }
            self.closed_body(parent, out)?;
            return self.tail();
        }
        self.container(K::Class, start, out)
    }

    /// After `class` or `module` at `start`: its name, superclass, body and `end`.
    fn container(&mut self, kind: K, start: usize, out: &mut Vec<Decl>) -> Option<()> {
        let (qualifier, name) = self.constant_path()?;
        let mut sig_end = name.end;
        if kind == K::Class && self.is_op(self.peek(), b"<") {
            self.at += 1;
            let (end, stop) = self.expression(true)?;
            if end == 0 || stop != Stop::End {
                return None;
            }
            sig_end = end;
        } else if self.peek() == Some(Ev::Term) {
            self.at += 1;
        } else if !matches!(self.peek(), Some(Ev::Close { .. })) {
            return None;
        }
        let mut members = Vec::new();
        let end = self.closed_body(Some(kind), &mut members)?;
        out.push(Decl {
            members,
            qualifier,
            ..Decl::new(kind, name, start..end, Some(sig_end))
        });
        self.tail()
    }

    /// A constant or `A::B::C` (the scope `A::B` its qualifier, also `::A::B`
    /// or `self::B`); `::A` has none.
    fn constant_path(&mut self) -> Option<(Option<Range<usize>>, Range<usize>)> {
        let from = self.at;
        let (start, mut last_end) = match self.peek()? {
            Ev::Op { start, end } | Ev::Word { start, end, .. } => (start, end),
            _ => return None,
        };
        // `::A` and `self::A` (a scope that is not a constant), written together:
        // `A ::B` is a call of `A`.
        let colons = |r: &Self, i: usize, at: usize| match r.peek_at(i) {
            Some(Ev::Op { start, end }) => start == at && r.text(start, end) == b"::",
            _ => false,
        };
        let mut i = from;
        let lead_self = self.is_word(self.peek(), b"self") && colons(self, i + 1, last_end);
        if self.is_op(self.peek(), b"::") {
            i += 1;
        } else if lead_self {
            i += 2;
            last_end += 2;
        }
        let mut names: Vec<Range<usize>> = Vec::new();
        loop {
            let Some(Ev::Word {
                start: s,
                end,
                name,
            }) = self.peek_at(i)
            else {
                return None;
            };
            // After `::` the lexer reads any word as a name.
            if (i > from && s != last_end) || name != (i > from) || !is_constant(self.text(s, end))
            {
                return None;
            }
            names.push(s..end);
            i += 1;
            last_end = end;
            if !colons(self, i, last_end) {
                break;
            }
            i += 1;
            last_end += 2;
        }
        self.at = i;
        let name = names.pop()?;
        let qualifier = match names.last() {
            Some(last) => Some(start..last.end),
            None => lead_self.then(|| start..start + b"self".len()),
        };
        Some((qualifier, name))
    }

    /// `if`/`unless` with its branches, `elsif`s and `else`.
    fn conditional(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        self.at += 1;
        loop {
            self.condition()?;
            self.body(parent, out)?;
            match self.word(self.peek()) {
                Some(b"elsif") => self.at += 1,
                Some(b"else") => {
                    self.at += 1;
                    self.closed_body(parent, out)?;
                    return self.tail();
                }
                _ => {
                    self.closed_body(parent, out)?;
                    return self.tail();
                }
            }
        }
    }

    /// An `if`'s or `elsif`'s condition, to its line's end or `then`.
    fn condition(&mut self) -> Option<()> {
        let (end, stop) = self.expression(true)?;
        if end == 0 || stop != Stop::End {
            return None;
        }
        if self.is_word(self.peek(), b"then") {
            self.at += 1;
        }
        Some(())
    }

    /// `begin … end`: its body and `else` walked, its `rescue` and `ensure` clauses
    /// not.
    fn begin(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        self.at += 1;
        let mut found = Vec::new();
        self.closed_body(parent, &mut found)?;
        // `begin … end while x` is a loop, not walked.
        if self.is_word(self.peek(), b"while") || self.is_word(self.peek(), b"until") {
            self.at += 1;
            let (end, stop) = self.expression(false)?;
            return (end > 0 && stop == Stop::End && found.is_empty()).then_some(());
        }
        out.append(&mut found);
        self.tail()
    }

    /// A `rescue` or `ensure` clause, not walked: to the `rescue`, `else` or
    /// `ensure` that starts a statement, or the `end`.
    fn clause(&mut self) -> Option<()> {
        let mut fresh = false;
        loop {
            let ev = self.peek()?;
            match ev {
                Ev::Close { .. } => return Some(()),
                Ev::Open { .. } => {
                    self.at += 1;
                    self.skip_frame()?;
                    fresh = false;
                }
                Ev::Term => {
                    self.at += 1;
                    fresh = true;
                }
                _ => {
                    match self.word(Some(ev)) {
                        Some(b"else" | b"ensure") => return Some(()),
                        Some(b"rescue") if fresh => return Some(()),
                        _ => {}
                    }
                    fresh = self.is_word(Some(ev), b"then");
                    self.at += 1;
                }
            }
        }
    }

    /// `def` at `stmt` (or the call wrapping it there): the method, to its `end`
    /// or an endless method's value.
    fn def(&mut self, stmt: usize, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        let Some(Ev::Def { name, .. }) = self.peek() else {
            return None;
        };
        self.at += 1;
        let name = name.0..name.1;
        // `def @a`: tree-sitter-ruby names it `@a`, the lexer `a`.
        if matches!(self.src[name.start - 1], b'@' | b'$') {
            return None;
        }
        let mut sig_end = name.end;
        // After parenthesized parameters, what is on the line is the body's.
        let mut params = false;
        if let Some(Ev::Open {
            frame: Frame::Params,
            ..
        }) = self.peek()
        {
            self.at += 1;
            sig_end = self.skip_frame()?.1;
            params = true;
        }
        // tree-sitter-ruby reads `def foo` and `.bar` on the next lines as `def
        // foo.bar`; the lexer does not.
        if next_line_goes_on(self.src, sig_end) {
            return None;
        }
        let end = match self.peek()? {
            Ev::Open {
                frame: Frame::Def { .. },
                ..
            } => {
                self.at += 1;
                // Parameters without parentheses, to the line's end.
                loop {
                    match self.peek()? {
                        Ev::Term => {
                            self.at += 1;
                            break;
                        }
                        Ev::Close { .. } => break,
                        Ev::Open { .. } => {
                            self.at += 1;
                            let end = self.skip_frame()?.1;
                            if !params {
                                sig_end = end;
                            }
                        }
                        Ev::Def { .. } => return None,
                        Ev::Word { end, .. }
                        | Ev::Label { end, .. }
                        | Ev::Value { end, .. }
                        | Ev::Op { end, .. }
                        | Ev::Group { end, .. } => {
                            self.at += 1;
                            if !params {
                                sig_end = end;
                            }
                        }
                    }
                }
                match self.peek()? {
                    Ev::Close { end, .. } => {
                        self.at += 1;
                        end
                    }
                    _ => return None,
                }
            }
            ev if self.is_op(Some(ev), b"=") => {
                self.at += 1;
                let (end, stop) = self.expression(false)?;
                if end == 0 || stop != Stop::End {
                    return None;
                }
                // Its statement's end is taken already.
                self.at -= usize::from(self.ev.get(self.at - 1) == Some(&Ev::Term));
                end
            }
            _ => return None,
        };
        let kind = match parent {
            Some(K::Class | K::Module) => K::Method,
            _ => K::Function,
        };
        out.push(Decl::new(kind, name, stmt..end, Some(sig_end)));
        self.tail()
    }

    /// Names that call what follows them, from the statement's start at `stmt`
    /// (`private def x`, `private attr_reader :a`): the wrapped declaration, if
    /// that is what follows; `None` if they wrap something else.
    fn wrapped(
        &mut self,
        stmt: usize,
        parent: Option<K>,
        out: &mut Vec<Decl>,
    ) -> Option<Option<()>> {
        let mut i = self.at;
        loop {
            match self.peek_at(i) {
                Some(Ev::Word {
                    start,
                    end,
                    name: false,
                }) if is_identifier(self.text(start, end))
                    && !KEYWORDS.contains(&self.text(start, end))
                    && !ACCESSORS.contains(&self.text(start, end))
                    && matches!(self.src.get(end), Some(b' ' | b'\t')) =>
                {
                    i += 1;
                }
                Some(Ev::Def { .. }) if i > self.at => {
                    self.at = i;
                    return Some(self.def(stmt, parent, out));
                }
                Some(Ev::Word {
                    start,
                    end,
                    name: false,
                }) if i > self.at && ACCESSORS.contains(&self.text(start, end)) => {
                    self.at = i;
                    return Some(self.accessors(stmt, out));
                }
                _ => return None,
            }
        }
    }

    /// `alias new old` or `undef name` at `start`: names on its line. The lexer may
    /// read a name with `=` or an operator's on as an expression (`alias eql? ==`,
    /// `undef x=`), past the line break: the statement is its line.
    fn alias(&mut self, start: usize) -> Option<()> {
        let line_end = crate::bytes::memchr(b'\n', self.src, start).unwrap_or(self.src.len());
        self.at += 1;
        while let Some(ev) = self.peek() {
            match ev {
                Ev::Term => {
                    self.at += 1;
                    break;
                }
                // A block opened on the line: the lexer may have read a modifier
                // as `if`'s.
                Ev::Open { start, .. } | Ev::Def { start, .. } if start < line_end => return None,
                // A modifier ends the names; another keyword on the line would take
                // the statement on.
                Ev::Word { start, end, .. }
                    if start < line_end && KEYWORDS.contains(&self.text(start, end)) =>
                {
                    return match self.text(start, end) {
                        b"if" | b"unless" => self.tail(),
                        _ => None,
                    };
                }
                Ev::Word { start, .. }
                | Ev::Value { start, .. }
                | Ev::Op { start, .. }
                | Ev::Group { start, .. }
                    if start < line_end =>
                {
                    self.at += 1;
                }
                _ => break,
            }
        }
        Some(())
    }

    /// `attr_reader :a, :b` (or wrapped, from `stmt`): a property per symbol.
    fn accessors(&mut self, stmt: usize, out: &mut Vec<Decl>) -> Option<()> {
        let Some(Ev::Word { end: word_end, .. }) = self.peek() else {
            return None;
        };
        self.at += 1;
        let mut names = Vec::new();
        let mut end = word_end;
        let parens = match self.peek() {
            Some(Ev::Open {
                frame: Frame::Delim(b'('),
                start,
            }) if start == word_end => {
                self.at += 1;
                true
            }
            Some(Ev::Open { .. } | Ev::Group { .. }) => return None,
            _ => false,
        };
        if parens || !(self.at_body_end() || self.peek() == Some(Ev::Term)) {
            // Arguments separated by commas: a symbol alone is a property, `*NAMES`,
            // `"a"` or `:a.to_s` none.
            loop {
                let first = self.at;
                let mut symbol = None;
                loop {
                    match self.peek()? {
                        Ev::Term if parens => {}
                        ev if self.is_op(Some(ev), b",") => break,
                        Ev::Value { start, end: e } => {
                            if self.src[start] == b':' && self.src.get(start + 1) != Some(&b'"') {
                                symbol = Some(start..e);
                            }
                            end = e;
                        }
                        Ev::Word {
                            start,
                            end: e,
                            name,
                        } => {
                            if !name && KEYWORDS.contains(&self.text(start, e)) {
                                break;
                            }
                            // `attr_reader protected attr_reader :e` wraps the inner
                            // one: its symbols are the outer call's.
                            if !name && ACCESSORS.contains(&self.text(start, e)) {
                                return None;
                            }
                            end = e;
                        }
                        Ev::Op { end: e, .. }
                        | Ev::Label { end: e, .. }
                        | Ev::Group {
                            frame: Frame::Delim(_),
                            end: e,
                            ..
                        } => end = e,
                        _ => break,
                    }
                    self.at += 1;
                }
                let tokens = self.ev[first..self.at]
                    .iter()
                    .filter(|ev| **ev != Ev::Term)
                    .count();
                match (tokens, symbol) {
                    // `attr_reader()`, `attr_reader(:a, )`.
                    (0, _) if parens && matches!(self.peek(), Some(Ev::Close { .. })) => break,
                    (0, _) => return None,
                    (1, Some(symbol)) => {
                        if !is_simple_symbol(&self.src[symbol.start + 1..symbol.end]) {
                            return None;
                        }
                        names.push(symbol);
                    }
                    _ => {}
                }
                if self.is_op(self.peek(), b",") {
                    self.at += 1;
                    continue;
                }
                break;
            }
            if parens {
                match self.peek()? {
                    Ev::Close { end: e, .. } => {
                        self.at += 1;
                        end = e;
                    }
                    _ => return None,
                }
            }
        }
        let head = match names.len() {
            0 | 1 => None,
            _ if !parens && self.src[word_end].is_ascii_whitespace() => Some(stmt..word_end + 1),
            _ => return None,
        };
        for name in names {
            out.push(Decl {
                head: head.clone(),
                ..Decl::new(K::Property, name, stmt..end, None)
            });
        }
        self.tail()
    }

    /// A statement that assigns, from `stmt`: constants (`A = 1`, `A ||= 1`,
    /// `A::B = 1`) or names (`A, @b = 1, 2`), the constants among them symbols.
    /// Whether it was one (nothing taken if not).
    fn assignment(&mut self, stmt: usize, out: &mut Vec<Decl>) -> Option<bool> {
        let from = self.at;
        // Several names.
        if self.is_op(self.peek_at(from + 1), b",") {
            // Targets separated by commas, to the `=`: those that are a constant
            // alone are symbols (`A::B` and `a.b` are not).
            let mut names = Vec::new();
            let mut i = from;
            let mut item = from;
            loop {
                match self.peek_at(i)? {
                    ev if self.is_op(Some(ev), b",") => item = i + 1,
                    ev if self.is_op(Some(ev), b"=") => break,
                    Ev::Word {
                        start,
                        end,
                        name: false,
                    } if i == item && is_constant(self.text(start, end)) => {
                        let next = self.peek_at(i + 1);
                        if self.is_op(next, b",") || self.is_op(next, b"=") {
                            names.push(start..end);
                        } else {
                            item = usize::MAX;
                        }
                    }
                    Ev::Word { start, end, .. } if !KEYWORDS.contains(&self.text(start, end)) => {}
                    Ev::Value { .. } | Ev::Group { .. } => {}
                    ev if self.is_op(Some(ev), b".")
                        || self.is_op(Some(ev), b"::")
                        || self.is_op(Some(ev), b"*") => {}
                    _ => return None,
                }
                i += 1;
            }
            self.assigns(i)?;
            self.at = i + 1;
            let (end, stop) = self.expression(false)?;
            if end == 0 {
                return None;
            }
            for name in names {
                out.push(Decl {
                    head: Some(name.start..name.start),
                    ..Decl::new(K::Constant, name, stmt..end, None)
                });
            }
            return self.after(stop);
        }
        // One constant.
        let (qualifier, name) = {
            match self.constant_path() {
                Some(path) => path,
                None => {
                    self.at = from;
                    return Some(false);
                }
            }
        };
        let Some(value) = self.assigns(self.at) else {
            self.at = from;
            return Some(false);
        };
        self.at = value;
        let Value {
            kind,
            sig_end,
            members,
            end,
            stop,
        } = match self.defines() {
            Some(defined) => defined?,
            None => {
                let (end, stop) = self.expression(false)?;
                Value {
                    kind: K::Constant,
                    sig_end: Some(name.end),
                    members: Vec::new(),
                    end,
                    stop,
                }
            }
        };
        if end == 0 {
            return None;
        }
        out.push(Decl {
            members,
            qualifier,
            ..Decl::new(kind, name, stmt..end, sig_end)
        });
        self.after(stop)
    }

    /// After an assignment's value stopped at `stop`.
    fn after(&mut self, stop: Stop) -> Option<bool> {
        match stop {
            Stop::End => Some(true),
            Stop::Modifier => self.tail().map(|()| true),
        }
    }

    /// A value that defines a class (`Struct.new(…)`, `Class.new(…)`,
    /// `Data.define(…)`) or a module (`Module.new`), perhaps with a block of its
    /// methods: its kind, signature's end, members, end and stop. `None` if the
    /// value is not one (nothing taken); `Some(None)` to decline.
    fn defines(&mut self) -> Option<Option<Value>> {
        let (
            Some(recv),
            Some(dot),
            Some(Ev::Word {
                start,
                end: m_end,
                name: true,
            }),
        ) = (
            self.word(self.peek()),
            self.peek_at(self.at + 1),
            self.peek_at(self.at + 2),
        )
        else {
            return None;
        };
        let kind = match (recv, self.text(start, m_end)) {
            (b"Struct" | b"Class", b"new") | (b"Data", b"define") => K::Class,
            (b"Module", b"new") => K::Module,
            _ => return None,
        };
        if !self.is_op(Some(dot), b".") {
            return None;
        }
        let from = self.at;
        self.at += 3;
        let mut end = m_end;
        // Its arguments, in parentheses right after.
        match self.peek() {
            Some(Ev::Group {
                frame: Frame::Delim(b'('),
                start,
                end: e,
            }) if start == m_end => {
                self.at += 1;
                end = e;
            }
            Some(Ev::Open {
                frame: Frame::Delim(b'('),
                start,
            }) if start == m_end => return Some(None),
            // Or a command's: names, literals, brackets, `::` and `.`, to a `do`,
            // a modifier or the statement's end.
            Some(ev @ (Ev::Value { .. } | Ev::Label { .. } | Ev::Word { name: false, .. }))
                if self.word(Some(ev)).is_none_or(|w| !KEYWORDS.contains(&w)) =>
            {
                loop {
                    match self.peek() {
                        Some(
                            Ev::Value { end: e, .. }
                            | Ev::Label { end: e, .. }
                            | Ev::Word { end: e, .. }
                            | Ev::Group {
                                frame: Frame::Delim(b'(' | b'['),
                                end: e,
                                ..
                            },
                        ) if self
                            .word(self.peek())
                            .is_none_or(|w| !KEYWORDS.contains(&w)) =>
                        {
                            self.at += 1;
                            end = e;
                        }
                        ev if self.is_op(ev, b"::")
                            || self.is_op(ev, b".")
                            || self.is_op(ev, b",") =>
                        {
                            self.at += 1;
                        }
                        _ => return Some(None),
                    }
                    let ev = self.peek();
                    let done = match ev {
                        Some(Ev::Term) => !self.continued(self.at),
                        Some(
                            Ev::Open {
                                frame: Frame::Do, ..
                            }
                            | Ev::Group {
                                frame: Frame::Do, ..
                            },
                        ) => true,
                        _ => {
                            self.at_body_end()
                                || self.is_word(ev, b"if")
                                || self.is_word(ev, b"unless")
                        }
                    };
                    if done {
                        break;
                    }
                }
            }
            _ => {}
        }
        // Its block.
        let mut members = Vec::new();
        let mut sig_end = None;
        match self.peek() {
            Some(Ev::Group {
                frame: Frame::Do | Frame::Delim(b'{'),
                start,
                end: e,
            }) => {
                self.at += 1;
                sig_end = Some(start);
                end = e;
            }
            Some(Ev::Open {
                frame: Frame::Do | Frame::Delim(b'{'),
                start,
            }) => {
                self.at += 1;
                sig_end = Some(start);
                let Some(close) = self.block_body(Some(kind), &mut members) else {
                    return Some(None);
                };
                end = close;
            }
            _ => {}
        }
        // Nothing else in the value: else its call is not the value.
        let stop = match self.peek() {
            Some(Ev::Term) if !self.continued(self.at) => {
                self.at += 1;
                Stop::End
            }
            _ if self.at_body_end() => Stop::End,
            ev if self.is_word(ev, b"if") || self.is_word(ev, b"unless") => Stop::Modifier,
            // A call on what it makes (`Struct.new(:a).freeze`) is the value.
            Some(Ev::Term) => {
                self.at = from;
                return None;
            }
            ev if self.is_op(ev, b".") || self.is_op(ev, b"&.") => {
                self.at = from;
                return None;
            }
            _ => return Some(None),
        };
        Some(Some(Value {
            kind,
            sig_end,
            members,
            end,
            stop,
        }))
    }

    /// After a block's `do` or `{` (taken): its parameters, its statements (members
    /// of `parent`) and its end (taken); where it ends.
    fn block_body(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<usize> {
        if self.is_op(self.peek(), b"|") {
            self.at += 1;
            loop {
                let ev = self.peek()?;
                self.at += 1;
                match ev {
                    _ if self.is_op(Some(ev), b"|") => break,
                    // Parameters are not walked, their default values neither.
                    Ev::Open { .. } => {
                        self.skip_frame()?;
                    }
                    Ev::Def { .. } | Ev::Close { .. } | Ev::Term => return None,
                    _ => {}
                }
            }
        }
        self.closed_body(parent, out)
    }

    /// After the `do` or `{` of a call that may be the statement (taken): its
    /// block, walked if it ends the statement (the walker enters a call's block
    /// only where the call is the statement: in `foo do … end.bar`, `bar` is);
    /// whether it did, and whether it lists anything.
    fn walk_block(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<(bool, bool)> {
        let mut found = Vec::new();
        self.block_body(parent, &mut found)?;
        let ends = match self.peek() {
            Some(Ev::Term) => !self.continued(self.at),
            ev => self.at_body_end() || self.is_word(ev, b"if") || self.is_word(ev, b"unless"),
        };
        let lists = !found.is_empty();
        if ends {
            out.append(&mut found);
        }
        Some((ends, lists))
    }

    /// Any other statement: nothing in it is a symbol, but for the `do` blocks of
    /// a call that stands as the statement (`describe "x" do … end`), which the
    /// walker enters.
    fn generic(&mut self, parent: Option<K>, out: &mut Vec<Decl>) -> Option<()> {
        // Whether the statement is still a call whose `do` block the walker enters.
        let mut callish = match self.peek()? {
            Ev::Word {
                start,
                end,
                name: false,
            } => {
                let w = self.text(start, end);
                w == b"self" || !KEYWORDS.contains(&w)
            }
            // `[a, b].each do`, `"x".tap do`: a call on a literal.
            Ev::Group {
                frame: Frame::Delim(b'[' | b'('),
                ..
            }
            | Ev::Value { .. } => {
                self.is_op(self.peek_at(self.at + 1), b".")
                    || self.is_op(self.peek_at(self.at + 1), b"&.")
            }
            ev => self.is_op(Some(ev), b"::"),
        };
        let mut walked = false;
        // A block with symbols not walked, as a call follows it.
        let mut passed = false;
        // A constant before a `,` at the statement's level: `a.b, C = 1` assigns it.
        let mut listed = false;
        // After `x = `, `a.b += `: nothing in the value is walked.
        let mut assigned = false;
        // Whether the statement is still a chain of calls, `a.b(c).d`, whose last
        // call a brace block is of (`a.b c { }`: `c`'s).
        let mut chain = callish;
        let mut command = false;
        // Whether the statement so far may be an assignment's targets (`a.b[1]`,
        // `a, @b`): an assignment after them is the statement, not an argument
        // (`foo a = 1 do … end` is `foo`'s block).
        let mut lhs = true;
        let mut prev: Option<Ev> = None;
        let mut first = true;
        loop {
            let Some(ev) = self.peek() else {
                return Some(());
            };
            if self.odd(ev) {
                return None;
            }
            let before = prev;
            if ev != Ev::Term {
                let member =
                    |r: &Self, ev| r.is_op(ev, b".") || r.is_op(ev, b"&.") || r.is_op(ev, b"::");
                let joined = prev.is_none()
                    || match ev {
                        Ev::Word { .. } => member(self, prev),
                        Ev::Op { .. } => member(self, Some(ev)),
                        Ev::Group {
                            frame: Frame::Delim(b'('),
                            start,
                            ..
                        } => matches!(prev, Some(Ev::Word { end, .. }) if end == start),
                        Ev::Open {
                            frame: Frame::Delim(b'{'),
                            ..
                        } => matches!(
                            prev,
                            Some(
                                Ev::Word { .. }
                                    | Ev::Group {
                                        frame: Frame::Delim(b'('),
                                        ..
                                    }
                            )
                        ),
                        _ => false,
                    };
                // A name or literal after the chain is a command's argument
                // (`prepend Module.new`, `const_set :A, Module.new`); not `[`
                // (`foo(1) [1].each`: tree-sitter-ruby indexes).
                command |= chain
                    && !joined
                    && matches!(ev, Ev::Word { .. } | Ev::Value { .. } | Ev::Label { .. });
                chain &= joined;
                // Targets: names, members, elements, `*`, commas.
                let target = |r: &Self, ev| member(r, ev) || r.is_op(ev, b",") || r.is_op(ev, b"*");
                lhs &= prev.is_none()
                    || match ev {
                        Ev::Word { .. } => target(self, prev),
                        Ev::Op { .. } => target(self, Some(ev)) || self.assigns(self.at).is_some(),
                        Ev::Group {
                            frame: Frame::Delim(b'[' | b'('),
                            start,
                            ..
                        } => match prev {
                            Some(
                                Ev::Word { end, .. }
                                | Ev::Value { end, .. }
                                | Ev::Group { end, .. },
                            ) => end == start,
                            _ => false,
                        },
                        _ => false,
                    };
                prev = Some(ev);
            }
            match ev {
                Ev::Term => {
                    self.at += 1;
                    if self.continued(self.at - 1) {
                        continue;
                    }
                    return Some(());
                }
                _ if !first && self.at_body_end() => return Some(()),
                Ev::Word { start, end, name } => {
                    let w = self.text(start, end);
                    if name {
                        if !assigned && is_constant(w) && self.assigns(self.at + 1).is_some() {
                            return None;
                        }
                        self.at += 1;
                        first = false;
                        continue;
                    }
                    match w {
                        b"if" | b"unless" if !first => return self.tail(),
                        b"while" | b"until" | b"rescue" | b"and" | b"or" | b"not" if walked => {
                            return None;
                        }
                        _ if assigned => {}
                        _ if ACCESSORS.contains(&w) => return None,
                        _ if is_constant(w) => {
                            if self.assigns(self.at + 1).is_some() {
                                return None;
                            }
                            listed |= self.is_op(self.peek_at(self.at + 1), b",");
                        }
                        b"self" | b"nil" | b"true" | b"false" => {}
                        _ if KEYWORDS.contains(&w) && !first => callish = false,
                        _ => {}
                    }
                    self.at += 1;
                }
                Ev::Open { frame, start } => {
                    self.at += 1;
                    match frame {
                        // A later call's block would make the walker enter the one
                        // before it (`foo do … end.bar do … end`).
                        Frame::Do | Frame::Delim(b'{') if passed => return None,
                        Frame::Do | Frame::Delim(b'{')
                            if callish && (frame == Frame::Do || chain) =>
                        {
                            let (ends, lists) = self.walk_block(parent, out)?;
                            walked = ends;
                            passed = !ends && lists;
                            callish &= ends;
                        }
                        // A brace block after a command's argument is the
                        // argument's (`prepend Module.new { … }`): not walked.
                        Frame::Delim(b'{')
                            if callish
                                && command
                                && !walked
                                && matches!(
                                    before,
                                    Some(
                                        Ev::Word { .. }
                                            | Ev::Group {
                                                frame: Frame::Delim(b'('),
                                                ..
                                            }
                                    )
                                ) =>
                        {
                            self.skip_frame()?;
                        }
                        Frame::Block { .. } if first => {
                            // `case`, `while`, …: read by `statement`.
                            return None;
                        }
                        // A class or module but as a value (`meta = class << x; self;
                        // end`): the lexer may see one statement where tree-sitter-ruby
                        // sees two (`and` then a line with `class`).
                        Frame::Block { .. }
                            if matches!(self.keyword_at(start), b"class" | b"module")
                                && !matches!(
                                    self.peek_at(self.at - 2),
                                    Some(Ev::Op { start, end }) if self.text(start, end) == b"="
                                ) =>
                        {
                            return None;
                        }
                        _ if assigned => {
                            self.skip_frame()?;
                        }
                        _ => {
                            self.opaque()?;
                        }
                    }
                }
                Ev::Def { .. } | Ev::Close { .. } => return None,
                Ev::Op { start, end } => {
                    let op = self.text(start, end);
                    if let Some(next) = self.assigns(self.at) {
                        if listed || walked {
                            return None;
                        }
                        callish &= !lhs;
                        assigned |= lhs;
                        self.at = next;
                    } else {
                        let arrow = op == b"=" && self.src.get(end) == Some(&b'>');
                        let arrow_tail = op == b">" && start > 0 && self.src[start - 1] == b'=';
                        // And `->` of a lambda among a command's arguments.
                        let calls = matches!(op, b"." | b"&." | b"::" | b",")
                            || (op == b"-" && self.src.get(end) == Some(&b'>'))
                            || (op == b">" && start > 0 && self.src[start - 1] == b'-');
                        if !(calls || arrow || arrow_tail) {
                            if walked {
                                return None;
                            }
                            callish = false;
                        }
                        self.at += 1;
                    }
                }
                Ev::Group {
                    frame: Frame::Do | Frame::Delim(b'{'),
                    ..
                } if passed => return None,
                Ev::Label { .. } | Ev::Value { .. } | Ev::Group { .. } => self.at += 1,
            }
            first = false;
        }
    }
}

/// Whether the code after `at` goes on, past line breaks, blanks and comments,
/// with `.` or `&.`.
fn next_line_goes_on(src: &[u8], at: usize) -> bool {
    let mut i = at;
    let mut broke = false;
    while let Some(&b) = src.get(i) {
        match b {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                broke = true;
                i += 1;
            }
            b'#' => i = crate::bytes::memchr(b'\n', src, i).unwrap_or(src.len()),
            _ => break,
        }
    }
    let rest = &src[i.min(src.len())..];
    broke && ((rest.starts_with(b".") && !rest.starts_with(b"..")) || rest.starts_with(b"&."))
}

/// A name tree-sitter-ruby reads as a constant, and this reader vouches for: ASCII,
/// from a capital.
fn is_constant(w: &[u8]) -> bool {
    w.first().is_some_and(u8::is_ascii_uppercase)
        && w.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// A plain ASCII identifier (a local name or a method's).
fn is_identifier(w: &[u8]) -> bool {
    w.first()
        .is_some_and(|b| b.is_ascii_lowercase() || *b == b'_')
        && w.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// After a symbol's `:`: a name tree-sitter-ruby reads as a simple symbol.
fn is_simple_symbol(w: &[u8]) -> bool {
    let w = w.strip_suffix(b"?").or(w.strip_suffix(b"!")).unwrap_or(w);
    w.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && w.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        tests::{Generated, reader_agrees},
    };

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does.
    #[test]
    fn declarations_read_as_the_whole_parse_reads_them() {
        for src in [
            "class A; end\n",
            "module M\n  class B < C\n    def x; end\n  end\nend\n",
            "# The server.\nmodule Puma\n  VERSION = \"5.6.5\"\n  A, B = 1, 2\n  CODES ||= {}\nend\n",
            "class Server::Request < Base\n  attr_reader :app\n  attr_accessor :host, :port\n  def self.build(app) = new(app)\n  def initialize(app, host = \"#\")\n    @app = app\n  end\n  class << self\n    def meta; end\n  end\n  private def secret; end\n  private attr_writer :token\n  def ==(other); end\n  unless method_defined?(:call)\n    def call(env); end\n  end\nend\n",
            "Point = Struct.new(:x, :y) do\n  def norm; end\nend\nEmpty = Class.new(StandardError)\n",
            "def top_level; end\nclass ::Global; end\n",
            "RSpec.describe Puma do\n  class Fake < Puma::Server::Request; end\n  let(:app) { ->(env) { [200, {}, []] } }\n  def build; end\nend\n",
            "begin\n  require \"rails/railtie\"\n  class Railtie < Rails::Railtie; end\nrescue LoadError\nend\n",
            "class Forked; end if Process.respond_to?(:fork)\n",
            "X = 1 if y\nY = <<~EOS\n  text\nEOS\nZ = [1,\n  2].freeze\n",
            "A::B::C = 1\nclass A::B::C < D; end\nmodule A::B; end\n",
            "attr_reader(:a)\nattr_reader :a, :b, 'c'\nattr_accessor\n",
            "foo.bar do |x, y|\n  def z; end\nend\nbaz 1, a: 2 do\n  W = 1\nend\n",
            "a, B = 1, 2\n@a, C = 1\n",
            "if a\n  A = 1\nelsif b then B = 2\nelse\n  C = 3\nend\n",
            "def x a, b\nend\ndef y() end\ndef z = 1\ndef w(a) = a + 1\n",
            "Foo = Module.new do\n  def x; end\nend\n",
            "task :a => :b do\n  def helper; end\nend\n",
            "class A\n  X = foo\n    .bar\n  def y; end\nend\n",
            "module A\n  def self.gem_version\n    Gem::Version.new VERSION::STRING\n  end\n  module VERSION\n    MAJOR = 6\n    TINY  = 7\n    STRING = [MAJOR, TINY].compact.join(\".\")\n  end\nend\n",
            "class R < B\n  MyError = Class.new(StandardError)\n  retry_on(MyError, attempts: 2)\n  def perform(error = \"R::MyError\")\n    raise error.constantize\n  end\nend\n",
            "class T < DelegateClass(S) # :nodoc:\n  undef to_yaml if method_defined?(:to_yaml)\n  include D\n  attr_reader :extra\n  def initialize(t, extra: nil)\n    super(t)\n  end\nend\n",
            "describe X::Y do\n  let(:c) { foo(A::B, x: 1) }\n  it { expect(A, B) }\nend\n",
            "begin\n  foo\nend while x\n",
            "scope :w, Class.new(Struct.new(:k)) {\n  def call; end\n}.new(self)\nconst_set :C, Module.new {\n  def h; end\n}\n",
            "[true, false].each do |x|\n  def y; end\nend\n(a).b { def c; end }\nfoo { def x; end }\nprepend Module.new {\n  def y; end\n}\nalias eql? ==\ndef hash; end\nalias :c  :<<\nalias :d= :<<\n",
            "C = Class.new StandardError\nD = Struct.new :a, Foo::B do\n  def x; end\nend\n",
            "expect do\n  def x; end\nend.to raise_error\nclass << self; alias [] new; end\nalias r []=\ndef m; end\n",
            "module M\n  A = %w[end if do]\n  B = /end/ unless x / 2 / y\n  C = ?e\n  D = <<~EOS.strip\n    end\n  EOS\n  def x = y\n  E = \"#{if a then 'end' end}\"\n  G = { a: 1, b: [A, B] }\n  memoize def z(a) = a\n  private_class_method def self.w; end\nend\n",
            "module RuboCop\n  module Cop\n    # Checks things.\n    class Foo < Base\n      extend AutoCorrector\n      MSG = 'Use `%<a>s` instead of %<b>s.'\n      RESTRICT_ON_SEND = %i[a b].freeze\n\n      # @!method x?(node)\n      def_node_matcher :x?, <<~PATTERN\n        (send nil? :x ...)\n      PATTERN\n\n      def on_send(node)\n        return unless x?(node)\n        add_offense(node) { |c| c.replace(node, 'y') }\n      end\n      alias on_csend on_send\n\n      private\n\n      def y(node) = node.z / 2\n    end\n  end\nend\n",
            "module Concern\n  extend ActiveSupport::Concern\n  included do\n    scope :x, -> { where(a: 1) }\n    validates :y, presence: true\n    has_many :z, dependent: :destroy do\n      def w; end\n    end\n  end\n  class_methods do\n    def v; end\n  end\n  delegate :a, to: :b\n  private_constant :C if defined?(C)\nend\n",
            "module M\n  def M::x(a) = a\n  def self::y; end\n  def Session::z a\n  end\nend\n",
            "class A\n  attr_accessor(*NAMES)\n  attr_reader :a, *B, :c.to_s, d: 1\n  attr_writer(\n    :e,\n  )\nend\nclass << (N = Object.new)\n  def n; end\nend\n",
            "class A\n  undef x=\n  def x=(v) @x = v end\n  alias new! new unless method_defined? :new!\nend\n",
            "self::A = 1\n::Rack::B::C = 2\nS = Struct.new :a, :b\nclass X\n  def y() z end\nend\n",
        ] {
            assert_eq!(reader_agrees(Lang::Ruby, src), Some(true), "{src}");
        }
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "class A\n",
            "foo(def x; end)\n",
            "foo :x { def y; end }\n",
            "A = 1 rescue nil\n",
            "foo && bar do; J = 1; end\n",
            "foo.bar do |x, y|\n  def z; end\nend.baz do\n  W = 1\nend\n",
            "foo do\n  def z; end\nend.baz {}\n",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
    }

    /// Statements and stray tokens strung together at random, with comments and
    /// line breaks between them: on every text the grammar reads cleanly, the
    /// reader declines or lists what the whole parse does.
    #[test]
    fn generated_statements_read_as_the_whole_parse_reads_them() {
        let statements = [
            "class A",
            "class B < C",
            "module M",
            "end",
            "class D::E < F::G; end",
            "module N; X = 1; end",
            "class << self; def s; end; end",
            "def f; end",
            "def g(a, b) a end",
            "def h = 1",
            "def self.k(x) = x",
            "def l a, b\nend",
            "attr_reader :a",
            "attr_accessor :b, :c",
            "attr_writer(:d)",
            "private def p; end",
            "protected attr_reader :e",
            "X = 1",
            "Y ||= {}",
            "A::B = 2",
            "a, C = 1, 2",
            "X = 1 if y",
            "Z = [A, B].freeze",
            "if x then W = 1 else def w; end end",
            "unless y; V = 2; end",
            "begin; U = 1; rescue => e; T = 2; else; S = 3; ensure; R = 4; end",
            "begin; end while x",
            "describe 'x' do; def d; end; end",
            "foo.each do |i| Q = i end",
            "included do",
            "Point = Struct.new(:x) do; def norm; end; end",
            "Empty = Class.new(Base)",
            "Data.define(:a) { def b; end }",
            "x = 1",
            "foo(1)",
            "bar { |a| a }",
            "bar(A, B) { |a| a }",
            "puts 'end'",
            "def m; end if z",
            "while x do; def v; end; end",
            "case x; when 1; P = 1; end",
            "loop do; O = 1; end",
            "private",
            "alias a b",
            "z = foo do; N = 1; end",
            "x = <<~EOS\n  hi\nEOS",
            "A = %w[a b]",
            "y = x ? 1 : 2",
            "-> do; M = 1; end",
            "foo\n  .bar do; L = 1; end",
            "Z = foo rescue nil",
            "foo bar do; K = 1; end",
            "foo && bar do; J = 1; end",
            "foo do; I = 1; end.bar",
            "A = 1 and foo",
            "x = 1 if A = 2",
            "foo A = 1",
            "private(def x; end)",
            "attr_reader(:a, :b)",
            "A, *b = 1",
            "Foo::Bar.baz do def q; end end",
            "self.class::X = 1",
            "foo.bar, C = 1, 2",
            "x = if a then B = 1 end",
            "begin; C = 1; end until x",
            "@a, B = 1, 2",
            "::C = 1",
            "A::B ||= 2",
            "S = Struct.new(:a).freeze",
            "T = Struct.new :a do; def y; end; end",
            "A = B = 1",
            "foo do |a, (b, c)| D = 1 end",
            "E = foo bar do; def e; end; end",
            "expect { F = 1 }.to raise_error",
            "[1].each { |i| G = i }",
            "foo(1) { H = 2 }",
            "foo 1 do |x| J = x end",
            "def k(a) = a + 1",
            "def l() m end",
            "alias_method :a, :b",
            "alias eql? ==",
            "class << self\n  attr_accessor :n\nend",
            "module P::Q\n  R = 1\nend",
            "X = [1,\n  2]",
            "Y = foo\n  .bar",
            "Z = <<~E.strip\n  text\nE",
            "if a\n  B = 1\nelsif c\n  D = 2\nend",
            "foo.each do |x|\n  K = 1\nrescue\n  L = 2\nend",
            "class V; rescue; W = 1; end",
            "private attr_reader :a, :b",
            "memoize private def q(a) = a",
            "attr_reader :a, 'b', :c?",
            "attr_accessor :a,\n  :b",
            "A = <<~X + 'y'\n  z\nX",
            "B = foo(<<~X)\n  z\nX",
            "def r(a, b = {}, *c, d:, **e, &f); end",
            "def s a = 1, b: 2\nend",
            "def self.t = 1",
            "def u?; end",
            "def v!() = 1",
            "def []=(k, v); end",
            "def +(o) = 1",
            "def `(c); end",
            "module_function def w; end",
            "X::Y::Z = 1",
            "C = D rescue nil",
            "E = F if G",
            "H ||= I unless J",
            "K = L while M",
            "N = O and P",
            "Q = ->(x) { x }",
            "R = proc do; def rr; end; end",
            "S = Class.new(T) { def s; end }",
            "U = Data.define(:a, :b)",
            "V = Module.new",
            "W = Struct.new(:a) do\n  def w; end\nend.freeze",
            "x.y do; Z = 1; end",
            "x&.y do; Z = 1; end",
            "x::y do; Z = 1; end",
            "X.y { Z = 1 }",
            "x y { Z = 1 }",
            "x(y) { Z = 1 }",
            "x y, z do; Z = 1; end",
            "x = y z do; Z = 1; end",
            "return x do; Z = 1; end",
            "x or y do; Z = 1; end",
            "not x do; Z = 1; end",
            "!x do; Z = 1; end",
            "x ? y : z do; Z = 1; end",
            "x if y do; Z = 1; end",
            "class A; end.new",
            "module B; end if c",
            "def d; end unless e",
            "attr_reader :f if g",
            "begin; H = 1; end if i",
            "begin; J = 1; end.tap",
            "if k then L = 1 end.m",
            "case n; when o then P = 1; end",
            "while q; R = 1; end",
            "for s in t; U = 1; end",
            "until v do W = 1 end",
            "class X::Y; end",
            "class X < Y::Z; end",
            "class X < Struct.new(:a); end",
            "class X<Y; end",
            "module X; module Y; Z = 1; end; end",
            "class << X; def y; end; end",
            "class << self\n  private def z; end\nend",
            "a.b = C",
            "a[B] = C",
            "@a = B = 1",
            "A.b, C = 1, 2",
            "*a, B = 1",
            "(a, B), c = 1",
            "a, (B, c) = 1",
            "A, = 1",
            "foo A, B",
            "foo A = 1, B",
            "foo(A = 1)",
            "foo [A, B] do; C = 1; end",
            "%w[a b].each do |x| D = x end",
            "'s'.tap do E = 1 end",
            ":s.tap do F = 1 end",
            "1.times do G = 1 end",
            "@a.each do H = 1 end",
            "$a.each do I = 1 end",
            "A.each do J = 1 end",
            "::A.each do K = 1 end",
            "self.each do L = 1 end",
            "super do M = 1 end",
            "yield do N = 1 end",
            "-> { O = 1 }",
            "lambda { P = 1 }",
            "BEGIN { Q = 1 }",
            "END { R = 1 }",
            "__END__",
            "=begin\nS = 1\n=end",
            "puts <<~A, <<~B\n  a\nA\n  b\nB",
            "T = ?a",
            "U = %i[a b]",
            "V = /a #{W = 1} b/",
            "X = \"#{Y = 1}\"",
            "Z = x / y / z",
            "A = x %w",
            "undef a",
            "alias_method :b, :c",
            "alias $a $b",
            "defined?(A) or B = 1",
            "A = 1; B = 2",
            "A = 1 if b; C = 2",
        ];
        let tokens = [
            "end",
            "do",
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            "=",
            ",",
            ".",
            "::",
            "A",
            "x",
            ":a",
            "if",
            "then",
            "def",
            "class",
            "|",
            "1",
            "#c",
            ";",
            "rescue",
            "and",
            "'s'",
            "<<~E\nE",
            "&.",
            "do |x|",
            "private",
            "attr_reader",
            "=>",
            "->",
            "*",
            "?a",
            "%w[",
            "/",
            "<<",
            "@a",
            "self",
            "B::C",
            "end.x",
            "\\",
        ];
        let breaks = [
            "\n",
            "; ",
            " ",
            "\n  ",
            " # c\n",
            "\n\n",
            " \\\n",
            "\n  # c\n  ",
        ];
        let (clean, vouched) = Generated {
            lang: Lang::Ruby,
            prefix: "",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 6,
            breaks: &breaks,
            respace: true,
            rounds: 20000,
        }
        .run();
        // Many clean texts are ones the reader declines by design (`foo && bar do`,
        // `-> do`, `foo do … end.bar`, a stray `end` tree-sitter-ruby accepts).
        assert!(
            vouched > 2000 && vouched * 5 > clean * 2,
            "{vouched} of {clean}"
        );
    }

    /// The reader vouches for nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: puma and hashie), or the first index
    /// is slow again; `fast_check` compares what it reads with whole parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("ruby", &["rb", "rake", "gemspec", "ru"], 40, 1, |src| {
            parse(src).is_some()
        });
    }
}
