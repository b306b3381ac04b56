//! OCaml: `.ml` files (implementations), tree-sitter-ocaml's `LANGUAGE_OCAML`; a
//! declaration reader (`ocaml_items`) and a skeleton lexer (`skeleton_ocaml`: `let`
//! bodies are never entered). Interfaces (`.mli`) need the grammar's other language,
//! `LANGUAGE_OCAML_INTERFACE`, and so would be a language of their own.
//!
//! The symbols are what universal-ctags' OCaml parser tags, at the top level and in
//! the structures, signatures and objects that hold them:
//!
//! - each binding of a `let` (`let rec f … and g …` declares two): a `Function` when
//!   it takes parameters or is a `fun`/`function`, else a `Variable`; `external`s are
//!   `Function`s. A pattern binding (`let () = …`, `let a, b = …`) names nothing;
//! - each binding of a `type`: a variant is an `Enum` with its constructors as
//!   `EnumMember`s (a record constructor's fields their `Field`s), a record a
//!   `Struct` with its `Field`s, anything else (an abbreviation, an abstract type) a
//!   `TypeAlias`;
//! - `exception`s are `Class`es (there is no kind for an extensible constructor; an
//!   exception is what other languages declare as a class);
//! - `module`s (functors too) are `Module`s, their structure their body; `module
//!   type`s are `Interface`s, their `val`s `Function`s (`Method`s, as an interface's
//!   are) or `Variable`s by their type, and so is a module declared by its
//!   signature alone (`module M : sig … end`, in a module type): it holds `val`s, not
//!   `let`s, and what is valid beside them differs; `class`es are `Class`es with their
//!   `method`s and instance variables (`val`, `Field`s).
//!
//! A binding after `and` starts at `and`, its keyword (as the first starts at
//! `let`): each binding of a group is replaced and inserted before on its own. Item
//! attributes (`[@@inline]`) follow what they annotate and are inside its node; a
//! floating one (`[@@@warning …]`) is an item of its own. The doc comment is the
//! `(** … *)` block directly above.

use tree_sitter::Node;

use super::{Language, ProbeSite, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, has_child, one, token},
    decl::{Block, Comments, DocBlock},
};

pub(super) const OCAML: Language = Language {
    name: "ocaml",
    extensions: &["ml"],
    lsp_id: "ocaml",
    grammar: Some(|| tree_sitter_ocaml::LANGUAGE_OCAML.into()),
    classify: |node, src, parent| classify(node, src, parent),
    sibling_attribute: None,
    comments: Comments {
        line: &[],
        block: Some(Block {
            open: b"(*",
            close: b"*)",
            doc: b"(**",
        }),
        doc_line: None,
        doc_block: DocBlock::One,
        // Not `'`: type variables (`'a`) and primes in names (`x'`) outnumber
        // character literals.
        quotes: b"\"",
    },
    imports: &["open_module"],
    keywords: &[
        "let",
        "rec",
        "nonrec",
        "and",
        "type",
        "module",
        "class",
        "exception",
        "external",
        "val",
        "method",
        "mutable",
        "virtual",
        "private",
    ],
    attribute: |_| false,
    probe,
    declarations: Some(Reader {
        read: crate::ocaml_items::parse,
        name: Some(|src, _, name| crate::ocaml_items::name(src, name)),
        own_start: None,
    }),
    skeleton: Some(SkeletonLexer {
        skippable: crate::skeleton_ocaml::skippable,
        mark: Some(crate::lex::parenthesize),
        // A misread `let` or `in` moves a body's end far from where an error shows
        // (`skeleton_ocaml.rs`).
        any_error: true,
    }),
};

/// Each probe is also valid before an `and` of its kind's group (`let a = 0 and b …`
/// reads as the probe's own group), so one per kind will do.
fn probe(site: ProbeSite) -> &'static str {
    use SymbolKind as K;
    match (site.kind, site.parent) {
        // Constructors and record fields: `| A`, `A`, `{ x : t;` and `x : t;` lines
        // take different punctuation before them.
        (_, Some(K::Enum | K::EnumMember | K::Struct)) => "(* lean-ctx probe *)",
        (_, Some(K::Class)) => "method lean_ctx_probe = 0",
        (K::Module, Some(K::Interface)) => "module LeanCtxProbe : sig end",
        (K::Module, _) => "module LeanCtxProbe = struct end",
        (K::Interface, _) => "module type LEAN_CTX_PROBE = sig end",
        (K::Enum | K::Struct | K::TypeAlias, _) => "type lean_ctx_probe = int",
        (K::Class, None | Some(K::Module)) => "class lean_ctx_probe = object end",
        (_, Some(K::Interface)) => "val lean_ctx_probe : int",
        _ => "let lean_ctx_probe = 0",
    }
}

