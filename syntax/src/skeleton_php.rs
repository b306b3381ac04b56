//! The skeleton lexer of PHP (`languages/php.rs`). It finds the brace blocks the
//! symbol walker never enters, so tree-sitter parses them as empty blocks
//! (`skeleton.rs` blanks them or leaves them out).
//!
//! **Which blocks are entered.** The walker reads the file's statements, and goes on
//! into namespace bodies, the bodies of `if`, `elseif` and `else` and bare blocks
//! (the polyfill idiom `if (!function_exists('f')) { function f() {} }`), and class,
//! interface, trait and enum bodies, whose members it reads but never enters. So a
//! type's body is entered and every block in it skipped (method bodies, trait `use`
//! lists, property hooks); at a statement level, a `{` is skipped where the
//! declaration announced a function (`function`, `fn`: function and closure bodies)
//! or the statement is one the walker never enters (`while`, `for`, `foreach`,
//! `switch`, `declare`, `catch` and `match` after their parentheses; `try`,
//! `finally`, `do`), and inside parentheses or brackets (closures and anonymous
//! classes in arguments). Every other `{` at a statement level is entered: entering
//! a block the walker does not enter is only slower. A brace that is part of an
//! expression (`$a->{$name}`, `${$name}`, `A::{$c}`, `use A\{B, C}`) is no block,
//! and is never emptied (an empty one would not parse). An array's elements after
//! `=` or `return` (`$x = [...]`, `const A = array(...)`, a property's default, a
//! configuration file's `return [...]`) are skipped too: the walker reads where a
//! value starts, never what it holds, and an empty array parses (a data file is
//! mostly arrays). The text of the block comments outside skipped blocks is skipped
//! as well; the comments stay comments.
//!
//! **Following the text** as tree-sitter-php reads it: the text outside `<?php …
//! ?>` (any `<?` opens PHP, `<?=` and the bare short tag too; `?>` ends it and
//! counts as a `;`, inside a body as well), `//` and `#` comments (to the line's end
//! or a `?>`; a `#` before `?` is a comment alone, `#[` begins an attribute), block
//! comments, single-quoted strings, double-quoted strings, backtick commands and
//! heredocs with the holes of their interpolations (`{$…}`, `${…}`: code, nested to
//! any depth; `\{` opens none), nowdocs, and the heredoc's closing identifier,
//! indented or not, first on its line and followed by no name character. Keywords
//! are read regardless of case, as PHP does. Where the lexer cannot follow the text
//! (an unterminated literal or comment, unbalanced or mismatched delimiters, a
//! heredoc whose opening line holds more) it skips nothing and the file gets a whole
//! parse; so it does at `__halt_compiler`, whose data the grammar does not know.

use std::ops::Range;

use crate::{
    bytes::is_word,
    lex::{Cursor, Delimited, opener},
};

/// Byte ranges inside `src` that need no syntax tree: the interiors of the brace
/// blocks the walker never enters, of the arrays it never reads and of the block
/// comments outside them, in order, disjoint. Empty where the lexer cannot follow
/// the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut scan = Scan {
        lex: Lexer::new(src),
        levels: vec![Level::new(Frame::Statements)],
    };
    while let Some(tok) = scan.lex.next() {
        scan.token(tok)?;
    }
    (!scan.lex.cur.confused && scan.levels.len() == 1).then_some(scan.lex.cur.skip)
}

/// One token, as far as finding blocks goes (and reading declarations: `php_items`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A name, keyword, number or variable (`$name`): `start..end`.
    Word(usize, usize),
    /// An opening delimiter at this offset (`#[` as `[`).
    Open(u8, usize),
    Close(u8),
    /// `->`, `?->` or `::`: a member's name follows.
    Member,
    /// A `$` before no name (`${…}`, `$$a`).
    Dollar,
    /// `;` also for `?>`, which ends a statement as one does.
    Punct(u8),
    /// A literal, or the text of an interpolated one up to a hole or from a hole on.
    Literal,
}

