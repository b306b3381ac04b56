//! The skeleton lexer of Ruby (`languages/ruby.rs`). It finds the method bodies,
//! blocks and comments the symbol walker never enters or finds nothing in, so
//! tree-sitter parses them empty (`skeleton.rs` blanks them or leaves them out).
//!
//! **What is skipped.** The walker enters classes, modules, `class << self`,
//! conditionals, `begin` and every block at a container's level (`describe … do`,
//! `included do`, `Struct.new do`), so none of these is skipped for itself; it never
//! enters a method: the text from the end of a `def`'s header line (its first line
//! break or `;` after the parameters) to its `end` is skipped, with every `def`
//! nested in it. An endless method (`def x = value`, `def x(a) = value`) has no
//! `end` and nothing is skipped of it. The interior of a `do … end` block or of
//! parentheses, brackets or braces is skipped where nothing in it can be a symbol:
//! no `def`, `class`, `module`, `attr_reader`, `attr_writer` or `attr_accessor` and
//! no constant before `=`, an operator's `=` or `,` (`A = 1`, `A ||= 1`,
//! `A, b = …`): an RSpec example's body, a hash constant's entries, a call's
//! arguments (each parses empty: `do end`, `f()`, `{}`); not where a heredoc starts
//! on the line it ends or ends in it having started before (`[<<~A, 1]`: the body
//! is after the `]`). Runs of comment lines are skipped too, but their first `#`.
//!
//! **Following the text.** Finding a method's `end` means reading every keyword that
//! opens a block ending with one (`class`, `module`, `def`, `if`, `unless`,
//! `while`, `until`, `case`, `begin`, `for`, `do`) and every literal that could
//! hide one, as Ruby reads them: a keyword after `.`, `&.` or `::` or before a
//! label's `:` (`x.end`, `if: cond`) is a name; `if`, `unless`, `while` and `until`
//! after a value on their statement are modifiers and open nothing; the `do` of a
//! `while`, `until` or `for` on its statement opens no second block. Literals:
//! comments, `=begin`/`=end`, strings and backticks with their interpolations
//! (`#{…}`: code, nested to any depth), symbols (`:end`, `:"…"`), `?x` character
//! literals, `%` literals with any delimiter (`%w[]`, `%q{}`, `%r||`; bracket
//! pairs nest), regular expressions and heredocs (`<<ID`, `<<-ID`, `<<~ID`, quoted,
//! several on a line; their bodies start on the next line). Whether a `/`, `%`,
//! `<<` or `?` begins a literal or is an operator depends on what came before, as in
//! Ruby: at the start of an expression a literal, after a value an operator, after
//! a name with a space (or a `\` line continuation) before and none after a
//! literal (a command's argument: `puts /x/`). `__END__` ends the code. Where the
//! lexer cannot follow the text (an unterminated literal, unbalanced or mismatched
//! delimiters and `end`s, a line break inside a literal while a heredoc waits for
//! its body) it skips nothing and the file gets a whole parse; any syntax error of
//! the skeleton sends the file to a whole parse too (`any_error` in
//! `languages/ruby.rs`), as a misread keyword can move an `end` far from where the
//! error shows.
//!
//! **Tokens for the declaration reader.** Asked for them ([`events`]), the lexer
//! also records the tokens it reads as `ruby_items` needs them ([`Ev`]): none in
//! method bodies or interpolations, a bracket or `do` block without symbols one
//! group, and the statements' ends where it sees them (the line breaks after a
//! value, `;`).

use std::ops::Range;

use crate::{bytes::is_word, lex::Cursor};

/// Byte ranges inside `src` that need no syntax tree: method bodies, blocks without
/// symbols and comments, in order, disjoint. Empty where the lexer cannot follow
/// the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    Some(read(src, None)?.cur.skip)
}

/// The tokens `ruby_items` reads declarations from: those outside method bodies and
/// interpolations, each block or bracket without symbols one [`Ev::Group`]; `None`
/// where the lexer cannot follow the text.
pub(crate) fn events(src: &[u8]) -> Option<Vec<Ev>> {
    read(src, Some(Vec::new()))?.events
}

/// The lexer after reading all of `src` (recording `events` if given); `None` where
/// it cannot follow the text.
fn read(src: &[u8], events: Option<Vec<Ev>>) -> Option<Lexer<'_>> {
    let mut lex = Lexer {
        cur: Cursor::new(src),
        frames: Vec::new(),
        prev: Prev::Op,
        heredocs: Vec::new(),
        nesting: 0,
        events,
        quiet: 0,
    };
    // Comments are ranges to skip, not tokens.
    lex.cur.record = lex.events.is_none();
    lex.code(None)?;
    (!lex.cur.confused && lex.frames.is_empty()).then_some(lex)
}

