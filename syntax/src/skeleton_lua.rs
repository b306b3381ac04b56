//! The skeleton lexer of Lua (`languages/lua.rs`). It finds what the symbol walker
//! never enters, so tree-sitter parses it as empty (`skeleton.rs` blanks it or
//! leaves it out).
//!
//! **What is never entered.** The walker reads the file's statements and goes on
//! into `do … end` and the branches of `if`, nowhere else: a function is a symbol
//! whose body it never reads (a function inside another is a local), and a table
//! constructor is a value it never reads, whatever functions it holds. So the body
//! of every function (`function f(…) … end`, `local function`, `function a.b:m`,
//! and `function (…) … end` in an expression), between its parameters' `)` and its
//! `end`, is skipped, and so is the interior of every `{…}`: an empty body and an
//! empty table parse, and every node around them keeps its offsets. Everything else
//! is read through, loops' bodies too (only slower). The text of the comments outside
//! them is skipped as well (`Cursor::marked_comment_read`: a run of `--` lines as one
//! range, a long comment's between its brackets); the comments stay comments.
//!
//! **Following the text** as tree-sitter-lua reads it: `--` comments to the line's
//! end, long comments and long strings (`--[==[ … ]==]`, `[[ … ]]`: a `[` followed
//! by as many `=` as its `]…]` closer and a second `[`), quoted strings with their
//! escapes (a line break may be in one, as the grammar allows), and a first line
//! that begins with `#` (`#!/usr/bin/lua`). A block ends at the `end` of the
//! `function`, `if` or `do` (of `do`, `while` and `for`) that opened it, or at the
//! `until` of a `repeat`. Where the lexer cannot follow the text (an unterminated
//! literal or comment, unbalanced or mismatched blocks and delimiters) it skips
//! nothing and the file gets a whole parse.
//!
//! **Skipping** a body or a table's interior ([`Delimited::skip_to_depth`]) reads
//! the text [`BLOCK`] bytes at a time: a table of byte classes marks in a block
//! every byte a token that matters there can start at (a delimiter, a quote, `-`,
//! and the first byte of a word that is `function`, `if`, `do`, `repeat`, `end` or
//! `until`), and only those are read as tokens, in order; names, numbers,
//! operators and blanks between them are passed over unread. It ends, or gives up,
//! where reading token by token would (tested over the conformance corpus).
//!
//! Its tokens and its stack of open blocks are also what the declaration reader
//! (`lua_items`) reads off and skips with.

use std::ops::Range;

use crate::lex::{Cursor, Delimited, opener};

/// Byte ranges inside `src` that need no syntax tree: the function bodies and the
/// table constructors' interiors, in order, disjoint. Empty where the lexer cannot
/// follow the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut lex = Lexer::new(src);
    while let Some(tok) = lex.next() {
        match tok {
            Tok::Open(b'{', open) => lex.skip_delimited(open)?,
            Tok::Function => lex.skip_body()?,
            _ => {}
        }
    }
    (!lex.cur.confused).then_some(lex.cur.skip)
}

/// One token: what finding bodies and tables needs, and what `lua_items` reads
/// declarations off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `(`, `[` or `{`, or the keyword opening a block (`IF`, `DO`, `REPEAT`), at
    /// this offset.
    Open(u8, usize),
    /// A closing delimiter, `end` or `until`: what it closed (`(` for `)`,
    /// `FUNCTION` for a function's `end`).
    Close(u8),
    Function,
    /// A word (a name, a number, a keyword but those above) starting at this offset.
    Word(usize),
    /// Any other byte outside strings and comments: `.`, `:`, an operator's first.
    Punct(u8),
    /// A quoted or long string starting at this offset.
    Literal(usize),
}

/// What opened a block, on the stack of open delimiters beside `(`, `[` and `{`:
/// `end` closes these (`do` for `while` and `for` too).
pub(crate) const FUNCTION: u8 = b'f';
pub(crate) const IF: u8 = b'i';
pub(crate) const DO: u8 = b'd';
/// `until` closes this.
pub(crate) const REPEAT: u8 = b'r';

