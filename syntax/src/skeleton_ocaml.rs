//! The skeleton lexer of OCaml (`languages/ocaml.rs`). It finds the `let`
//! bindings' bodies, which the symbol walker never enters, so tree-sitter parses
//! them as `()` (`skeleton.rs` blanks them or leaves them out).
//!
//! **What is never entered.** The walker reads the items of the file and of the
//! structures, signatures and objects in it; of a `let` binding (`let f x = …`,
//! `and g = …`) only its head, whether its body is a `fun` or a `function`, and
//! where its body's last token ends (the binding's range). So the body after the
//! binding's `=` is skipped, to its last token; its first and last bytes become `(`
//! and `)` (`lex::parenthesize`), and the binding reads as `let f x = ()` with the
//! same range; attributes after its last token (`x [@inline]`) stay outside the
//! skip, as the grammar leaves them out of the binding's node. A `fun` or
//! `function` body keeps what comes before its first `->` (`fun x -> ()`,
//! `function A -> ()`). Everything else (types, signatures, classes, the heads of
//! modules) is read as it is; the structures in it are read item by item.
//!
//! **Where a body ends.** A binding's body ends where its item ends: at the next
//! item's keyword (`let` after a complete expression, `type` but a local
//! binding's `: type a.`, `module`, `open`, `include`, `exception`, `external`,
//! `class`), at `;;`, at an item attribute or
//! extension (`[@@…]`, `[%%…]`), at the `and` of the next binding, or at the `end`
//! of the structure it is in; a `let` where an expression begins is one of the body's own (`let … in`),
//! and so are the `and`s before its `in`. An `in` of no `let` of the body's own
//! ends it too: that `let` began an expression (`class c = let x = … in object …
//! end`), which the walker never enters either. Brackets, `begin`, `struct`, `sig`,
//! `object` (to `end`) and `do` (to `done`) are read through whole.
//!
//! **Following the text** as tree-sitter-ocaml reads it: comments nest and hold
//! strings, quoted strings and character literals (`(* "*)" *)`), strings with
//! their escapes, quoted strings (`{id|…|id}`, `{%ext|…|}`), character literals
//! apart from type variables (`'a`) and primes in names (`x'`), floats (`1.`), and
//! line number directives (`# 74 "file.ml"`, read as comments are). Where the lexer
//! cannot follow the text (an unterminated literal or comment, unbalanced
//! delimiters, a body's `let` of its own left without its `in` where the next item
//! starts) it skips nothing and the file gets a whole parse; any syntax error of
//! the skeleton sends the file to a whole parse too (`any_error` in
//! `languages/ocaml.rs`).

use std::ops::Range;

use crate::lex::Cursor;

/// Byte ranges inside `src` that need no syntax tree: the interiors of the `let`
/// bindings' bodies (their first and last bytes are where `lex::parenthesize`
/// writes the brackets), in order, disjoint. Empty where the lexer cannot follow
/// the text.
pub(super) fn skippable(src: &[u8]) -> Vec<Range<usize>> {
    scan(src).unwrap_or_default()
}

/// The ranges [`skippable`] answers; `None` where the lexer cannot follow the text.
fn scan(src: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut lex = Lexer::new(src);
    lex.structure(true)?;
    (!lex.cur.confused).then_some(lex.cur.skip)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A name, keyword or number.
    Word,
    /// An operator (`=`, `->`, `::`, `;;`, `;`, `,`, a backtick).
    Op,
    /// `(`, `[` or `{`; `[@@` starts an item attribute.
    Open(u8),
    Close(u8),
    /// A string, quoted string or character.
    Literal,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: Kind,
}

/// The tokenizer, and the reading of `let` bodies `ocaml_items` shares.
pub(crate) struct Lexer<'a> {
    pub(crate) cur: Cursor<'a>,
    /// A token read and put back.
    pub(crate) back: Option<Token>,
}