/// A string whose holes hold code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quoted {
    /// `"…"`.
    Double,
    /// `` `…` ``.
    Backtick,
    /// `<<<ID` or `<<<"ID"`; `ID` at `tag`.
    Heredoc { tag: (usize, usize) },
    /// `<<<'ID'`: no holes, no escapes.
    Nowdoc { tag: (usize, usize) },
}

/// An interpolation hole (`{$…}`, `${…}`) the lexer is inside of.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hole {
    /// The string to read on once the hole closes.
    quoted: Quoted,
    /// How many delimiters were open when it opened: a `}` at that depth closes it.
    depth: usize,
}

pub(crate) struct Lexer<'a> {
    pub(crate) cur: Cursor<'a>,
    pub(crate) holes: Vec<Hole>,
    /// Where the token last read starts (`#` of `#[`, `?` of `?>`).
    pub(crate) start: usize,
}

/// The bytes a delimiter, literal, comment, `?>` or heredoc starts with: what
/// [`Lexer::skip_body`] stops at.
static STARTS_TOKEN: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"()[]{}'\"`#/?<";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

impl<'a> Lexer<'a> {
    /// At the start of the file, which is text up to the first `<?`.
    pub(crate) fn new(src: &'a [u8]) -> Lexer<'a> {
        let mut lex = Lexer {
            cur: Cursor::new(src),
            holes: Vec::new(),
            start: 0,
        };
        lex.cur.at = lex.after_open_tag(0);
        lex
    }

    fn word(&self, tok: Tok) -> Option<&'a [u8]> {
        match tok {
            Tok::Word(s, e) => Some(self.cur.text(s, e)),
            _ => None,
        }
    }

    /// Where PHP resumes after text from `from` on: past the next `<?` (`<?php`,
    /// `<?=`, `<?`: tree-sitter-php's `php_tag`); the end if there is none.
    fn after_open_tag(&self, from: usize) -> usize {
        let Some(i) = memchr::memmem::find(&self.cur.src[from..], b"<?") else {
            return self.cur.src.len();
        };
        let at = from + i + 2;
        match self.cur.src.get(at..at + 3) {
            Some(php) if php.eq_ignore_ascii_case(b"php") => at + 3,
            _ if self.cur.src.get(at) == Some(&b'=') => at + 1,
            _ => at,
        }
    }