/// What `node` declares; an operator named as `(+++)`, without the blanks `( * )`
/// needs.
fn classify<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    let mut visits = declaration(node, src, parent);
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit
            && def.name_node.kind() == "parenthesized_operator"
        {
            def.name.retain(|c| !c.is_whitespace());
        }
    }
    visits
}

fn declaration<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    match node.kind() {
        "value_definition" => group(node, src, "let_binding", |b| {
            let name = field(b, "pattern").and_then(value_name)?;
            let function = has_child(b, "parameter")
                || field(b, "body")
                    .is_some_and(|e| matches!(e.kind(), "fun_expression" | "function_expression"));
            let kind = if function { K::Function } else { K::Variable };
            Some((kind, name, None, token(b, &["="])))
        }),
        "type_definition" => group(node, src, "type_binding", |b| {
            let name = field(b, "name")?;
            let body = field(b, "body");
            let kind = match body.map(|b| b.kind()) {
                Some("variant_declaration") => K::Enum,
                Some("record_declaration") => K::Struct,
                _ => K::TypeAlias,
            };
            let members = body.filter(|_| kind != K::TypeAlias);
            Some((kind, name, members, token(b, &["=", "+="])))
        }),
        "module_definition" => group(node, src, "module_binding", |b| {
            let name = child_of_kind(b, &["module_name"])?;
            // `struct … end`, or a functor's.
            let structure = field(b, "body")
                .map(|e| match e.kind() {
                    "functor" => field(e, "body").unwrap_or(e),
                    _ => e,
                })
                .filter(|e| e.kind() == "structure");
            // Without one, a signature (`module M : sig … end` in a module type)
            // makes it an interface: what it holds are `val`s, not `let`s.
            let signature = field(b, "module_type").filter(|t| t.kind() == "signature");
            Some(match (structure, signature) {
                (None, Some(sig)) => (K::Interface, name, Some(sig), Some(sig)),
                _ => (K::Module, name, structure, token(b, &["="]).or(structure)),
            })
        }),
        "class_definition" => group(node, src, "class_binding", |b| {
            let name = child_of_kind(b, &["class_name"])?;
            let body = field(b, "body").filter(|e| e.kind() == "object_expression");
            Some((K::Class, name, body, token(b, &["="])))
        }),
        "module_type_definition" => {
            let body = field(node, "body").filter(|b| b.kind() == "signature");
            one(child_of_kind(node, &["module_type_name"])
                .map(|n| Def::new(K::Interface, node, n, src).body(body)))
        }
        "exception_definition" => one(child_of_kind(node, &["constructor_declaration"])
            .and_then(|c| child_of_kind(c, &["constructor_name"]))
            .map(|n| Def::new(K::Class, node, n, src))),
        "external" => one(declared_name(node)
            .map(|n| Def::new(K::Function, node, n, src).sig_end(token(node, &["="])))),
        "value_specification" => one(declared_name(node).map(|n| {
            let function = field(node, "type").is_some_and(|t| t.kind() == "function_type");
            let kind = if function { K::Function } else { K::Variable };
            Def::new(kind, node, n, src)
        })),
        "constructor_declaration" if parent == Some(K::Enum) => {
            let record = child_of_kind(node, &["record_declaration"]);
            one(child_of_kind(node, &["constructor_name"]).map(|n| {
                Def::new(K::EnumMember, node, n, src)
                    .body(record)
                    .sig_end(record)
            }))
        }
        "field_declaration" => {
            one(child_of_kind(node, &["field_name"]).map(|n| Def::new(K::Field, node, n, src)))
        }
        "method_definition" | "method_specification" => one(child_of_kind(node, &["method_name"])
            .map(|n| Def::new(K::Method, node, n, src).sig_end(token(node, &["="])))),
        "instance_variable_definition" => one(child_of_kind(node, &["instance_variable_name"])
            .map(|n| Def::new(K::Field, node, n, src).sig_end(token(node, &["="])))),
        _ => vec![Visit::Skip],
    }
}

/// What a binding of a group declares: its kind, name, members and where its
/// signature stops.
type Binding<'t> = (SymbolKind, Node<'t>, Option<Node<'t>>, Option<Node<'t>>);

/// The bindings of a `let`, `type`, `module` or `class` group, each a symbol from its
/// keyword (`let`, `type`, …, or `and`) to its end.
fn group<'t>(
    node: Node<'t>,
    src: &[u8],
    binding: &str,
    read: impl Fn(Node<'t>) -> Option<Binding<'t>>,
) -> Vec<Visit<'t>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    let mut keyword = None;
    for child in node.children(&mut cursor) {
        if child.kind() == "and" {
            keyword = Some(child.start_byte());
        }
        if child.kind() != binding {
            continue;
        }
        let Some((kind, name, body, head_end)) = read(child) else {
            continue;
        };
        let def = Def::new(kind, child, name, src).body(body);
        let def = Def {
            signature_end: head_end.or(body).map(|n| n.start_byte()),
            ..def
        };
        out.push(Visit::Symbol(Box::new(match keyword {
            Some(and) => Def {
                core: Some(and),
                ..def
            },
            // The first binding: from the group's keyword.
            None => Def {
                node,
                end: Some(child.end_byte()),
                ..def
            },
        })));
    }
    out
}

