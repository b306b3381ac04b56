//! The skeleton lexer of Elixir (`languages/elixir.rs`). It finds the blocks the
//! symbol walker never enters and the heredocs' text it never reads, so tree-sitter
//! parses them empty (`skeleton.rs` blanks them or leaves them out).
//!
//! **What is never entered.** The walker reads the calls of the defining macros at
//! the top and in the `do` blocks of modules, protocols and implementations, and
//! enters no other call. So the interior of every other `do … end` block (a
//! function's body, a `test`, `describe`, `if`, `quote` or `for` block) is skipped,
//! but for the blank after `do` and the one before `end` (left out of the parse, a
//! gap would join them into one word): `do end` parses, and the call keeps its
//! range. A keyword body (`def f, do: x`) is read as it is. The lines of a heredoc
//! (`@doc """…"""`, most of a documented module) are skipped too, but for the line
//! break and blanks before its closer, which end it.
//!
//! **Following the text** as tree-sitter-elixir reads it: `#` comments, strings,
//! charlists and heredocs (`"""`, `'''`, closed on a line of their own) with their
//! escapes and interpolations (`#{…}`: code, nested to any depth), sigils (`~r/…/`,
//! `~S"""…"""`; any of the eight delimiters, which do not nest; an upper-case
//! sigil neither escapes nor interpolates but its closer), character literals
//! (`?a`, `?\n`, `?#`), atoms and keys (`:do`, `do:`, `:"…"`), and the blocks
//! `do` and `fn` open and `end` closes. Where the lexer cannot follow the text (an
//! unterminated literal, unbalanced or mismatched delimiters and `end`s) it skips
//! nothing and the file gets a whole parse; any syntax error of the skeleton sends
//! the file to a whole parse too (`any_error` in `languages/elixir.rs`).

use std::ops::Range;

use crate::lex::{Cursor, opener};

/// Byte ranges inside `src` that need no syntax tree: the interiors of function
/// bodies and the heredocs' lines outside them, in order, disjoint. Empty where the
/// lexer cannot follow the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut lex = Lexer {
        cur: Cursor::new(src),
        frames: Vec::new(),
        container: None,
        nesting: 0,
    };
    lex.code(None)?;
    (!lex.cur.confused && lex.frames.is_empty()).then_some(lex.cur.skip)
}

/// Something open that a later token closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// `do` (a function's body from `body`, if it is one) or `fn`, closed by `end`.
    Block { body: Option<usize> },
    /// `(`, `[` or `{`.
    Delim(u8),
    /// An interpolation's `#{`: its `}` reads the literal on.
    Hole,
}

/// How deep interpolations may nest before the lexer gives up (the stack is the
/// limit: each hole is a call).
const MAX_NESTING: usize = 64;

struct Lexer<'a> {
    cur: Cursor<'a>,
    frames: Vec<Frame>,
    /// A module, protocol or implementation read at this depth of frames: its `do`
    /// opens the one kind of block the walker enters. Kept past line breaks (a
    /// `defimpl P,` continued on the next line) until a `do` or `do:` takes it.
    container: Option<usize>,
    /// Interpolations open.
    nesting: usize,
}

