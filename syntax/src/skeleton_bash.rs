//! The skeleton lexer of Bash (`languages/bash.rs`). It finds the compound commands
//! and comments the symbol walker never enters or finds nothing in, so tree-sitter
//! parses them empty (`skeleton.rs` blanks them or leaves them out).
//!
//! **What is skipped.** The walker reads the file's commands and goes on into the
//! branches of `if` and the `{ … }` bodies of functions, where it looks for
//! function definitions; it enters nothing else. So the interiors of `{ … }`
//! groups, `do … done` loop bodies and `case … esac` items are skipped wherever they
//! are, and a function's `{ … }` body or an `if`'s branch (from `then` or `else` to
//! the next `elif`, `else` or `fi`) where no function is defined in it. The grammar
//! parses each of these empty (`{ }`, `do done`, `then fi`); subshells and command
//! substitutions, which it does not, are read but never skipped. The blank after
//! the opening word stays (left out of the parse, a gap would join `{` and `}`
//! into one word), and nothing is skipped that would part a heredoc's start from
//! its body. Runs of comment lines are skipped too, but their first `#`.
//!
//! **Following the text** as Bash reads it: words and the metacharacters that end
//! them; reserved words (`{`, `}`, `if`, `do`, `case`, …) only where a command
//! starts (also right after a closing one: `esac done`, and `for x do`) and only
//! unquoted; comments only at a word's start (`a#b`, `$#` are words); single
//! quotes, `$'…'` with its escapes, double quotes, backticks, `$(…)`, `$((…))`,
//! `((…))`, `$[…]`, `${…}` (to its first `}` outside quotes: a `{` in it opens
//! nothing) and process substitutions, nested to any depth; arrays and extended
//! globs (`a=(…)`, `@(a|b)`); `[[ … ]]`, where parentheses and `<` are no
//! operators; `case` items, whose patterns end with an unmatched `)`; and heredocs
//! (`<<EOF`, `<<-EOF`, quoted delimiters, several on a line), whose bodies start on
//! the next line and end at the delimiter's line. Where the lexer cannot follow the
//! text (an unterminated quote or heredoc, unbalanced or mismatched delimiters and
//! reserved words, a `(` where no command can have one, a line break inside a quote
//! while a heredoc waits for its body) it skips nothing and the file gets a whole
//! parse; any syntax error of the skeleton sends the file to a whole parse too
//! (`any_error` in `languages/bash.rs`), as a misread reserved word can move a `}`
//! far from where the error shows.
//!
//! **As tree-sitter-bash reads it**, where that is not as plain, the lexer follows
//! it or gives up: a reserved word after an assignment, a redirection or `!` (but `[[`
//! and `(`) is a command's name, and so are `time`, `coproc` and a `do` with no
//! loop; a heredoc's body ends at the first line that starts with its delimiter
//! after blanks (the lexer gives up on a body with such a line before its own
//! end), and a line of only `\` continues the command before it (it gives up).
//!
//! **Marks** ([`marks`]): for the declaration reader (`bash_items`), the lexer
//! also tells where functions are defined and where the frames the walker looks
//! into open and close, and whether each definition or `if` starts a statement
//! there (not after `&&` or `|`, not in a loop's condition), so no syntax tree is
//! needed for the files it can follow.

use std::ops::Range;

use crate::lex::Cursor;

/// Byte ranges inside `src` that need no syntax tree, in order, disjoint. Empty
/// where the lexer cannot follow the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    Lexer::new(src, None).read().map(|lex| lex.cur.skip)
}

/// What `bash_items` reads declarations from: the [`Mark`]s of the text, in order;
/// `None` where the lexer cannot follow it.
pub(crate) fn marks(src: &[u8]) -> Option<Vec<Mark>> {
    let mut lex = Lexer::new(src, Some(Vec::new()));
    // Comments are for skeletons: none recorded, nothing allocated for them.
    lex.cur.record = false;
    lex.read()?.marks
}

/// What the walker may list, as the lexer reads it (for `bash_items`): function
/// definitions, and the frames around them the walker looks into (a function's `{ …
/// }` body, an `if`), in a frame it looks into, where the text is. Each `heredoc`
/// says a heredoc's body was still to come on a later line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A function's name was read (and its `()` if any, to `head_end`): its
    /// definition starts at `start` (the name, or `function`). `plain`: it starts a
    /// statement of the frame's list, not in a loop's condition, nor `function`
    /// where tree-sitter-bash reads it as a bare command's name (only then is it
    /// the node the walker counts). A pipeline's or list's later command is not
    /// marked, nor what is in it.
    Function {
        start: usize,
        name: (usize, usize),
        head_end: usize,
        plain: bool,
        heredoc: bool,
    },
    /// The body of the function just marked (`{` or `(`) opens at `at`.
    Body { at: usize, heredoc: bool },
    /// An `if` that starts a statement (as `Function`'s `plain` says) opens.
    If { heredoc: bool },
    /// An `if` that may or may not be in a loop's condition opens.
    Unsure,
    /// What the last `Body` or `If` still open opened closes: its `}`, `)` or `fi`
    /// starts at `at`.
    Close { at: usize, heredoc: bool },
}

/// The loops whose condition (or word list) is being read in a frame.
#[derive(Clone, Copy, Debug, Default)]
struct Loops {
    /// `while`, `until`, `for` and `select` read, less the `do`s and `for` bodies
    /// in braces read.
    open: u32,
    /// The last one read is a `for` or `select`, whose body may be `{ … }`.
    brace: bool,
}

