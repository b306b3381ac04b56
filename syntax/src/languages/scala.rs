//! Scala: `.scala` and `.sc` files (Scala 2 and 3, braces or indentation),
//! tree-sitter-scala and the brace lexer (`skeleton_brace`: template and package
//! bodies entered, braced `def` and `val` bodies skipped; an indented body is
//! parsed); the declaration reader `scala_items` reads Scala 2's brace syntax.
//!
//! Symbols are what a template holds: classes (case classes too), objects (case and
//! package objects), traits, Scala 3 enums and their cases, `def`s (declared or
//! defined; `def this(…)` is a constructor), `val`s and `var`s (properties, as
//! Kotlin's: a member is its accessors), `type` members and aliases, `given`
//! instances and `extension` groups; nothing inside a `def`'s or a `val`'s body.
//!
//! - A `given` with a template body (`given Ord[Int] with …`) is an object whose
//!   members are its children; one with parameters is a function; an alias
//!   (`given Ord[Int] = …`) a property. An anonymous given is named as the compiler
//!   names it, `given_` and the type's names joined by `_` (`given_Ord_Int`).
//! - An `extension (s: String)` group is an `Impl`, as a Rust `impl` block: named
//!   `extension String`, its methods' name paths under the extended type
//!   (`String/shout`).
//! - Several names in one declaration (`case Green, Blue`, `val (a, b) = …`,
//!   `val a, b = 1`) share its range, each with a signature naming it alone.
//! - A `package p { … }` block is not a symbol (nor is `package p`): its members are
//!   listed as top-level ones, as Java's under a package.
//!
//! Annotations are children of the definition (`LEADING` in `decl.rs` has
//! `annotation`): the range starts at the first one, the signature at the first
//! modifier or keyword. Scaladoc is the `/** */` block right above.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, descendant, field, named, one, signature, text},
    decl::{self, C_BLOCK, Comments, DocBlock},
    skeleton_brace::{self, Dialect},
};

pub(super) const SCALA: Language = Language {
    name: "scala",
    extensions: &["scala", "sc"],
    lsp_id: "scala",
    grammar: Some(|| tree_sitter_scala::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: None,
        doc_block: DocBlock::One,
        // Not `'`: it also opens a symbol literal (`'name`) and a quoted type.
        quotes: b"\"",
    },
    imports: &["import_declaration", "export_declaration"],
    keywords: &[
        "def",
        "val",
        "var",
        "class",
        "object",
        "trait",
        "type",
        "enum",
        "case",
        "given",
        "extension",
        "package",
        "abstract",
        "final",
        "sealed",
        "implicit",
        "lazy",
        "override",
        "private",
        "protected",
        "inline",
        "opaque",
        "transparent",
        "open",
        "infix",
        "erased",
        "tracked",
    ],
    attribute: annotations,
    probe: |site| match site.parent {
        // A Scala 2 file has no top-level `def`.
        None => "object LeanCtxProbe",
        // An extension holds methods only.
        Some(_) => "def leanCtxProbe = 0",
    },
    declarations: Some(Reader::new(crate::scala_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Scala, src),
        mark: None,
        any_error: false,
    }),
};

/// Whether `text`, a line or a word of a head, is annotations alone (`@a`,
/// `@b.C(…)`, `@d[T] @e`): a line that goes on to a declaration (`@main def run()`,
/// `@transparentTrait trait T:`) is that declaration's head, not an attribute of the
/// one below it. Swift's attributes are written so too.
pub(super) fn annotations(text: &[u8]) -> bool {
    let (mut depth, mut quoted, mut word) = (0usize, false, false);
    let mut bytes = text.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' if quoted => {
                bytes.next();
            }
            b'"' => quoted = !quoted,
            _ if quoted => {}
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            b if b.is_ascii_whitespace() => word = false,
            // A word outside brackets starts with `@`.
            b'@' if !word => word = true,
            _ if !word => return false,
            _ => {}
        }
    }
    text.starts_with(b"@")
}

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let mut visits = definition(node, src);
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit {
            def.end = Some(end_before_comments(def.node));
        }
    }
    visits
}