pub(crate) struct Lexer<'a> {
    pub(crate) cur: Cursor<'a>,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Lexer<'a> {
        let mut lex = Lexer {
            cur: Cursor::new(src),
        };
        // tree-sitter-lua's `hash_bang_line`.
        if src.starts_with(b"#") {
            lex.cur.line_end();
        }
        lex
    }

    /// The next token; `None` at the end of the text or where the lexer cannot
    /// follow it.
    pub(crate) fn next(&mut self) -> Option<Tok> {
        loop {
            let (start, b) = self.past(SPACE)?;
            if CLASS[b as usize] == PUNCT {
                return Some(Tok::Punct(b));
            }
            if let Some(tok) = self.token(start, b)? {
                return Some(tok);
            }
        }
    }

    /// The first byte from here that is more than `boring` ([`SPACE`], or
    /// [`PUNCT`] too) and where it is, read past; `None` at the end of the text,
    /// where the lexer gives up if anything is still open.
    #[inline(always)]
    fn past(&mut self, boring: u8) -> Option<(usize, u8)> {
        let src = self.cur.src;
        let from = self.cur.at.min(src.len());
        match src[from..].iter().position(|&b| CLASS[b as usize] > boring) {
            Some(i) => {
                self.cur.at = from + i + 1;
                Some((from + i, src[from + i]))
            }
            None => {
                self.cur.at = src.len();
                if self.cur.open.is_empty() {
                    return None;
                }
                self.cur.confused()
            }
        }
    }

    /// The token whose first byte `b` (no blank nor [`PUNCT`]) at `start` was just
    /// read: `None` once confused, `Some(None)` for a comment.
    #[inline(always)]
    fn token(&mut self, start: usize, b: u8) -> Option<Option<Tok>> {
        Some(Some(match CLASS[b as usize] {
            WORD => self.word(start)?,
            DASH if self.cur.peek(0) == Some(b'-') => {
                self.cur.at += 1;
                match self.long_bracket(self.cur.at) {
                    // Its text: the brackets stay, so it stays a long comment.
                    Some(level) => {
                        let text = self.cur.at;
                        self.long_text(level)?;
                        self.cur.comment_read(text..self.cur.at - level - 2);
                    }
                    None => {
                        self.cur.line_comment_end();
                        let text = start + 2..self.cur.at;
                        self.cur.marked_comment_read(start, text, 0);
                    }
                }
                return Some(None);
            }
            BRACKET => match self.long_bracket(start) {
                Some(level) => {
                    self.long_text(level)?;
                    Tok::Literal(start)
                }
                None => self.open(b, start),
            },
            QUOTE => {
                self.cur.quoted(b)?;
                Tok::Literal(start)
            }
            OPEN => self.open(b, start),
            CLOSE => {
                self.cur.close(opener(b))?;
                Tok::Close(opener(b))
            }
            _ => Tok::Punct(b),
        }))
    }

    /// The word starting at `start`: a keyword that opens or closes a block, or
    /// a name (or number, or other keyword).
    #[inline(always)]
    fn word(&mut self, start: usize) -> Option<Tok> {
        let src = self.cur.src;
        let end = word_end(src, start + 1);
        self.cur.at = end;
        Some(match &src[start..end] {
            b"function" => {
                self.cur.open.push(FUNCTION);
                Tok::Function
            }
            b"if" => self.open(IF, start),
            b"do" => self.open(DO, start),
            b"repeat" => self.open(REPEAT, start),
            b"end" => match self.cur.open.pop() {
                Some(what @ (FUNCTION | IF | DO)) => Tok::Close(what),
                _ => return self.cur.confused(),
            },
            b"until" => {
                self.cur.close(REPEAT)?;
                Tok::Close(REPEAT)
            }
            _ => Tok::Word(start),
        })
    }

    fn open(&mut self, what: u8, start: usize) -> Tok {
        self.cur.open.push(what);
        Tok::Open(what, start)
    }

    /// The level of the long bracket at `at` (`[[` 0, `[==[` 2), read past; `None`,
    /// having read nothing, where none is.
    fn long_bracket(&mut self, at: usize) -> Option<usize> {
        let level = long_bracket_at(self.cur.src, at)?;
        self.cur.at = at + level + 2;
        Some(level)
    }

    /// Inside a long string or comment of `level`: past its closer, a `]`, `level`
    /// `=` and a `]`.
    fn long_text(&mut self, level: usize) -> Option<()> {
        let src = self.cur.src;
        while let Some(i) = memchr::memchr(b']', &src[self.cur.at..]) {
            let tail = &src[self.cur.at + i + 1..];
            self.cur.at += i + 1;
            if tail.len() > level && tail[level] == b']' && tail[..level].iter().all(|&b| b == b'=')
            {
                self.cur.at += level + 1;
                return Some(());
            }
        }
        self.cur.confused()
    }

    /// After `function`: past its name and parameters, then its body, which is
    /// skippable, up to its `end`.
    fn skip_body(&mut self) -> Option<()> {
        let floor = self.cur.open.len();
        loop {
            match self.next()? {
                Tok::Open(b'(', _) => break,
                Tok::Word(_) | Tok::Punct(b'.' | b':') => {}
                _ => return self.cur.confused(),
            }
        }
        // Through the parameters, to their `)`.
        while self.cur.open.len() > floor {
            self.next()?;
        }
        let body = self.cur.at;
        self.skip_to_depth(floor)?;
        let end = self.cur.at - b"end".len();
        if end > body {
            self.cur.skip.push(body..end);
        }
        Some(())
    }
}

