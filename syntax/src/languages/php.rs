//! PHP: `.php` and `.phtml` files, tree-sitter-php's PHP grammar (the one that reads
//! text around `<?php … ?>`); a declaration reader (`php_items`) and a skeleton
//! lexer of its own (`skeleton_php`), which the reader's tokens come from.
//!
//! Symbols are what universal-ctags' PHP parser calls them: namespaces (`Module`),
//! classes, interfaces, traits (`Trait`) and enums, their methods (`Constructor` for
//! `__construct`), properties (`Property`), class constants and enum cases
//! (`EnumMember`); top-level functions and `const`s. Decisions:
//!
//! - A property is named as declared, `$name` (ctags drops the `$`): so it does not
//!   collide with its getter `name()`, as it does not in PHP.
//! - `namespace A\B;` (without braces) is a symbol of its own line: the declarations
//!   after it are its namespace's, but not inside its node, so they stay at the top
//!   (`User`, not `A\B/User`). A braced `namespace A\B { … }` holds its members.
//! - A declaration of several names (`const A = 1, B = 2;`, `public $a, $b;`) is a
//!   symbol per name sharing the declaration's range, as Java's fields are.
//! - Properties a constructor promotes (`public function __construct(private int
//!   $id)`) are parameters, not symbols: a declaration inserted before one would land
//!   inside the parameter list.
//! - Functions declared inside `if` at the top (`if (!function_exists('x'))`, the
//!   polyfill idiom) are symbols; those in function bodies and anonymous classes are
//!   not.
//!
//! A range starts at the first `#[…]` attribute; the doc comment is the `/** */` block
//! directly above. `use` of a namespace is an import; `use` of a trait in a class is
//! not (it names what the class is made of).

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, named, one, signature},
    decl::{self, C_BLOCK, Comments, DocBlock},
    skeleton_php,
};

pub(super) const PHP: Language = Language {
    name: "php",
    extensions: &["php", "phtml"],
    lsp_id: "php",
    grammar: Some(|| tree_sitter_php::LANGUAGE_PHP.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"//", b"#"],
        block: Some(C_BLOCK),
        doc_line: None,
        doc_block: DocBlock::One,
        quotes: b"\"'",
    },
    imports: &["namespace_use_declaration"],
    keywords: &[
        "namespace",
        "function",
        "class",
        "interface",
        "trait",
        "enum",
        "case",
        "abstract",
        "final",
        "public",
        "private",
        "protected",
        "static",
        "readonly",
        "const",
        "var",
    ],
    // `#[Attr]`, and the `#` outside its brackets the harness sees of one.
    attribute: |t| t == b"#" || t.starts_with(b"#["),
    probe: |site| match site.parent {
        Some(SymbolKind::Interface) => "function leanCtxProbe();",
        _ => "function lean_ctx_probe() {}",
    },
    declarations: Some(Reader::new(crate::php_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: skeleton_php::skippable,
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "namespace_definition" => match field(node, "name") {
            Some(name) => one(Some(Def::new(K::Module, node, name, src).body(body))),
            // `namespace { … }`: the global namespace, its members at the top.
            None => vec![Visit::Descend],
        },
        "class_declaration"
        | "interface_declaration"
        | "trait_declaration"
        | "enum_declaration" => {
            let kind = match node.kind() {
                "class_declaration" => K::Class,
                "interface_declaration" => K::Interface,
                "trait_declaration" => K::Trait,
                _ => K::Enum,
            };
            one(named(kind, node, src).map(|d| d.body(body)))
        }
        "enum_case" => {
            one(named(K::EnumMember, node, src).map(|d| d.sig_end(field(node, "value"))))
        }
        "function_definition" | "method_declaration" => {
            one(named(K::Function, node, src).map(|d| {
                let kind = match (node.kind(), d.name.as_str()) {
                    ("function_definition", _) => K::Function,
                    (_, "__construct") => K::Constructor,
                    _ => K::Method,
                };
                // Without a body (abstract, an interface's) the signature ends with the
                // return type, not the `;`.
                let header = field(node, "return_type").or(field(node, "parameters"));
                Def {
                    kind,
                    signature_end: body.or(header).map(|n| match body {
                        Some(_) => n.start_byte(),
                        None => n.end_byte(),
                    }),
                    ..d
                }
            }))
        }
        "const_declaration" => {
            let mut cursor = node.walk();
            let names: Vec<(Node<'t>, Node<'t>)> = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "const_element")
                .filter_map(|c| Some((c, child_of_kind(c, &["name"])?)))
                .collect();
            several(K::Constant, node, names, src)
        }
        "property_declaration" => {
            let mut cursor = node.walk();
            let names: Vec<(Node<'t>, Node<'t>)> = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "property_element")
                .filter_map(|c| Some((c, field(c, "name")?)))
                .collect();
            several(K::Property, node, names, src)
        }
        // Functions declared conditionally, at the top or in a namespace.
        "if_statement" | "else_clause" | "else_if_clause" | "compound_statement"
        | "colon_block" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