    /// The next token; `None` at the end of the text or once confused.
    pub(crate) fn next(&mut self) -> Option<Tok> {
        loop {
            let (start, b) = self.cur.next_byte(!self.holes.is_empty())?;
            self.start = start;
            return Some(match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => {
                    self.cur.skip_while(|b| {
                        matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c')
                    });
                    continue;
                }
                b'/' if self.cur.peek(0) == Some(b'/') => {
                    self.line_comment();
                    continue;
                }
                b'#' if self.cur.peek(0) == Some(b'[') => {
                    self.cur.at += 1;
                    self.cur.open.push(b'[');
                    Tok::Open(b'[', start + 1)
                }
                b'#' => {
                    // tree-sitter-php: a `#` before `?` or a line break is a comment
                    // alone.
                    if !matches!(self.cur.peek(0), Some(b'?' | b'\r' | b'\n')) {
                        self.line_comment();
                    }
                    continue;
                }
                b'/' if self.cur.peek(0) == Some(b'*') => {
                    self.cur.at += 1;
                    self.cur.block_comment(false)?;
                    self.cur.comment_read(start + 3..self.cur.at - 2);
                    continue;
                }
                b'?' => match self.cur.peek(0) {
                    // `?>`: text up to the next `<?`.
                    Some(b'>') => {
                        self.cur.at = self.after_open_tag(self.cur.at + 1);
                        Tok::Punct(b';')
                    }
                    Some(b'-') if self.cur.peek(1) == Some(b'>') => {
                        self.cur.at += 2;
                        Tok::Member
                    }
                    // `??`: its second `?` begins no `?>`.
                    Some(b'?') => {
                        self.cur.at += 1;
                        Tok::Punct(b'?')
                    }
                    _ => Tok::Punct(b'?'),
                },
                b'-' if self.cur.peek(0) == Some(b'>') => {
                    self.cur.at += 1;
                    Tok::Member
                }
                b':' if self.cur.peek(0) == Some(b':') => {
                    self.cur.at += 1;
                    Tok::Member
                }
                b'<' if self.cur.peek(0) == Some(b'<') && self.cur.peek(1) == Some(b'<') => {
                    self.cur.at += 2;
                    self.heredoc()?
                }
                b'\'' => {
                    self.cur.quoted(b'\'')?;
                    Tok::Literal
                }
                b'"' => self.text(Quoted::Double, false)?,
                b'`' => self.text(Quoted::Backtick, false)?,
                b'$' if self.cur.peek(0).is_some_and(is_word) => {
                    self.cur.skip_while(is_word);
                    Tok::Word(start, self.cur.at)
                }
                b'$' => Tok::Dollar,
                b'(' | b'[' | b'{' => {
                    self.cur.open.push(b);
                    Tok::Open(b, start)
                }
                b'}' if self
                    .holes
                    .last()
                    .is_some_and(|h| h.depth == self.cur.open.len()) =>
                {
                    let hole = self.holes.pop()?;
                    self.text(hole.quoted, false)?
                }
                b')' | b']' | b'}' => {
                    self.cur.close(opener(b))?;
                    Tok::Close(b)
                }
                b if is_word(b) => {
                    self.cur.skip_while(is_word);
                    let word = &self.cur.src[start..self.cur.at];
                    if word.eq_ignore_ascii_case(b"__halt_compiler") {
                        return self.cur.confused();
                    }
                    Tok::Word(start, self.cur.at)
                }
                _ => Tok::Punct(b),
            });
        }
    }

    /// Reads on until fewer than `floor` delimiters are open (a body `php_items`
    /// never reads), jumping over the bytes no token that matters there starts
    /// with: names, numbers, spaces, most operators. A `__halt_compiler` there goes
    /// unseen (tree-sitter-php does not know it either, and PHP allows it only at
    /// the top).
    pub(crate) fn skip_body(&mut self, floor: usize) -> Option<()> {
        while self.cur.open.len() >= floor {
            let rest = &self.cur.src[self.cur.at..];
            self.cur.at += rest
                .iter()
                .position(|&b| STARTS_TOKEN[b as usize])
                .unwrap_or(rest.len());
            self.next()?;
        }
        Some(())
    }

    /// After `//` or `#`: to the line's end or a `?>`, which ends PHP (the comment
    /// token of tree-sitter-php: a `?` and the byte after it, unless that is `>` or
    /// a line break, are the comment's).
    fn line_comment(&mut self) {
        loop {
            let Some(i) = memchr::memchr3(b'\n', b'\r', b'?', &self.cur.src[self.cur.at..]) else {
                self.cur.at = self.cur.src.len();
                return;
            };
            self.cur.at += i;
            if self.cur.src[self.cur.at] != b'?' {
                return;
            }
            match self.cur.peek(1) {
                Some(b'>') => return,
                Some(b'\n' | b'\r') | None => {
                    self.cur.at += 1;
                    return;
                }
                Some(_) => self.cur.at += 2,
            }
        }
    }

    /// After `<<<`: a heredoc's or nowdoc's identifier and opening line, then its
    /// text.
    fn heredoc(&mut self) -> Option<Tok> {
        self.cur.blanks();
        let quote = match self.cur.peek(0) {
            Some(q @ (b'"' | b'\'')) => {
                self.cur.at += 1;
                Some(q)
            }
            _ => None,
        };
        let tag = self.cur.at;
        self.cur.skip_while(is_word);
        let tag = (tag, self.cur.at);
        if tag.0 == tag.1 {
            return self.cur.confused();
        }
        if let Some(q) = quote {
            if self.cur.peek(0) != Some(q) {
                return self.cur.confused();
            }
            self.cur.at += 1;
        }
        // Nothing more on the opening line.
        self.cur.blanks();
        match self.cur.peek(0) {
            Some(b'\n') => self.cur.at += 1,
            Some(b'\r') => self.cur.at += 1 + usize::from(self.cur.peek(1) == Some(b'\n')),
            _ => return self.cur.confused(),
        }
        let quoted = match quote {
            Some(b'\'') => Quoted::Nowdoc { tag },
            _ => Quoted::Heredoc { tag },
        };
        self.text(quoted, true)
    }

    /// At a line's start inside a heredoc or nowdoc: past its closing identifier if
    /// the line is it (after blanks, followed by no name character).
    fn closing_tag(&mut self, (start, end): (usize, usize)) -> bool {
        let mut at = self.cur.at;
        while matches!(self.cur.src.get(at), Some(b' ' | b'\t' | b'\x0b' | b'\x0c')) {
            at += 1;
        }
        let tag = &self.cur.src[start..end];
        let closes = self.cur.src[at..].starts_with(tag)
            && !self
                .cur
                .src
                .get(at + tag.len())
                .copied()
                .is_some_and(is_word);
        if closes {
            self.cur.at = at + tag.len();
        }
        closes
    }

    /// Reads a string's text on, from its start or from the `}` that closed a hole
    /// (`line_start`: a heredoc's first line): to its end (`Literal`) or into its
    /// next hole (also `Literal`; the hole's tokens follow, and the `}` that closes
    /// it reads the text on).
    fn text(&mut self, quoted: Quoted, mut line_start: bool) -> Option<Tok> {
        let (holes, tag) = match quoted {
            Quoted::Double | Quoted::Backtick => (true, None),
            Quoted::Heredoc { tag } => (true, Some(tag)),
            Quoted::Nowdoc { tag } => (false, Some(tag)),
        };
        loop {
            if let Some(tag) = tag.filter(|_| line_start) {
                if self.closing_tag(tag) {
                    return Some(Tok::Literal);
                }
            }
            let Some(c) = self.cur.peek(0) else {
                return self.cur.confused();
            };
            self.cur.at += 1;
            line_start = false;
            match c {
                b'"' if quoted == Quoted::Double => return Some(Tok::Literal),
                b'`' if quoted == Quoted::Backtick => return Some(Tok::Literal),
                b'\n' => line_start = true,
                b'\r' => line_start = self.cur.peek(0) != Some(b'\n'),
                // `\{` opens no hole; `\$`, `\"`, `` \` ``, `\\` are escapes. A
                // line break after a backslash is still one.
                b'\\' if holes => {
                    if matches!(self.cur.peek(0), Some(b'{' | b'$' | b'"' | b'`' | b'\\')) {
                        self.cur.at += 1;
                    }
                }
                b'{' if holes && self.cur.peek(0) == Some(b'$') => return self.open_hole(quoted),
                b'$' if holes && self.cur.peek(0) == Some(b'{') => {
                    self.cur.at += 1;
                    return self.open_hole(quoted);
                }
                _ => {}
            }
        }
    }

    fn open_hole(&mut self, quoted: Quoted) -> Option<Tok> {
        self.holes.push(Hole {
            quoted,
            depth: self.cur.open.len(),
        });
        Some(Tok::Literal)
    }
}