/// What a command starting here is part of: the walker counts only statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lead {
    /// A statement of the innermost frame's list starts here.
    Statement,
    /// A later command of a pipeline or list, or the one `!` negates (also on the
    /// next line: `a &&⏎ b`).
    Command,
    /// Inside a command: a line break or `;` ends it.
    Other,
    /// A statement starts here, after a line break that ended a command of two or
    /// more assignments and redirections only (`redirected`: one of them a
    /// redirection), which tree-sitter-bash may read on with a `function` (or,
    /// when `redirected`, a compound command's first word) as its name.
    Bare { redirected: bool },
}

/// Something open that a later token closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// `{`: a function's body or a group, closed by `}`.
    Brace { body: bool },
    /// A subshell's `(`, `$(`, `<(` or `>(`, closed by `)`.
    Paren,
    /// `do`, closed by `done`.
    Do,
    /// `if`, closed by `fi`; `branch` where the interior of the branch being read
    /// starts (after `then` or `else`), if one is.
    If { branch: Option<usize> },
    /// `case`, closed by `esac`.
    Case(Case),
}

/// Where in a `case` the lexer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    /// Before `in`.
    Subject,
    /// Where a pattern (or `esac`) is next.
    Pattern,
    /// In an item's commands.
    Commands,
}

/// A frame, where its interior starts, and whether a function is defined in it (in
/// an `if`, in the branch being read).
#[derive(Clone, Copy, Debug)]
struct Open {
    frame: Frame,
    interior: usize,
    defines: bool,
    /// Opened after a heredoc on the line: the heredoc's body is in it, its start
    /// not.
    in_heredoc_line: bool,
    /// The loops whose condition was being read around it (restored when it closes).
    loops: Loops,
    /// The walker looks for functions in it (for [`Mark`]s).
    walked: bool,
    /// A [`Mark`] was made when it opened: one is made when it closes.
    marked: bool,
}

/// A heredoc whose body starts on the next line.
#[derive(Clone, Debug)]
struct Heredoc {
    /// Its delimiter, quotes removed.
    tag: Vec<u8>,
    /// `<<-`: tabs before the delimiter's line are stripped.
    tabs: bool,
}

/// How deep `$(…)` and `${…}` may nest before the lexer gives up (the stack is the
/// limit: each is a call).
const MAX_NESTING: usize = 64;

/// The reserved words that start a compound command.
const OPENERS: [&[u8]; 10] = [
    b"{",
    b"if",
    b"case",
    b"for",
    b"select",
    b"while",
    b"until",
    b"[[",
    b"!",
    b"function",
];

/// Whether `b` ends a word (Bash's metacharacters).
fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