/// What follows a binding's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum After {
    /// `and`: the next binding of the group.
    And,
    /// An `in` of no `let` of the body's own: the `let` began an expression.
    In,
    /// Anything else: the item ends (the token is put back).
    Item,
}

/// A binding's body as [`Lexer::body`] read it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Body {
    pub(crate) after: After,
    /// Where its last token ends, attributes after it (`x [@inline]`) aside.
    pub(crate) end: usize,
    /// It is a `fun` or a `function`.
    pub(crate) function: bool,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer {
            cur: Cursor::new(src),
            back: None,
        }
    }

    pub(crate) fn text(&self, t: Token) -> &'a [u8] {
        &self.cur.src[t.start..t.end]
    }

    pub(crate) fn is(&self, t: Token, word: &[u8]) -> bool {
        t.kind == Kind::Word && self.text(t) == word
    }

    /// The next token, comments left out; `None` at the end of the text.
    pub(crate) fn next(&mut self) -> Option<Token> {
        if let Some(t) = self.back.take() {
            return Some(t);
        }
        loop {
            let b = self.cur.peek(0)?;
            let start = self.cur.at;
            self.cur.at += 1;
            let kind = match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => continue,
                b'(' if self.cur.peek(0) == Some(b'*') => {
                    self.cur.at += 1;
                    self.comment()?;
                    continue;
                }
                b'"' => {
                    self.string()?;
                    Kind::Literal
                }
                b'{' if self.quoted_string()? => Kind::Literal,
                b'\'' => {
                    self.char_literal();
                    Kind::Literal
                }
                // `# 74 "file.ml"`: an extra, as a comment is.
                b'#' if (start == 0 || self.cur.src[start - 1] == b'\n')
                    && line_directive(&self.cur.src[self.cur.at..]) =>
                {
                    self.cur.line_end();
                    continue;
                }
                b'(' | b'[' | b'{' => Kind::Open(b),
                b')' | b']' | b'}' => Kind::Close(b),
                b';' => {
                    if self.cur.peek(0) == Some(b';') {
                        self.cur.at += 1;
                    }
                    Kind::Op
                }
                b',' | b'`' => Kind::Op,
                b if is_symbol(b) => {
                    self.cur.skip_while(is_symbol);
                    Kind::Op
                }
                _ => {
                    self.cur.skip_while(is_word);
                    // `1.`, `0.5`: a float (not `1..2`, no OCaml).
                    if b.is_ascii_digit()
                        && self.cur.peek(0) == Some(b'.')
                        && self.cur.peek(1) != Some(b'.')
                    {
                        self.cur.at += 1;
                        self.cur.skip_while(is_word);
                    }
                    Kind::Word
                }
            };
            return Some(Token {
                start,
                end: self.cur.at,
                kind,
            });
        }
    }

    /// Gives up on the file where the text ends inside an item.
    fn next_or_confused(&mut self) -> Option<Token> {
        match self.next() {
            Some(t) => Some(t),
            None => self.cur.confused(),
        }
    }

    /// The items of a structure (the file's, `top`, or one after `struct`, up to
    /// and with its `end`).
    fn structure(&mut self, top: bool) -> Option<()> {
        loop {
            let Some(t) = self.next() else {
                return if top { Some(()) } else { self.cur.confused() };
            };
            match t.kind {
                Kind::Word if self.is(t, b"let") => self.bindings()?,
                Kind::Word if self.is(t, b"struct") => self.structure(false)?,
                Kind::Word if self.is(t, b"end") => {
                    return if top { self.cur.confused() } else { Some(()) };
                }
                Kind::Close(_) => return self.cur.confused(),
                _ => self.through(t)?,
            }
        }
    }

    /// After a token that opens something to be read through whole (a bracket,
    /// `begin`, `sig`, `object`, `struct`, `do`): past its closer; any other token
    /// is read as it is.
    pub(crate) fn through(&mut self, t: Token) -> Option<()> {
        let Some(close) = self.closer(t) else {
            return Some(());
        };
        loop {
            let inner = self.next_or_confused()?;
            if self.closes(inner, close) {
                return Some(());
            }
            if inner.kind == Kind::Close(b')')
                || inner.kind == Kind::Close(b']')
                || inner.kind == Kind::Close(b'}')
                || self.is(inner, b"end")
                || self.is(inner, b"done")
            {
                return self.cur.confused();
            }
            self.through(inner)?;
        }
    }

    /// What closes what `t` opens, if it opens anything.
    fn closer(&self, t: Token) -> Option<&'static [u8]> {
        match t.kind {
            Kind::Open(b'(') => Some(b")"),
            Kind::Open(b'[') => Some(b"]"),
            Kind::Open(_) => Some(b"}"),
            Kind::Word => match self.text(t) {
                b"begin" | b"sig" | b"object" | b"struct" => Some(b"end"),
                b"do" => Some(b"done"),
                _ => None,
            },
            _ => None,
        }
    }

    fn closes(&self, t: Token, close: &[u8]) -> bool {
        matches!(t.kind, Kind::Close(_) | Kind::Word) && self.text(t) == close
    }

    /// After an item's `let`: its bindings, each body skipped.
    fn bindings(&mut self) -> Option<()> {
        loop {
            // The head, to its `=`.
            loop {
                let t = self.next_or_confused()?;
                if t.kind == Kind::Op && self.text(t) == b"=" {
                    break;
                }
                // `let f : type a. …` is a head's; `;;` or a closer is none.
                if matches!(t.kind, Kind::Close(_)) || (t.kind == Kind::Op && self.text(t) == b";;")
                {
                    return self.cur.confused();
                }
                self.through(t)?;
            }
            if self.body()?.after != After::And {
                return Some(());
            }
        }
    }

    /// A binding's body, after its `=`: skippable, but for its first and last bytes
    /// (from the token after its first `->` for a `fun` or `function`), noted unless
    /// the cursor records nothing (`ocaml_items` reads bodies to their ends only).
    pub(crate) fn body(&mut self) -> Option<Body> {
        // `let`s of the body waiting for their `in`.
        let mut pending = 0usize;
        // The token before (read through whole), none at the body's start.
        let mut prev: Option<Token> = None;
        let (mut arrow, mut from, mut next_starts) = (false, None, true);
        // Where the body's last token ends, attributes after it (`x [@inline]`)
        // aside: tree-sitter-ocaml leaves them out of the binding's node, so they
        // are parsed after the `()`, not skipped.
        let mut last_end = None;
        let after = loop {
            let Some(t) = self.next() else {
                break After::Item;
            };
            if matches!(t.kind, Kind::Close(_)) || self.is(t, b"end") || self.is(t, b"done") {
                self.back = Some(t);
                break After::Item;
            }
            if self.is(t, b"let") {
                if prev.is_some_and(|p| self.operand(p)) {
                    if pending > 0 {
                        return self.cur.confused();
                    }
                    self.back = Some(t);
                    break After::Item;
                }
                pending += 1;
            } else if self.is(t, b"in") {
                if pending == 0 {
                    // The `let` was an expression's (a class's `let … in object
                    // … end`, a script's `let … in`): its item reads on.
                    break After::In;
                }
                pending -= 1;
            } else if self.is(t, b"and") && pending == 0 {
                break After::And;
            } else if self.ends_item(t, prev) {
                self.back = Some(t);
                break After::Item;
            }
            if prev.is_none() && (self.is(t, b"fun") || self.is(t, b"function")) {
                (arrow, next_starts) = (true, false);
            }
            if next_starts {
                (from, next_starts) = (Some(t.start), false);
            }
            if arrow && from.is_none() && t.kind == Kind::Op && self.text(t) == b"->" {
                next_starts = true;
            }
            let attribute = t.kind == Kind::Open(b'[') && self.cur.src[t.end..].starts_with(b"@");
            self.through(t)?;
            prev = Some(Token {
                end: self.cur.at,
                ..t
            });
            if !attribute {
                last_end = Some(self.cur.at);
            }
        };
        let Some(last_end) = last_end.filter(|_| pending == 0 && prev.is_some()) else {
            return self.cur.confused();
        };
        if let Some(from) = from.filter(|&from| self.cur.record && last_end >= from + 3) {
            self.cur.skip.push(from + 1..last_end - 1);
        }
        Some(Body {
            after,
            end: last_end,
            function: arrow,
        })
    }

    /// Whether `prev` ends a value: a name, a literal, a bracket or block (read
    /// through whole to its closer).
    fn operand(&self, prev: Token) -> bool {
        match prev.kind {
            Kind::Literal | Kind::Open(_) | Kind::Close(_) => true,
            Kind::Word => !is_keyword(self.text(prev)) || self.closer(prev).is_some(),
            Kind::Op => false,
        }
    }

    /// Whether `t` (after `prev`, none at the body's start) starts the next item.
    fn ends_item(&self, t: Token, prev: Option<Token>) -> bool {
        let after = |words: &[&[u8]]| {
            prev.is_some_and(|p| {
                words
                    .iter()
                    .any(|w| self.text(p) == *w && p.kind != Kind::Literal)
            })
        };
        match t.kind {
            Kind::Op => self.text(t) == b";;",
            // `[@@inline]`, `[@@@warning …]`; `[%%expect …]`, an item extension.
            Kind::Open(b'[') => {
                let rest = &self.cur.src[t.end..];
                rest.starts_with(b"@@") || rest.starts_with(b"%%")
            }
            Kind::Word => match self.text(t) {
                // `let f : type a. …`, a local binding's head.
                b"type" => !after(&[b":"]),
                b"include" | b"external" | b"class" | b"val" | b"method" | b"initializer"
                | b"inherit" | b"constraint" => true,
                b"module" | b"open" => !after(&[b"let"]),
                b"exception" => !after(&[b"let", b"with", b"|"]),
                _ => false,
            },
            _ => false,
        }
    }

    /// After `(*`: past the `*)` that ends the comment (comments nest and hold
    /// strings, quoted strings and characters, as tree-sitter-ocaml's scanner
    /// reads them).
    fn comment(&mut self) -> Option<()> {
        loop {
            let Some(b) = self.cur.peek(0) else {
                return self.cur.confused();
            };
            self.cur.at += 1;
            match b {
                b'(' if self.cur.peek(0) == Some(b'*') => {
                    self.cur.at += 1;
                    self.comment()?;
                }
                b'*' if self.cur.peek(0) == Some(b')') => {
                    self.cur.at += 1;
                    return Some(());
                }
                b'\'' => self.char_literal(),
                b'"' => self.string()?,
                b'{' => {
                    self.quoted_string()?;
                }
                b if is_word_start(b) => self.cur.skip_while(is_word),
                _ => {}
            }
        }
    }

    /// After `"`: past the `"` that ends the string (`\` escapes the byte after
    /// it; line breaks are text).
    fn string(&mut self) -> Option<()> {
        self.cur.quoted(b'"')
    }

    /// After `{`: past a quoted string (`{id|…|id}`, `{%ext|…|}`, `{%%ext id|…|id}`)
    /// if one starts here; whether one did (having read nothing if not).
    fn quoted_string(&mut self) -> Option<bool> {
        let src = self.cur.src;
        let mut at = self.cur.at;
        if src.get(at) == Some(&b'%') {
            at += 1 + usize::from(src.get(at + 1) == Some(&b'%'));
            // The extension's name, dotted.
            let name = src[at..]
                .iter()
                .take_while(|&&c| is_word(c) || c == b'.')
                .count();
            if name == 0 {
                return Some(false);
            }
            at += name;
            at += src[at..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
        }
        let id = src[at..]
            .iter()
            .take_while(|&&c| c.is_ascii_lowercase() || c == b'_')
            .count();
        if src.get(at + id) != Some(&b'|') {
            return Some(false);
        }
        let mut closer = Vec::with_capacity(id + 2);
        closer.push(b'|');
        closer.extend_from_slice(&src[at..at + id]);
        closer.push(b'}');
        self.cur.at = at + id + 1;
        self.cur.past(&closer)?;
        Some(true)
    }

    /// After a `'`: past a character literal (`'x'`, `'\n'`, `'\''`) if one is
    /// here; else (a type variable's quote, `'a`; in a comment, any quote) nothing,
    /// and what follows is read as it is.
    fn char_literal(&mut self) {
        let rest = &self.cur.src[self.cur.at..];
        let len = match rest.first() {
            Some(b'\\') => rest
                .iter()
                .skip(2)
                .take(4)
                .position(|&c| c == b'\'')
                .map(|i| i + 2),
            Some(&c) if c != b'\n' => Some(crate::bytes::utf8_len(c)),
            _ => None,
        };
        if let Some(len) = len.filter(|&len| rest.get(len) == Some(&b'\'')) {
            self.cur.at += len + 1;
        }
    }
}