impl<'a> Delimited<'a> for Lexer<'a> {
    fn cur(&mut self) -> &mut Cursor<'a> {
        &mut self.cur
    }

    /// In text skipped whole only what opens, closes or hides a block or a
    /// delimiter matters: blanks and punctuation are passed over alike.
    fn advance(&mut self) -> Option<()> {
        let (start, b) = self.past(PUNCT)?;
        self.token(start, b).map(drop)
    }

    /// What the trait's loop does (and what `lua_items` skips with), [`BLOCK`]
    /// bytes at a time: in a block only the bytes [`starts`] finds are read as
    /// tokens; the last bytes of the text, token by token. Comments are not
    /// recorded meanwhile (nor after, if they were not before: `lua_items`).
    fn skip_to_depth(&mut self, floor: usize) -> Option<()> {
        let record = std::mem::replace(&mut self.cur.record, false);
        let src = self.cur.src;
        while self.cur.open.len() >= floor {
            let at = self.cur.at;
            let after_word = at > 0 && CLASS[src[at - 1] as usize] == WORD;
            let Some(block) = src.get(at..at + BLOCK).and_then(|b| b.try_into().ok()) else {
                // Token by token from past the word a block may have ended in.
                if after_word {
                    self.cur.at = word_end(src, at);
                }
                self.advance()?;
                continue;
            };
            let mut starts = starts(block, after_word);
            self.cur.at = at + BLOCK;
            while starts != 0 {
                let start = at + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                // Delimiters, the most frequent, and words, read here.
                match src[start] {
                    b @ (b'(' | b'{') => {
                        self.cur.open.push(b);
                        continue;
                    }
                    b @ (b')' | b']' | b'}') => {
                        self.cur.close(opener(b))?;
                        if self.cur.open.len() < floor {
                            self.cur.at = start + 1;
                            break;
                        }
                        continue;
                    }
                    // Words that are no such keyword need no reading past: no
                    // token starts inside a word.
                    b if CLASS[b as usize] == WORD && !block_keyword_at(src, start) => continue,
                    _ => {}
                }
                self.cur.at = start + 1;
                self.token(start, src[start])?;
                let read = self.cur.at - at;
                if read >= BLOCK || self.cur.open.len() < floor {
                    break;
                }
                // What the token read past (a word, a string, a comment) holds
                // no token.
                starts &= u64::MAX << read;
                self.cur.at = at + BLOCK;
            }
        }
        self.cur.record = record;
        Some(())
    }
}

/// The bytes [`Delimited::skip_to_depth`] classifies at once.
const BLOCK: usize = 64;

/// Where in `block` a token that matters in skipped text may start: a byte that
/// starts a delimiter, a string or a comment (`-`: `--`), or the first byte of a
/// word (`after_word`: the byte before the block is one of a word) whose first
/// two are those of a keyword opening or closing a block (the last byte's second
/// is past the block: it is taken). Bit `i` is byte `i`.
fn starts(block: &[u8; BLOCK], after_word: bool) -> u64 {
    let (mut word, mut token, mut first, mut second) = (0u64, 0u64, 0u64, 0u64);
    for (g, group) in block.chunks_exact(8).enumerate() {
        let flags = group.iter().enumerate().fold(0u64, |flags, (i, &b)| {
            flags | (SCAN[b as usize] as u64) << (8 * i)
        });
        word |= low_bits(flags) << (8 * g);
        token |= low_bits(flags >> 1) << (8 * g);
        first |= low_bits(flags >> 2) << (8 * g);
        second |= low_bits(flags >> 3) << (8 * g);
    }
    let word_starts = word & !(word << 1 | after_word as u64);
    token | (word_starts & first & (second >> 1 | 1 << (BLOCK - 1)))
}

