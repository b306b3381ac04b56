//! Kotlin: `.kt` and `.kts` files, tree-sitter-kotlin-ng and the brace lexer
//! (`skeleton_brace`) for the skeleton; no declaration reader yet.

use tree_sitter::Node;

use super::{Language, SkeletonLexer, at_attribute};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, has_child, named, one, text},
    decl::{C_BLOCK, Comments, DocBlock},
    skeleton_brace::{self, Dialect},
};

pub(super) const KOTLIN: Language = Language {
    name: "kotlin",
    extensions: &["kt", "kts"],
    lsp_id: "kotlin",
    grammar: Some(|| tree_sitter_kotlin_ng::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    // An annotation the grammar reads as an expression after a function.
    sibling_attribute: Some("annotated_expression"),
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: None,
        doc_block: DocBlock::One,
        quotes: b"\"'",
    },
    imports: &["import"],
    keywords: &[
        "fun",
        "class",
        "object",
        "interface",
        "val",
        "var",
        "data",
        "enum",
        "sealed",
        "open",
        "abstract",
        "override",
        "private",
        "public",
        "internal",
        "protected",
        "companion",
        "inline",
        "suspend",
        "const",
        "lateinit",
        "typealias",
        "inner",
        "value",
        "operator",
        "infix",
        "tailrec",
        "external",
        "actual",
        "expect",
    ],
    attribute: at_attribute,
    probe: |site| match site.kind {
        SymbolKind::EnumMember => "LEAN_CTX_PROBE,",
        _ => "fun leanCtxProbe() {}",
    },
    declarations: None,
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Kotlin, src),
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = child_of_kind(node, &["class_body", "enum_class_body"]);
    let has_token = |token: &str| has_child(node, token);
    match node.kind() {
        "class_declaration" => {
            let is_enum = child_of_kind(node, &["modifiers"])
                .is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "enum"));
            let kind = if has_token("interface") {
                K::Interface
            } else if is_enum {
                K::Enum
            } else {
                K::Class
            };
            one(named(kind, node, src).map(|d| d.body(body)))
        }
        "object_declaration" => one(named(K::Object, node, src).map(|d| d.body(body))),
        "companion_object" => one(match field(node, "name") {
            Some(n) => Some(Def::new(K::Object, node, n, src).body(body)),
            None => {
                let mut d = Def::new(K::Object, node, node, src).body(body);
                d.name = "Companion".into();
                Some(d)
            }
        }),
        "function_declaration" => one(named(K::Function, node, src)
            .map(|d| d.sig_end(child_of_kind(node, &["function_body"])))),
        "secondary_constructor" => {
            let mut d =
                Def::new(K::Constructor, node, node, src).sig_end(child_of_kind(node, &["block"]));
            d.name = "constructor".into();
            vec![Visit::Symbol(Box::new(d))]
        }
        "property_declaration" => {
            let name = child_of_kind(node, &["variable_declaration"])
                .and_then(|v| child_of_kind(v, &["identifier"]));
            let mut cursor = node.walk();
            let value = node
                .children(&mut cursor)
                .find(|c| matches!(c.kind(), "=" | "property_delegate"));
            one(name.map(|n| Def::new(K::Property, node, n, src).sig_end(value)))
        }
        "enum_entry" => {
            one(child_of_kind(node, &["identifier"]).map(|n| Def::new(K::EnumMember, node, n, src)))
        }
        "type_alias" => one(child_of_kind(node, &["identifier", "type_identifier"])
            .map(|n| Def::new(K::TypeAlias, node, n, src))),
        "class_body" | "enum_class_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}
