//! Java declarations read straight off the tokens, without a syntax tree: what the
//! walker takes from tree-sitter's tree for Java (`symbols::java`), for the files
//! this reader can vouch for.
//!
//! A Java file is `package`, `import`s and type declarations; a type body holds
//! fields, methods, constructors, initializer blocks and nested types, all of one
//! shape: annotations and modifiers, then a keyword (`class`, `interface`, `enum`,
//! `record`, `@interface`) or a type and a name, ended by a parameter list, a `=`, a
//! `,` or a `;`. Bodies, parameter lists, annotation arguments and initializers are
//! skipped as balanced groups of the brace lexer's tokens (`skeleton_brace::Lexer`,
//! which also knows Java's strings, text blocks, character literals and comments).
//! Members are what the walker takes: a field declaration's declarators, methods
//! (abstract ones and annotation elements too), constructors (a record's compact
//! one), enum constants (their class bodies are not entered), nested types.
//!
//! It is strict on purpose: a method or statement at the top level, `module-info`, a
//! modifier or keyword out of place, a `<` in a field's initializer that may be a
//! comparison before a `,` (the next declarator or a type argument?), a comment
//! inside a field's signature (the walker keeps it there, it strips it elsewhere),
//! the second declarator of `int a, b;` (its signature is not a prefix of the text),
//! delimiters that do not pair and text the lexer cannot follow answer `None`, and
//! the skeleton parse answers. The test over real Java code (`fast_check`) compares
//! its symbols with whole parses.

use crate::SymbolKind as K;

use super::{
    lookahead::Lookahead,
    rust_items::Decl,
    skeleton_brace::{self, Dialect, Lexer, Tok},
};

/// The declarations of a Java file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    let mut lex = Lexer::new(src, Dialect::Java);
    // The comment ranges it would note are the skeleton's business.
    lex.cur.record = false;
    let mut r = Reader {
        lex,
        src,
        ahead: Lookahead::new(),
        last_end: 0,
        nesting: 0,
        open: Vec::new(),
    };
    let mut out = Vec::new();
    while let Some(tok) = r.peek(0) {
        match tok.tok {
            Tok::Punct(b';') => {
                r.bump()?;
            }
            _ => r.declaration(Body::Top, &mut out)?,
        }
    }
    (!r.lex.cur.confused).then_some(out)
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

/// Where a declaration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Top,
    /// A class's or an enum's body (after its constants).
    Class,
    /// A record's body: compact constructors too.
    Record,
    Interface,
    /// An `@interface`'s body: elements, with `default` values.
    Annotation,
}

/// The keyword of a type declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Type {
    Class,
    Interface,
    /// `@interface`.
    Annotation,
    Enum,
    Record,
}

/// Modifiers tree-sitter-java reads into `modifiers` (and `non-sealed`).
const MODIFIERS: &[&[u8]] = &[
    b"public",
    b"protected",
    b"private",
    b"abstract",
    b"static",
    b"final",
    b"strictfp",
    b"default",
    b"synchronized",
    b"native",
    b"transient",
    b"volatile",
    b"sealed",
];

/// Reserved words: never a name; only the primitive ones may be a type.
const KEYWORDS: &[&[u8]] = &[
    b"abstract",
    b"assert",
    b"break",
    b"case",
    b"catch",
    b"class",
    b"const",
    b"continue",
    b"default",
    b"do",
    b"else",
    b"enum",
    b"extends",
    b"final",
    b"finally",
    b"for",
    b"goto",
    b"if",
    b"implements",
    b"import",
    b"instanceof",
    b"interface",
    b"native",
    b"new",
    b"package",
    b"private",
    b"protected",
    b"public",
    b"return",
    b"static",
    b"strictfp",
    b"super",
    b"switch",
    b"synchronized",
    b"this",
    b"throw",
    b"throws",
    b"transient",
    b"try",
    b"volatile",
    b"while",
    b"true",
    b"false",
    b"null",
    b"permits",
];

const PRIMITIVES: &[&[u8]] = &[
    b"boolean", b"byte", b"char", b"short", b"int", b"long", b"float", b"double", b"void",
];

/// Deeper nesting of types is declined: the walker stops at 64 containers.
const MAX_NESTING: u32 = 48;