/// Whether a line number directive follows a `#` at a line's start (blanks,
/// digits, blanks and a quote).
fn line_directive(rest: &[u8]) -> bool {
    let blanks = |at: usize| {
        rest[at.min(rest.len())..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count()
    };
    let at = blanks(0);
    let digits = rest[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && rest.get(at + digits + blanks(at + digits)) == Some(&b'"')
}

/// A byte of an operator.
fn is_symbol(b: u8) -> bool {
    b"!$%&*+-./:<=>?@^|~#".contains(&b)
}

/// A byte that starts a name (as tree-sitter-ocaml's scanner reads names in
/// comments: any byte from 192 on too).
fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0xC0
}

/// A byte of a name or number: a prime too (`x'`), any non-ASCII byte.
fn is_word(b: u8) -> bool {
    crate::bytes::is_word(b) || b == b'\''
}

/// OCaml's keywords, less those that end a value (`end`, `done`, `true`,
/// `false` are operands).
pub(crate) fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"and"
            | b"as"
            | b"assert"
            | b"asr"
            | b"begin"
            | b"class"
            | b"constraint"
            | b"do"
            | b"downto"
            | b"else"
            | b"exception"
            | b"external"
            | b"for"
            | b"fun"
            | b"function"
            | b"functor"
            | b"if"
            | b"in"
            | b"include"
            | b"inherit"
            | b"initializer"
            | b"land"
            | b"lazy"
            | b"let"
            | b"lor"
            | b"lsl"
            | b"lsr"
            | b"lxor"
            | b"match"
            | b"method"
            | b"mod"
            | b"module"
            | b"mutable"
            | b"new"
            | b"nonrec"
            | b"object"
            | b"of"
            | b"open"
            | b"or"
            | b"private"
            | b"rec"
            | b"sig"
            | b"struct"
            | b"then"
            | b"to"
            | b"try"
            | b"type"
            | b"val"
            | b"virtual"
            | b"when"
            | b"while"
            | b"with"
    )
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
    fn bodies_are_skipped_and_items_read() {
        let src = r#"let x = 1 + 2
let rec f a b = g a (b + 1)
and g = fun a -> a * 2
let h = function Some y -> y | None -> 0
module M = struct
  let inner = let y = 3 in y + y
  type t = A | B
end
module N = F (struct let hidden = 42 end)
let seq () = print_string "a"; print_string "b"
type u = { a : int }
let typed : int -> int = fun n -> n
let attr = 12345 [@@inline]
let () = if true then begin x := 1 end else ()
;;
let last = [| 1; 2 |]
let local : type a. a list -> int = List.length
let float = ref 0.
class c = let b = Bytes.make 1024 '\000' in object end
"#;
        expect![[r#"
            [
                " + ",
                " a (b + 1",
                " * ",
                " | None -> ",
                "et y = 3 in y + ",
                "rint_string \"a\"; print_string \"b",
                "234",
                "f true then begin x := 1 end else (",
                "| 1; 2 |",
                "ist.lengt",
                "ef 0",
                "ytes.make 1024 '\\000",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn comments_strings_and_characters_hide_keywords() {
        let src = r#"let a = f (* let x = 1 (* nested *) "*)" {|*)|} '"' *) x
let b = g "let \" in" 'c' '\'' 'x {foo|let|}|foo} {%sql|let in|}
let c (x : 'a) = h x' x'' (* don't *) in_ (* ' *)
# 12 "file.ml"
let d = 1 (** doc *)
"#;
        expect![[r#"
            [
                " (* let x = 1 (* nested *) \"*)\" {|*)|} '\"' *) ",
                " \"let \\\" in\" 'c' '\\'' 'x {foo|let|}|foo} {%sql|let in|",
                " x' x'' (* don't *) in",
            ]
        "#]]
        .assert_debug_eq(&skipped(skippable, src));
    }

    #[test]
    fn text_the_lexer_cannot_follow_skips_nothing() {
        skips_nothing(
            skippable,
            &[
                "let f x = g x\nlet y = \"a\n",
                "let f x = g (* x\n",
                "let f x = g {id| x |i}\n",
                "let f x = (g x\n",
                "let f x = g x)\nlet y = 1\n",
                "let f x = let y = x\nlet z = 1\n",
                "module M = struct let f x = g x\n",
            ],
        );
    }

    /// Skeleton and whole parses list the same symbols where the tricky constructs
    /// are (and the grammar reads them cleanly).
    #[test]
    fn skeletons_of_the_tricky_constructs_read_as_the_whole_text() {
        let src = r#"(** The module. *)
open Printf

type shape = Circle of float | Rect of { w : float; h : float }
exception Empty of string

(** The area. *)
let area = function
  | Circle r -> 3.14 *. r *. r
  | Rect { w; h } -> w *. h

let rec fact n = if n <= 1 then 1 else n * fact (n - 1)
and twice f x = f (f x)

let ( +++ ) a b = a + b [@@inline]
let compose = fun f g x -> f (g x)
let id : type a. a -> a = fun x -> ignore "a body"; x
let unit () = let x = 1 in let y = 2 in ignore (x + y)
let local l = let rec length : type a. a list -> int = fun _ -> 0 in length l
let seq () =
  print_string "let (* in *)";
  print_char '"';
  {|quoted let|} |> print_string

module Make (X : sig val n : int end) = struct
  let value = X.n * 2
  module Inner = struct
    let deep = "deep"
  end
end

module type S = sig
  val size : int
  val f : int -> int
end

class counter = object
  val mutable n = 0
  method incr = n <- n + 1
end

class buffered = let size = 1024 * 4 in object method size = size end
let ratio = 86400. *. 2.

external length : string -> int = "%string_length"

let long () =
  print_endline "a body long enough to be left out of the parse altogether, as";
  print_endline "the skeleton leaves out bodies of 256 bytes and more: a few of these";
  print_endline "lines make one, and the binding keeps its range all the same, as its";
  print_endline "first and last bytes are the brackets of the unit it reads as"

let () = long ()

(* An attribute after a body follows the binding's node; an item extension is
   an item of its own. *)
let inlined x = x + 1 [@inline]

let warned =
  (let r = ref 0 in
   incr r;
   !r)[@ocaml.warning "-3"]

let flattened = List.concat [[1]; [2]]
[%%expect {|
val flattened : int list = [1; 2]
|}]
"#;
        // The longest body is left out of the skeleton's parse.
        let skeleton = skeleton_reads_as_whole(Lang::OCaml, src, 11, 18);
        assert!(!skeleton.included.is_empty());
    }

    /// The lexer follows nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: menhir and ocaml-re), or the first
    /// index is slow again; `fast_check` compares what it skips with whole parses.
    #[test]
    fn the_lexer_follows_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("ocaml", &["ml"], 200, 1, |src| scan(src).is_some());
    }
}
