//! Swift: `.swift` files, tree-sitter-swift and the brace lexer (`skeleton_brace`:
//! type bodies entered, every other block skipped); no declaration reader.
//!
//! Symbols are the declarations of a file and of a type's body: classes, actors
//! (classes too), structs, enums and their cases, protocols (interfaces) and their
//! requirements, extensions, functions (methods inside a type), `init`s
//! (constructors), `deinit`, subscripts, properties (`let`/`var` in a type; at the
//! top, a `let` is a constant and a `var` a variable), type aliases and associated
//! types, macros; nothing inside a body, accessor or initializer.
//!
//! - An extension is an `Impl`, as a Rust `impl` block: named by its header
//!   (`extension Shape: Drawable`), its members' name paths under the extended type
//!   (`Shape/draw`; `extension Foo.Bar`'s under `Foo/Bar`).
//! - A function is named by its base name (`draw`, not `draw(in:)`): overloads are
//!   duplicates (`init`, `init[1]`), as Kotlin's and Java's are, so a plain name
//!   addresses them.
//! - Several names in one declaration (`case north, south`, `var a = 1, b = 2`,
//!   `let (x, y) = …`) share its range, each with a signature naming it alone.
//! - Operator and precedence group declarations are not symbols (they declare
//!   syntax, not code); `#if` blocks are transparent, their declarations listed.
//!
//! Attributes (`@objc`, `@available(…)`) are among the modifiers (`LEADING` in
//! `decl.rs` has `attribute`): the range starts at the first one, the signature at
//! the first modifier or keyword. The doc comment is the `///` lines or the `/** */`
//! block right above.

use tree_sitter::Node;

use super::{Language, SkeletonLexer, scala::annotations};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, named, one, signature, text},
    decl::{self, C_BLOCK, Comments, DocBlock},
    skeleton_brace::{self, Dialect},
};

pub(super) const SWIFT: Language = Language {
    name: "swift",
    extensions: &["swift"],
    lsp_id: "swift",
    grammar: Some(|| tree_sitter_swift::LANGUAGE.into()),
    classify,
    sibling_attribute: None,
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: Some(|l| l.starts_with(b"///")),
        doc_block: DocBlock::One,
        quotes: b"\"",
    },
    imports: &["import_declaration"],
    keywords: &[
        "func",
        "class",
        "struct",
        "enum",
        "protocol",
        "extension",
        "actor",
        "var",
        "let",
        "typealias",
        "associatedtype",
        "init",
        "deinit",
        "subscript",
        "case",
        "indirect",
        "macro",
        "public",
        "private",
        "fileprivate",
        "internal",
        "package",
        "open",
        "static",
        "final",
        "override",
        "mutating",
        "nonmutating",
        "convenience",
        "required",
        "lazy",
        "weak",
        "unowned",
        "dynamic",
        "optional",
        "nonisolated",
        "distributed",
        "prefix",
        "postfix",
        "infix",
        "consuming",
        "borrowing",
    ],
    attribute: annotations,
    probe: |site| match site.parent {
        // A protocol's requirements have no bodies.
        Some(SymbolKind::Interface) => "func leanCtxProbe()",
        _ => "func leanCtxProbe() {}",
    },
    declarations: None,
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Swift, src),
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    let function = if parent.is_some() {
        K::Method
    } else {
        K::Function
    };
    match node.kind() {
        "class_declaration" => type_declaration(node, src, body),
        "protocol_declaration" => one(named(K::Interface, node, src).map(|d| d.body(body))),
        "function_declaration" | "protocol_function_declaration" => {
            one(named(function, node, src).map(|d| d.sig_end(body)))
        }
        "init_declaration" => one(named(K::Constructor, node, src).map(|d| d.sig_end(body))),
        "deinit_declaration" | "subscript_declaration" => {
            let keyword = node
                .child(0)
                .filter(|c| c.kind() == "modifiers")
                .and_then(|m| m.next_sibling())
                .or(node.child(0));
            let value = body.or(child_of_kind(node, &["computed_property"]));
            one(keyword.map(|k| Def::new(K::Method, node, k, src).sig_end(value)))
        }
        "property_declaration" | "protocol_property_declaration" => {
            let binding = child_of_kind(node, &["value_binding_pattern"]);
            let kind = match (parent, binding.is_some_and(|b| text(b, src) == "let")) {
                (Some(_), _) => K::Property,
                (None, true) => K::Constant,
                (None, false) => K::Variable,
            };
            property(node, src, kind)
        }
        "enum_entry" => {
            let mut cursor = node.walk();
            let names: Vec<Node<'t>> = node.children_by_field_name("name", &mut cursor).collect();
            match names[..] {
                [name] => one(Some(Def::new(K::EnumMember, node, name, src))),
                // Each name with its raw value or associated values, up to a `,`.
                _ => shared(node, &names, K::EnumMember, src, |n| {
                    let mut end = n.end_byte();
                    let mut next = n.next_sibling();
                    while let Some(s) = next.filter(|s| s.kind() != ",") {
                        end = s.end_byte();
                        next = s.next_sibling();
                    }
                    n.start_byte()..end
                }),
            }
        }
        "typealias_declaration" | "associatedtype_declaration" => {
            one(named(K::TypeAlias, node, src))
        }
        "macro_declaration" => {
            one(child_of_kind(node, &["simple_identifier"])
                .map(|n| Def::new(K::Macro, node, n, src)))
        }
        _ => vec![Visit::Skip],
    }
}