/// What the walker does with a block's statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// The file, a namespace, an `if`'s or a bare block: each `{` decided on its own.
    Statements,
    /// A class, interface, trait or enum body: its members are read, none entered.
    Members,
}

/// What the declaration read so far at a level announces for its next `{`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    None,
    /// `function` or `fn`: the next block is a body.
    Function,
    /// `class`, `interface`, `trait` or `enum` just read: it declares a type if a
    /// name follows (or, after `class`, an anonymous class's arguments or body).
    TypeKeyword {
        class: bool,
    },
    /// A type's header: its body is next.
    Type,
}

/// One entered block (or the file): its statement so far.
#[derive(Clone, Copy, Debug)]
struct Level {
    frame: Frame,
    /// Parentheses, brackets and expression braces open in it.
    depth: u32,
    pending: Pending,
    /// The token before.
    prev: Tok,
    /// Whether the parenthesis last opened at depth 0 followed a keyword whose block
    /// the walker never enters (`while (…) {`).
    skipped_owner: bool,
    /// After `=` or `return` (and an `array` after either): an array's elements
    /// may follow, a value the walker never reads.
    value: bool,
}

impl Level {
    fn new(frame: Frame) -> Level {
        Level {
            frame,
            depth: 0,
            pending: Pending::None,
            prev: Tok::Punct(b';'),
            skipped_owner: false,
            value: false,
        }
    }
}