/// Where `node` ends, the comments it ends with left out: an indented body (Scala 3)
/// holds the comments below its last line, the next declaration's doc among them.
fn end_before_comments(node: Node<'_>) -> usize {
    let mut node = node;
    loop {
        let mut cursor = node.walk();
        let last = node
            .children(&mut cursor)
            .filter(|c| !matches!(c.kind(), "comment" | "block_comment"))
            .last();
        match last {
            Some(child) => node = child,
            None => return node.end_byte(),
        }
    }
}

fn definition<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "class_definition" => one(named(K::Class, node, src).map(|d| d.body(body))),
        "object_definition" | "package_object" => {
            one(named(K::Object, node, src).map(|d| d.body(body)))
        }
        "trait_definition" => one(named(K::Trait, node, src).map(|d| d.body(body))),
        "enum_definition" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "function_definition" | "function_declaration" => {
            let kind = match field(node, "name").map(|n| text(n, src)) {
                Some("this") => K::Constructor,
                _ => K::Function,
            };
            one(named(kind, node, src).map(|d| d.sig_end(body)))
        }
        "val_declaration" | "var_declaration" => one(named(K::Property, node, src)),
        "val_definition" | "var_definition" => {
            let value = field(node, "value");
            let Some(pattern) = field(node, "pattern") else {
                return vec![Visit::Skip];
            };
            if pattern.kind() == "identifier" {
                return one(Some(
                    Def::new(K::Property, node, pattern, src).sig_end(value),
                ));
            }
            let mut names = Vec::new();
            bound_names(pattern, &mut names);
            shared(node, pattern, &names, K::Property, src)
        }
        "type_definition" => one(named(K::TypeAlias, node, src)),
        "enum_case_definitions" => {
            let mut cursor = node.walk();
            let cases: Vec<Node<'t>> = node
                .named_children(&mut cursor)
                .filter(|c| matches!(c.kind(), "simple_enum_case" | "full_enum_case"))
                .collect();
            match cases.as_slice() {
                [_] => one(named(K::EnumMember, cases[0], src).map(|d| Def { node, ..d })),
                [first, ..] => shared(node, *first, &cases, K::EnumMember, src),
                [] => vec![Visit::Skip],
            }
        }
        "given_definition" => given(node, src, body),
        "extension_definition" => extension(node, src),
        "package_clause" => match body {
            Some(_) => vec![Visit::Descend],
            None => vec![Visit::Skip],
        },
        // A `package p { … }` block's body.
        "template_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

/// The names a pattern binds (`(a, b)`, `a, b`, `x @ Some(_)`), in order.
fn bound_names<'t>(pattern: Node<'t>, out: &mut Vec<Node<'t>>) {
    match pattern.kind() {
        "identifier" => out.push(pattern),
        "capture_pattern" => out.extend(field(pattern, "name")),
        "typed_pattern" => out.extend(field(pattern, "pattern")),
        "identifiers" | "tuple_pattern" => {
            let mut cursor = pattern.walk();
            for p in pattern.named_children(&mut cursor) {
                bound_names(p, out);
            }
        }
        _ => {}
    }
}

/// Several names of one declaration: each a symbol with the declaration's range and
/// a signature naming it alone, the declaration's head before its own text
/// (`case Blue`, `private val b`).
fn shared<'t>(
    decl: Node<'t>,
    first: Node<'t>,
    names: &[Node<'t>],
    kind: SymbolKind,
    src: &[u8],
) -> Vec<Visit<'t>> {
    let core = decl::core_start(decl);
    let head = &src[core..first.start_byte().max(core)];
    names
        .iter()
        .map(|&n| {
            // An enum case is named by its `name`; a pattern's name is itself.
            let name = field(n, "name").unwrap_or(n);
            let own = &src[n.start_byte()..n.end_byte()];
            let mut def = Def::new(kind, decl, name, src);
            def.signature = Some(signature(&[head, own].concat()));
            Visit::Symbol(Box::new(def))
        })
        .collect()
}

