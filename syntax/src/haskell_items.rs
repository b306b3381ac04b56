//! Haskell declarations read straight off the tokens, without a syntax tree: what
//! the walker takes from tree-sitter-haskell's tree (`languages/haskell.rs`), for the
//! files this reader can vouch for.
//!
//! The skeleton lexer's tokens ([`skeleton_haskell::tokens`]: comments left out,
//! strings, characters, quasi-quotes, pragmas and CPP lines whole) are cut by the
//! layout as the skeleton lexer cuts them: a declaration is a token at its block's
//! column and every token after it deeper (a closing bracket at that column too:
//! a record's `}` at a line's start). Of a declaration only its head is read: the
//! names before a signature's `::`, an equation's left-hand side up to its `=` or
//! guard (`f x`, `(<+>) x y`, `x <+> y`, `Just a <+> b`, `` x `op` y ``; `f !x` is
//! a bang pattern, `x ! y` the operator, as the grammar tells them by their
//! blanks), the heads of `data`, `newtype`, `type`, `class`, `instance`, `deriving
//! instance` and `foreign import`, a type's constructors, record fields and GADT
//! constructors (a record's after a context too: `A :: C a => { … } -> T`), the
//! members of a class's or an instance's `where` block. A node
//! ends at its last token, or, where a layout block is still open there, after
//! the comments on that token's line (and, after a line comment, the line comments
//! at column 0 right below it, which tree-sitter-haskell reads as one). Equations
//! of one name that follow each other, and the one-name signature above them, are
//! one symbol; pragmas between them do not part them, anything else (a CPP line,
//! a fixity declaration, a pattern synonym, a splice) does. A top-level
//! declaration without a `::`, `=` or guard outside brackets is an expression, a
//! Template Haskell splice to the grammar (`makeLenses ''T`, `$(deriveJSON …)`):
//! no symbol (what it generates is not in the text).
//!
//! It declines (the skeleton parse answers) where the text is not plainly one of
//! these: a splice in a class's or an instance's `where` block (no place for one
//! in the grammar), pattern bindings (`(a, b) = …`), an infix
//! left-hand side it cannot name (`f x <+> y`, a `-` or `$` that may be a
//! pattern's), MagicHash (`f#`: a name or an operator?), datatype contexts,
//! `forall` and contexts in constructors and instance heads, type operators as type
//! names, operators as record fields (the walker names those from their `(`), a
//! `;` outside brackets and layout blocks, explicit braces after `module … where`
//! or a class's, an instance's or a GADT's `where`, unbalanced brackets in a
//! declaration, a line left of its block's column, a CPP line in a type or in a
//! class's or an instance's head, non-ASCII words in a left-hand side or a
//! constructor, and whatever the lexer cannot follow.
//!
//! **Tabs.** tree-sitter-haskell's scanner counts a tab in the blanks a line starts
//! with as 8 columns (`skeleton_haskell::column`), and takes it as blank only where
//! it starts or ends a layout item there; anywhere else the grammar meets it, and
//! it is a syntax error (its extras are `\p{Zs}`, which a tab is not). So a tab is
//! read before the first declaration of a block and before one at its block's
//! column; the reader declines a tab anywhere else (after a token, on a line of
//! comments or blanks alone, after a comment, in the module header, before a line
//! that goes on with a declaration, before an `import`) and before a declaration
//! after one that leaves a layout block open (its line closes that block: an error
//! too). In a declaration, a tab is read before the items of its layout blocks
//! (`do`, `where`, `of`, `let`: `skeleton_haskell::tabs_before_items`), declined
//! before any other line.

use std::ops::Range;

use crate::SymbolKind as K;

use super::{
    rust_items::Decl,
    skeleton_haskell::{
        Kind, Layout, Token, column, line_start, tabbed, tabs_before_items, tokens,
    },
};

/// The declarations of a Haskell file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let tokens = tokens(src)?;
    let r = Reader {
        src,
        tabs: memchr::memchr(b'\t', src).is_some(),
    };
    // Past CPP and pragmas (`{-# LANGUAGE … #-}`), and the module header.
    let Some(first) = tokens
        .iter()
        .position(|t| t.kind != Kind::Cpp && !r.pragma(t))
    else {
        return Some(Vec::new());
    };
    let body = if r.is(&tokens[first], b"module") {
        first + tokens[first..].iter().position(|t| r.is(t, b"where"))? + 1
    } else {
        first
    };
    let mut out = Vec::new();
    let Some(start) = tokens[body..].iter().position(|t| t.kind != Kind::Cpp) else {
        return Some(out);
    };
    let start = body + start;
    if tokens[start].kind == Kind::Open(b'{') || (r.tabs && !r.tabs_at_line_starts(&tokens, start))
    {
        return None;
    }
    let col = r.column(tokens[start].start())?;
    r.block(&tokens[start..], col, None, &mut out)?;
    Some(out)
}

/// What a block's declarations are members of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    Class,
    Instance,
}

/// Where a declaration ends in its block's tokens, and whether it leaves a layout
/// block open there.
struct Extent {
    end: usize,
    open: bool,
}

/// The symbol equations of one name extend: its name, where it is in the output.
struct Open {
    name: Range<usize>,
    at: usize,
}

struct Reader<'a> {
    src: &'a [u8],
    /// Whether the text has a tab anywhere (nearly no file has: the checks for
    /// them are skipped).
    tabs: bool,
}