impl Lexer<'_> {
    /// Reads code until the hole at `until` is closed, or to the end of the text.
    fn code(&mut self, until: Option<usize>) -> Option<()> {
        loop {
            if until.is_some_and(|k| self.frames.len() == k) {
                return Some(());
            }
            let Some(b) = self.cur.peek(0) else {
                return if until.is_some() {
                    self.cur.confused()
                } else {
                    Some(())
                };
            };
            let start = self.cur.at;
            self.cur.at += 1;
            match b {
                b'#' => self.cur.line_end(),
                b'"' | b'\'' => self.quoted(b, true)?,
                b'?' => {
                    // `?a`, `?\n`: the character, whatever it is.
                    let len = match self.cur.peek(0) {
                        Some(b'\\') => 2,
                        Some(c) => crate::bytes::utf8_len(c),
                        None => return self.cur.confused(),
                    };
                    self.cur.at = (self.cur.at + len).min(self.cur.src.len());
                }
                b'~' if self.cur.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) => {
                    self.sigil()?
                }
                b':' if self.cur.peek(0) == Some(b':') => self.cur.at += 1,
                // `:"atom"`, `:'atom'`.
                b':' if matches!(self.cur.peek(0), Some(b'"' | b'\'')) => {
                    let q = self.cur.src[self.cur.at];
                    self.cur.at += 1;
                    self.quoted(q, true)?;
                }
                // `:do`, `:end`, `:ok?`: atoms.
                b':' if self.cur.peek(0).is_some_and(is_word) => {
                    self.cur.skip_while(is_word);
                    if matches!(self.cur.peek(0), Some(b'?' | b'!')) {
                        self.cur.at += 1;
                    }
                }
                b'(' | b'[' | b'{' => self.frames.push(Frame::Delim(b)),
                b')' | b']' | b'}' => match self.frames.pop() {
                    Some(Frame::Delim(o)) if o == opener(b) => {}
                    Some(Frame::Hole) if b == b'}' => {}
                    _ => return self.cur.confused(),
                },
                b if is_word(b) && !b.is_ascii_digit() => self.word(start)?,
                b if b.is_ascii_digit() => self.cur.skip_while(is_word),
                _ => {}
            }
        }
    }

    /// A name, keyword or key that starts at `start`.
    fn word(&mut self, start: usize) -> Option<()> {
        self.cur.skip_while(is_word);
        if matches!(self.cur.peek(0), Some(b'?' | b'!')) {
            self.cur.at += 1;
        }
        let src = self.cur.src;
        // `do:`, a key: a keyword body, and no block.
        if self.cur.peek(0) == Some(b':') && self.cur.peek(1) != Some(b':') {
            if &src[start..self.cur.at] == b"do" && self.container == Some(self.frames.len()) {
                self.container = None;
            }
            self.cur.at += 1;
            return Some(());
        }
        // `x.end`, a call; `@def`, an attribute.
        if start > 0 && matches!(src[start - 1], b'.' | b'@') {
            return Some(());
        }
        match &src[start..self.cur.at] {
            b"defmodule" | b"defprotocol" | b"defimpl" => {
                self.container = Some(self.frames.len());
            }
            // Any other call's block (a function's body, `test`, `if`, `quote`,
            // `for`) holds nothing the walker reads: `languages/elixir.rs` skips
            // every call but the defining macros, and enters only the containers'.
            b"do" => {
                let entered = self.container == Some(self.frames.len());
                let body = (!entered).then_some(self.cur.at);
                if entered {
                    self.container = None;
                }
                self.frames.push(Frame::Block { body });
            }
            b"fn" => self.frames.push(Frame::Block { body: None }),
            b"end" => match self.frames.pop() {
                Some(Frame::Block { body }) => {
                    if let Some(body) = body {
                        self.body_read(body, start);
                    }
                }
                _ => return self.cur.confused(),
            },
            _ => {}
        }
        Some(())
    }

    /// A function's body from `body` (after its `do`) to `end` (its `end`'s
    /// start): skippable but for the blanks next to `do` and `end`.
    fn body_read(&mut self, body: usize, end: usize) {
        let src = self.cur.src;
        if end > body + 2 && src[body].is_ascii_whitespace() && src[end - 1].is_ascii_whitespace() {
            self.skip_around(body + 1..end - 1);
        }
    }

    /// `range` is skippable, and what was found skippable inside it before (a
    /// `def` in a `quote`, a heredoc) is in it.
    fn skip_around(&mut self, range: Range<usize>) {
        self.cur.skip.retain(|r| r.start < range.start);
        self.cur.skip.push(range);
    }

    /// After an opening quote: past the string, charlist or heredoc it starts
    /// (`interpolates`: `\` escapes and `#{…}` holds code).
    fn quoted(&mut self, quote: u8, interpolates: bool) -> Option<()> {
        let heredoc = self.cur.peek(0) == Some(quote) && self.cur.peek(1) == Some(quote);
        if !heredoc {
            return self.literal(quote, false, interpolates);
        }
        self.cur.at += 2;
        let opened = self.cur.at;
        self.literal(quote, true, interpolates)?;
        // Its lines (a `@doc`'s text), but for the line break and blanks before
        // its closer.
        let src = self.cur.src;
        let first = memchr::memchr(b'\n', &src[opened..]).map(|i| opened + i + 1);
        let last = memchr::memrchr(b'\n', &src[opened..self.cur.at]).map(|i| opened + i);
        if let (Some(first), Some(last)) = (first, last)
            && first < last
        {
            self.skip_around(first..last);
        }
        Some(())
    }

    /// Inside a literal: past its closer (`close`, three of it on a line of their
    /// own for a heredoc).
    fn literal(&mut self, close: u8, heredoc: bool, interpolates: bool) -> Option<()> {
        let mut line_start = false;
        loop {
            let Some(b) = self.cur.peek(0) else {
                return self.cur.confused();
            };
            self.cur.at += 1;
            match b {
                b'\n' => {
                    line_start = true;
                    continue;
                }
                b' ' | b'\t' if line_start => continue,
                b if b == close
                    && (!heredoc
                        || (line_start
                            && self.cur.peek(0) == Some(close)
                            && self.cur.peek(1) == Some(close))) =>
                {
                    if heredoc {
                        self.cur.at += 2;
                    }
                    return Some(());
                }
                // A heredoc's line break is never escaped (its closer's line).
                b'\\' if heredoc && self.cur.peek(0) == Some(b'\n') => {}
                b'\\' if interpolates => self.cur.at += 1,
                b'\\' if self.cur.peek(0) == Some(close) => self.cur.at += 1,
                b'#' if interpolates && self.cur.peek(0) == Some(b'{') => {
                    self.cur.at += 1;
                    self.hole()?;
                }
                _ => {}
            }
            line_start = false;
        }
    }

    /// After an interpolation's `#{`: past the `}` that closes it.
    fn hole(&mut self) -> Option<()> {
        if self.nesting == MAX_NESTING {
            return self.cur.confused();
        }
        self.nesting += 1;
        self.frames.push(Frame::Hole);
        let (container, depth) = (self.container.take(), self.frames.len());
        self.code(Some(depth - 1))?;
        self.container = container;
        self.nesting -= 1;
        Some(())
    }

    /// After `~` with a letter next: past the sigil (its name, its delimited text,
    /// its modifiers).
    fn sigil(&mut self) -> Option<()> {
        let lower = self.cur.peek(0).is_some_and(|c| c.is_ascii_lowercase());
        self.cur.skip_while(|c| c.is_ascii_alphanumeric());
        let Some(open) = self.cur.peek(0) else {
            return self.cur.confused();
        };
        self.cur.at += 1;
        match open {
            b'"' | b'\'' => self.quoted(open, lower)?,
            _ => {
                let close = match open {
                    b'(' => b')',
                    b'[' => b']',
                    b'{' => b'}',
                    b'<' => b'>',
                    b'/' | b'|' => open,
                    _ => return self.cur.confused(),
                };
                self.literal(close, false, lower)?;
            }
        }
        self.cur.skip_while(|c| c.is_ascii_alphanumeric());
        Some(())
    }
}