/// `class`, `struct`, `enum`, `actor` and `extension`, one node kind in the grammar.
fn type_declaration<'t>(node: Node<'t>, src: &[u8], body: Option<Node<'t>>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let Some(name) = field(node, "name") else {
        return vec![Visit::Skip];
    };
    let kind = match field(node, "declaration_kind").map(|k| k.kind()) {
        Some("struct") => K::Struct,
        Some("enum") => K::Enum,
        Some("extension") => K::Impl,
        _ => K::Class,
    };
    let mut def = Def::new(kind, node, name, src).body(body);
    if kind == K::Impl {
        // `extension Foo.Bar<T>`: members under `Foo/Bar`.
        let mut cursor = name.walk();
        let path: Vec<&str> = name
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "type_identifier")
            .map(|c| text(c, src))
            .collect();
        let mut cursor = node.walk();
        let conformances: Vec<String> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "inheritance_specifier")
            .map(|c| signature(text(c, src).as_bytes()))
            .collect();
        def.name = format!("extension {}", signature(text(name, src).as_bytes()));
        if !conformances.is_empty() {
            def.name = format!("{}: {}", def.name, conformances.join(", "));
        }
        def.scope = Some(match path.is_empty() {
            true => text(name, src).to_string(),
            false => path.join("/"),
        });
    }
    vec![Visit::Symbol(Box::new(def))]
}

/// A `let` or `var`: one symbol per name it binds.
fn property<'t>(node: Node<'t>, src: &[u8], kind: SymbolKind) -> Vec<Visit<'t>> {
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for pattern in node.children_by_field_name("name", &mut cursor) {
        bound_names(pattern, &mut names);
    }
    if let [name] = names[..] {
        let mut cursor = node.walk();
        let value = node
            .children(&mut cursor)
            .find(|c| matches!(c.kind(), "=" | "computed_property" | "willset_didset_block"));
        return one(Some(Def::new(kind, node, name, src).sig_end(value)));
    }
    shared(node, &names, kind, src, |n| n.byte_range())
}

/// The names a pattern binds (`x`, `(x, y)`), in order.
fn bound_names<'t>(pattern: Node<'t>, out: &mut Vec<Node<'t>>) {
    if let Some(name) = field(pattern, "bound_identifier") {
        out.push(name);
        return;
    }
    let mut cursor = pattern.walk();
    for p in pattern.named_children(&mut cursor) {
        match p.kind() {
            "simple_identifier" => out.push(p),
            "pattern" => bound_names(p, out),
            _ => {}
        }
    }
}

