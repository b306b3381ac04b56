//! Go: `.go` files, tree-sitter-go, the declaration reader `go_items` and the lexer
//! `skeleton_go`.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, descendant, field, has_child, named, one, text},
    decl::{C_BLOCK, Comments, DocBlock},
    go_items, skeleton_go,
};

pub(super) const GO: Language = Language {
    name: "go",
    extensions: &["go"],
    lsp_id: "go",
    grammar: Some(|| tree_sitter_go::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: Some(|line| line.starts_with(b"//")),
        doc_block: DocBlock::No,
        quotes: b"\"`",
    },
    imports: &["import_declaration"],
    keywords: &["func", "type", "var", "const"],
    attribute: |_| false,
    probe: |site| {
        use SymbolKind as K;
        match (site.kind, site.parent) {
            (K::Field, _) => "LeanCtxProbe int",
            (_, Some(K::Interface)) => "LeanCtxProbe()",
            (K::Constant | K::Variable, _) if site.grouped => "LeanCtxProbe = 0",
            (K::Struct | K::Interface | K::TypeAlias, _) if site.grouped => "LeanCtxProbe int",
            _ => "func lean_ctx_probe() {}",
        }
    },
    declarations: Some(Reader::new(go_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: skeleton_go::skippable,
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_declaration" => one(named(K::Function, node, src).map(|d| d.sig_end(body))),
        "method_declaration" => one(named(K::Method, node, src).map(|d| {
            let receiver =
                field(node, "receiver").and_then(|r| descendant(r, &["type_identifier"]));
            Def {
                qualifier: receiver.map(|r| text(r, src).to_string()),
                ..d.sig_end(body)
            }
        })),
        "type_spec" | "type_alias" => {
            let ty = field(node, "type");
            let (kind, inner) = match ty.map(|t| t.kind()) {
                Some("struct_type") => (
                    K::Struct,
                    ty.and_then(|t| child_of_kind(t, &["field_declaration_list"])),
                ),
                Some("interface_type") => (K::Interface, ty),
                _ => (K::TypeAlias, None),
            };
            // `type X struct {...}` alone (no parentheses): the range includes `type`.
            let whole = node
                .parent()
                .filter(|p| p.kind() == "type_declaration" && !has_child(*p, "("));
            one(named(kind, node, src).map(|d| Def {
                node: whole.unwrap_or(node),
                ..d.body(inner).sig_end(inner)
            }))
        }
        "field_declaration" | "method_elem" | "const_spec" | "var_spec" => {
            let kind = match node.kind() {
                "field_declaration" => K::Field,
                "method_elem" => K::Method,
                "const_spec" => K::Constant,
                _ => K::Variable,
            };
            // `a, b int` declares several names.
            let mut cursor = node.walk();
            let names: Vec<Node<'t>> = node
                .children_by_field_name("name", &mut cursor)
                .filter(|n| n.is_named())
                .collect();
            // `var X int = 5` alone (no parentheses): the range includes `var`.
            let whole = node
                .parent()
                .filter(|p| matches!(p.kind(), "const_declaration" | "var_declaration"))
                .filter(|p| !has_child(*p, "("));
            names
                .into_iter()
                .map(|n| {
                    Visit::Symbol(Box::new(Def {
                        node: whole.unwrap_or(node),
                        ..Def::new(kind, node, n, src).sig_end(field(node, "value"))
                    }))
                })
                .collect()
        }
        "type_declaration" | "const_declaration" | "var_declaration" | "var_spec_list" => {
            vec![Visit::Descend]
        }
        _ => vec![Visit::Skip],
    }
}