struct Lexer<'a> {
    cur: Cursor<'a>,
    /// What is open, innermost last.
    frames: Vec<Open>,
    /// Heredocs opened on the current line, in order.
    heredocs: Vec<Heredoc>,
    /// Whether a command starts here (reserved words are read as such).
    command: bool,
    /// A function's name and `()` were read: its body is next.
    body_next: bool,
    /// `for` and its variable's name were read: a `do` may follow at once.
    for_do: bool,
    /// `$(…)` and `${…}` open.
    nesting: usize,
    /// What a command starting here is part of.
    lead: Lead,
    /// The loops whose condition (or word list) is being read in the innermost frame.
    loops: Loops,
    /// Assignments and redirections read in a command that has no name yet.
    bare: u32,
    /// One of them is a redirection.
    bare_redirected: bool,
    /// The [`Mark`]s made so far, where they are wanted.
    marks: Option<Vec<Mark>>,
    /// A function was just marked: its body is to be marked.
    marked_function: bool,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a [u8], marks: Option<Vec<Mark>>) -> Lexer<'a> {
        Lexer {
            cur: Cursor::new(src),
            frames: Vec::new(),
            heredocs: Vec::new(),
            command: true,
            body_next: false,
            for_do: false,
            nesting: 0,
            lead: Lead::Statement,
            loops: Loops::default(),
            bare: 0,
            bare_redirected: false,
            marks,
            marked_function: false,
        }
    }

    /// The whole text read; `None` where the lexer cannot follow it.
    fn read(mut self) -> Option<Self> {
        self.code(None)?;
        (!self.cur.confused && self.frames.is_empty()).then_some(self)
    }

    /// Whether a command starting here is a statement the walker counts, where it
    /// looks.
    fn plain(&self) -> bool {
        matches!(self.lead, Lead::Statement | Lead::Bare { .. }) && self.loops.open == 0
    }

    /// An assignment or a redirection (`redirection`) was read where `lead` was:
    /// counted while the command has no name (after a line break too, where
    /// tree-sitter-bash reads on a bare command).
    fn bare_item(&mut self, lead: Lead, redirection: bool) {
        (self.bare, self.bare_redirected) = match lead {
            Lead::Other if self.bare == 0 => (0, false),
            Lead::Other | Lead::Bare { .. } => (self.bare + 1, self.bare_redirected || redirection),
            Lead::Statement | Lead::Command => (1, redirection),
        };
    }

    /// Whether the walker looks for functions in the innermost frame.
    fn walked(&self) -> bool {
        self.frames.last().is_none_or(|o| o.walked)
    }

    fn mark(&mut self, mark: Mark) {
        if let Some(marks) = &mut self.marks {
            marks.push(mark);
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.cur.peek(ahead)
    }

    /// Reads commands until the frame at `until` (a `$(`, `<(` or `>(`) is closed,
    /// or to the end of the text.
    fn code(&mut self, until: Option<usize>) -> Option<()> {
        loop {
            if until.is_some_and(|k| self.frames.len() == k) {
                return Some(());
            }
            if self.cur.confused {
                return None;
            }
            let Some(b) = self.peek(0) else {
                if until.is_some() || !self.heredocs.is_empty() {
                    return self.cur.confused();
                }
                return Some(());
            };
            if self.top() == Some(Frame::Case(Case::Pattern))
                && !b.is_ascii_whitespace()
                && b != b'#'
            {
                self.pattern()?;
                continue;
            }
            let start = self.cur.at;
            match b {
                b' ' | b'\t' | b'\r' => self.cur.skip_while(|c| matches!(c, b' ' | b'\t' | b'\r')),
                b'\\' if self.cur.line_break(start + 1) > 0 => {
                    // Right after a line break, tree-sitter-bash reads on the command
                    // that line break ended.
                    if start > 0 && self.cur.src[start - 1] == b'\n' {
                        return self.cur.confused();
                    }
                    self.cur.at += 1 + self.cur.line_break(start + 1);
                }
                b'\n' => {
                    self.cur.at += 1;
                    self.heredoc_bodies()?;
                    if self.top() != Some(Frame::Case(Case::Subject)) {
                        self.command = true;
                    }
                    if self.lead == Lead::Other {
                        self.lead = match self.bare {
                            0 | 1 => Lead::Statement,
                            _ => Lead::Bare {
                                redirected: self.bare_redirected,
                            },
                        };
                    }
                }
                b'#' => {
                    self.cur.line_end();
                    let block = self.frames.last().map_or(0, |o| o.interior);
                    self.cur.line_comment_read(start + 1..self.cur.at, block);
                }
                b';' => {
                    let run = self.cur.run(b';', start);
                    self.cur.at += run.min(2);
                    if self.peek(0) == Some(b'&') {
                        self.cur.at += 1;
                    }
                    // `;;`, `;&`, `;;&`: the end of a `case` item.
                    if self.cur.at - start > 1 {
                        self.item_end()?;
                    }
                    self.command = true;
                    self.lead = Lead::Statement;
                }
                b'&' | b'|' => {
                    self.cur.at += 1;
                    // `&>` and `&>>` redirect; `&&`, `||`, `|&`, `&`, `|` end a
                    // command.
                    if b == b'&' && self.peek(0) == Some(b'>') {
                        self.redirected()?;
                    } else {
                        self.lead = Lead::Command;
                        if matches!(self.peek(0), Some(b'&' | b'|')) {
                            self.cur.at += 1;
                        } else if b == b'&' {
                            self.lead = Lead::Statement;
                        }
                        self.command = true;
                    }
                }
                b'(' if self.command && self.peek(1) == Some(b'(') => {
                    self.cur.at += 2;
                    self.arithmetic(b'(', 2)?;
                    self.command = false;
                    (self.lead, self.bare) = (Lead::Other, 0);
                }
                b'(' if self.command => {
                    self.cur.at += 1;
                    self.open(Frame::Paren);
                    self.body_next = false;
                    self.lead = Lead::Statement;
                }
                b'(' => return self.cur.confused(),
                b')' => {
                    if self.top() != Some(Frame::Paren) {
                        return self.cur.confused();
                    }
                    self.close(start);
                    self.cur.at += 1;
                    (self.lead, self.bare) = (Lead::Other, 0);
                }
                b'<' | b'>' if self.peek(1) == Some(b'(') => {
                    self.cur.at += 2;
                    self.substitution()?;
                    (self.lead, self.bare) = (Lead::Other, 0);
                }
                b'<' | b'>' => self.redirected()?,
                _ => self.word()?,
            }
        }
    }

    fn top(&self) -> Option<Frame> {
        self.frames.last().map(|o| o.frame)
    }

    /// Opens `frame`, its interior starting here.
    fn open(&mut self, frame: Frame) {
        let body = std::mem::take(&mut self.marked_function);
        let (mut marked, mut walked) = (false, false);
        if self.marks.is_some() {
            // Where its opener is (`{`, `(`), and a heredoc's body to come.
            let (at, heredoc) = (self.cur.at - 1, !self.heredocs.is_empty());
            let mark = match frame {
                // A function's `( … )` body is no container of the walker's.
                Frame::Brace { body: true } if body => Some((Mark::Body { at, heredoc }, true)),
                Frame::Paren if body && self.body_next => Some((Mark::Body { at, heredoc }, false)),
                Frame::If { .. } if self.walked() && self.plain() => {
                    Some((Mark::If { heredoc }, true))
                }
                // In a loop's condition, where tree-sitter-bash may read it
                // otherwise than Bash (reserved words in `while if …`).
                Frame::If { .. } if self.walked() && self.lead == Lead::Statement => {
                    Some((Mark::Unsure, false))
                }
                _ => None,
            };
            if let Some((mark, walks)) = mark {
                self.mark(mark);
                (marked, walked) = (true, walks);
            }
        }
        self.frames.push(Open {
            frame,
            interior: self.cur.at,
            defines: false,
            in_heredoc_line: !self.heredocs.is_empty(),
            loops: std::mem::take(&mut self.loops),
            walked,
            marked,
        });
    }

    /// The frame `open` was closed, its closer starting at `at`.
    fn closed(&mut self, open: Open, at: usize) {
        self.loops = open.loops;
        if open.marked {
            let heredoc = !self.heredocs.is_empty();
            self.mark(Mark::Close { at, heredoc });
        }
    }

    /// Closes the innermost frame, whose closer starts at `at`: its interior is
    /// skipped where the walker never enters it, or enters it and finds no function.
    fn close(&mut self, at: usize) {
        let Some(open) = self.frames.pop() else {
            return;
        };
        self.closed(open, at);
        let skip = match open.frame {
            Frame::Brace { body } => !body || !open.defines,
            Frame::Do | Frame::Case(_) => true,
            Frame::Paren | Frame::If { .. } => false,
        };
        if open.defines {
            self.defines();
        }
        if skip {
            self.skip(open, open.interior..at);
        }
    }

    /// Skips `range` of the frame `open` (and whatever was skippable in it) but its
    /// first byte, a blank that stays (left out of the parse, a gap would join the
    /// words around it: `{}`, `dodone`); unless a heredoc's start and body would be
    /// split by it.
    fn skip(&mut self, open: Open, range: Range<usize>) {
        let blank = self
            .cur
            .src
            .get(range.start)
            .is_some_and(u8::is_ascii_whitespace);
        if open.in_heredoc_line || !self.heredocs.is_empty() || !blank || range.len() < 2 {
            return;
        }
        let range = range.start + 1..range.end;
        let keep = self.cur.skip.partition_point(|r| r.start < range.start);
        self.cur.skip.truncate(keep);
        self.cur.skip.push(range);
    }

    /// A function is defined in the innermost frame.
    fn defines(&mut self) {
        if let Some(open) = self.frames.last_mut() {
            open.defines = true;
        }
    }

    /// A word: a reserved word where a command starts, a function's name, or any
    /// other.
    fn word(&mut self) -> Option<()> {
        self.lead = self.command_word()?;
        Some(())
    }

    /// [`Lexer::word`]; what a command starting after it is part of.
    fn command_word(&mut self) -> Option<Lead> {
        let start = self.cur.at;
        let plain = self.word_end()?;
        let word = self.cur.text(start, self.cur.at);
        let for_do = std::mem::take(&mut self.for_do);
        if !plain {
            return self.other_word(start);
        }
        if for_do && word == b"do" {
            self.command = true;
        }
        if self.top() == Some(Frame::Case(Case::Subject)) {
            if word == b"in" {
                self.set_top(Frame::Case(Case::Pattern));
                if let Some(open) = self.frames.last_mut() {
                    open.interior = self.cur.at;
                }
            }
            return Some(Lead::Other);
        }
        if !self.command {
            return self.other_word(start);
        }
        // After a bare command's line, tree-sitter-bash may read `function` or,
        // after a redirection (which makes the other reading a
        // `redirected_statement`, which it ranks lower), a compound command's
        // first word or a function's name as that command's name and go on
        // (where that leaves a closer unread, it fails and reads as the lexer
        // does).
        if let Lead::Bare { redirected } = self.lead {
            if word == b"function" || redirected && OPENERS.contains(&word) {
                return self.cur.confused();
            }
        }
        let body_next = std::mem::take(&mut self.body_next);
        match word {
            b"{" => {
                // `for ((…)) { … }`: a body, not a group in a condition.
                if self.loops.brace {
                    self.loops = Loops {
                        open: self.loops.open - 1,
                        brace: false,
                    };
                }
                self.open(Frame::Brace { body: body_next });
            }
            b"}" => {
                if !matches!(self.top(), Some(Frame::Brace { .. })) {
                    return self.cur.confused();
                }
                self.close(start);
            }
            b"do" => {
                // Read in the frame of the loop's condition, which it ends; with no
                // loop, tree-sitter-bash reads a command named `do`.
                if self.loops.open == 0 {
                    return self.cur.confused();
                }
                self.loops = Loops {
                    open: self.loops.open - 1,
                    brace: false,
                };
                self.open(Frame::Do);
            }
            b"done" => {
                if self.top() != Some(Frame::Do) {
                    return self.cur.confused();
                }
                self.close(start);
            }
            b"if" => self.open(Frame::If { branch: None }),
            b"then" | b"else" | b"elif" | b"fi" => self.branch(word, start)?,
            b"case" => {
                self.open(Frame::Case(Case::Subject));
                self.command = false;
            }
            b"esac" => self.esac(start)?,
            b"[[" => self.test()?,
            // `for ((…))` is followed by its `do` or `{`; `for x in …` by words,
            // `for x do` by its `do`.
            b"for" | b"select" => {
                self.loops = Loops {
                    open: self.loops.open + 1,
                    brace: true,
                };
                self.cur.blanks();
                if self.cur.src[self.cur.at..].starts_with(b"((") {
                    self.cur.at += 2;
                    self.arithmetic(b'(', 2)?;
                } else {
                    self.word_end()?;
                    self.command = false;
                    self.for_do = true;
                }
            }
            b"function" => {
                self.cur.blanks();
                let name = self.cur.at;
                self.word_end()?;
                // No name on the line, or a comment where it would be (which
                // tree-sitter-bash reads past to a name on a later line).
                if self.cur.at == name || self.cur.src[name] == b'#' {
                    return self.cur.confused();
                }
                let name = (name, self.cur.at);
                self.parentheses();
                self.defined(start, name);
            }
            b"while" | b"until" => {
                self.loops = Loops {
                    open: self.loops.open + 1,
                    brace: false,
                };
            }
            b"!" => return self.negated(),
            _ => {
                let name = (start, self.cur.at);
                if self.parentheses() {
                    // As `function` after a bare command's line (above); with no
                    // redirection among it, that reading fails at `()`.
                    if self.lead == (Lead::Bare { redirected: true }) {
                        return self.cur.confused();
                    }
                    self.defined(start, name);
                } else {
                    return self.other_word(start);
                }
            }
        }
        // After these, a statement's list goes on or starts; after the others
        // (closers, `case`, `]]`, a function's head, `for`'s name) a command of
        // its own cannot start without a `;` or line break.
        self.bare = 0;
        Some(match word {
            b"{" | b"do" | b"if" | b"then" | b"else" | b"elif" | b"while" | b"until" => {
                Lead::Statement
            }
            _ => Lead::Other,
        })
    }

    /// A word that is no reserved word: a command's name or argument, or an
    /// assignment before one (counted while the command has no name). No reserved
    /// word follows in the command: Bash and tree-sitter-bash read `x=1 if` as a
    /// command named `if` (and `time` and `coproc`, to tree-sitter-bash, are
    /// commands' names too).
    fn other_word(&mut self, start: usize) -> Option<Lead> {
        let word = self.cur.text(start, self.cur.at);
        // A redirection's descriptor (`2` of `2>&1`): the redirection counts.
        if word.iter().all(u8::is_ascii_digit) && matches!(self.peek(0), Some(b'<' | b'>')) {
            return Some(self.lead);
        }
        let name = word
            .iter()
            .take_while(|&&c| crate::bytes::is_word(c))
            .count();
        let assignment =
            name > 0 && matches!(&word[name..], [b'=', ..] | [b'+', b'=', ..] | [b'[', ..]);
        if assignment {
            self.bare_item(self.lead, false);
        } else {
            self.bare = 0;
        }
        self.command = false;
        Some(Lead::Other)
    }

    /// After `!` where a command starts: tree-sitter-bash negates a command, a
    /// `[[ … ]]` test or a subshell only, and reads a reserved word after `!` as a
    /// command's name.
    fn negated(&mut self) -> Option<Lead> {
        self.cur.blanks();
        match self.peek(0) {
            Some(b'(') => {}
            Some(b) if !is_meta(b) && b != b'#' => {
                let start = self.cur.at;
                let plain = self.word_end()?;
                if plain && self.cur.text(start, self.cur.at) == b"[[" {
                    self.test()?;
                    return Some(Lead::Other);
                }
                return self.other_word(start);
            }
            // A line break or comment between: who reads what after it is unsure.
            _ => return self.cur.confused(),
        }
        Some(Lead::Command)
    }

    /// After a function's name: past `()` if it follows (blanks allowed around).
    fn parentheses(&mut self) -> bool {
        let at = self.cur.at;
        self.cur.blanks();
        if self.peek(0) == Some(b'(') {
            self.cur.at += 1;
            self.cur.blanks();
            if self.peek(0) == Some(b')') {
                self.cur.at += 1;
                return true;
            }
        }
        self.cur.at = at;
        false
    }

    /// A function's name and `()` were read, its definition starting at `start`:
    /// its body is next.
    fn defined(&mut self, start: usize, name: (usize, usize)) {
        self.defines();
        self.body_next = true;
        self.command = true;
        // A pipeline's or list's later command is no statement the walker counts,
        // nor is what is defined in it.
        self.marked_function = self.marks.is_some() && self.walked() && self.lead != Lead::Command;
        if self.marked_function {
            self.mark(Mark::Function {
                start,
                name,
                head_end: self.cur.at,
                plain: self.plain(),
                heredoc: !self.heredocs.is_empty(),
            });
        }
    }

    fn set_top(&mut self, frame: Frame) {
        if let Some(open) = self.frames.last_mut() {
            open.frame = frame;
        }
    }

    /// `then`, `else`, `elif` or `fi` where a command starts: a branch of the
    /// innermost `if` starts or ends; one in which no function is defined is skipped.
    fn branch(&mut self, word: &[u8], start: usize) -> Option<()> {
        let Some(&open) = self.frames.last() else {
            return self.cur.confused();
        };
        let Frame::If { branch } = open.frame else {
            return self.cur.confused();
        };
        if let Some(from) = branch {
            if !open.defines {
                self.skip(open, from..start);
            }
        }
        if word == b"fi" {
            self.frames.pop();
            self.closed(open, start);
            if open.defines {
                self.defines();
            }
            return Some(());
        }
        let next = matches!(word, b"then" | b"else").then_some(self.cur.at);
        if let Some(top) = self.frames.last_mut() {
            top.frame = Frame::If { branch: next };
            top.in_heredoc_line = !self.heredocs.is_empty();
        }
        if open.defines {
            // The `if` holds a function: so does what holds the `if`.
            let at = self.frames.len() - 1;
            if let Some(parent) = at.checked_sub(1).and_then(|p| self.frames.get_mut(p)) {
                parent.defines = true;
            }
            self.frames[at].defines = false;
        }
        Some(())
    }

    /// `esac` where a command or pattern starts.
    fn esac(&mut self, start: usize) -> Option<()> {
        if !matches!(
            self.top(),
            Some(Frame::Case(Case::Pattern | Case::Commands))
        ) {
            return self.cur.confused();
        }
        self.close(start);
        (self.lead, self.bare) = (Lead::Other, 0);
        Some(())
    }

    /// `;;`, `;&` or `;;&`: a `case` item ends, a pattern is next.
    fn item_end(&mut self) -> Option<()> {
        if self.top() != Some(Frame::Case(Case::Commands)) {
            return self.cur.confused();
        }
        self.set_top(Frame::Case(Case::Pattern));
        Some(())
    }

    /// Where a `case` pattern is next: `esac`, or the pattern to its `)`.
    fn pattern(&mut self) -> Option<()> {
        let start = self.cur.at;
        if self.peek(0) == Some(b'(') {
            self.cur.at += 1;
        } else {
            self.word_end()?;
            if self.cur.text(start, self.cur.at) == b"esac" {
                return self.esac(start);
            }
        }
        loop {
            match self.peek(0) {
                Some(b' ' | b'\t' | b'|') => self.cur.at += 1,
                Some(b')') => {
                    self.cur.at += 1;
                    self.set_top(Frame::Case(Case::Commands));
                    self.command = true;
                    self.lead = Lead::Statement;
                    return Some(());
                }
                Some(b) if !is_meta(b) => {
                    self.word_end()?;
                }
                _ => return self.cur.confused(),
            }
        }
    }

    /// After `[[`: past its `]]` (parentheses and `<` are no operators in it).
    fn test(&mut self) -> Option<()> {
        loop {
            match self.peek(0) {
                None => return self.cur.confused(),
                Some(b' ' | b'\t' | b'\n' | b'(' | b')' | b'<' | b'>' | b'&' | b'|' | b';') => {
                    if self.peek(0) == Some(b'\n') && !self.heredocs.is_empty() {
                        return self.cur.confused();
                    }
                    self.cur.at += 1;
                }
                Some(_) => {
                    let start = self.cur.at;
                    let plain = self.word_end()?;
                    if plain && self.cur.text(start, self.cur.at) == b"]]" {
                        self.command = false;
                        return Some(());
                    }
                }
            }
        }
    }

    /// A redirection where a word may start: as after a word, no reserved word
    /// follows in the command (`>x if` is a command named `if`).
    fn redirected(&mut self) -> Option<()> {
        self.bare_item(self.lead, true);
        self.redirection()?;
        self.command = false;
        self.lead = Lead::Other;
        Some(())
    }

    /// A redirection operator (`>`, `>>`, `<&`, `&>`, `<<<`, …), or a heredoc's
    /// `<<` and delimiter.
    fn redirection(&mut self) -> Option<()> {
        let src = self.cur.src;
        let at = self.cur.at;
        if src[at..].starts_with(b"<<") && !src[at..].starts_with(b"<<<") {
            self.cur.at += 2;
            let tabs = self.peek(0) == Some(b'-');
            self.cur.at += usize::from(tabs);
            self.cur.blanks();
            let start = self.cur.at;
            self.word_end()?;
            let tag: Vec<u8> = src[start..self.cur.at]
                .iter()
                .copied()
                .filter(|&c| !matches!(c, b'\'' | b'"' | b'\\'))
                .collect();
            if tag.is_empty() {
                return self.cur.confused();
            }
            self.heredocs.push(Heredoc { tag, tabs });
            return Some(());
        }
        self.cur
            .skip_while(|c| matches!(c, b'<' | b'>' | b'&' | b'|'));
        // Its target (`-` of `>&-` too) is a word, never a reserved one (`>elif`).
        self.cur.blanks();
        self.word_end()?;
        Some(())
    }

    /// After the line break that ends a line with heredocs: past their bodies, each
    /// to the line of its delimiter. tree-sitter-bash ends a body at the first line
    /// that starts with the delimiter after any blanks (`EOF2`, `  EOF`): the lexer
    /// gives up on a body with such a line before its delimiter's.
    fn heredoc_bodies(&mut self) -> Option<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            let early = std::cell::Cell::new(false);
            self.cur.past_line(|line| {
                let tabs = if doc.tabs {
                    line.iter().take_while(|&&c| c == b'\t').count()
                } else {
                    0
                };
                let ends = line[tabs..] == doc.tag;
                early.set(!ends && line.trim_ascii_start().starts_with(&doc.tag));
                ends || early.get()
            })?;
            if early.get() {
                return self.cur.confused();
            }
        }
        Some(())
    }

    /// Past a word's bytes (quotes, expansions and all) to the metacharacter that
    /// ends it; whether it was plain (no quote, escape or expansion: a reserved
    /// word can be one).
    fn word_end(&mut self) -> Option<bool> {
        let mut plain = true;
        while let Some(b) = self.peek(0) {
            match b {
                // `a=(1 2)`, `@(a|b)`: an array or an extended glob.
                b'(' if self.cur.at > 0
                    && matches!(
                        self.cur.src[self.cur.at - 1],
                        b'=' | b'@' | b'!' | b'?' | b'*' | b'+'
                    ) =>
                {
                    self.cur.at += 1;
                    self.nested(Self::group)?;
                    plain = false;
                }
                b if is_meta(b) => break,
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    plain = false;
                    self.quoted(false)?;
                }
                _ => self.cur.at += 1,
            }
        }
        Some(plain)
    }

    /// After an array's or extended glob's `(`: past its `)` (words, blanks, line
    /// breaks and comments in it).
    fn group(&mut self) -> Option<()> {
        loop {
            match self.peek(0) {
                None => return self.cur.confused(),
                Some(b')') => {
                    self.cur.at += 1;
                    return Some(());
                }
                Some(b'\n') if !self.heredocs.is_empty() => return self.cur.confused(),
                Some(b' ' | b'\t' | b'\n' | b'|' | b'\r') => self.cur.at += 1,
                Some(b'#') if self.cur.src[self.cur.at - 1].is_ascii_whitespace() => {
                    self.cur.line_end();
                }
                // `@(a|@(b))`, and a regular expression's groups after `?(` in
                // `[[ … ]]`.
                Some(b'(') => {
                    self.cur.at += 1;
                    self.nested(Self::group)?;
                }
                Some(b) if is_meta(b) => return self.cur.confused(),
                Some(_) => {
                    self.word_end()?;
                }
            }
        }
    }

    /// One unit of a word at the cursor: a byte, an escape, a quote or an expansion
    /// (`in_double`: inside double quotes, where single quotes are bytes).
    fn quoted(&mut self, in_double: bool) -> Option<()> {
        let Some(b) = self.peek(0) else {
            return self.cur.confused();
        };
        self.cur.at += 1;
        match b {
            b'\\' => self.cur.at = (self.cur.at + 1).min(self.cur.src.len()),
            b'\'' if !in_double => self.until_quote(b'\'', false)?,
            b'"' => self.double()?,
            b'`' => self.until_quote(b'`', true)?,
            b'$' => match self.peek(0) {
                Some(b'\'') if !in_double => {
                    self.cur.at += 1;
                    self.until_quote(b'\'', true)?;
                }
                Some(b'(') if self.peek(1) == Some(b'(') => {
                    self.cur.at += 2;
                    self.arithmetic(b'(', 2)?;
                }
                Some(b'(') => {
                    self.cur.at += 1;
                    self.substitution()?;
                }
                Some(b'{') => {
                    self.cur.at += 1;
                    self.parameter(in_double)?;
                }
                // `$[ … ]`, the arithmetic of old.
                Some(b'[') => {
                    self.cur.at += 1;
                    self.arithmetic(b'[', 1)?;
                }
                _ => {}
            },
            b'\n' if !self.heredocs.is_empty() => return self.cur.confused(),
            _ => {}
        }
        Some(())
    }

    /// After `'`, `$'` or `` ` ``: past the `close` that ends it (`escapes`: `\`
    /// escapes the next byte).
    fn until_quote(&mut self, close: u8, escapes: bool) -> Option<()> {
        loop {
            // Past the bytes that are only text at once.
            let rest = &self.cur.src[self.cur.at..];
            let Some(i) = memchr::memchr3(close, b'\\', b'\n', rest) else {
                return self.cur.confused();
            };
            let b = rest[i];
            self.cur.at += i + 1;
            match b {
                b'\\' if escapes => self.cur.at = (self.cur.at + 1).min(self.cur.src.len()),
                b'\n' if !self.heredocs.is_empty() => return self.cur.confused(),
                b if b == close => return Some(()),
                _ => {}
            }
        }
    }

    /// After `"`: past the `"` that ends it.
    fn double(&mut self) -> Option<()> {
        loop {
            // Past the bytes that are only text at once.
            let rest = &self.cur.src[self.cur.at..];
            self.cur.at += rest
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | b'$' | b'`' | b'\n'))
                .unwrap_or(rest.len());
            if self.peek(0) == Some(b'"') {
                self.cur.at += 1;
                return Some(());
            }
            self.quoted(true)?;
        }
    }

    /// After `${`: past the `}` that ends it (the first one outside quotes and
    /// nested expansions: a `{` opens nothing, as in Bash, `${a%%[{]*}`).
    fn parameter(&mut self, in_double: bool) -> Option<()> {
        self.nested(|lex| {
            while lex.peek(0) != Some(b'}') {
                lex.quoted(in_double)?;
            }
            lex.cur.at += 1;
            Some(())
        })
    }

    /// After `$((` or `((` (`open` `(`, `depth` 2) or `$[` (`[`, 1), arithmetic:
    /// past the closers that end it.
    fn arithmetic(&mut self, open: u8, depth: usize) -> Option<()> {
        let close = if open == b'(' { b')' } else { b']' };
        self.nested(|lex| {
            let mut depth = depth;
            while depth > 0 {
                match lex.peek(0) {
                    Some(b) if b == open => {
                        depth += 1;
                        lex.cur.at += 1;
                    }
                    Some(b) if b == close => {
                        depth -= 1;
                        lex.cur.at += 1;
                    }
                    _ => lex.quoted(true)?,
                }
            }
            Some(())
        })
    }

    /// After `$(`, `<(` or `>(`: past the `)` that ends its commands.
    fn substitution(&mut self) -> Option<()> {
        self.nested(|lex| {
            let outside = (lex.command, lex.body_next, lex.lead, lex.bare);
            lex.command = true;
            lex.open(Frame::Paren);
            lex.lead = Lead::Statement;
            lex.code(Some(lex.frames.len() - 1))?;
            (lex.command, lex.body_next, lex.lead, lex.bare) = outside;
            Some(())
        })
    }

    /// Runs `read` one level of nesting deeper.
    fn nested(&mut self, read: impl FnOnce(&mut Self) -> Option<()>) -> Option<()> {
        if self.nesting == MAX_NESTING {
            return self.cur.confused();
        }
        self.nesting += 1;
        read(self)?;
        self.nesting -= 1;
        Some(())
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
        let src = r#"usage() {
    echo "usage"
}
function outer {
    inner() { echo in; }
    if x; then
        nested() { :; }
    else
        echo no
    fi
}
if ! command -v realpath; then
    realpath() { readlink -f "$1"; }