impl<'a> Reader<'a> {
    fn text(&self, t: &Token) -> &'a [u8] {
        &self.src[t.start()..t.end()]
    }

    fn is(&self, t: &Token, word: &[u8]) -> bool {
        t.kind == Kind::Word && self.text(t) == word
    }

    fn is_op(&self, t: &Token, op: &[u8]) -> bool {
        t.kind == Kind::Op && self.text(t) == op
    }

    /// The column of `at` (`skeleton_haskell::column`, a tab as 8); `None` after a
    /// tab on its line that is not in the blanks the line starts with (one after a
    /// token is a syntax error, one after a comment is left to tree-sitter).
    fn column(&self, at: usize) -> Option<usize> {
        if self.tabs {
            let prefix = &self.src[line_start(self.src, at)..at];
            if memchr::memchr(b'\t', prefix).is_some()
                && !prefix.iter().all(|&b| b == b' ' || b == b'\t')
            {
                return None;
            }
        }
        Some(column(self.src, at))
    }

    /// The column of a line's first token `t`: [`Reader::column`], which the lexer
    /// counted where the text has no tab.
    fn line_column(&self, t: &Token) -> Option<usize> {
        match self.tabs {
            true => self.column(t.start()),
            false => Some(t.col as usize),
        }
    }

    /// Whether a tab is on `at`'s line before it.
    fn tabbed(&self, at: usize) -> bool {
        self.tabs && tabbed(self.src, at)
    }

    /// Whether every tab outside `tokens` is in the blanks a line of the body
    /// (from `tokens[start]`) starts with, before its first token. Only there
    /// does tree-sitter-haskell's scanner take a tab as blank, and only where it
    /// ends or starts a layout item (`Reader::block` tells those lines); anywhere
    /// else (after a token, on a line of comments or of blanks alone, in the module
    /// header) the grammar meets it, and it is a syntax error.
    fn tabs_at_line_starts(&self, tokens: &[Token], start: usize) -> bool {
        let mut prev = 0;
        for (i, t) in tokens.iter().enumerate() {
            let gap = &self.src[prev..t.start()];
            let own = match t.first && i >= start {
                true => line_start(self.src, t.start()) - prev,
                false => gap.len(),
            };
            if memchr::memchr(b'\t', &gap[..own]).is_some() {
                return false;
            }
            prev = t.end();
        }
        memchr::memchr(b'\t', &self.src[prev..]).is_none()
    }

    fn pragma(&self, t: &Token) -> bool {
        t.kind == Kind::Literal && self.src[t.start()..].starts_with(b"{-#")
    }

    /// The declarations of a block at `col` (`tokens`, to the block's end) into
    /// `out`.
    fn block(
        &self,
        tokens: &[Token],
        col: usize,
        owner: Option<Owner>,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        let mut open: Option<Open> = None;
        // Whether the declaration before leaves a layout block open.
        let mut prev_open = false;
        let mut at = 0;
        while at < tokens.len() {
            if tokens[at].kind == Kind::Cpp {
                // A node of its own: equations on either side are two symbols.
                open = None;
                at += 1;
                continue;
            }
            let Extent { end, open: block } = self.declaration_end(tokens, at, col)?;
            let decl = &tokens[at..end];
            // A tab is blank before a declaration of this block (the scanner ends
            // or starts a layout item there), before the members of a class's or
            // an instance's `where` block (theirs to tell) and before the items of
            // the layout blocks in a declaration (`tabs_before_items`), not before
            // a line that goes on with a declaration, nor before one that closes a
            // layout block the declaration before left open, nor before an
            // `import`: there the grammar meets it (a syntax error).
            if self.tabs {
                if self.tabbed(decl[0].start()) && prev_open {
                    return None;
                }
                let own = match self.is(&decl[0], b"class") || self.is(&decl[0], b"instance") {
                    true => decl
                        .iter()
                        .position(|t| self.is(t, b"where"))
                        .map_or(decl.len(), |w| w + 1),
                    false => decl.len(),
                };
                if (self.is(&decl[0], b"import") && self.tabbed(decl[0].start()))
                    || !tabs_before_items(self.src, &decl[1..own])
                {
                    return None;
                }
            }
            self.declaration(decl, block, owner, &mut open, out)?;
            prev_open = block;
            at = end;
        }
        Some(())
    }

    /// Where the declaration that starts at `tokens[at]` ends: before the next line
    /// at `col`, or the CPP lines before one; a line left of it declines, as do
    /// brackets that do not balance and a `;` outside brackets and layout blocks
    /// (one in a block a `do`, `where`, `of`, `let` or `rec` opened is that
    /// block's). A closing bracket at `col` (a record's `}` at the line's start)
    /// does not end it, as it does not end it to tree-sitter-haskell. In the same
    /// pass: whether it leaves a layout block open (as `skeleton_haskell::block_open`
    /// tells), which [`Reader::end`] asks.
    fn declaration_end(&self, tokens: &[Token], at: usize, col: usize) -> Option<Extent> {
        let (mut depth, mut blocks, mut lets, mut open) = (0isize, 0usize, 0usize, false);
        // A bracket closed that opened before the declaration: told at the end.
        let mut unbalanced = false;
        let mut k = at;
        while k < tokens.len() {
            let t = tokens[k];
            // A CPP line or a line's start, told in one branch (most tokens are
            // neither), may end the declaration.
            if (k > at) & (t.first | (t.kind == Kind::Cpp)) {
                if t.kind == Kind::Cpp {
                    let next = tokens[k..].iter().position(|t| t.kind != Kind::Cpp);
                    match next.map(|n| tokens[k + n]) {
                        None if depth == 0 => break,
                        None => return None,
                        Some(n) if n.first && self.line_column(&n)? <= col => {
                            if depth == 0 {
                                break;
                            }
                            k += next.unwrap_or(0);
                        }
                        Some(_) => k += next.unwrap_or(0),
                    }
                    continue;
                }
                let c = self.line_column(&t)?;
                if c < col || (c == col && depth > 0 && !matches!(t.kind, Kind::Close(_))) {
                    return None;
                }
                if c == col && depth == 0 {
                    break;
                }
            }
            // Brackets are counted with no branch: a branch on each token's kind
            // mispredicted at most brackets. Outside them only a `;` and the
            // layout's words ask.
            depth += isize::from(matches!(t.kind, Kind::Open(_)))
                - isize::from(matches!(t.kind, Kind::Close(_)));
            unbalanced |= depth < 0;
            if (depth != 0) | (t.layout.is_none() & (t.kind != Kind::Punct(b';'))) {
                k += 1;
                continue;
            }
            if t.kind == Kind::Punct(b';') && blocks == 0 {
                return None;
            }
            // An explicit `{` opens no layout block (a `{` at `col` is the next
            // declaration's).
            let explicit = || {
                tokens.get(k + 1).is_some_and(|n| {
                    n.kind == Kind::Open(b'{') && !(n.first && self.line_column(n) == Some(col))
                })
            };
            match t.layout {
                Some(Layout::Opens) => {
                    blocks += 1;
                    open |= !explicit();
                }
                Some(Layout::Let) => {
                    blocks += 1;
                    lets += usize::from(!explicit());
                }
                Some(Layout::In) => {
                    blocks = blocks.saturating_sub(1);
                    lets = lets.saturating_sub(1);
                }
                Some(Layout::Case) => {
                    open |= k > at && self.is_op(&tokens[k - 1], b"\\") && !explicit();
                }
                None => {}
            }
            k += 1;
        }
        (depth == 0 && !unbalanced).then_some(Extent {
            end: k,
            open: open || lets > 0,
        })
    }

    /// Where a node of `tokens` ends: after its last token, or after the comments
    /// on that token's line when a layout block is open there (one that holds
    /// something: a `where` with nothing after it opens none).
    fn end(&self, tokens: &[Token], open: bool) -> usize {
        let last = tokens[tokens.len() - 1];
        let opener = matches!(last.layout, Some(Layout::Opens | Layout::Let));
        // After a pragma (an extra to the grammar, as comments are) none is taken.
        if opener || self.pragma(&last) || !open {
            return last.end();
        }
        // A line comment there goes on over the lines that start with one at the
        // column 0 right below it (tree-sitter-haskell's scanner reads them as one).
        let mut end = last.trail();
        if end > last.end() && !self.src[..end].ends_with(b"-}") {
            while let Some(line) = self.src[end..].strip_prefix(b"\n") {
                if !crate::skeleton_haskell::line_comment(line) {
                    break;
                }
                end += 1 + memchr::memchr(b'\n', line).unwrap_or(line.len());
            }
        }
        end
    }

    /// One declaration's tokens (`block`: whether they leave a layout block open),
    /// in a block of `owner`'s (the top: `None`).
    fn declaration(
        &self,
        tokens: &[Token],
        block: bool,
        owner: Option<Owner>,
        open: &mut Option<Open>,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        let head = &tokens[0];
        if self.pragma(head) {
            // Between equations, a pragma does not part them.
            return (tokens.len() == 1).then_some(());
        }
        let value = !matches!(head.kind, Kind::Word)
            || !matches!(
                self.text(head),
                b"data"
                    | b"newtype"
                    | b"type"
                    | b"class"
                    | b"instance"
                    | b"deriving"
                    | b"foreign"
                    | b"import"
                    | b"infix"
                    | b"infixl"
                    | b"infixr"
                    | b"pattern"
                    | b"default"
            );
        if value {
            return self.value(tokens, block, owner, open, out);
        }
        *open = None;
        let end = self.end(tokens, block);
        let decl = |kind, name: Range<usize>, sig_end, members| Decl {
            members,
            ..Decl::new(kind, name, head.start()..end, sig_end)
        };
        let second = tokens.get(1);
        match (self.text(head), owner) {
            (b"import" | b"foreign", Some(_)) | (b"class" | b"instance", Some(_)) => None,
            (b"import" | b"infix" | b"infixl" | b"infixr", _) => Some(()),
            (b"default", _) => Some(()),
            (b"pattern", None) => second
                .filter(|t| self.conid(t) || t.kind == Kind::Open(b'('))
                .map(|_| ()),
            (b"foreign", None) => {
                if !second.is_some_and(|t| self.is(t, b"import")) {
                    return second.filter(|t| self.is(t, b"export")).map(|_| ());
                }
                let colons = tokens.iter().position(|t| self.is_op(t, b"::"))?;
                let name = self.var_name(&tokens[colons.checked_sub(1)?..colons])?;
                out.push(decl(K::Function, name, None, Vec::new()));
                Some(())
            }
            (b"data" | b"newtype", _) => {
                let second = second?;
                if self.is(second, b"instance") {
                    return (owner != Some(Owner::Class)).then_some(());
                }
                if owner == Some(Owner::Instance) {
                    // An associated data instance: no symbol.
                    return Some(());
                }
                if self.is(second, b"family") {
                    let name = tokens.get(2).filter(|t| self.conid(t))?;
                    let sig_end = self.head_end(tokens);
                    out.push(decl(K::Enum, name.start()..name.end(), sig_end, Vec::new()));
                    return Some(());
                }
                self.data(tokens, end, out)
            }
            (b"type", _) => {
                let second = second?;
                let (name, rest) = match self.text(second) {
                    b"instance" => return Some(()),
                    b"family" => (tokens.get(2)?, &tokens[3..]),
                    b"role" | b"data" => return None,
                    _ => (second, &tokens[2..]),
                };
                if !self.conid(name) {
                    return None;
                }
                let assigns = rest.iter().any(|t| self.is_op(t, b"="));
                match owner {
                    // An associated type's default, or an instance's: no symbol.
                    Some(_) if assigns || owner == Some(Owner::Instance) => return Some(()),
                    _ => {}
                }
                self.plain_head(rest)?;
                let sig_end = self.head_end(tokens);
                out.push(decl(
                    K::TypeAlias,
                    name.start()..name.end(),
                    sig_end,
                    Vec::new(),
                ));
                Some(())
            }
            (b"class", None) => {
                let head_end = tokens
                    .iter()
                    .position(|t| self.is(t, b"where"))
                    .unwrap_or(tokens.len());
                let name = self.head_name(&tokens[1..head_end])?;
                let members = self.members(tokens, head_end, Owner::Class)?;
                let sig_end = tokens.get(head_end).map(|t| t.start());
                out.push(decl(K::Trait, name.start()..name.end(), sig_end, members));
                Some(())
            }
            (b"instance", None) => {
                let head_end = tokens
                    .iter()
                    .position(|t| self.is(t, b"where"))
                    .unwrap_or(tokens.len());
                let name = self.head_name(&tokens[1..head_end])?;
                let members = self.members(tokens, head_end, Owner::Instance)?;
                let sig_end = tokens.get(head_end).map(|t| t.start());
                let name = name.start()..tokens[head_end - 1].end();
                out.push(decl(K::Impl, name, sig_end, members));
                Some(())
            }
            (b"deriving", None) => {
                let instance = tokens.iter().position(|t| self.is(t, b"instance"))?;
                if tokens.iter().any(|t| self.is(t, b"where")) {
                    return None;
                }
                let name = self.head_name(&tokens[instance + 1..])?;
                let name = name.start()..tokens[tokens.len() - 1].end();
                out.push(decl(K::Impl, name, None, Vec::new()));
                Some(())
            }
            _ => None,
        }
    }

    /// Where a type's head stops: its `=` or `where`, outside brackets.
    fn head_end(&self, tokens: &[Token]) -> Option<usize> {
        let mut depth = 0usize;
        for t in tokens {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.saturating_sub(1),
                _ if depth == 0 && (self.is_op(t, b"=") || self.is(t, b"where")) => {
                    return Some(t.start());
                }
                _ => {}
            }
        }
        None
    }

    /// A class's or an instance's name in its head (after the keyword, to its
    /// `where`): past a context (`… =>`) and pragmas, a constructor's name.
    fn head_name(&self, head: &[Token]) -> Option<Token> {
        if head
            .iter()
            .any(|t| self.is(t, b"forall") || t.kind == Kind::Cpp)
        {
            return None;
        }
        let arrow = head.iter().position(|t| self.is_op(t, b"=>"));
        let rest = &head[arrow.map_or(0, |a| a + 1)..];
        let name = rest.iter().find(|t| !self.pragma(t))?;
        self.conid(name).then_some(*name)
    }

    /// A class's or an instance's members: the block after its `where` (at
    /// `tokens[head_end]`, if it has one) laid out deeper than the head.
    fn members(&self, tokens: &[Token], head_end: usize, owner: Owner) -> Option<Vec<Decl>> {
        let mut members = Vec::new();
        let rest = tokens.get(head_end + 1..).unwrap_or_default();
        let Some(first) = rest.iter().find(|t| t.kind != Kind::Cpp) else {
            return Some(members);
        };
        if first.kind == Kind::Open(b'{') {
            return None;
        }
        let inner = self.column(first.start())?;
        if inner <= self.column(tokens[0].start())? {
            return None;
        }
        self.block(rest, inner, Some(owner), &mut members)?;
        Some(members)
    }

    /// Whether `t` is a constructor's or a type's name (`Maybe`).
    fn conid(&self, t: &Token) -> bool {
        t.kind == Kind::Word && self.text(t)[0].is_ascii_uppercase()
    }

    /// Whether `t` is a variable's name (`f`, `_go`, `foldl'`), no keyword.
    fn varid(&self, t: &Token) -> bool {
        let w = self.text(t);
        t.kind == Kind::Word
            && (w[0].is_ascii_lowercase() || (w[0] == b'_' && w.len() > 1))
            && w.is_ascii()
            && !matches!(
                w,
                b"case"
                    | b"class"
                    | b"data"
                    | b"default"
                    | b"deriving"
                    | b"do"
                    | b"else"
                    | b"foreign"
                    | b"if"
                    | b"import"
                    | b"in"
                    | b"infix"
                    | b"infixl"
                    | b"infixr"
                    | b"instance"
                    | b"let"
                    | b"module"
                    | b"newtype"
                    | b"of"
                    | b"then"
                    | b"type"
                    | b"where"
                    | b"forall"
                    | b"mdo"
                    | b"rec"
                    | b"proc"
                    | b"pattern"
                    | b"family"
                    | b"role"
                    | b"via"
                    | b"stock"
                    | b"anyclass"
            )
    }

    /// A name a signature declares: `names` is a variable (`f`), or `(`, an
    /// operator and `)` (`(<+>)`: the operator).
    fn var_name(&self, names: &[Token]) -> Option<Range<usize>> {
        match names {
            [v] if self.varid(v) => Some(v.start()..v.end()),
            [o, op, c]
                if o.kind == Kind::Open(b'(')
                    && c.kind == Kind::Close(b')')
                    && self.operator(op, true) =>
            {
                Some(op.start()..op.end())
            }
            _ => None,
        }
    }

    /// Whether `t` is an operator a function can be (`<+>`, not a constructor's
    /// `:+`, nor MagicHash's `#`); unless `parenthesized`, not what reads otherwise
    /// between patterns (`!x`, `-1`, `$x`).
    fn operator(&self, t: &Token, parenthesized: bool) -> bool {
        let op = self.text(t);
        t.kind == Kind::Op
            && !matches!(
                op,
                b"~" | b"@" | b"=" | b"|" | b"::" | b"=>" | b"->" | b"<-" | b"\\" | b".."
            )
            && (parenthesized || !matches!(op, b"!" | b"-" | b"$" | b"$$"))
            && op[0] != b':'
            && op[0] != b'#'
    }

    /// A signature or an equation: a function symbol, or part of the one `open`; at
    /// the top, an expression alone (no `::`, `=` nor guard: a Template Haskell
    /// splice, `makeLenses ''T`, `$(deriveJSON …)`) is no symbol, and parts
    /// equations as any declaration does.
    fn value(
        &self,
        tokens: &[Token],
        block: bool,
        owner: Option<Owner>,
        open: &mut Option<Open>,
        out: &mut Vec<Decl>,
    ) -> Option<()> {
        // The first `::`, `=` or guard outside brackets.
        let mut depth = 0usize;
        let mut split = None;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.checked_sub(1)?,
                _ if depth > 0 => {}
                Kind::Op if matches!(self.text(t), b"::" | b"=" | b"|") => {
                    split = Some(i);
                    break;
                }
                Kind::Op if self.text(t) == b"\\" => return None,
                Kind::Word
                    if matches!(
                        self.text(t),
                        b"let" | b"where" | b"case" | b"of" | b"if" | b"do" | b"mdo"
                    ) =>
                {
                    return None;
                }
                Kind::Op if self.text(t)[0] == b'#' => {
                    // MagicHash (`f# x = …`), or an operator: not told apart.
                    return None;
                }
                // The lexer reads any non-ASCII byte as a name's, where a symbol
                // (`∘`) may be an operator's.
                Kind::Word if !self.text(t).is_ascii() => return None,
                _ => {}
            }
        }
        let Some(split) = split else {
            *open = None;
            return owner.is_none().then_some(());
        };
        let lhs = &tokens[..split];
        let end = self.end(tokens, block);
        let start = tokens[0].start();
        let function =
            |name: Range<usize>, sig_end| Decl::new(K::Function, name, start..end, sig_end);
        if self.is_op(&tokens[split], b"::") {
            *open = None;
            if tokens[split..].iter().any(|t| self.is_op(t, b"=")) {
                return None;
            }
            let comma = |t: &Token| t.kind == Kind::Punct(b',');
            if !lhs.iter().any(comma) {
                let name = self.var_name(lhs)?;
                *open = Some(Open {
                    name: name.clone(),
                    at: out.len(),
                });
                out.push(function(name, Some(end)));
            } else {
                for n in lhs.split(comma) {
                    let name = self.var_name(n)?;
                    out.push(function(name, None));
                }
            }
            return Some(());
        }
        let name = self.bound_name(lhs)?;
        let sig_end = Some(tokens[split].start());
        if let Some(o) = open
            .as_ref()
            .filter(|o| self.src[o.name.clone()] == self.src[name.clone()])
        {
            out[o.at].bytes.end = end;
            return Some(());
        }
        *open = Some(Open {
            name: name.clone(),
            at: out.len(),
        });
        out.push(function(name, sig_end));
        Some(())
    }

    /// The name an equation's left-hand side binds: `f` of `f x y`, `<+>` of
    /// `(<+>) x y` and of `x <+> y` or `Just a <+> b`, `div` of `` x `div` y ``;
    /// `None` for what this reader does not name (a pattern binding).
    fn bound_name(&self, lhs: &[Token]) -> Option<Range<usize>> {
        let first = lhs.first()?;
        if let Some(name) = lhs.get(..3).and_then(|n| self.var_name(n)) {
            // `(<+>) x y`: prefix.
            return self.loose(&lhs[3..]).is_none().then_some(name);
        }
        let Some(infix) = self.loose(lhs) else {
            return self.varid(first).then_some(first.start()..first.end());
        };
        // The left operand: a variable, `_`, a literal, a bracket, or a constructor
        // applied to patterns.
        let left = match &lhs[..infix] {
            [] => false,
            [t] => {
                self.varid(t)
                    || matches!(t.kind, Kind::Literal)
                    || (t.kind == Kind::Word && matches!(self.text(t)[0], b'_' | b'0'..=b'9'))
                    || self.conid(t)
            }
            [t, ..] if self.conid(t) => true,
            [t, .., l] => {
                t.kind == Kind::Open(b'(')
                    && l.kind == Kind::Close(b')')
                    && self.bracket_end(lhs) == Some(infix - 1)
            }
        };
        if !left {
            return None;
        }
        let op = &lhs[infix];
        let (name, right) = match op.kind {
            // `x ! y`, blanks around it: the operator, not a bang pattern.
            Kind::Op
                if self.operator(
                    op,
                    self.text(op) == b"!"
                        && lhs[infix - 1].end() < op.start()
                        && lhs.get(infix + 1).is_some_and(|n| op.end() < n.start()),
                ) =>
            {
                (op.start()..op.end(), infix + 1)
            }
            Kind::Punct(b'`') => {
                let name = lhs.get(infix + 1).filter(|t| self.varid(t))?;
                let close = lhs.get(infix + 2)?;
                if close.kind != Kind::Punct(b'`') {
                    return None;
                }
                (name.start()..name.end(), infix + 3)
            }
            _ => return None,
        };
        let right = &lhs[right..];
        (!right.is_empty() && self.loose(right).is_none()).then_some(name)
    }

    /// Where the bracket `tokens` start with closes.
    fn bracket_end(&self, tokens: &[Token]) -> Option<usize> {
        let mut depth = 0usize;
        tokens.iter().position(|t| {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth == 0
        })
    }

    /// The first operator or punctuation outside brackets in patterns (`tokens`):
    /// not an as-pattern's `@` nor a qualified name's `.`, which bind tightly.
    fn loose(&self, tokens: &[Token]) -> Option<usize> {
        let mut depth = 0usize;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.saturating_sub(1),
                _ if depth > 0 => {}
                Kind::Op if self.tight(tokens, i) => {}
                Kind::Op | Kind::Punct(_) => return Some(i),
                _ => {}
            }
        }
        None
    }

    /// Whether the operator `tokens[i]` binds the names around it without blanks:
    /// `x@(Just y)`, `T.Text`.
    fn tight(&self, tokens: &[Token], i: usize) -> bool {
        let t = &tokens[i];
        let (prev, next) = (i.checked_sub(1).map(|p| &tokens[p]), tokens.get(i + 1));
        let before = next.is_some_and(|n| n.start() == t.end());
        if matches!(self.text(t), b"!" | b"~") {
            // A bang or lazy pattern: `!x` after a blank (`x ! y` is an operator).
            return before && prev.is_none_or(|p| p.end() < t.start());
        }
        let Some(prev) = prev else {
            return false;
        };
        let joined = prev.end() == t.start() && prev.kind == Kind::Word;
        match self.text(t) {
            b"@" => joined,
            b"." => {
                joined && self.conid(prev) && before && next.is_some_and(|n| n.kind == Kind::Word)
            }
            _ => false,
        }
    }

    /// Where a type's head after its name (`rest`) stops: at its `=`, `where` or
    /// `deriving` outside brackets, or the end. `None` where an operator before a
    /// kind's `::` makes it no plain head (a context, a type operator).
    fn plain_head(&self, rest: &[Token]) -> Option<usize> {
        let mut depth = 0usize;
        let mut kind = false;
        for (i, t) in rest.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.checked_sub(1)?,
                _ if depth > 0 => {}
                Kind::Op if self.text(t) == b"=" => return Some(i),
                Kind::Word if matches!(self.text(t), b"where" | b"deriving") => return Some(i),
                Kind::Word if self.text(t) == b"forall" => return None,
                Kind::Op if self.text(t) == b"::" => kind = true,
                Kind::Op | Kind::Punct(_) if !kind => return None,
                _ => {}
            }
        }
        Some(rest.len())
    }

    /// A `data` or `newtype` declaration (not a family nor an instance) and its
    /// constructors, its node ending at `end`.
    fn data(&self, tokens: &[Token], end: usize, out: &mut Vec<Decl>) -> Option<()> {
        // A CPP line among the constructors would end one of them.
        if tokens.iter().any(|t| t.kind == Kind::Cpp) {
            return None;
        }
        let name = tokens.get(1).filter(|t| self.conid(t))?;
        let split = 2 + self.plain_head(&tokens[2..])?;
        let mut members = Vec::new();
        let sig_end = self.head_end(tokens);
        match tokens.get(split) {
            Some(t) if self.is_op(t, b"=") => {
                let rest = &tokens[split + 1..];
                let deriving = rest
                    .iter()
                    .position(|t| self.is(t, b"deriving"))
                    .unwrap_or(rest.len());
                for con in rest[..deriving].split(|t| self.is_op(t, b"|")) {
                    members.push(self.constructor(con)?);
                }
            }
            Some(t) if self.is(t, b"where") => {
                let rest = &tokens[split + 1..];
                if let Some(first) = rest.first() {
                    if first.kind == Kind::Open(b'{') {
                        return None;
                    }
                    let inner = self.column(first.start())?;
                    if inner <= self.column(tokens[0].start())? {
                        return None;
                    }
                    // A `deriving` left of the constructors closes their block: the
                    // clause is the type's. Whether a comment after it is in the
                    // node is left to tree-sitter.
                    let mut dedent = None;
                    for (i, t) in rest.iter().enumerate().filter(|(_, t)| t.first) {
                        if self.column(t.start())? < inner {
                            dedent = Some(i);
                            break;
                        }
                    }
                    if let Some(d) = dedent {
                        let last = tokens[tokens.len() - 1];
                        if !self.is(&rest[d], b"deriving") || last.trail() != last.end() {
                            return None;
                        }
                    }
                    let rest = &rest[..dedent.unwrap_or(rest.len())];
                    let mut at = 0;
                    while at < rest.len() {
                        let next = self.declaration_end(rest, at, inner)?.end;
                        self.gadt(&rest[at..next], &mut members)?;
                        at = next;
                    }
                }
            }
            _ => {}
        }
        out.push(Decl {
            members,
            ..Decl::new(
                K::Enum,
                name.start()..name.end(),
                tokens[0].start()..end,
                sig_end,
            )
        });
        Some(())
    }

    /// A constructor between `=`, `|` and `deriving`: `Circle Double`, `Rect { …
    /// }`, `Double :* Double`.
    fn constructor(&self, con: &[Token]) -> Option<Decl> {
        let first = con.first()?;
        let last = con.last()?;
        let mut depth = 0usize;
        let mut infix = None;
        for (i, t) in con.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => depth += 1,
                Kind::Close(_) => depth = depth.checked_sub(1)?,
                _ if depth > 0 => {}
                Kind::Op if matches!(self.text(t), b"!" | b"~") || self.tight(con, i) => {}
                // One infix constructor (`a :+ b`); a second is none.
                Kind::Op if self.text(t)[0] == b':' && self.text(t) != b"::" && infix.is_none() => {
                    infix = Some(*t);
                }
                Kind::Op | Kind::Punct(_) => return None,
                Kind::Word if self.is(t, b"forall") || !self.text(t).is_ascii() => return None,
                _ => {}
            }
        }
        let mut decl = Decl::new(
            K::EnumMember,
            first.start()..first.end(),
            first.start()..last.end(),
            None,
        );
        if let Some(op) = infix {
            decl.name = op.start()..op.end();
            return Some(decl);
        }
        if !self.conid(first) {
            return None;
        }
        if let Some(brace) = con.iter().position(|t| t.kind == Kind::Open(b'{')) {
            // A record: `Rect { … }` and nothing after it.
            if brace != 1 || last.kind != Kind::Close(b'}') {
                return None;
            }
            decl.sig_end = Some(con[1].start());
            decl.members = self.fields(&con[2..con.len() - 1])?;
        }
        Some(decl)
    }

    /// A record's fields, between its braces: `a, b :: T` each a field of the
    /// field's bytes.
    fn fields(&self, tokens: &[Token]) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < tokens.len() {
            let colons = at + tokens[at..].iter().position(|t| self.is_op(t, b"::"))?;
            // The type: to the next `,` outside brackets.
            let mut depth = 0usize;
            let mut end = tokens.len();
            for (i, t) in tokens.iter().enumerate().skip(colons + 1) {
                match t.kind {
                    Kind::Open(_) => depth += 1,
                    Kind::Close(_) => depth = depth.checked_sub(1)?,
                    Kind::Punct(b',') if depth == 0 => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            if end == colons + 1 {
                return None;
            }
            let bytes = tokens[at].start()..tokens[end - 1].end();
            for n in tokens[at..colons].split(|t| t.kind == Kind::Punct(b',')) {
                // Not an operator: the walker names a field `(<+>)` from its `(`.
                let [name] = n else { return None };
                if !self.varid(name) {
                    return None;
                }
                let name = name.start()..name.end();
                out.push(Decl::new(K::Field, name, bytes.clone(), None));
            }
            at = end + 1;
        }
        Some(out)
    }

    /// One declaration of a GADT's `where` block: `A, B :: T`, a record's `A :: {
    /// … } -> T`, or a `deriving` clause.
    fn gadt(&self, item: &[Token], members: &mut Vec<Decl>) -> Option<()> {
        if self.is(&item[0], b"deriving") {
            return Some(());
        }
        let colons = item.iter().position(|t| self.is_op(t, b"::"))?;
        let last = item.last()?;
        // A record's fields, after a context if one is (`A :: C a => { … } -> T`).
        let context = item[colons + 1..]
            .iter()
            .position(|t| self.is_op(t, b"=>"))
            .filter(|&c| {
                item.get(colons + c + 2)
                    .is_some_and(|t| t.kind == Kind::Open(b'{'))
            });
        let record = colons + 1 + context.map_or(0, |c| c + 1);
        let fields = match item.get(record) {
            Some(t) if t.kind == Kind::Open(b'{') => {
                let close = item.iter().position(|t| t.kind == Kind::Close(b'}'))?;
                self.fields(&item[record + 1..close])?
            }
            _ if item.iter().any(|t| t.kind == Kind::Open(b'{')) => return None,
            _ => Vec::new(),
        };
        let names: Vec<&[Token]> = item[..colons]
            .split(|t| t.kind == Kind::Punct(b','))
            .collect();
        let several = names.len() > 1;
        for n in names {
            let [name] = n else { return None };
            if !self.conid(name) || (several && !fields.is_empty()) {
                return None;
            }
            members.push(Decl::new(
                K::EnumMember,
                name.start()..name.end(),
                item[0].start()..last.end(),
                Some(last.end()),
            ));
        }
        if let Some(m) = members.last_mut() {
            m.members = fields;
        }
        Some(())
    }
}