/// A byte of a name (`_`, any non-ASCII byte too).
fn is_word(b: u8) -> bool {
    crate::bytes::is_word(b)
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
    fn bodies_and_heredocs_are_skipped_and_modules_read() {
        let src = r#"defmodule M do
  @doc """
  Adds.
  """
  def add(a, b) do
    a + b
  end
  defp sub(a, b), do: a - b
  defmacro m(x) do
    quote do
      def unquote(x)(), do: 1
    end
  end
  def guarded(x) when x in [1, 2] do x end
  def multi(
        a
      ) do
    fn y -> y end.(a)
  end
  def head(x)
  def keyword(x), do: if x do 1 else 2 end
  if true do
    def inner, do: :ok
  end
end
"#;
        expect![[r#"
            [
                "  Adds.",
                "    a + b\n ",
                "    quote do\n      def unquote(x)(), do: 1\n    end\n ",
                "x",
                "    fn y -> y end.(a)\n ",
                "1 else 2",
                "    def inner, do: :ok\n ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn literals_and_comments_hide_keywords() {
        let src = r#"defmodule M do
  def a do
    s = "end #{if x do "end" end} #{%{a: 1}[:a]}" <> 'end'
    t = ~w[end do] ++ ~S"do" ++ ~r/end/i ++ ~s(a #{x} end)
    c = ?e + ?\n + ?# + ?"
    k = [do: 1, end: 2, fn: 3]
    :end; :do; :"end"; x.end; @def
    h = """
      end do
    """
    # end do fn
    ok? = valid?(:ok?)
  end
end
"#;
        expect![[r#"
            [
                "    s = \"end #{if x do \"end\" end} #{%{a: 1}[:a]}\" <> 'end'\n    t = ~w[end do] ++ ~S\"do\" ++ ~r/end/i ++ ~s(a #{x} end)\n    c = ?e + ?\\n + ?# + ?\"\n    k = [do: 1, end: 2, fn: 3]\n    :end; :do; :\"end\"; x.end; @def\n    h = \"\"\"\n      end do\n    \"\"\"\n    # end do fn\n    ok? = valid?(:ok?)\n ",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "def f do\n  x = \"a\nend\n",
                "def f do\n  x = \"#{a\"\nend\n",
                "def f do\n  x = ~s(a\nend\n",
                "def f do\n  x = \"\"\"\n  a\nend\n",
                "def f do\n  x\nend\nend\n",
                "def f do\n  g(]\nend\n",
                "def f do\n  if x do\nend\n",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"defmodule MyApp.Accounts.User do
  @moduledoc """
  Users, and a doc long enough to be left out of the parse: the skeleton leaves
  out ranges of 256 bytes and more, so a few lines of it will do; the heredoc's
  closer stays on a line of its own, so the heredoc still ends where it did, and
  the attribute keeps its range.
  """
  use Ecto.Schema
  alias MyApp.Repo

  @type t :: %__MODULE__{name: String.t()}
  defstruct [:name, :email]

  @doc "Creates."
  @spec create(map) :: {:ok, t} | {:error, term}
  def create(attrs \\ %{}) do
    %__MODULE__{}
    |> Map.merge(attrs)
    |> then(fn user -> {:ok, user} end)
  end

  def fact(0), do: 1
  def fact(n) when n > 0, do: n * fact(n - 1)

  defp secret(x) do
    case x do
      :end -> "end #{x}"
      [do: y] -> ~s(do #{y} end)
      _ -> ?e
    end
  end

  defmacro debug(expr) do
    quote do
      def generated, do: unquote(expr)
    end
  end

  defguard is_even(n) when rem(n, 2) == 0

  defmodule Nested do
    def inner(a), do: a
  end
end

defprotocol Size do
  def size(data)
end

defimpl Size, for: List do
  def size(list), do: length(list)
end

defimpl Size,
  for: Map do
  def size(map), do: map_size(map)
end

if Code.ensure_loaded?(Jason) do
  defmodule Hidden do
    def f, do: 1
  end
end

defmodule SizeTest do
  use ExUnit.Case

  describe "size" do
    test "of a list" do
      assert Size.size([1, 2]) == 2
    end
  end
end
"#;
        // The longest range is left out of the skeleton's parse.
        let skeleton = skeleton_reads_as_whole(Lang::Elixir, src, 6, 15);
        assert!(!skeleton.included.is_empty());
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: elixir's own sources), or the first
    /// index is slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("elixir", &["ex", "exs"], 200, 1, |src| {
            scan(src).is_some()
        });
    }
}