/// A token as `ruby_items` reads it; offsets into the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    /// A name or keyword; `name` where it can only be a name (after `.`, `&.` or
    /// `::`, with a `?` or `!`). The keywords that open a block are `Open`s instead,
    /// and `end` is a `Close`.
    Word {
        start: usize,
        end: usize,
        name: bool,
    },
    /// `key:` in a hash or an argument list.
    Label { start: usize, end: usize },
    /// A literal (string, symbol, number, regular expression, heredoc's start) or a
    /// variable (`@a`, `$a`).
    Value { start: usize, end: usize },
    /// Punctuation or an operator: one byte, or `::`, `..`, `&.`, `<<`.
    Op { start: usize, end: usize },
    /// `def` at `start`, and the method's name (after `self.`, for a singleton one).
    Def { start: usize, name: (usize, usize) },
    /// A frame opened by what starts at `start` (its keyword, `do` or bracket).
    Open { frame: Frame, start: usize },
    /// The frame last opened closes with the `end` or bracket at `start..end`;
    /// `symbolic` if something in it may be a symbol.
    Close {
        start: usize,
        end: usize,
        symbolic: bool,
    },
    /// A bracket or `do` block with nothing in it that may be a symbol, whole.
    Group {
        frame: Frame,
        start: usize,
        end: usize,
    },
    /// A statement ends (a line break after a value, or `;`); also where a method's
    /// body starts.
    Term,
}

/// What the token before was, as far as reading the next one goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prev {
    /// An operator, `(`, `,`, a keyword that expects an expression, or a statement's
    /// start: a value begins next.
    Op,
    /// A name or constant that may be a command (`puts`, `return`, Cucumber's
    /// `Given`): a literal may follow it as its argument.
    Name,
    /// A literal, a variable, a closing delimiter, `end`.
    Value,
    /// `.`, `&.` or `::`: a method's name follows, keyword or not.
    Member,
}

/// Something open that a later token closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A keyword's block, closed by `end`; `loop_do` while the `do` of its `while`,
    /// `until` or `for` may still come on its statement.
    Block { loop_do: bool },
    /// A method, closed by `end`; its body starts at `body` once its header's line
    /// or `;` ended.
    Def { body: Option<usize> },
    /// A method's parenthesized parameters: an endless method or a body follows.
    Params,
    /// A block's `do`, closed by `end`.
    Do,
    /// `(`, `[` or `{`.
    Delim(u8),
    /// An interpolation's `#{`: its `}` reads the literal on.
    Hole,
}

/// A frame, where its interior starts, and whether anything in it may be a symbol.
#[derive(Clone, Copy, Debug)]
struct Open {
    frame: Frame,
    /// Where its keyword, `do` or bracket starts.
    start: usize,
    interior: usize,
    symbolic: bool,
    /// Opened after a heredoc on the line: the heredoc's body is in it, its
    /// start not.
    in_heredoc_line: bool,
    /// The index of its `Open` event: a group replaces the events from there.
    event: usize,
}

/// A heredoc whose body starts on the next line.
#[derive(Clone, Copy, Debug)]
struct Heredoc {
    /// Its identifier, `start..end`.
    tag: (usize, usize),
    /// `<<-` or `<<~`: the closing identifier may be indented.
    indented: bool,
}

/// How deep interpolations may nest before the lexer gives up (the stack is the
/// limit: each hole is a call).
const MAX_NESTING: usize = 64;