/// A symbol's name where it is not its bytes' text (the reader's name hook,
/// `Reader::name` in `languages/mod.rs`): an operator in its prefix form, `(<+>)`,
/// as the walker names it (`languages/haskell.rs`); an instance by its head from
/// the class on, in one line.
pub(super) fn name(src: &[u8], kind: K, name: Range<usize>) -> Option<String> {
    let bytes = &src[name];
    if b"!#$%&*+./<=>?@\\^|-~:".contains(bytes.first()?) {
        return Some(format!("({})", String::from_utf8_lossy(bytes)));
    }
    (kind == K::Impl).then(|| crate::classify::signature(bytes))
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::{
        Lang,
        tests::{Generated, reader_agrees},
    };

    /// Each of these parses cleanly whole, and the reader vouches for it and lists
    /// what the whole parse does: names, ranges (a comment after the last token
    /// when a layout block is open there), equations grouped, members.
    #[test]
    fn declarations_read_as_the_whole_parse_reads_them() {
        for src in [
            // The walker's own snapshot (`languages/haskell.rs`).
            r#"{-# LANGUAGE OverloadedStrings #-}
-- | The module.
module Data.Shape (Shape (..), area) where

import qualified Data.Map as M

-- | The area.
area :: Shape -> Double
area (Circle r) = pi * r * r
{-# INLINE area #-}
area (Rect w h) = w * h

x <+> y = x + y
infixl 6 <+>

(<->) :: Int -> Int -> Int
a <-> b = a - b

abs' n
  | n < 0 = negate n
  | otherwise = n
  where helper = 1

lo, hi :: Int
lo = 0

main = print (area (Circle 1))

{-| A shape. -}
data Shape
  = Circle Double -- ^ radius
  | Rect { width, height :: Double }
  | Double :* Double
  deriving (Show, Eq)

newtype Wrap a = Wrap { unWrap :: a }

type Name = String

data G a where
  GInt :: Int -> G Int
  GRec :: { gb :: Bool } -> G Bool

class Monad m => MonadLog m where
  -- | Logs.
  logMsg :: String -> m ()
  logMsg _ = pure ()
  (<!>), (<?>) :: m a -> m a -> m a
  type Elem m

instance MonadLog IO where
  logMsg = putStrLn

instance (Show a) => Show (Wrap a) where
  show (Wrap a) = show a

deriving instance Ord Shape

foreign import ccall "sin" c_sin :: Double -> Double
"#,
            // Infix left-hand sides: constructors applied, wildcards, literals,
            // backticks, brackets; bang, lazy and as-patterns; qualified names.
            "module M where\ninstance Semigroup Key where\n  Key x <> Key y = Key (x <> y)\n  _ <> _ = undefined\n\"a\" `closes` \"b\" = True\n(x:xs) +++ ys = x : xs ++ ys\nf !x ~(a, b) all@(Just _) = x\nx ! y = y\n(!) f n = f n\ntake1_ S.Empty = Nothing\ng T.Text{} = 1\n",
            // Records closed at the line's start, qualified field types, strictness.
            "module M where\ndata Opts = Opts{\n    optA :: !T.Text -- ^ a\n  , optB, optC :: {-# UNPACK #-} !Int\n} deriving (Show)\nnewtype W = W {\n  unW :: Int\n}\n",
            // A GADT's `deriving` left of its constructors; a kind; families.
            "module M where\ndata T a :: Type where\n    A, B :: T Int -- c\n    C :: { c :: Int } -> T Bool\n  deriving Typeable\ndata family F a\ntype family G a where\n  G Int = Bool\ntype family H a :: Type\ndata E deriving Show\n",
            // Classes and instances: associated types and defaults, default
            // signatures, fixities, pragmas, CPP among members, instance signatures.
            "module M where\nclass C a where\n  type T a\n  type T a = Int\n  data D a\n  default f :: a\n  f :: a\n  f = undefined\n  infixl 6 `f`\n  {-# MINIMAL f #-}\ninstance {-# OVERLAPPING #-} C Int where\n  type T Int = Bool\n  data D Int = DI\n#if X\n  f :: Int\n#endif\n  f = 1\n  {-# INLINE f #-}\ninstance C Bool\ninstance Default Opts\n  where def = Opts 1\n",
            // A CPP line parts equations; a pragma does not; patterns, fixities and
            // pattern synonyms are no symbols.
            "module M where\nf = 1\n#if FOO\nf = 2\n#else\nf = 3\n#endif\ng :: Int\n{-# NOINLINE g #-}\ng = 1\ng = 2\npattern P :: Int\npattern P = 1\ndata instance F Int = FI Int\ntype instance G Int = Bool\nforeign export ccall foo :: Int\nderiving stock instance Eq T\nderiving via X instance Eq T\n",
            // Where a node ends: comments after its last token when a layout block is
            // open there, not after a bare `where`.
            "module M where\nf = do\n  x -- in f\n  -- after f\ng = 1 -- after g\nh = y where y = 1 {- in h -}\ninstance Foo Bar where -- after\nk = case x of\n  _ -> do a; b\nm = let a = 1 in a -- after m\n",
            "f x = x\n\ng :: a -> a\ng = id\n",
            // Line breaks inside tokens (a string's gap, a quasi-quote), CRLF, a
            // CPP line inside a body; explicit braces after `of` and `let` open no
            // layout block (the comment after is not in the node), `\case` does.
            "module M where\r\nf = 1\r\ng x = x -- c\r\n",
            "module M where\nf = \"a\\\n  \\b\"\ng = [q|\nx\n|] y\n",
            "module M where\nf = 1\n#if X\n  + 2\n#endif\ng = 3\n",
            "module M where\nf = '\\x01'\ng = 2\n",
            "module M where\nf = 'a'\n'b' <+> c = 1\n",
            "module M where\nf = g\n  where g = case x of { _ -> 1 } -- c\nh = let { y = 1 } in y -- c\nk = \\case\n  _ -> 1 -- c\n",
            // A GADT record's constructor after a context.
            "module M where\ndata T a where\n  A :: C a\n    => { -- | c\n         x :: Int\n       , y :: a\n       }\n    -> T a\n  B :: (C a, D a) => { z :: Int } -> T a\n  D :: forall a. C a => { w :: Int } -> T a\n  E :: C a => a -> T a\n",
            // Template Haskell splices at the top: no symbols, and they part
            // equations and a signature from its equations.
            "module M where\nmakeLenses ''Foo\n$(deriveJSON defaultOptions ''Bar)\n$(return [])\n",
            "module M where\nf = 1\nmakeLenses ''Foo\nf = 2\ng :: Int\nderiveJSON o 'C1\ng = 2\n",
            "module M where\n$(deriveJSON defaultOptions{ fieldLabelModifier =\n    drop 3 } ''Foo)\ndata Foo = Foo { a :: Int }\n",
            "module M where\nconcat <$> mapM (deriveJSON o) [''A, ''B]\nx <+> y\n[d| g = 1 |]\n",
            "module M where\nmakeLenses\n  ''Foo -- c\n-- d\nf = 1\n$(pure []) -- c\nf = 2\n",
            "putStrLn outString\n",
            // Tabs before a block's declarations count as 8 columns (not to the next
            // multiple of 8: two blanks and a tab are 10).
            "module M where\nclass C a where\n\tf :: a\n        g :: a\n",
            "module M where\n\tf = 1\n        g = 2\n\tclass C a where\n\t\tm :: a\n                n :: a\n        instance C Int where\n  \t\tm = 1\n                  n = 2\n",
            "{-# LANGUAGE CPP #-}\n\tf = 1\n\tg = 2\n",
            "class C a where\n  \tf :: a\n          g :: a\n",
            // Tabs before the items of layout blocks in a declaration.
            "f = do\n\tx\n\ty\n  where\n\tz = 1\ng x = case x of\n\tA -> 1\n\tB -> let\n\t\ty = 2\n\t\tz = 3\n                  in y\n",
            "",
        ] {
            assert_eq!(reader_agrees(Lang::Haskell, src), Some(true), "{src}");
        }
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            // Pattern bindings, MagicHash; a splice in a class or an instance (the
            // grammar has none there).
            "module M where\nclass C a where\n  f :: a\n  makeLenses ''Foo\n",
            "module M where\n(a, b) = (1, 2)\n",
            "module M where\nJust x = y\n",
            "module M where\nf# x = x\n",
            "module M where\nf x <+> y = x\n",
            "module M where\nx : xs = ys\n",
            "module M where\nf ∘ g = f\n",
            "module M where\n! x = x\n",
            "module M where\ndata T = A\n#if X\n  | B\n#endif\n  deriving Show\n",
            // Type operators, contexts and `forall` in types.
            "module M where\ndata a :+: b = a :+: b\n",
            "module M where\ndata (Eq a) => S a = S a\n",
            "module M where\ndata T = forall a. Show a => MkT a\n",
            "module M where\ninstance forall a. Show a => Show (T a)\n",
            // The layout: explicit braces, a line left of its block, a `;`, brackets
            // that do not close.
            "module M where {\nf = 1\n}\n",
            "module M where\n  f = 1\ng = 2\n",
            "module M where\nf = 1; g = 2\n",
            "module M where\nf = (1\n",
            "module M where\nclass C a where { f :: a }\n",
            "module M where\ndata T = T {\n a :: Int\n}\n}\n",
            // Tabs where tree-sitter-haskell's scanner does not take them as blanks
            // (the grammar meets them: syntax errors), or not surely.
            "f = x\n\t+ y\n",
            "f = x\tx\n",
            "f = 1\t\ng = 2\n",
            "f = 1\n\t-- c\ng = 2\n",
            "f = 1\n\t\ng = 2\n",
            "module M where\n\timport A\n",
            "module M\n\t( f ) where\nf = 1\n",
            "class C a where\tf :: a\n",
            "class C a\n\twhere f :: a\n",
            "data T\n\t= A\n",
            "f = 1 {- \t -}\n",
            "module M where\n\tclass C a where\n\t\tm :: a\n\tf = 1\n",
            "module M where\n\tf = do\n                x\n\tg = 1\n",
            "f = do\n\t\tx\n\ty\n",
            "f = do\n\tx\n\t\t+ y\n",
            "f = let\n\t\ty = 2\n\t  in y\n",
            "f = do { x\n\t; y }\n",
            // Clean, but a tab after a comment.
            "{-\t-} h = 1\n",
            // What the lexer cannot follow: line breaks of the scanner's own.
            "class C a where\n  f :: a\n  \x0cg :: a\n",
            "class C a where\n  f :: a\n  \rg :: a\n",
            "module M where\nf = \"a\n",
            "module M where\nf = 1 {- a\n",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
    }

    /// Declarations and stray tokens strung together at random, with comments and
    /// line breaks between them: on every text the grammar reads cleanly, the
    /// reader declines or lists what the whole parse does.
    #[test]
    fn generated_declarations_read_as_the_whole_parse_reads_them() {
        let statements = [
            "f :: Int",
            "f = 1",
            "f x = x",
            "f x\n  | x > 0 = 1\n  | otherwise = 2",
            "g, f :: Int",
            "x <+> y = y",
            "(<+>) :: a",
            "Just a <+> b = b",
            "a `op` b = a",
            "f !x = x",
            "h = do\n  a\n  b -- c",
            "h = y where y = 1",
            "data T = A | B Int\n  deriving Show",
            "data R = R { a, b :: Int, c :: !T.Text }",
            "newtype N = N Int",
            "data G where\n  G1, G2 :: G",
            "type S = Int",
            "type family F a",
            "class C a where\n  m :: a\n  m = undefined",
            "class C a",
            "instance C Int where\n  m = 1",
            "instance C Bool",
            "deriving instance Eq T",
            "infixl 6 <+>",
            "{-# INLINE f #-}",
            "#if X",
            "#endif",
            "pattern P = 1",
            "foreign import ccall \"f\" cf :: Int",
            "makeLenses ''T",
            "data R = R {\n    a :: !Int -- ^ a\n  , b :: T.Text\n} deriving Show",
            "data G a where\n    G1 :: { g :: Int } -> G Int\n  deriving Show",
            "instance Semigroup K where\n  K a <> K b = K a\n  _ <> _ = K 1 -- c",
            "instance C Int where\n#if X\n  m = 1\n#else\n  m = 2\n#endif",
            "class D a where\n  d, e :: a\n  default d :: a\n  d = e\n  {-# MINIMAL e #-}",
            "k !x ~y = x",
            "x ! y = y",
            "(!) a b = a",
            "h (Just x) = do\n  x\n  where y = 1 -- c",
            "take1_ S.Empty = Nothing",
            "data T = Int :* Int | U { u :: Int }",
            "newtype W = W { unW :: Int }\n  deriving newtype Show",
            "data E deriving Show",
            "type family F a where\n  F Int = Bool",
            "instance {-# OVERLAPPING #-} C [a]",
            "deriving stock instance Show T",
            "type instance F Int = Bool",
            "data instance F Int = FI",
            "(a, b) = (1, 2)",
            "f x = let y = 1 in y -- c",
            "f = \\x -> x",
            "f = case x of\n  _ -> 1 -- c",
        ];
        let tokens = [
            "f", "=", "::", "(", ")", "where", "  x", "|", "{", "}", ";", "'a'", "\"s\"",
        ];
        let breaks = ["\n", "\n\n", " -- c\n", "\n-- c\n", " {- c -}\n"];
        let (clean, vouched) = Generated {
            lang: Lang::Haskell,
            prefix: "module M where\n",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 8,
            breaks: &breaks,
            respace: false,
            rounds: 3000,
        }
        .run();
        assert!(
            vouched > 300 && vouched * 10 > clean * 6,
            "{vouched} of {clean}"
        );
    }

    /// Tab-indented declarations, stray tabs and tabbed lines of comments among
    /// them: on every text the grammar reads cleanly, the reader declines or lists
    /// what the whole parse does.
    #[test]
    fn generated_tab_indented_declarations_read_as_the_whole_parse_reads_them() {
        let statements = [
            "\tf :: Int",
            "        f = 1",
            "\tf x = x",
            "\tclass C a where\n\t\tm :: a\n                m = undefined",
            "\tinstance C Int where\n  \t  \tm = 1\n          \tn = 2",
            "\tinstance C Int where m = 1",
            "\tdata T = A | B Int",
            "\th = do\n\t\ta\n\t\tb",
            "\tf x\n\t\t| x > 0 = 1",
            "\t{-# INLINE f #-}",
            "#if X",
            "#endif",
        ];
        let tokens = ["\t", "f", "=", "where", "  x", "\t-- c"];
        let breaks = ["\n", "\n\n", " -- c\n", "\n\t-- c\n", "\t\n", " {- \t -}\n"];
        let (clean, vouched) = Generated {
            lang: Lang::Haskell,
            prefix: "module M where\n",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 8,
            breaks: &breaks,
            respace: false,
            rounds: 3000,
        }
        .run();
        assert!(vouched > 60, "{vouched} of {clean}");
    }

    /// The reader vouches for nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: aeson and megaparsec), or the first
    /// index is slow again; `fast_check` compares what it reads with whole parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("haskell", &["hs"], 60, 10, |src| parse(src).is_some());
    }
}