struct Reader<'a> {
    lex: Lexer<'a>,
    src: &'a [u8],
    /// Tokens looked at but not consumed yet, in order.
    ahead: Lookahead<Token, 3>,
    /// End of the last consumed token.
    last_end: usize,
    /// Type bodies entered and not yet left.
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
    })
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
        self.last_end = t.end;
        Some(t)
    }

    fn text(&self, t: Token) -> &'a [u8] {
        t.tok.text(self.src)
    }

    fn is(&self, t: Token, word: &[u8]) -> bool {
        self.text(t) == word
    }

    /// Whether `t` is an identifier that is not a reserved word.
    fn identifier(&self, t: Token) -> bool {
        let w = self.text(t);
        w.first()
            .is_some_and(|b| !b.is_ascii_digit() && *b != b'+' && *b != b'-')
            && !KEYWORDS.contains(&w)
            && !PRIMITIVES.contains(&w)
    }

    /// Takes an identifier.
    fn name(&mut self) -> Option<Token> {
        let t = self.bump()?;
        self.identifier(t).then_some(t)
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

    /// `@Name`, `@a.b.Name` or `@Name(…)`, at its `@`.
    fn annotation(&mut self) -> Option<()> {
        self.bump()?;
        self.name()?;
        while self.peek(0)?.tok == Tok::Punct(b'.') {
            self.bump()?;
            self.name()?;
        }
        if let Tok::Open(b'(', _) = self.peek(0)?.tok {
            let open = self.bump()?;
            self.skip_group(open)?;
        }
        Some(())
    }

    /// Type parameters or arguments, at their `<`, through the matching `>`.
    fn angles(&mut self) -> Option<()> {
        let mut depth = 0u32;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b'@') => {
                    self.annotation()?;
                    continue;
                }
                Tok::Punct(b'<') => depth += 1,
                Tok::Punct(b'>') => depth -= 1,
                Tok::Word(..) | Tok::Punct(b',' | b'.' | b'?' | b'&') => {}
                Tok::Open(b'[', _) => {
                    self.bump()?;
                    if self.bump()?.tok != Tok::Close(b']') {
                        return None;
                    }
                    continue;
                }
                _ => return None,
            }
            self.bump()?;
            if depth == 0 {
                return Some(());
            }
        }
    }

    /// One declaration in `body` (or a `package`, `import` or initializer block,
    /// which are none), added to `out`.
    fn declaration(&mut self, body: Body, out: &mut Vec<Decl>) -> Option<()> {
        let start = self.peek(0)?.start;
        // The first modifier, past the annotations: where the signature starts.
        let mut core = None;
        let (mut modifiers, mut annotations, mut only_static) = (0, 0, true);
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b'@') => {
                    let next = self.peek(1)?;
                    if self.is(next, b"interface") && next.start == t.end {
                        break;
                    }
                    self.annotation()?;
                    annotations += 1;
                }
                Tok::Word(..) if MODIFIERS.contains(&self.text(t)) => {
                    core.get_or_insert(t.start);
                    modifiers += 1;
                    only_static &= self.is(t, b"static");
                    self.bump()?;
                }
                Tok::Word(..) if self.is(t, b"non") => {
                    // `non-sealed`, one token to tree-sitter.
                    let (dash, sealed) = (self.peek(1)?, self.peek(2)?);
                    if dash.tok != Tok::Punct(b'-')
                        || dash.start != t.end
                        || !self.is(sealed, b"sealed")
                        || sealed.start != dash.end
                    {
                        return None;
                    }
                    core.get_or_insert(t.start);
                    modifiers += 1;
                    only_static = false;
                    for _ in 0..3 {
                        self.bump()?;
                    }
                }
                _ => break,
            }
        }
        let head = self.peek(0)?;
        let core = core.unwrap_or(head.start);
        let keyword = match head.tok {
            Tok::Punct(b'@') => Some(Type::Annotation),
            Tok::Word(..) => match self.text(head) {
                b"class" => Some(Type::Class),
                b"interface" => Some(Type::Interface),
                b"enum" => Some(Type::Enum),
                b"record"
                    if self.peek(1).is_some_and(|n| self.identifier(n))
                        && matches!(self.peek(2)?.tok, Tok::Open(b'(', _) | Tok::Punct(b'<')) =>
                {
                    Some(Type::Record)
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(kind) = keyword {
            out.push(self.type_declaration(kind, start, core)?);
            return Some(());
        }
        match (body, head.tok) {
            (Body::Top, Tok::Word(..)) if self.is(head, b"import") && start == head.start => {
                self.bump()?;
                self.through_semicolon(true)
            }
            (Body::Top, Tok::Word(..)) if self.is(head, b"package") && modifiers == 0 => {
                self.bump()?;
                self.through_semicolon(false)
            }
            (Body::Top, _) => None,
            // An initializer block, `static` or not.
            (Body::Class | Body::Record, Tok::Open(b'{', _))
                if annotations == 0 && (modifiers == 0 || (modifiers == 1 && only_static)) =>
            {
                let open = self.bump()?;
                self.skip_group(open)
            }
            _ => self.member(body, start, core, out),
        }
    }

    /// The rest of a `package` or `import` through its `;`: a name (`import`: maybe
    /// `static`, maybe ending in `.*`).
    fn through_semicolon(&mut self, import: bool) -> Option<()> {
        loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Punct(b';') => return Some(()),
                Tok::Word(..) | Tok::Punct(b'.') => {}
                Tok::Punct(b'*') if import => {}
                _ => return None,
            }
        }
    }

    /// A class, interface, enum, record or annotation type, at its keyword, through
    /// its body.
    fn type_declaration(&mut self, ty: Type, start: usize, core: usize) -> Option<Decl> {
        if self.bump()?.tok == Tok::Punct(b'@') {
            self.bump()?;
        }
        let name = self.name()?;
        // The header: type parameters, `extends`, `implements`, `permits`, a
        // record's components.
        let mut components = false;
        let open = loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Open(b'{', _) => break t,
                Tok::Open(b'(', _) if ty == Type::Record && !components => {
                    components = true;
                    self.skip_group(t)?;
                }
                Tok::Open(b'(', _) => return None,
                Tok::Open(..) => self.skip_group(t)?,
                Tok::Word(..) | Tok::Punct(b'.' | b',' | b'<' | b'>' | b'?' | b'&' | b'@') => {}
                _ => return None,
            }
        };
        if ty == Type::Record && !components {
            return None;
        }
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return None;
        }
        let (kind, members) = match ty {
            // A record is a class to the walker, an annotation type an interface.
            Type::Class => (K::Class, self.body(Body::Class)?),
            Type::Record => (K::Class, self.body(Body::Record)?),
            Type::Interface => (K::Interface, self.body(Body::Interface)?),
            Type::Annotation => (K::Interface, self.body(Body::Annotation)?),
            Type::Enum => (K::Enum, self.enum_body()?),
        };
        self.nesting -= 1;
        Some(Decl {
            kind,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core,
            sig_end: Some(open.start),
            members,
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// The declarations of a type body, `{` taken, through its `}`.
    fn body(&mut self, body: Body) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Close(b'}') => {
                    self.bump()?;
                    return Some(out);
                }
                Tok::Punct(b';') => {
                    self.bump()?;
                }
                _ => self.declaration(body, &mut out)?,
            }
        }
    }

    /// An enum's constants, then its `;` and other declarations, `{` taken, through
    /// its `}`.
    fn enum_body(&mut self) -> Option<Vec<Decl>> {
        let mut out = Vec::new();
        let mut after_constant = false;
        let mut first = true;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Close(b'}') => {
                    self.bump()?;
                    return Some(out);
                }
                Tok::Punct(b';') => {
                    self.bump()?;
                    out.extend(self.body(Body::Class)?);
                    return Some(out);
                }
                Tok::Punct(b',') if after_constant || first => {
                    self.bump()?;
                    after_constant = false;
                }
                _ if after_constant => return None,
                _ => {
                    out.push(self.enum_constant()?);
                    after_constant = true;
                }
            }
            first = false;
        }
    }

    /// `@A NAME(arguments) { body }`, annotations, arguments and body optional.
    fn enum_constant(&mut self) -> Option<Decl> {
        let start = self.peek(0)?.start;
        while self.peek(0)?.tok == Tok::Punct(b'@') {
            self.annotation()?;
        }
        let name = self.name()?;
        if let Tok::Open(b'(', _) = self.peek(0)?.tok {
            let open = self.bump()?;
            self.skip_group(open)?;
        }
        if let Tok::Open(b'{', _) = self.peek(0)?.tok {
            let open = self.bump()?;
            self.skip_group(open)?;
        }
        Some(Decl {
            kind: K::EnumMember,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core: name.start,
            sig_end: None,
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        })
    }

    /// A method, constructor or field after its modifiers, through its end.
    fn member(&mut self, body: Body, start: usize, core: usize, out: &mut Vec<Decl>) -> Option<()> {
        let mut type_parameters = false;
        if self.peek(0)?.tok == Tok::Punct(b'<') {
            self.angles()?;
            type_parameters = true;
            while self.peek(0)?.tok == Tok::Punct(b'@') {
                self.annotation()?;
            }
        }
        let first = self.peek(0)?;
        // The type, then the name (a constructor: the name alone).
        let mut name: Option<Token> = None;
        // Whether the last token may end a type (a name may follow it).
        let mut type_ends = false;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Word(..) if name.is_some() => return None,
                Tok::Word(..) if type_ends => {
                    if !self.identifier(t) {
                        return None;
                    }
                    name = Some(t);
                }
                Tok::Word(..) => {
                    let w = self.text(t);
                    if !self.identifier(t) && !PRIMITIVES.contains(&w) {
                        return None;
                    }
                    type_ends = true;
                }
                Tok::Punct(b'.') if type_ends && name.is_none() => type_ends = false,
                Tok::Punct(b'<') if type_ends && name.is_none() => {
                    self.angles()?;
                    continue;
                }
                Tok::Punct(b'@') if name.is_none() => {
                    self.annotation()?;
                    type_ends = false;
                    continue;
                }
                Tok::Open(b'[', _) if type_ends => {
                    self.bump()?;
                    if self.bump()?.tok != Tok::Close(b']') {
                        return None;
                    }
                    continue;
                }
                _ => break,
            }
            self.bump()?;
        }
        let end = self.peek(0)?;
        match end.tok {
            Tok::Open(b'(', _) => {
                let (name, kind) = match name {
                    Some(n) if n.end == self.last_end => (n, K::Method),
                    None if first.end == self.last_end && self.identifier(first) => {
                        (first, K::Constructor)
                    }
                    _ => return None,
                };
                if kind == K::Constructor && !matches!(body, Body::Class | Body::Record) {
                    return None;
                }
                if body == Body::Top || (body == Body::Annotation && type_parameters) {
                    return None;
                }
                let open = self.bump()?;
                if body == Body::Annotation && self.peek(0)?.tok != Tok::Close(b')') {
                    return None;
                }
                self.skip_group(open)?;
                let sig_end = self.method_tail(body)?;
                out.push(Decl {
                    kind,
                    name: name.start..name.end,
                    bytes: start..self.last_end,
                    core,
                    sig_end,
                    members: Vec::new(),
                    impl_of: None,
                    qualifier: None,
                    head: None,
                });
                Some(())
            }
            Tok::Open(b'{', _)
                if body == Body::Record
                    && name.is_none()
                    && !type_parameters
                    && first.end == self.last_end
                    && self.identifier(first) =>
            {
                let open = self.bump()?;
                self.skip_group(open)?;
                out.push(Decl {
                    kind: K::Constructor,
                    name: first.start..first.end,
                    bytes: start..self.last_end,
                    core,
                    sig_end: Some(open.start),
                    members: Vec::new(),
                    impl_of: None,
                    qualifier: None,
                    head: None,
                });
                Some(())
            }
            Tok::Punct(b'=' | b',' | b';') if body != Body::Top && !type_parameters => {
                self.field(start, core, name?, out)
            }
            _ => None,
        }
    }

    /// After a method's or constructor's parameters: dimensions, `throws`, then its
    /// body, `;`, or (an annotation element) `default` value and `;`; where its
    /// signature stops (its body), if not at its end.
    fn method_tail(&mut self, body: Body) -> Option<Option<usize>> {
        let mut throws = false;
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b'@') => {
                    self.annotation()?;
                    continue;
                }
                Tok::Punct(b'<') if throws => {
                    self.angles()?;
                    continue;
                }
                _ => {}
            }
            self.bump()?;
            match t.tok {
                Tok::Open(b'{', _) if body != Body::Annotation => {
                    self.skip_group(t)?;
                    return Some(Some(t.start));
                }
                Tok::Punct(b';') => return Some(None),
                Tok::Open(b'[', _) if !throws => {
                    if self.bump()?.tok != Tok::Close(b']') {
                        return None;
                    }
                }
                Tok::Word(..) if self.is(t, b"throws") && !throws && body != Body::Annotation => {
                    throws = true;
                }
                Tok::Word(..) if self.is(t, b"default") && body == Body::Annotation => {
                    self.value()?;
                    return (self.bump()?.tok == Tok::Punct(b';')).then_some(None);
                }
                Tok::Word(..) | Tok::Punct(b'.' | b',') if throws => {}
                _ => return None,
            }
        }
    }

    /// A field declaration's declarators, the type and the first name taken,
    /// through its `;`: one field per declarator, each over the whole declaration.
    fn field(&mut self, start: usize, core: usize, name: Token, out: &mut Vec<Decl>) -> Option<()> {
        let mut sig_end = self.last_end;
        loop {
            let t = self.bump()?;
            match t.tok {
                Tok::Punct(b'=') => {
                    sig_end = self.peek(0)?.start;
                    self.value()?;
                }
                Tok::Punct(b';') => break,
                // `int a, b;`: the walker's signature for `b` is the head and `b`, not
                // a prefix of the text.
                _ => return None,
            }
        }
        // The walker keeps comments in a field's signature (it strips them
        // everywhere else).
        let head = &self.src[core..sig_end];
        if head.windows(2).any(|w| w == b"/*" || w == b"//") {
            return None;
        }
        out.push(Decl {
            kind: K::Field,
            name: name.start..name.end,
            bytes: start..self.last_end,
            core,
            sig_end: Some(sig_end),
            members: Vec::new(),
            impl_of: None,
            qualifier: None,
            head: None,
        });
        Some(())
    }

    /// An initializer or element value, up to the `,` or `;` after it (not taken).
    /// A `<` at its top level may open type arguments (`new HashMap<K, V>()`) or
    /// compare: a `,` after it is declined unless a `>` closes it before a token
    /// that cannot be in type arguments.
    fn value(&mut self) -> Option<()> {
        let (mut angle, mut comma_in_angle, mut empty) = (0u32, false, true);
        loop {
            let t = self.peek(0)?;
            match t.tok {
                Tok::Punct(b';') => {
                    let ambiguous = angle > 0 && comma_in_angle;
                    return (!empty && !ambiguous).then_some(());
                }
                Tok::Punct(b',') if angle == 0 => return (!empty).then_some(()),
                Tok::Punct(b',') => comma_in_angle = true,
                Tok::Punct(b'<') => angle += 1,
                Tok::Punct(b'>') => angle = angle.saturating_sub(1),
                Tok::Open(..) => {
                    let open = self.bump()?;
                    self.skip_group(open)?;
                    empty = false;
                    continue;
                }
                Tok::Close(_) => return None,
                Tok::Word(..) | Tok::Punct(b'.' | b'?' | b'&' | b'@') => {}
                _ if angle > 0 && comma_in_angle => return None,
                _ => angle = 0,
            }
            if angle == 0 {
                comma_in_angle = false;
            }
            empty = false;
            self.bump()?;
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
    };

    #[test]
    fn reads_what_the_walker_takes_from_a_whole_parse() {
        let src = r#"/** Docs. */
@ParametersAreNonnullByDefault
package a.b;

import static a.B.*;
import java.util.Map;

/** A class. */
@SuppressWarnings({"x", "}"}) public final class A<K extends Comparable<? super K>, V>
    extends B<Map<K, V[]>> implements C, D<K> {
  private static final long serialVersionUID = 0L;
  @Nullable private transient Map<K, V> map = new HashMap<K, V>();
  int[] ints = {1, 2};
  int more[];
  String s = """
      }""";
  char c = '}';
  Runnable r = () -> { int x = 1 < 2 ? 3 : 4; };
  Object o = new Object() { @Override public String toString() { return "{"; } };
  static { init(); }
  { instance(); }
  public <T extends Number> A(T t) throws E, F<G> { super(t); }
  @Override public @Nullable <T> T[] get(Class<T> k, int... rest) throws X { return null; }
  abstract void f(@A("(") int a)[];
  protected non-sealed class Inner<T> { void run() {} }
  enum E implements I { @Deprecated X(1) { void f() {} }, Y, ; E() {} E(int i) {} int w() { return 1; } }
  enum Empty { }
  enum Comma { , }
  record R<T>(int x, @A T y) implements I { R { } static int z; R(int a) { this(a, null); } }
  interface I { int C = 1; void m(); default void d() {} class N {} }
  @interface Ann { int v() default 1; String[] w() default {"a", "b"}; Class<?> k(); int X = 2; }
  public @interface Pub { }
  void dup() {}
  void dup(int a) {}
}
;
enum Top { A, B }
"#;
        assert!(parse(src.as_bytes()).is_some(), "declined");
        let whole = extract_with(Lang::Java, src.as_bytes(), Parse::Whole);
        assert_eq!(whole.syntax_error, None);
        let fast = extract_with(Lang::Java, src.as_bytes(), Parse::Declarations);
        assert_eq!(outline(&fast), outline(&whole));
        assert!(whole.count > 40, "{}", outline(&whole));
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "class A { void f() {",
            "class A { int a, b; }",
            "class A { int x = a < b, y; }",
            "class A { int /* c */ x; }",
            "void f() {}",
            "module m { }",
            "class A { int static x; }",
            "class A { void f() {) }",
            "record R { }",
            "class A { String s = \"unterminated\n; }",
            "class A { } }",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        assert!(parse(b"package a.b;\nimport static a.B.*;\nclass A {}").is_some());
    }
}