/// A value's name: `f`, or `( +++ )` (named `(+++)`: bare, an operator's `/` and
/// `.` would read as a name path's separators); none for another pattern.
fn value_name(node: Node<'_>) -> Option<Node<'_>> {
    matches!(node.kind(), "value_name" | "parenthesized_operator").then_some(node)
}

/// The name an `external` or a `val` declares.
fn declared_name(node: Node<'_>) -> Option<Node<'_>> {
    child_of_kind(node, &["value_name", "parenthesized_operator"]).and_then(value_name)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn an_open_is_an_import() {
        let src = "open Printf\nlet f = printf \"x\"\n";
        let imports = Lang::OCaml.imports(src.as_bytes());
        let at = src.find("open Printf").unwrap();
        assert_eq!(imports.len(), 1, "{imports:?}");
        assert_eq!(imports[0], at..at + "open Printf".len());
    }

    #[test]
    fn ocaml_bindings_types_modules_and_classes() {
        check(
            Lang::OCaml,
            r#"(** The file. *)
open Printf

(** The answer. *)
let answer = 42

let rec even n = n = 0 || odd (n - 1)
(** Odd. *)
and odd n = n <> 0 && even (n - 1)

let () = print_endline "hi"
let f : int -> int = fun x -> x
let ( +++ ) a b = a + b
let g x = x [@@inline]

(** A shape. *)
type shape =
  | Circle of float (** round *)
  | Rect of { w : float; h : float }
and point = { x : int; mutable y : int }

type t = int
exception Oops of string
external foo : int -> int = "caml_foo"

module M = struct
  let inner = 1
  module N = struct
    type u = A | B
  end
end

module type S = sig
  val x : int
  val f : int -> int
  type t
  module Word : sig
    val length : t -> int
  end
end

module F (X : S) : S = struct
  let x = X.x
  let f = X.f
  type t = int
end

module G = F (M)

class counter = object (self)
  val mutable n = 0
  method incr = n <- n + 1
  method get = n
end
"#,
            expect![[r#"
                variable answer 5:0-5:15 name@5:4 | let answer
                function even 7:0-7:37 name@7:8 | let rec even n
                function odd 9:0-9:34 name@9:4 | and odd n
                function f 12:0-12:31 name@12:4 | let f : int -> int
                function (+++) 13:0-13:23 name@13:4 | let ( +++ ) a b
                function g 14:0-14:22 name@14:4 | let g x
                enum shape 17:0-19:36 name@17:5 | type shape
                  enum_member shape/Circle 18:4-18:19 name@18:4 | Circle of float
                  enum_member shape/Rect 19:4-19:36 name@19:4 | Rect of
                    field shape/Rect/w 19:14-19:23 name@19:14 | w : float
                    field shape/Rect/h 19:25-19:34 name@19:25 | h : float
                struct point 20:0-20:40 name@20:4 | and point
                  field point/x 20:14-20:21 name@20:14 | x : int
                  field point/y 20:23-20:38 name@20:31 | mutable y : int
                type_alias t 22:0-22:12 name@22:5 | type t
                class Oops 23:0-23:24 name@23:10 | exception Oops of string
                function foo 24:0-24:38 name@24:9 | external foo : int -> int
                module M 26:0-31:3 name@26:7 | module M
                  variable M/inner 27:2-27:15 name@27:6 | let inner
                  module M/N 28:2-30:5 name@28:9 | module N
                    enum M/N/u 29:4-29:18 name@29:9 | type u
                      enum_member M/N/u/A 29:13-29:14 name@29:13 | A
                      enum_member M/N/u/B 29:17-29:18 name@29:17 | B
                interface S 33:0-40:3 name@33:12 | module type S
                  variable S/x 34:2-34:13 name@34:6 | val x : int
                  method S/f 35:2-35:20 name@35:6 | val f : int -> int
                  type_alias S/t 36:2-36:8 name@36:7 | type t
                  interface S/Word 37:2-39:5 name@37:9 | module Word
                    method S/Word/length 38:4-38:25 name@38:8 | val length : t -> int
                module F 42:0-46:3 name@42:7 | module F (X : S) : S
                  variable F/x 43:2-43:13 name@43:6 | let x
                  variable F/f 44:2-44:13 name@44:6 | let f
                  type_alias F/t 45:2-45:14 name@45:7 | type t
                module G 48:0-48:16 name@48:7 | module G
                class counter 50:0-54:3 name@50:6 | class counter
                  field counter/n 51:2-51:19 name@51:14 | val mutable n
                  method counter/incr 52:2-52:26 name@52:9 | method incr
                  method counter/get 53:2-53:16 name@53:9 | method get
            "#]],
        );
    }
}