/// Whether `word` is one of `keywords`, in any case (PHP's keywords are).
fn is_keyword(word: &[u8], keywords: &[&[u8]]) -> bool {
    keywords.iter().any(|k| word.eq_ignore_ascii_case(k))
}

struct Scan<'a> {
    lex: Lexer<'a>,
    /// The blocks entered, innermost last; the file first.
    levels: Vec<Level>,
}

impl Scan<'_> {
    fn token(&mut self, tok: Tok) -> Option<()> {
        let mut level = *self.levels.last()?;
        // Inside an interpolation's hole: an expression, as inside parentheses.
        let nested = level.depth > 0 || !self.lex.holes.is_empty();
        if let Pending::TypeKeyword { class } = level.pending {
            level.pending = match tok {
                Tok::Word(..) => Pending::Type,
                Tok::Open(b'(' | b'{', _) if class => Pending::Type,
                _ => Pending::None,
            };
        }
        let value = std::mem::take(&mut level.value);
        match tok {
            // `$x = [1, 2]`, `const A = array(1)`, `return [...]`: the elements of an
            // array (an empty one parses as well).
            Tok::Open(b, open)
                if value
                    && !nested
                    && (b == b'['
                        || (b == b'('
                            && self
                                .lex
                                .word(level.prev)
                                .is_some_and(|w| w.eq_ignore_ascii_case(b"array")))) =>
            {
                self.lex.skip_delimited(open)?;
                level.prev = Tok::Close(if b == b'(' { b')' } else { b']' });
                *self.levels.last_mut()? = level;
                return Some(());
            }
            // `$a->{…}`, `${…}`, `A::{…}`, `use A\{B, C}`: no block.
            Tok::Open(b'{', _)
                if matches!(level.prev, Tok::Member | Tok::Dollar | Tok::Punct(b'\\')) =>
            {
                level.depth += 1;
            }
            Tok::Open(b'{', open) if nested || level.frame == Frame::Members => {
                self.lex.skip_delimited(open)?;
                level.prev = Tok::Close(b'}');
                *self.levels.last_mut()? = level;
                return Some(());
            }
            Tok::Open(b'{', open) => {
                let skip = match level.pending {
                    Pending::Function => true,
                    Pending::Type => false,
                    _ => match level.prev {
                        Tok::Close(b')') => level.skipped_owner,
                        prev => self
                            .lex
                            .word(prev)
                            .is_some_and(|w| is_keyword(w, &[b"try", b"finally", b"do"])),
                    },
                };
                let frame = match level.pending {
                    Pending::Type => Frame::Members,
                    _ => Frame::Statements,
                };
                level.pending = Pending::None;
                level.prev = Tok::Close(b'}');
                *self.levels.last_mut()? = level;
                if skip {
                    self.lex.skip_delimited(open)?;
                } else {
                    self.levels.push(Level::new(frame));
                }
                return Some(());
            }
            Tok::Open(b, _) => {
                if b == b'(' && level.depth == 0 {
                    level.skipped_owner = self.lex.word(level.prev).is_some_and(|w| {
                        is_keyword(
                            w,
                            &[
                                b"while", b"for", b"foreach", b"switch", b"declare", b"catch",
                                b"match",
                            ],
                        )
                    });
                }
                level.depth += 1;
            }
            Tok::Close(_) if level.depth == 0 => {
                // The lexer refuses a closer without its opener: this is the `}` of
                // the block the level is.
                self.levels.pop();
                if self.levels.is_empty() {
                    return self.lex.cur.confused();
                }
                return Some(());
            }
            Tok::Close(_) => level.depth -= 1,
            _ if nested => {}
            Tok::Punct(b';') => level.pending = Pending::None,
            Tok::Punct(b'=') => level.value = true,
            Tok::Word(..)
                if value
                    && self
                        .lex
                        .word(tok)
                        .is_some_and(|w| w.eq_ignore_ascii_case(b"array")) =>
            {
                level.value = true;
            }
            Tok::Word(..)
                if self
                    .lex
                    .word(tok)
                    .is_some_and(|w| w.eq_ignore_ascii_case(b"return")) =>
            {
                level.value = true;
            }
            // `A::class`, `$a->function`: members, not keywords.
            Tok::Word(..) if level.frame == Frame::Statements && level.prev != Tok::Member => {
                let word = self.lex.word(tok).unwrap_or_default();
                if is_keyword(word, &[b"function", b"fn"]) {
                    level.pending = Pending::Function;
                } else if word.eq_ignore_ascii_case(b"class") {
                    level.pending = Pending::TypeKeyword { class: true };
                } else if is_keyword(word, &[b"interface", b"trait", b"enum"]) {
                    level.pending = Pending::TypeKeyword { class: false };
                }
            }
            _ => {}
        }
        level.prev = tok;
        *self.levels.last_mut()? = level;
        Some(())
    }
}