elif y; then
    echo elif
fi
for f in a b; do
    looped() { :; }
done
while read -r l; do echo "$l"; done < file
case "$1" in
    a|b) echo a ;;
    (c) f() { :; } ;;
esac
{ echo group; } > log
sub() ( cd /tmp && ls )
"#;
        expect![[r#"
            [
                "    echo \"usage\"\n",
                "echo in; ",
                ":; ",
                "        echo no\n    ",
                "readlink -f \"$1\"; ",
                "    echo elif\n",
                "    looped() { :; }\n",
                "echo \"$l\"; ",
                "    a|b) echo a ;;\n    (c) f() { :; } ;;\n",
                "echo group; ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn quotes_expansions_heredocs_and_comments_hide_reserved_words() {
        let src = r#"f() {
    echo '}' "} $(echo '}' "$(echo done)") ${x:-\}} ${y%%[{]*} `fi`" $'\'}' a#}
    # a comment's }
    cat <<EOF <<-'END'; echo }
}
EOF
	done }
	END
    x=$(( (1 + 2) * 3 )) w=$[ (x >> 1) & 1 ]; (( x > 1 )) && y=( a '}' "(" ) ; z=@(a|b)
    [[ $x =~ ^(a|b)?(:([0-9]+))$ && ( -f x ) ]] && echo }
    while :; do case $x in
        '}') echo ;; *\)*) echo ;;& @(x|y)) ;;
    esac done
    for ((i = 0; i < 3; i++)) { echo; }
    for i do :; done
    echo $(case x in a) echo }; esac)
    echo {a,b} {} }
}
"#;
        expect![[r#"
            [
                "    echo '}' \"} $(echo '}' \"$(echo done)\") ${x:-\\}} ${y%%[{]*} `fi`\" $'\\'}' a#}\n    # a comment's }\n    cat <<EOF <<-'END'; echo }\n}\nEOF\n\tdone }\n\tEND\n    x=$(( (1 + 2) * 3 )) w=$[ (x >> 1) & 1 ]; (( x > 1 )) && y=( a '}' \"(\" ) ; z=@(a|b)\n    [[ $x =~ ^(a|b)?(:([0-9]+))$ && ( -f x ) ]] && echo }\n    while :; do case $x in\n        '}') echo ;; *\\)*) echo ;;& @(x|y)) ;;\n    esac done\n    for ((i = 0; i < 3; i++)) { echo; }\n    for i do :; done\n    echo $(case x in a) echo }; esac)\n    echo {a,b} {} }\n",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "f() {\n  echo 'a\n}\n",
                "f() {\n  echo \"$(a\"\n}\n",
                "f() {\n  echo ${a\n}\n",
                "f() {\n  cat <<EOF\n}\n",
                "f() {\n  x\n}\n}\n",
                "f() {\n  if x; then y; done\n}\n",
                "f() {\n  echo (x)\n}\n",
                "f() {\n  cat <<EOF; echo \"a\nb\"\nEOF\n}\n",
                "f() {\n  case x in a) ;; \n}\n",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"#!/bin/bash
# Prints usage.
# Second line.
usage() {
    echo "usage: $0 # not a comment }"
    cat <<-EOF
	} fi done
	EOF
}

function install {
    local dest=$1
    helper() { :; }
    if [[ -n $dest ]]; then
        deeper() { echo "${dest%%/*}"; }
    fi
    for f in a b; do
        looped() { :; }
    done
}
for f in long enough to be left out of the parse; do
    echo "$f: a loop body long enough to be left out of the parse altogether"
    echo "$f: and so its first blank stays, or \`do\` and \`done\` join"
    echo "$f: into one word; four lines of it are long enough for that"
    echo "$f: as the skeleton leaves out bodies of 256 bytes and more"
done

if ! command -v realpath >/dev/null; then
    realpath() { readlink -f "$1"; }
else
    while true; do case $1 in
        -p) shift ;;
        *) break ;;
    esac; done
fi
{ grouped() { :; }; } 2>/dev/null
sub() ( cd /tmp && ls )
arr=( a "b c" # comment
  d )
last() {
    x=$(( 1 + $(echo 2) ))
    [[ $x =~ ^(a|b)$ ]] && echo ok
}
"#;
        // The longest bodies are left out of the skeleton's parse.
        let skeleton = skeleton_reads_as_whole(Lang::Bash, src, 6, 7);
        assert!(!skeleton.included.is_empty());
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: dracut and bats-support), or the
    /// first index is slow again; `fast_check` compares what it skips with whole
    /// parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("bash", &["sh", "bash"], 40, 1, |src| scan(src).is_some());
    }
}