/// The low bit of each byte of `flags`, gathered: byte `i`'s is bit `i`.
fn low_bits(flags: u64) -> u64 {
    (flags & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Per byte, for [`starts`]: bit 0, it is a word's ([`WORD`]); bit 1, it starts
/// a token that matters whatever comes before it ([`DASH`] and beyond); bits 2
/// and 3, it is the first, the second byte of a keyword [`Lexer::word`] reads
/// (`function`, `if`, `do`, `repeat`, `end`, `until`).
const SCAN: [u8; 256] = {
    let mut scan = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        scan[b] = match CLASS[b] {
            WORD => {
                1 | (matches!(c, b'f' | b'i' | b'd' | b'r' | b'e' | b'u') as u8) << 2
                    | (matches!(c, b'u' | b'f' | b'o' | b'e' | b'n') as u8) << 3
            }
            class if class >= DASH => 0b10,
            _ => 0,
        };
        b += 1;
    }
    scan
};

/// Whether the word at `start` is a keyword [`Lexer::word`] opens or closes a
/// block with.
fn block_keyword_at(src: &[u8], start: usize) -> bool {
    let rest = &src[start..];
    let len = match rest {
        [b'f', b'u', b'n', b'c', b't', b'i', b'o', b'n', ..] => 8,
        [b'i', b'f', ..] | [b'd', b'o', ..] => 2,
        [b'r', b'e', b'p', b'e', b'a', b't', ..] => 6,
        [b'e', b'n', b'd', ..] => 3,
        [b'u', b'n', b't', b'i', b'l', ..] => 5,
        _ => return false,
    };
    rest.get(len).is_none_or(|&b| CLASS[b as usize] != WORD)
}

/// Where the word that the byte at `from` is in, or follows, ends.
fn word_end(src: &[u8], from: usize) -> usize {
    src[from..]
        .iter()
        .position(|&b| CLASS[b as usize] != WORD)
        .map_or(src.len(), |i| from + i)
}

/// The level of the long bracket at `at` in `src` (`[[` 0, `[==[` 2), if one is
/// there.
fn long_bracket_at(src: &[u8], at: usize) -> Option<usize> {
    if src.get(at) != Some(&b'[') {
        return None;
    }
    let level = src[at + 1..].iter().take_while(|&&b| b == b'=').count();
    (src.get(at + 1 + level) == Some(&b'[')).then_some(level)
}

/// What each byte starts to the lexer. A byte of a name ([`WORD`]) is one as
/// tree-sitter-lua reads it: anything but white space, control characters,
/// operators, delimiters and quotes (`$`, `@`, `!`, `?` and any non-ASCII byte
/// included).
const CLASS: [u8; 256] = {
    let mut class = [PUNCT; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        class[b] = if c.is_ascii_alphanumeric()
            || c >= 0x80
            || matches!(c, b'_' | b'$' | b'@' | b'!' | b'?' | b'`')
        {
            WORD
        } else {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => SPACE,
                b'-' => DASH,
                b'[' => BRACKET,
                b'"' | b'\'' => QUOTE,
                b'(' | b'{' => OPEN,
                b')' | b']' | b'}' => CLOSE,
                _ => PUNCT,
            }
        };
        b += 1;
    }
    class
};
/// White space: what every token loop passes over.
const SPACE: u8 = 0;
/// A byte that is a token alone, to the lexer (an operator's, `.`, `:`, `;`, a
/// control character): what the loop of skipped text passes over too.
const PUNCT: u8 = 1;
const WORD: u8 = 2;
/// `-`, a comment's first when a second follows.
const DASH: u8 = 3;
/// `[`, a long bracket's first or an index's.
const BRACKET: u8 = 4;
const QUOTE: u8 = 5;
/// `(` or `{`.
const OPEN: u8 = 6;
/// `)`, `]` or `}`.
const CLOSE: u8 = 7;

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::{
        Lang,
        tests::{skeleton_reads_as_whole, skipped, skips_nothing},
    };

    #[test]
    fn bodies_and_tables_are_skipped_and_blocks_walked() {
        let src = r#"#!/usr/bin/env lua
local M = { a = 1, f = function() return { 2 } end }
function M.add(a, b) return a + b end
function M.sub.deep:method(x)
  local function inner() if x then return end end
  repeat x = x - 1 until x < 0
  return x
end
local twice = function(x) return x end
do
  local function private() for i = 1, 2 do end end
end
if not table.unpack then
  function table.unpack(t) while t do end end
elseif x then
else
end
while true do local function never() end end
print(function() end, {})
return M
"#;
        expect![[r#"
            [
                " a = 1, f = function() return { 2 } end ",
                " return a + b ",
                "\n  local function inner() if x then return end end\n  repeat x = x - 1 until x < 0\n  return x\n",
                " return x ",
                " for i = 1, 2 do end ",
                " while t do end ",
                " ",
                " ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn strings_and_comments_hide_their_keywords_and_braces() {
        let src = r#"
--- A run of comments
  -- is one range, { and all.
-- function f() { end
--[==[ function g() ]] end ]==]
function a() local s = "end }" .. 'do \' {' .. [[ end ]] .. [=[ ]] } ]=] end
function b() return "a\
end" end
local t = { [[}]], ["end"] = '}', [k] = "{" }
--[[ } ]] function c() end
"#;
        expect![[r#"
            [
                "- A run of comments\n  -- is one range, { and all.\n-- function f() { end",
                " function g() ]] end ",
                " local s = \"end }\" .. 'do \\' {' .. [[ end ]] .. [=[ ]] } ]=] ",
                " return \"a\\\nend\" ",
                " [[}]], [\"end\"] = '}', [k] = \"{\" ",
                " } ",
                " ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "function f() local s = 'x end",
                "function f() local s = [[ x end",
                "function f() --[[ end",
                "function f() end end",
                "function f() if x then end",
                "function f() g(} ) end",
                "function f() repeat end",
                "function f() x = 1 until x end",
                "function { }",
                "local t = { function() }",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"#!/usr/bin/env lua
--- A module.
local M = { VERSION = "1.0", f = function() return {} end }

--- Adds.
function M.add(a, b) return a + b end

function M.sub.deep:method(x)
  local function inner() end
  repeat x = x - 1 until x < 0
  return [[ end ]]
end

local helper = function(...) return select('#', ...) end
M.scale = function(x) return { x * 2 } end

--[==[ function hidden() end ]==]
do
  local function private() end
  function M.public() end
end

if not table.unpack then
  function table.unpack(t) return unpack(t) end
else
  local function noop() end
end

for _, name in ipairs({ "a", "b" }) do
  M[name] = function() end
end

return M
"#;
        skeleton_reads_as_whole(Lang::Lua, src, 8, 8);
    }

    /// Skipping block by block ([`Delimited::skip_to_depth`]) ends, or gives up,
    /// where reading token by token does, from every function and table of `src`.
    fn skips_as_token_by_token(src: &[u8]) -> bool {
        let mut lex = Lexer::new(src);
        let mut from = Vec::new();
        while let Some(tok) = lex.next() {
            if matches!(tok, Tok::Function | Tok::Open(b'{', _)) {
                from.push((lex.cur.open.clone(), lex.cur.at));
            }
        }
        from.into_iter().all(|(open, at)| {
            let skip = |by_blocks: bool| {
                let mut lex = Lexer::new(src);
                (lex.cur.open, lex.cur.at) = (open.clone(), at);
                let floor = lex.cur.open.len();
                let done = match by_blocks {
                    true => lex.skip_to_depth(floor),
                    false => (|| {
                        while lex.cur.open.len() >= floor {
                            lex.advance()?;
                        }
                        Some(())
                    })(),
                };
                done.map(|()| (lex.cur.at, lex.cur.open))
            };
            skip(true) == skip(false)
        })
    }

    /// Bodies that hold what only token by token finds, or only seems to be a
    /// keyword, at every offset in a block (words, strings and comments across
    /// its end, the last bytes of the text); and what the lexer gives up on.
    #[test]
    fn skipping_block_by_block_reads_as_token_by_token() {
        let src = r#"function a(x)
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
local t = { function() end, { { } }, [[ } ]], "{", xend, fend, reend, undo, ifuntil }
"#;
        for pad in 0..=BLOCK + 2 {
            let spaces = " ".repeat(pad);
            for text in [
                spaces.clone() + src,
                src.replace(" = ", &format!("{spaces}= ")),
                src.replace("{ function", &format!("{{{spaces}function")),
            ] {
                assert!(skips_as_token_by_token(text.as_bytes()), "{text}");
            }
        }
        for broken in [
            "function f() local s = 'x end",
            "function f() --[[ end",
            "function f() g(} ) end",
            "function f() ( end )",
            "function f() x = 1 until x end",
        ] {
            for pad in 0..=BLOCK + 2 {
                let text = broken.replacen("()", &format!("(){}", " ".repeat(pad)), 1);
                assert!(skips_as_token_by_token(text.as_bytes()), "{text}");
            }
        }
    }

    /// Block by block, skipping ends where token by token does on every function
    /// and table of the conformance corpus.
    #[test]
    fn skipping_block_by_block_reads_real_code_as_token_by_token() {
        crate::tests::follows_real_code("lua", &["lua"], 100, 0, skips_as_token_by_token);
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: luarocks), or the first index is
    /// slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("lua", &["lua"], 100, 1, |src| scan(src).is_some());
    }
}