fn given<'t>(node: Node<'t>, src: &[u8], body: Option<Node<'t>>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let template = body.filter(|b| matches!(b.kind(), "template_body" | "with_template_body"));
    let conditional = field(node, "parameters").is_some()
        || field(node, "type_parameters").is_some()
        || child_of_kind(node, &["given_conditional"]).is_some();
    let kind = match (template, conditional) {
        (Some(_), _) => K::Object,
        (None, true) => K::Function,
        (None, false) => K::Property,
    };
    let def = match (field(node, "name"), field(node, "return_type")) {
        (Some(name), _) => Def::new(kind, node, name, src),
        (None, Some(ty)) => {
            let mut def = Def::new(kind, node, ty, src);
            def.name = anonymous_given(ty, src);
            def
        }
        (None, None) => return vec![Visit::Skip],
    };
    // `given Ord[Int] with …`: the signature ends before `with`.
    let mut cursor = node.walk();
    let with = node.children(&mut cursor).find(|c| c.kind() == "with");
    one(Some(def.body(template).sig_end(with.or(body))))
}

/// The name the compiler gives an anonymous given: `given_`, then the names in its
/// type joined by `_` (`given Ord[List[Int]]` is `given_Ord_List_Int`).
fn anonymous_given(ty: Node<'_>, src: &[u8]) -> String {
    let mut name = String::from("given");
    let mut cursor = ty.walk();
    'walk: loop {
        let at = cursor.node();
        if at.kind() == "type_identifier" {
            name.push('_');
            name.push_str(text(at, src));
        }
        if at.kind() != "type_identifier" && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() || cursor.node() == ty {
                break 'walk;
            }
        }
    }
    name
}

