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

    /// The next token; `None` at the end of the text or once confused.
    pub(crate) fn next(&mut self) -> Option<Tok> {
        loop {
            let (start, b) = self.cur.next_byte(false)?;
            // Blanks and words first, by table: most of the bytes.
            match CLASS[b as usize] {
                SPACE => {
                    self.cur.skip_while(|b| CLASS[b as usize] == SPACE);
                    continue;
                }
                WORD => return self.word(start),
                _ => {}
            }
            return Some(match b {
                b'-' if self.cur.peek(0) == Some(b'-') => {
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
                    continue;
                }
                b'[' => match self.long_bracket(start) {
                    Some(level) => {
                        self.long_text(level)?;
                        Tok::Literal(start)
                    }
                    None => self.open(b, start),
                },
                b'"' | b'\'' => {
                    self.cur.quoted(b)?;
                    Tok::Literal(start)
                }
                b'(' | b'{' => self.open(b, start),
                b')' | b']' | b'}' => {
                    self.cur.close(opener(b))?;
                    Tok::Close(opener(b))
                }
                _ => Tok::Punct(b),
            });
        }
    }

    /// The word starting at `start`: a keyword that opens or closes a block, or
    /// a name (or number, or other keyword).
    fn word(&mut self, start: usize) -> Option<Tok> {
        self.cur.skip_while(is_word);
        Some(match &self.cur.src[start..self.cur.at] {
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

    fn advance(&mut self) -> Option<()> {
        self.next().map(drop)
    }
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

/// A byte of a name as tree-sitter-lua reads one: anything but white space, control
/// characters, operators, delimiters and quotes (`$`, `@`, `!`, `?` and any non-ASCII
/// byte included).
fn is_word(b: u8) -> bool {
    CLASS[b as usize] == WORD
}

/// What each byte is to the lexer's hot loops: [`WORD`], [`SPACE`] or neither.
const CLASS: [u8; 256] = {
    let mut class = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric()
            || c >= 0x80
            || matches!(c, b'_' | b'$' | b'@' | b'!' | b'?' | b'`')
        {
            class[b] = WORD;
        } else if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c') {
            class[b] = SPACE;
        }
        b += 1;
    }
    class
};
const WORD: u8 = 1;
const SPACE: u8 = 2;

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

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: luarocks), or the first index is
    /// slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("lua", &["lua"], 100, 1, |src| scan(src).is_some());
    }
}