/// Several names of one declaration: each a symbol with the declaration's range and
/// a signature naming it alone, the declaration's head before its own text
/// (`case south`, `private var b`); `own` is that text's range.
fn shared<'t>(
    decl: Node<'t>,
    names: &[Node<'t>],
    kind: SymbolKind,
    src: &[u8],
    own: impl Fn(Node<'t>) -> std::ops::Range<usize>,
) -> Vec<Visit<'t>> {
    let Some(first) = names.first() else {
        return vec![Visit::Skip];
    };
    let core = decl::core_start(decl);
    // The head ends where the first name's pattern starts (`let (x, y)`: at `(`).
    let mut head_end = first.start_byte();
    let mut up = first.parent();
    while let Some(p) = up.filter(|p| p.kind() == "pattern") {
        head_end = p.start_byte();
        up = p.parent();
    }
    let head = &src[core..head_end.max(core)];
    names
        .iter()
        .map(|&n| {
            let mut def = Def::new(kind, decl, n, src);
            def.signature = Some(signature(&[head, &src[own(n)]].concat()));
            Visit::Symbol(Box::new(def))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn swift_types_extensions_protocols_members_and_attributes() {
        check(
            Lang::Swift,
            r#"import Foundation
@_implementationOnly import Bar

/// A shape.
/// Second line.
@objc(EXShape)
public final class Shape: NSObject, Codable {
  public static let shared = Shape()
  private var a = 1, b = 2
  let (x, y) = (1, 2)
  var area: Double { return 0 }
  var name: String = "" {
    didSet { print(name) }
  }
  @objc
  public init(size: Int) { super.init() }
  convenience init?() { self.init(size: 0) }
  deinit { }
  override func draw(in rect: CGRect) -> Void {}
  subscript(index: Int) -> Int { get { 0 } set {} }
  static func == (lhs: Shape, rhs: Shape) -> Bool { true }
  class Inner {}
}

struct Point {
  var x: Int
  mutating func move() {}
}

enum Direction: String {
  case north = "n", south
  case east(Int)
  indirect case west(Direction)
  func flip() -> Direction { self }
}

protocol Drawable: AnyObject {
  associatedtype Canvas
  var size: Int { get set }
  func draw()
  init(x: Int)
}

extension Shape: Drawable where T: Equatable {
  func draw() {}
}

extension Foo.Bar {
  func baz() {}
}

actor Counter { var n = 0 }
typealias Callback = (Int) -> Void
func free<T>(_ t: T) throws -> T { t }
let globalConst = 1
var globalVar: Int = 2
#if DEBUG
func debugOnly() {}
#endif
precedencegroup P { associativity: left }
infix operator <+> : P
"#,
            expect![[r#"
                class Shape 6:0-23:1 name@7:19 | public final class Shape: NSObject, Codable
                  property Shape/shared 8:2-8:36 name@8:20 | public static let shared
                  property Shape/a 9:2-9:26 name@9:14 | private var a
                  property Shape/b 9:2-9:26 name@9:21 | private var b
                  property Shape/x 10:2-10:21 name@10:7 | let x
                  property Shape/y 10:2-10:21 name@10:10 | let y
                  property Shape/area 11:2-11:31 name@11:6 | var area: Double
                  property Shape/name 12:2-14:3 name@12:6 | var name: String
                  constructor Shape/init 15:2-16:41 name@16:9 | public init(size: Int)
                  constructor Shape/init[1] 17:2-17:44 name@17:14 | convenience init?()
                  method Shape/deinit 18:2-18:12 name@18:2 | deinit
                  method Shape/draw 19:2-19:48 name@19:16 | override func draw(in rect: CGRect) -> Void
                  method Shape/subscript 20:2-20:51 name@20:2 | subscript(index: Int) -> Int
                  method Shape/== 21:2-21:58 name@21:14 | static func == (lhs: Shape, rhs: Shape) -> Bool
                  class Shape/Inner 22:2-22:16 name@22:8 | class Inner
                struct Point 25:0-28:1 name@25:7 | struct Point
                  property Point/x 26:2-26:12 name@26:6 | var x: Int
                  method Point/move 27:2-27:25 name@27:16 | mutating func move()
                enum Direction 30:0-35:1 name@30:5 | enum Direction: String
                  enum_member Direction/north 31:2-31:25 name@31:7 | case north = "n"
                  enum_member Direction/south 31:2-31:25 name@31:20 | case south
                  enum_member Direction/east 32:2-32:16 name@32:7 | case east(Int)
                  enum_member Direction/west 33:2-33:31 name@33:16 | indirect case west(Direction)
                  method Direction/flip 34:2-34:35 name@34:7 | func flip() -> Direction
                interface Drawable 37:0-42:1 name@37:9 | protocol Drawable: AnyObject
                  type_alias Drawable/Canvas 38:2-38:23 name@38:17 | associatedtype Canvas
                  property Drawable/size 39:2-39:27 name@39:6 | var size: Int { get set }
                  method Drawable/draw 40:2-40:13 name@40:7 | func draw()
                  constructor Drawable/init 41:2-41:14 name@41:2 | init(x: Int)
                impl extension Shape: Drawable 44:0-46:1 name@44:10 | extension Shape: Drawable where T: Equatable
                  method Shape/draw[1] 45:2-45:16 name@45:7 | func draw()
                impl extension Foo.Bar 48:0-50:1 name@48:10 | extension Foo.Bar
                  method Foo/Bar/baz 49:2-49:15 name@49:7 | func baz()
                class Counter 52:0-52:27 name@52:6 | actor Counter
                  property Counter/n 52:16-52:25 name@52:20 | var n
                type_alias Callback 53:0-53:34 name@53:10 | typealias Callback = (Int) -> Void
                function free 54:0-54:38 name@54:5 | func free<T>(_ t: T) throws -> T
                constant globalConst 55:0-55:19 name@55:4 | let globalConst
                variable globalVar 56:0-56:22 name@56:4 | var globalVar: Int
                function debugOnly 58:0-58:19 name@58:5 | func debugOnly()
            "#]],
        );
    }
}