/// `extension (s: String) …`: its methods' name paths are under the extended type.
/// One method alone is that method, its range the whole extension (`extension (a:
/// A) def f = …` on one line, its Scaladoc above `extension`); several are the
/// children of an `Impl` of the type.
fn extension<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let ty = field(node, "parameters")
        .and_then(|p| child_of_kind(p, &["parameter"]))
        .and_then(|p| field(p, "type"));
    let Some(ty) = ty else {
        return vec![Visit::Skip];
    };
    let type_name = descendant(ty, &["type_identifier"]).map_or(text(ty, src), |n| text(n, src));
    let mut cursor = node.walk();
    let members: Vec<Node<'t>> = node
        .children_by_field_name("body", &mut cursor)
        .filter(|c| c.is_named())
        .collect();
    if let [member] = members[..]
        && let Some(Visit::Symbol(def)) = classify(member, src).pop()
    {
        let def = Def {
            kind: SymbolKind::Method,
            node,
            qualifier: Some(type_name.to_string()),
            ..*def
        };
        return vec![Visit::Symbol(Box::new(def))];
    }
    let mut def = Def::new(SymbolKind::Impl, node, ty, src).body(Some(node));
    def.name = format!("extension {}", signature(text(ty, src).as_bytes()));
    def.scope = Some(type_name.to_string());
    def.signature_end = members.first().map(|m| m.start_byte());
    vec![Visit::Symbol(Box::new(def))]
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn scala_templates_members_enums_givens_and_extensions() {
        check(
            Lang::Scala,
            r#"package a.b

import cats.syntax.all._

/** A doc. */
@deprecated("x", "1")
sealed abstract class Foo[A](val x: Int) extends Bar with Baz {
  def f(a: Int): Int = a + 1
  val (p, q) = (1, 2)
  private[this] var z = 3
  def abs: Int
  val d: Int
  type T = Int
  type U <: Int
  implicit def conv(x: Int): Foo = ???
}

object Foo {
  case class C(a: Int)
  case object O
  final implicit class Ops(val x: Int) extends AnyVal
}

trait Tr { self: Foo =>
  def g = 1
}

enum Color(val rgb: Int) derives Eq:
  case Red extends Color(1)
  case Green, Blue
  def isRed = this == Red
end Color

given intOrd: Ord[Int] with
  def compare(a: Int, b: Int) = 0

given Ord[String] = ???

/** Loud and quiet. */
extension (s: String)
  def shout: String = s.toUpperCase
  // Not a doc comment.
  def whisper = s

/** Twice. */
extension [A](xs: List[A]) def twice: List[A] = xs ++ xs

@annotation.transparentTrait trait Value extends Product:
  override def canEqual(that: Any) = true
  def /(that: Value): Value

object Main:
  @main def run(): Unit = println("hi")
  opaque type Id = Int
  inline val Max = 3
"#,
            expect![[r#"
                class Foo 6:0-16:1 name@7:22 | sealed abstract class Foo[A](val x: Int) extends Bar with Baz
                  method Foo/f 8:2-8:28 name@8:6 | def f(a: Int): Int
                  property Foo/p 9:2-9:21 name@9:7 | val p
                  property Foo/q 9:2-9:21 name@9:10 | val q
                  property Foo/z 10:2-10:25 name@10:20 | private[this] var z
                  method Foo/abs 11:2-11:14 name@11:6 | def abs: Int
                  property Foo/d 12:2-12:12 name@12:6 | val d: Int
                  type_alias Foo/T 13:2-13:14 name@13:7 | type T = Int
                  type_alias Foo/U 14:2-14:15 name@14:7 | type U <: Int
                  method Foo/conv 15:2-15:38 name@15:15 | implicit def conv(x: Int): Foo
                object Foo[1] 18:0-22:1 name@18:7 | object Foo
                  class Foo[1]/C 19:2-19:22 name@19:13 | case class C(a: Int)
                  object Foo[1]/O 20:2-20:15 name@20:14 | case object O
                  class Foo[1]/Ops 21:2-21:53 name@21:23 | final implicit class Ops(val x: Int) extends AnyVal
                trait Tr 24:0-26:1 name@24:6 | trait Tr
                  method Tr/g 25:2-25:11 name@25:6 | def g
                enum Color 28:0-32:9 name@28:5 | enum Color(val rgb: Int) derives Eq
                  enum_member Color/Red 29:2-29:27 name@29:7 | case Red extends Color(1)
                  enum_member Color/Green 30:2-30:18 name@30:7 | case Green
                  enum_member Color/Blue 30:2-30:18 name@30:14 | case Blue
                  method Color/isRed 31:2-31:25 name@31:6 | def isRed
                object intOrd 34:0-35:33 name@34:6 | given intOrd: Ord[Int]
                  method intOrd/compare 35:2-35:33 name@35:6 | def compare(a: Int, b: Int)
                property given_Ord_String 37:0-37:23 name@37:6 | given Ord[String]
                impl extension String 40:0-43:17 name@40:14 | extension (s: String)
                  method String/shout 41:2-41:35 name@41:6 | def shout: String
                  method String/whisper 43:2-43:17 name@43:6 | def whisper
                method List/twice 46:0-46:56 name@46:31 | extension [A](xs: List[A]) def twice: List[A]
                trait Value 48:0-50:27 name@48:35 | trait Value extends Product
                  method Value/canEqual 49:2-49:41 name@49:15 | override def canEqual(that: Any)
                  method Value// 50:2-50:27 name@50:6 | def /(that: Value): Value
                object Main 52:0-55:20 name@52:7 | object Main
                  method Main/run 53:2-53:39 name@53:12 | def run(): Unit
                  type_alias Main/Id 54:2-54:22 name@54:14 | opaque type Id = Int
                  property Main/Max 55:2-55:20 name@55:13 | inline val Max
            "#]],
        );
    }

    #[test]
    fn a_package_block_is_no_symbol_and_its_members_are_top_level() {
        check(
            Lang::Scala,
            "package a {\n  package b {\n    class C\n  }\n  object D\n}\n",
            expect![[r#"
                class C 3:4-3:11 name@3:10 | class C
                object D 5:2-5:10 name@5:9 | object D
            "#]],
        );
    }

    #[test]
    fn a_line_of_annotations_alone_is_an_attribute_line() {
        use super::annotations;
        assert!(annotations(b"@deprecated(\"use g()\", \"1\") @inline"));
        assert!(annotations(b"@throws[E](classOf[E])"));
        assert!(!annotations(b"@main def run(): Unit = ()"));
        assert!(!annotations(b"@transparentTrait trait T:"));
        assert!(!annotations(b"def f = 1"));
    }
}