struct Lexer<'a> {
    cur: Cursor<'a>,
    /// What is open, innermost last.
    frames: Vec<Open>,
    prev: Prev,
    /// Heredocs opened on the current line, in order.
    heredocs: Vec<Heredoc>,
    /// Interpolations open.
    nesting: usize,
    /// The tokens read, for `ruby_items`.
    events: Option<Vec<Ev>>,
    /// Method bodies and interpolations open: no events are recorded in them.
    quiet: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.cur.peek(ahead)
    }

    fn confused<T>(&mut self) -> Option<T> {
        self.cur.confused()
    }

    fn emit(&mut self, ev: Ev) {
        if self.quiet == 0
            && let Some(events) = &mut self.events
        {
            events.push(ev);
        }
    }

    /// Reads code until the frame at `until` (a hole) is closed, or to the end of
    /// the text.
    fn code(&mut self, until: Option<usize>) -> Option<()> {
        loop {
            if until.is_some_and(|k| self.frames.len() == k) {
                return Some(());
            }
            let Some(b) = self.peek(0) else {
                if until.is_some() || !self.heredocs.is_empty() {
                    return self.confused();
                }
                return Some(());
            };
            // Indentation and spacing, in a run: nothing to read in them.
            if matches!(b, b' ' | b'\t') {
                self.cur.blanks();
                continue;
            }
            let start = self.cur.at;
            let src = self.cur.src;
            // A command's argument: a name, a space (or a line continued with `\`),
            // and the literal right after.
            let argument = self.prev == Prev::Name
                && start > 0
                && (matches!(src[start - 1], b' ' | b'\t')
                    || src[..start].ends_with(b"\\\n")
                    || src[..start].ends_with(b"\\\r\n"))
                && !matches!(src.get(start + 1), None | Some(b' ' | b'\t' | b'\n' | b'='));
            let begins_value = self.prev == Prev::Op || argument;
            let line_start = start == 0 || src[start - 1] == b'\n';
            // `a.* b`, `a.==(b)`: an operator as a method's name.
            if self.prev == Prev::Member
                && !is_word(b)
                && !b.is_ascii_whitespace()
                && method_name(&mut self.cur)
            {
                self.prev = Prev::Name;
                let end = self.cur.at;
                self.emit(Ev::Word {
                    start,
                    end,
                    name: true,
                });
                continue;
            }
            self.cur.at += 1;
            match b {
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => {}
                b'\\' if self.cur.line_break(self.cur.at) > 0 => {
                    if !self.heredocs.is_empty() {
                        return self.confused();
                    }
                    self.cur.at += self.cur.line_break(self.cur.at);
                }
                b'\n' => {
                    self.heredoc_bodies()?;
                    if matches!(self.prev, Prev::Name | Prev::Value) {
                        self.statement_end();
                    }
                }
                b';' => self.statement_end(),
                b'#' => {
                    self.cur.line_end();
                    let block = self.frames.last().map_or(0, |o| match o.frame {
                        Frame::Def { body: Some(body) } => body,
                        _ => o.interior,
                    });
                    self.cur.line_comment_read(start + 1..self.cur.at, block);
                }
                b'=' if line_start && src[start..].starts_with(b"=begin") => self.embedded_doc()?,
                b'_' if line_start && self.is_end_marker(start) => {
                    self.cur.at = src.len();
                }
                b'\'' => self.literal(b'\'', None, false)?,
                b'"' => self.literal(b'"', None, true)?,
                b'`' => self.literal(b'`', None, true)?,
                b'@' => {
                    self.cur.skip_while(|c| c == b'@');
                    self.cur.skip_while(is_word);
                    self.prev = Prev::Value;
                }
                b'$' => {
                    // `$name`, `$1`, or one punctuation character (`$'`, `$"`, `$/`).
                    if self.peek(0).is_some_and(is_word) {
                        self.cur.skip_while(is_word);
                    } else if self.peek(0) == Some(b'-') {
                        self.cur.at += 2;
                    } else if self.peek(0).is_some_and(|c| !c.is_ascii_whitespace()) {
                        self.cur.at += 1;
                    }
                    self.prev = Prev::Value;
                }
                b'0'..=b'9' => {
                    loop {
                        self.cur.skip_while(is_word);
                        if self.peek(0) == Some(b'.')
                            && self.peek(1).is_some_and(|c| c.is_ascii_digit())
                        {
                            self.cur.at += 1;
                        } else {
                            break;
                        }
                    }
                    self.prev = Prev::Value;
                }
                b if is_word(b) => self.word(start)?,
                b':' => self.colon(begins_value)?,
                b'?' if begins_value => self.char_literal(),
                b'%' if begins_value => self.percent_literal()?,
                b'/' if begins_value => {
                    self.literal(b'/', None, true)?;
                    self.cur.skip_while(|c| c.is_ascii_alphabetic());
                }
                b'<' if self.peek(0) == Some(b'<') && begins_value => {
                    self.cur.at += 1;
                    if !self.heredoc_start() {
                        self.prev = Prev::Op;
                    }
                }
                b'.' if self.peek(0) == Some(b'.') => {
                    self.cur.skip_while(|c| c == b'.');
                    self.prev = Prev::Op;
                }
                b'.' => self.prev = Prev::Member,
                b'&' if self.peek(0) == Some(b'.') => {
                    self.cur.at += 1;
                    self.prev = Prev::Member;
                }
                b'(' | b'[' | b'{' => {
                    self.open(Frame::Delim(b), start);
                    self.prev = Prev::Op;
                }
                b')' | b']' | b'}' => self.close(b)?,
                _ => self.prev = Prev::Op,
            }
            if self.quiet == 0 && self.events.is_some() {
                self.token(b, start, line_start);
            }
        }
    }

    /// After the byte `b` at `start` was read through: its event, unless it was
    /// blank, a comment, a bracket or a word (those have theirs).
    fn token(&mut self, b: u8, start: usize, line_start: bool) {
        let silent = match b {
            b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' | b'\n' | b';' | b'#' => true,
            b'(' | b'[' | b'{' | b')' | b']' | b'}' => true,
            b'\\' => self.cur.line_break(start + 1) > 0,
            b'=' => line_start && self.cur.src[start..].starts_with(b"=begin"),
            b'0'..=b'9' => false,
            b => is_word(b),
        };
        if silent {
            return;
        }
        let end = self.cur.at.min(self.cur.src.len());
        self.emit(match self.prev {
            Prev::Value => Ev::Value { start, end },
            _ => Ev::Op { start, end },
        });
    }

    /// At a line's start: whether `__END__` is the line (the code ends there).
    fn is_end_marker(&self, start: usize) -> bool {
        let rest = &self.cur.src[start..];
        rest.starts_with(b"__END__") && matches!(rest.get(7), None | Some(b'\n' | b'\r'))
    }

    /// A line break or `;` ended a statement: a header's line, the condition of a
    /// loop.
    fn statement_end(&mut self) {
        self.emit(Ev::Term);
        match self.frames.last_mut().map(|o| &mut o.frame) {
            Some(Frame::Def { body: body @ None }) => {
                *body = Some(self.cur.at);
                self.quiet += 1;
            }
            Some(Frame::Block { loop_do }) => *loop_do = false,
            _ => {}
        }
        self.prev = Prev::Op;
    }

    /// After `=begin` at a line's start: past the line of its `=end`.
    fn embedded_doc(&mut self) -> Option<()> {
        self.cur.past(b"\n=end")?;
        self.cur.line_end();
        Some(())
    }

    /// A name, keyword or label that starts at `start`.
    fn word(&mut self, start: usize) -> Option<()> {
        self.cur.skip_while(is_word);
        let end = self.cur.at;
        if matches!(self.peek(0), Some(b'?' | b'!')) && self.peek(1) != Some(b'=') {
            self.cur.at += 1;
        }
        let word = self.cur.text(start, end);
        // `if: x`, `end:`: a label (not `A::B`).
        if self.peek(0) == Some(b':') && self.peek(1) != Some(b':') {
            self.cur.at += 1;
            self.prev = Prev::Op;
            let end = self.cur.at;
            self.emit(Ev::Label { start, end });
            return Some(());
        }
        if self.prev == Prev::Member || self.cur.at > end {
            // `A::B = 1` assigns a constant all the same.
            if word[0].is_ascii_uppercase() && self.assigned() {
                self.symbolic();
            }
            self.prev = Prev::Name;
            let end = self.cur.at;
            self.emit(Ev::Word {
                start,
                end,
                name: true,
            });
            return Some(());
        }
        // The words that open or close a frame have its events instead.
        let opens = match word {
            b"def" | b"class" | b"module" | b"case" | b"begin" | b"for" | b"end" => true,
            b"if" | b"unless" | b"while" | b"until" => {
                !matches!(self.prev, Prev::Name | Prev::Value)
            }
            b"do" => !matches!(
                self.frames.last().map(|o| o.frame),
                Some(Frame::Block { loop_do: true })
            ),
            _ => false,
        };
        if !opens {
            self.emit(Ev::Word {
                start,
                end,
                name: false,
            });
        }
        let modifier = matches!(self.prev, Prev::Name | Prev::Value);
        self.prev = Prev::Op;
        match word {
            b"def" => return self.def_header(start),
            b"class" => {
                // `class << self`: `<<` here begins no heredoc.
                self.cur.blanks();
                if self.cur.src[self.cur.at..].starts_with(b"<<") {
                    self.cur.at += 2;
                }
                self.symbolic();
                self.open(Frame::Block { loop_do: false }, start);
            }
            b"module" => {
                self.symbolic();
                self.open(Frame::Block { loop_do: false }, start);
            }
            b"case" | b"begin" => self.open(Frame::Block { loop_do: false }, start),
            b"for" => self.open(Frame::Block { loop_do: true }, start),
            b"if" | b"unless" | b"while" | b"until" if !modifier => {
                let loop_do = matches!(word, b"while" | b"until");
                self.open(Frame::Block { loop_do }, start);
            }
            b"do" => match self.frames.last_mut().map(|o| &mut o.frame) {
                Some(Frame::Block {
                    loop_do: loop_do @ true,
                }) => *loop_do = false,
                _ => self.open(Frame::Do, start),
            },
            b"end" => {
                match self.frames.last().map(|o| o.frame) {
                    Some(Frame::Block { .. } | Frame::Def { .. } | Frame::Do) => {
                        self.close_at(start)
                    }
                    _ => return self.confused(),
                }
                self.prev = Prev::Value;
            }
            b"attr_reader" | b"attr_writer" | b"attr_accessor" => {
                self.symbolic();
                self.prev = Prev::Name;
                // `attr_reader(:a)`: the names in the parentheses are the symbols.
                let at = self.cur.at;
                self.cur.blanks();
                if self.peek(0) == Some(b'(') {
                    self.cur.at += 1;
                    self.open(Frame::Delim(b'('), self.cur.at - 1);
                    self.symbolic();
                    self.prev = Prev::Op;
                } else {
                    self.cur.at = at;
                }
            }
            b"self" | b"nil" | b"true" | b"false" | b"__FILE__" | b"__LINE__" | b"__ENCODING__" => {
                self.prev = Prev::Value;
            }
            b"if" | b"unless" | b"while" | b"until" | b"then" | b"else" | b"elsif" | b"when"
            | b"in" | b"and" | b"or" | b"not" | b"rescue" | b"ensure" => {}
            // A constant may be a command too (Cucumber's `Given /^x$/ do`).
            _ => {
                if word[0].is_ascii_uppercase() && self.assigned() {
                    self.symbolic();
                }
                self.prev = Prev::Name;
            }
        }
        Some(())
    }

    /// After `def`: the method's name (`x`, `x?`, `x=`, `self.x`, an operator), then
    /// its parameters, an endless method's `=`, or its body.
    fn def_header(&mut self, start: usize) -> Option<()> {
        self.symbolic();
        self.cur.blanks();
        // `def @@x.y`: a variable's singleton method.
        self.cur.skip_while(|c| c == b'@' || c == b'$');
        let mut name = self.cur.at;
        if !method_name(&mut self.cur) {
            return self.confused();
        }
        // `def self.x`, `def obj.x`, `def Mod::x`: the name follows the receiver.
        let separator = match (self.peek(0), self.peek(1)) {
            (Some(b'.'), _) => 1,
            (Some(b':'), Some(b':')) => 2,
            _ => 0,
        };
        if separator > 0 {
            self.cur.at += separator;
            name = self.cur.at;
            if !method_name(&mut self.cur) {
                return self.confused();
            }
        }
        self.emit(Ev::Def {
            start,
            name: (name, self.cur.at),
        });
        if self.peek(0) == Some(b'(') {
            self.cur.at += 1;
            self.open(Frame::Params, self.cur.at - 1);
            return Some(());
        }
        self.after_params(Prev::Name);
        Some(())
    }

    /// After a method's name or parameters: an endless method's `=` and its value, or
    /// a body to its `end`.
    fn after_params(&mut self, prev: Prev) {
        self.cur.blanks();
        if self.peek(0) == Some(b'=') && !matches!(self.peek(1), Some(b'=' | b'~' | b'>')) {
            self.cur.at += 1;
            self.prev = Prev::Op;
            let start = self.cur.at - 1;
            self.emit(Ev::Op {
                start,
                end: start + 1,
            });
        } else {
            self.open(Frame::Def { body: None }, self.cur.at);
            self.prev = prev;
        }
    }

    /// A closing delimiter `b`.
    fn close(&mut self, b: u8) -> Option<()> {
        let opener = crate::lex::opener(b);
        let frame = self.frames.last().map(|o| o.frame);
        match (frame, b) {
            (Some(Frame::Delim(o)), _) if o == opener => self.prev = Prev::Value,
            (Some(Frame::Params), b')') | (Some(Frame::Hole), b'}') => {}
            _ => return self.confused(),
        }
        self.close_at(self.cur.at - 1);
        if frame == Some(Frame::Params) {
            self.after_params(Prev::Value);
        }
        Some(())
    }

    /// Opens `frame` (its keyword, `do` or bracket at `start`), its interior
    /// starting here.
    fn open(&mut self, frame: Frame, start: usize) {
        self.emit(Ev::Open { frame, start });
        self.frames.push(Open {
            frame,
            start,
            interior: self.cur.at,
            symbolic: false,
            in_heredoc_line: !self.heredocs.is_empty(),
            event: self.events.as_ref().map_or(0, Vec::len).saturating_sub(1),
        });
    }

    /// Closes the innermost frame, whose closer starts at `at`: a method's body is
    /// skipped, and so is the interior of a block or delimiter without symbols (and
    /// not split from a heredoc's body: `[<<~A, 1]` has its body after the `]`);
    /// anything else that may hold one makes its parent do so too.
    fn close_at(&mut self, at: usize) {
        let Some(open) = self.frames.pop() else {
            return;
        };
        let whole = !open.in_heredoc_line && self.heredocs.is_empty();
        if let Frame::Def { body: Some(_) } = open.frame {
            self.quiet -= 1;
        }
        self.close_event(&open, at);
        let interior = match open.frame {
            Frame::Def { body } => body,
            Frame::Delim(_) if !open.symbolic && whole => Some(open.interior),
            // The byte after `do` stays: left out of the parse, a gap joins `do`
            // and `end` into one word.
            Frame::Do
                if !open.symbolic
                    && whole
                    && self
                        .cur
                        .src
                        .get(open.interior)
                        .is_some_and(u8::is_ascii_whitespace) =>
            {
                Some(open.interior + 1)
            }
            _ => {
                if open.symbolic {
                    self.symbolic();
                }
                None
            }
        };
        if let Some(from) = interior.filter(|&from| from < at) {
            // What was skippable inside is skipped with it.
            let keep = self.cur.skip.partition_point(|r| r.start < from);
            self.cur.skip.truncate(keep);
            self.cur.skip.push(from..at);
        }
    }

    /// The event of `open`'s closer at `at`: a bracket or block without symbols
    /// becomes one group in place of its events.
    fn close_event(&mut self, open: &Open, at: usize) {
        let end = self.cur.at;
        let Some(events) = self.events.as_mut().filter(|_| self.quiet == 0) else {
            return;
        };
        if matches!(open.frame, Frame::Delim(_) | Frame::Do) && !open.symbolic {
            events.truncate(open.event);
            events.push(Ev::Group {
                frame: open.frame,
                start: open.start,
                end,
            });
        } else {
            events.push(Ev::Close {
                start: at,
                end,
                symbolic: open.symbolic,
            });
        }
    }

    /// Something the walker may report is in the innermost frame.
    fn symbolic(&mut self) {
        if let Some(open) = self.frames.last_mut() {
            open.symbolic = true;
        }
    }

    /// After a constant: whether it is assigned (`A = 1`, `A ||= 1`) or is one of
    /// several names (`A, B = 1, 2`), as far as the bytes that follow tell.
    fn assigned(&self) -> bool {
        let mut rest = self.cur.src[self.cur.at..].trim_ascii_start();
        // Past lines continued with `\` (`A \` then `= 1`).
        while let Some(after) = rest.strip_prefix(b"\\")
            && after.first().is_some_and(|b| matches!(b, b'\n' | b'\r'))
        {
            rest = after.trim_ascii_start();
        }
        let ops = rest
            .iter()
            .take_while(|c| b"|&+-*/%<>^".contains(c))
            .count();
        match (rest.first(), rest.get(ops), rest.get(ops + 1)) {
            (Some(b','), ..) => true,
            (_, Some(b'='), next) => !matches!(next, Some(b'=' | b'~' | b'>')),
            _ => false,
        }
    }

    /// After `:`: `::`, a symbol (`:name`, `:"…"`, `:+`, `:[]=`), or an operator.
    fn colon(&mut self, begins_value: bool) -> Option<()> {
        match self.peek(0) {
            Some(b':') => {
                self.cur.at += 1;
                self.prev = Prev::Member;
                return Some(());
            }
            Some(q @ (b'"' | b'\'')) => {
                self.cur.at += 1;
                self.literal(q, None, q == b'"')?;
            }
            // `:@a`, `:$a`, `:$'` (a global of one punctuation character).
            Some(b'@') => {
                self.cur.skip_while(|c| c == b'@');
                self.cur.skip_while(is_word);
            }
            Some(b'$') => {
                self.cur.at += 1;
                if !self.peek(0).is_some_and(is_word) {
                    self.cur.at += 1;
                }
                self.cur.skip_while(is_word);
            }
            Some(c) if is_word(c) => {
                method_name(&mut self.cur);
            }
            // `:+`, `:[]=`; after a value, `a ?b :-1` is no symbol.
            Some(_) if begins_value && method_name(&mut self.cur) => {}
            _ => {
                self.prev = Prev::Op;
                return Some(());
            }
        }
        self.prev = Prev::Value;
        Some(())
    }

    /// After a `?` where a value begins: a character literal (`?a`, `?\n`, `?"`) if
    /// one character and no name follows, else the ternary's `?`.
    fn char_literal(&mut self) {
        let at = self.cur.at;
        let len = match self.peek(0) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n') => 0,
            Some(b'\\') => {
                // `?\n`, `?\C-a`, `?\u{1F600}`: to the next non-name byte, at least
                // one.
                let rest = &self.cur.src[(at + 1).min(self.cur.src.len())..];
                1 + match rest.first() {
                    Some(b'u') if rest.get(1) == Some(&b'{') => {
                        rest.iter().position(|&c| c == b'}').map_or(0, |i| i + 1)
                    }
                    _ => rest
                        .iter()
                        .position(|&c| !is_word(c) && c != b'-')
                        .unwrap_or(rest.len())
                        .max(1),
                }
            }
            Some(c) => crate::bytes::utf8_len(c),
        };
        if len > 0 && !self.cur.src.get(at + len).copied().is_some_and(is_word) {
            self.cur.at = (at + len).min(self.cur.src.len());
            self.prev = Prev::Value;
        } else {
            self.prev = Prev::Op;
        }
    }

    /// After a `%` where a value begins: `%w[…]`, `%q{…}`, `%(…)` and the like.
    fn percent_literal(&mut self) -> Option<()> {
        let kind = self.peek(0).filter(|c| c.is_ascii_alphabetic());
        if kind.is_some() {
            self.cur.at += 1;
        }
        let Some(open) = self
            .peek(0)
            .filter(|c| !c.is_ascii_alphanumeric() && !c.is_ascii_whitespace())
        else {
            return self.confused();
        };
        self.cur.at += 1;
        let interpolates = !matches!(kind, Some(b'q' | b'w' | b'i' | b's'));
        let (close, nests) = match open {
            b'(' => (b')', Some(open)),
            b'[' => (b']', Some(open)),
            b'{' => (b'}', Some(open)),
            b'<' => (b'>', Some(open)),
            _ => (open, None),
        };
        self.literal(close, nests, interpolates)?;
        if kind == Some(b'r') {
            self.cur.skip_while(|c| c.is_ascii_alphabetic());
        }
        Some(())
    }

    /// After a literal's opening delimiter: past the `close` that ends it (`open`
    /// nests, `\` escapes, `#{…}` holds code where it `interpolates`).
    fn literal(&mut self, close: u8, open: Option<u8>, interpolates: bool) -> Option<()> {
        let mut depth = 0usize;
        loop {
            let Some(b) = self.peek(0) else {
                return self.confused();
            };
            self.cur.at += 1;
            match b {
                b'\\' => self.cur.at += 1,
                b'\n' if !self.heredocs.is_empty() => return self.confused(),
                b'#' if interpolates && self.peek(0) == Some(b'{') => {
                    self.cur.at += 1;
                    self.hole()?;
                }
                b if Some(b) == open => depth += 1,
                b if b == close && depth == 0 => break,
                b if b == close => depth -= 1,
                _ => {}
            }
        }
        self.cur.at = self.cur.at.min(self.cur.src.len());
        self.prev = Prev::Value;
        Some(())
    }

    /// After an interpolation's `#{`: past the `}` that closes it.
    fn hole(&mut self) -> Option<()> {
        if self.nesting == MAX_NESTING {
            return self.confused();
        }
        self.nesting += 1;
        self.quiet += 1;
        self.open(Frame::Hole, self.cur.at - 2);
        let prev = std::mem::replace(&mut self.prev, Prev::Op);
        self.code(Some(self.frames.len() - 1))?;
        self.prev = prev;
        self.nesting -= 1;
        self.quiet -= 1;
        Some(())
    }

    /// After `<<` where a value begins: a heredoc's identifier (`ID`, `-ID`, `~ID`,
    /// `~'ID'`); false, and nothing read, if none follows (an operator).
    fn heredoc_start(&mut self) -> bool {
        let at = self.cur.at;
        let indented = matches!(self.peek(0), Some(b'-' | b'~'));
        let mut tag_at = at + usize::from(indented);
        let tag = match self.cur.src.get(tag_at) {
            Some(&q @ (b'"' | b'\'' | b'`')) => {
                tag_at += 1;
                let Some(len) = self.cur.src[tag_at..]
                    .iter()
                    .position(|&c| c == q || c == b'\n')
                else {
                    return false;
                };
                if self.cur.src[tag_at + len] != q {
                    return false;
                }
                self.cur.at = tag_at + len + 1;
                (tag_at, tag_at + len)
            }
            Some(&c) if is_word(c) && !c.is_ascii_digit() => {
                self.cur.at = tag_at;
                self.cur.skip_while(is_word);
                (tag_at, self.cur.at)
            }
            _ => return false,
        };
        self.heredocs.push(Heredoc { tag, indented });
        self.prev = Prev::Value;
        true
    }

    /// After the line break that ends a line with heredocs: past their bodies, each
    /// to the line of its identifier.
    fn heredoc_bodies(&mut self) -> Option<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            let tag = &self.cur.src[doc.tag.0..doc.tag.1];
            self.cur.past_line(|line| {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let line = if doc.indented {
                    line.trim_ascii_start()
                } else {
                    line
                };
                line == tag
            })?;
        }
        Some(())
    }
}