impl<'a> Delimited<'a> for Lexer<'a> {
    fn cur(&mut self) -> &mut Cursor<'a> {
        &mut self.cur
    }

    fn advance(&mut self) -> Option<()> {
        self.next().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::{
        Lang,
        tests::{skeleton_reads_as_whole, skipped, skips_nothing},
    };

    #[test]
    fn bodies_are_skipped_and_containers_walked() {
        let src = r#"<?php
/** The file, { and all. */
namespace App { function f($a) { return [$a]; } }
namespace {
const X = 1;
if (!function_exists('g')) { function g() { h(); } } elseif (x()) { } else { }
{ function inBlock() { } }
foreach ($a as $b) { function never() {} }
while (x()) { y(); }
try { a(); } catch (E $e) { b(); } finally { c(); }
do { d(); } while (0);
switch ($x) { case 1: { e(); } }
$f = function () use ($a) { return $a; };
$g = fn($x) => match ($x) { 1 => 'a', default => 'b' };
$h = new class(1) extends B { public function m() { return 1; } };
$o->{'name'}; ${'v'} = 1; A::{$c}();
use A\{B, C};
f(function () { return 1; }, [new class { }]);
final class K extends B implements C { use T { a as b; } public function __construct() { parent::__construct(); } }
interface I { public function i(); }
enum E: string { case A = 'a'; public function label(): string { return 'A'; } }
trait T { public $x { get { return 1; } } }
$k = K::class; if ($k) { }
const A = [1, ['}' => 2]]; $v = array(1, [2]); $w = $v[0]; return ($a);
class P { private $map = ['a' => [1]]; const Q = array(2); }
return ['k' => fn() => 1];
}
"#;
        expect![[r#"
            [
                " The file, { and all. ",
                " return [$a]; ",
                " h(); ",
                " ",
                " function never() {} ",
                " y(); ",
                " a(); ",
                " b(); ",
                " c(); ",
                " d(); ",
                " case 1: { e(); } ",
                " return $a; ",
                " 1 => 'a', default => 'b' ",
                " return 1; ",
                " return 1; ",
                " ",
                " a as b; ",
                " parent::__construct(); ",
                " return 'A'; ",
                " get { return 1; } ",
                "1, ['}' => 2]",
                "1, [2]",
                "'a' => [1]",
                "2",
                "'k' => fn() => 1",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn strings_heredocs_and_holes_hide_their_braces() {
        let src = r#"<?php
function a() { $s = '}\'{'; $t = "} {$x['}']} ${y} \{$z} \" {"; }
function b() { $c = `ls {$d["}"]}`; }
function c() {
    $h = <<<EOT
    } {$x->{'}'}} "
      EOT ;
    $n = <<<'EOT'
    } {$x
    EOT;
    $q = <<< "END"
    {
    ENDING }
    END;
}
function d() { $e = "{$a("{$b('}')}")}"; }
"#;
        expect![[r#"
            [
                " $s = '}\\'{'; $t = \"} {$x['}']} ${y} \\{$z} \\\" {\"; ",
                " $c = `ls {$d[\"}\"]}`; ",
                "\n    $h = <<<EOT\n    } {$x->{'}'}} \"\n      EOT ;\n    $n = <<<'EOT'\n    } {$x\n    EOT;\n    $q = <<< \"END\"\n    {\n    ENDING }\n    END;\n",
                " $e = \"{$a(\"{$b('}')}\")}\"; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_outside_php_and_comments_follow_tree_sitter() {
        let src = "<html>{ ' \" <?php function a() { ?>\n<b>}</b>\n<?= $x ?>\n<?php }\n\
                   // a comment's } ends ?> here { <?php\n\
                   # another } ?>{<?PHP\n\
                   #[Attr(['}' => 1])]\n\
                   function b() { #?> text } <?php }\n\
                   function c() { /* } */ }\n\
                   ?>\n<p>{</p>\n";
        expect![[r#"
            [
                " ?>\n<b>}</b>\n<?= $x ?>\n<?php ",
                " #?> text } <?php ",
                " /* } */ ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
        // No PHP at all: nothing to skip.
        assert_eq!(
            skipped(skippable, "<p>{ function f() { } }</p>\n"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn keywords_are_read_in_any_case() {
        let src = "<?php\nFUNCTION f() { a(); }\nIf (x()) { Function g() { b(); } }\nCLASS C { }\nWHILE (1) { c(); }\n";
        assert_eq!(skipped(skippable, src), vec![" a(); ", " b(); ", " c(); "]);
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "<?php function f() { $s = 'x; }",
                "<?php function f() { $s = \"x; }",
                "<?php function f() { $s = \"{$x\"; }",
                "<?php function f() { /* } ",
                "<?php function f() { } }",
                "<?php function f() { g(} ) }",
                "<?php function f() { $h = <<<EOT\n}\nEOTX;\n}\n",
                "<?php function f() { $h = <<<EOT x\n}\nEOT;\n}\n",
                "<?php function f() { } __halt_compiler(); {",
                "<?php function f() { ?> never back",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"<html><?php
namespace App\Models;

use A\{B, C};

/** A polyfill. */
if (!function_exists('poly')) {
    function poly($a) { return $a; }
} else {
    function other() { $o->{'x'} = ${'y'}; }
}

#[Entity]
final class User extends Model
{
    use HasFactory { a as b; }
    public const ROLE = 'a';
    private ?int $count = 0;
    public function __construct(private int $id) { parent::__construct(); ?><b>}</b><?php }
    public function heredoc(): string {
        return <<<EOT
        } {$this->{'id'}} ${'x'}
        EOT;
    }
    abstract public function none(): void;
}

enum Suit: string
{
    case Hearts = 'H';
    public function color(): string { return match ($this) { self::Hearts => 'red' }; }
}

function helper(): int { $f = function () use ($a) { return new class { function m() {} }; }; return 1; }
$top = fn($x) => $x;
while (true) { function loop() {} }
?>
<p>{</p>
"#;
        let templates = r#"<?php declare(strict_types=1);
if ($a): ?>
<p><?= h("}") ?></p>
<?php function inIf() { ?><b>{</b><?php } ?>
<?php elseif ($b): class InElseIf { public $p { get => 1; } } else: ?>
<?php endif;
$text = <<<EOT
    ?> } {$a['x']} <?php {
    EOT;
$raw = <<<'EOT'
{$notAHole} }
EOT;
# a comment ?> { text <?php
$r = match (true) { default => fn() => [1, 2] };
namespace\helper();
#[Attr(new Foo(['}']))]
function last(array $a = ['{' => 1]): array { return [$a]; }
"#;
        for src in [src, templates] {
            skeleton_reads_as_whole(Lang::Php, src, 4, 3);
        }
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: composer and monolog), or the first
    /// index is slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("php", &["php"], 40, 1, |src| scan(src).is_some());
    }
}