/// A symbol per element of `decl` (`const A = 1, B = 2;`), `name` its name: each
/// shares the declaration's range, its signature names it alone (`public const B`).
fn several<'t>(
    kind: SymbolKind,
    decl: Node<'t>,
    elements: Vec<(Node<'t>, Node<'t>)>,
    src: &[u8],
) -> Vec<Visit<'t>> {
    let core = decl::core_start(decl);
    let head = elements.first().map_or(&src[core..core], |(first, _)| {
        &src[core..first.start_byte()]
    });
    elements
        .into_iter()
        .map(|(element, name)| {
            // The value is the element's last child when it has one (`= value`).
            let end = element
                .named_child(element.named_child_count().saturating_sub(1) as u32)
                .filter(|v| v.start_byte() > name.end_byte())
                .map_or(element.end_byte(), |v| v.start_byte());
            let own = &src[element.start_byte()..end];
            Visit::Symbol(Box::new(Def {
                signature: Some(signature(&[head, own].concat())),
                ..Def::new(kind, decl, name, src)
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn namespaces_classes_members_attributes_and_functions() {
        check(
            Lang::Php,
            r#"<?php
declare(strict_types=1);

namespace App\Models;

use Foo\Bar;

const TOP = 1;

/**
 * A user.
 */
#[Entity(table: 'users')]
#[Cached]
final class User extends Model implements Countable
{
    use HasFactory;

    /** The roles. */
    public const ROLE = 'a', OTHER = 'b';
    private static ?int $count = 0, $b;
    var $legacy;

    public function __construct(private readonly int $id) {}

    #[\ReturnTypeWillChange]
    abstract protected static function make(int $a = 1): static;
}

interface Shape
{
    public function area(): float;
}

trait Named { public $name; function name() {} }

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';
    const Wild = self::Spades;
    public function color(): string { return 'x'; }
}

function helper(int $a): int { return $a; }

if (!function_exists('polyfill')) {
    function polyfill() {}
}

namespace Other {
    class C { function m() { $anon = new class { function inner() {} }; } }
}
"#,
            expect![[r#"
                module App\Models 4:0-4:21 name@4:10 | namespace App\Models;
                constant TOP 8:0-8:14 name@8:6 | const TOP
                class User 13:0-28:1 name@15:12 | final class User extends Model implements Countable
                  constant User/ROLE 20:4-20:41 name@20:17 | public const ROLE
                  constant User/OTHER 20:4-20:41 name@20:29 | public const OTHER
                  property User/$count 21:4-21:39 name@21:24 | private static ?int $count
                  property User/$b 21:4-21:39 name@21:36 | private static ?int $b
                  property User/$legacy 22:4-22:16 name@22:8 | var $legacy
                  constructor User/__construct 24:4-24:60 name@24:20 | public function __construct(private readonly int $id)
                  method User/make 26:4-27:64 name@27:39 | abstract protected static function make(int $a = 1): static
                interface Shape 30:0-33:1 name@30:10 | interface Shape
                  method Shape/area 32:4-32:34 name@32:20 | public function area(): float
                trait Named 35:0-35:48 name@35:6 | trait Named
                  property Named/$name 35:14-35:27 name@35:21 | public $name
                  method Named/name 35:28-35:46 name@35:37 | function name()
                enum Suit 37:0-43:1 name@37:5 | enum Suit: string
                  enum_member Suit/Hearts 39:4-39:22 name@39:9 | case Hearts
                  enum_member Suit/Spades 40:4-40:22 name@40:9 | case Spades
                  constant Suit/Wild 41:4-41:30 name@41:10 | const Wild
                  method Suit/color 42:4-42:51 name@42:20 | public function color(): string
                function helper 45:0-45:43 name@45:9 | function helper(int $a): int
                function polyfill 48:4-48:26 name@48:13 | function polyfill()
                module Other 51:0-53:1 name@51:10 | namespace Other
                  class Other/C 52:4-52:75 name@52:10 | class C
                    method Other/C/m 52:14-52:73 name@52:23 | function m()
            "#]],
        );
    }
}