/// Past a method's name at the cursor: a name with its `?`, `!` or `=` (not one of
/// `==`, `=~`, `=>`) or an operator (`==`, `[]=`, `+@`, `` ` ``); whether there was
/// one.
fn method_name(cur: &mut Cursor<'_>) -> bool {
    let from = cur.at;
    if cur.peek(0).is_some_and(is_word) {
        cur.skip_while(is_word);
        if matches!(cur.peek(0), Some(b'?' | b'!' | b'='))
            && !matches!(cur.peek(1), Some(b'=' | b'~' | b'>'))
        {
            cur.at += 1;
        }
    } else if cur.src[from..].starts_with(b"[]") {
        cur.at += 2 + usize::from(cur.peek(2) == Some(b'='));
    } else {
        cur.skip_while(|c| b"+-*/%<=>!~^&|`".contains(&c));
        if cur.at > from && cur.peek(0) == Some(b'@') {
            cur.at += 1;
        }
    }
    cur.at > from
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
        let src = r##"module M
  X = { a: [1, 2] }
  class C < Base
    attr_reader :a
    attr_accessor(:b, :c)
    def self.build(a, b = [1])
      new(a) if b
    end
    def x = [1, 2]
    def y; z; end
    class << self
      def meta
        1
      end
    end
    included do
      def hooked; end
    end
    describe "it" do
      it { expect(1).to eq(1) }
    end
    Point = Struct.new(:x) do
      def norm; end
    end
    def ==(other)
      other.end while other.if
    end
    def end; x; end
    def class = 1
  end
end
"##;
        expect![[r#"
            [
                " a: [1, 2] ",
                "1",
                "      new(a) if b\n    ",
                "1, 2",
                " z; ",
                "        1\n      ",
                " ",
                "      it { expect(1).to eq(1) }\n    ",
                ":x",
                " ",
                "      other.end while other.if\n    ",
                " x; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn literals_and_comments_hide_keywords() {
        let src = r##"class C
  # a comment's end
  # and its run
  =begin
  =end
=begin
def not_a_method
=end
  def a
    s = "end #{if x then "end" end} #{{a: 1}[:a]}" + 'end'
    t = %w[end if] + %q{a {end} b} + %Q|#{x}| + %r{do}i + %(a (end) b)
    r = /end #{x}/ unless a / 2 / b
    c = ?e + ?\n + ?" + ?'
    h = [<<~ONE, <<-'TWO', <<THREE]
      end do
    ONE
      #{not interpolated
      TWO
if
THREE
    :end.to_proc if :"do"
    x.end; x&.class; x::def; { if: 1, end: 2 }
    loop do
      while a do b end
      until a
        c
      end
      for i in 1..2 do end
    end
    y = if a then b else c end
    z = begin 1 rescue 2 end
    puts %w[a], /x/, <<~E
      end
    E
    $' + $" + `end`
  end
  def b(a = "(", b = ')') = a
end
"##;
        expect![[r#"
            [
                " a comment's end\n  # and its run",
                "    s = \"end #{if x then \"end\" end} #{{a: 1}[:a]}\" + 'end'\n    t = %w[end if] + %q{a {end} b} + %Q|#{x}| + %r{do}i + %(a (end) b)\n    r = /end #{x}/ unless a / 2 / b\n    c = ?e + ?\\n + ?\" + ?'\n    h = [<<~ONE, <<-'TWO', <<THREE]\n      end do\n    ONE\n      #{not interpolated\n      TWO\nif\nTHREE\n    :end.to_proc if :\"do\"\n    x.end; x&.class; x::def; { if: 1, end: 2 }\n    loop do\n      while a do b end\n      until a\n        c\n      end\n      for i in 1..2 do end\n    end\n    y = if a then b else c end\n    z = begin 1 rescue 2 end\n    puts %w[a], /x/, <<~E\n      end\n    E\n    $' + $\" + `end`\n  ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn blocks_with_symbols_or_split_heredocs_are_kept() {
        let src = r##"describe "x" do
  A, b = 1, 2
end
it do
  B::C ||= 1
end
let(:a) { attr_accessor :b }
X = [<<-M, 1]
  def m; end
M
Y = [1,
  2]
"##;
        expect![[r#"
            [
                ":a",
                "1,\n  2",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "def f\n  x = 'a\nend\n",
                "def f\n  x = \"#{a\"\nend\n",
                "def f\n  x = %w[a\nend\n",
                "def f\n  <<~E\n  x\nend\n",
                "def f\n  x = [<<~E, \"a\nb\"]\nE\nend\n",
                "def f\n  x\nend\nend\n",
                "def f\n  g(]\nend\n",
                "def f\n  if x\nend\n",
                "=begin\ndef f\n  x\nend\n",
                "def f\n  x = % \nend\n",
                "class C\n  def\nend\n",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r##"# A module.
# More of its doc.
module Puma
  VERSION = "5.6.5"
  CODES = { 200 => "OK", 404 => [1, 2] }
  # A request.
  class Server::Request < Base
    attr_reader :app
    attr_accessor(
      :host,
      :port
    )
    def self.build(app) = new(app)
    def initialize(app, host = "#")
      @app = app # :nodoc:
      # inside
      helper = ->(x) { x }
      raise Error, <<~MSG unless app
        end #{app}
      MSG
    end
    def view_renderer # :nodoc:
      # a comment in the body
      @view_renderer ||= ActionView::Renderer.new(lookup_context)
    end
    class << self
      def meta; end
    end
    private def secret; end
    def ==(other); end
    def [](key) = @h[key]
    def @@x.flush(*) end
    unless method_defined?(:call)
      def call(env)
        env.each do |k, v|
          next if k.end_with?("?")
          v.* if v.respond_to?(:*)
        end
        %i[a b].map { |s| s.to_proc }
      end
    end
    included do
      def hooked; end
    end
    BINDING = [<<-METHOD, __FILE__, __LINE__ + 1].freeze
      def __pry__
        binding
      end
    METHOD
  end
  Point = Struct.new(:x, :y) do
    def norm; end
  end
end

RSpec.describe Puma do
  class Fake < Puma::Server::Request; end
  let(:app) { ->(env) { [200, {}, []] } }
  it "works" do
    expect(app.call({})).to eq([200, {}, []])
  end
  it "is long enough to be left out of the parse" do
    expect(app.call({ "PATH_INFO" => "/a/long/path/to/somewhere/else" })).to eq([200, {}, []])
    expect(app.call({ "PATH_INFO" => "/another/long/path/to/somewhere" })).to eq([200, {}, []])
    expect(app.call({ "PATH_INFO" => "/and/a/third/one/to/be/sure/of/it" })).to eq([200, {}, []])
  end
  Then /^the (\w+)$/ do |x|
    x
  end
end
__END__
def not_code
"##;
        // The longest bodies are left out of the skeleton's parse.
        let skeleton = skeleton_reads_as_whole(Lang::Ruby, src, 8, 15);
        assert!(!skeleton.included.is_empty());
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: puma and hashie), or the first index
    /// is slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("ruby", &["rb", "rake", "gemspec", "ru"], 40, 1, |src| {
            scan(src).is_some()
        });
    }
}
