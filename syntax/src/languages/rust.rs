//! Rust: `.rs` files, tree-sitter-rust, the declaration reader `rust_items` over the
//! Rust lexer (`skeleton_rust`), which also finds the skeleton.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, descendant, field, named, one, signature, text},
    decl::{C_BLOCK, Comments, DocBlock},
    rust_items,
    skeleton_rust::RustLexer,
};

pub(super) const RUST: Language = Language {
    name: "rust",
    extensions: &["rs"],
    lsp_id: "rust",
    grammar: Some(|| tree_sitter_rust::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: Some("attribute_item"),
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: Some(|line| line.starts_with(b"///") && !line.starts_with(b"////")),
        doc_block: DocBlock::Stacked,
        quotes: b"\"",
    },
    imports: &["use_declaration", "extern_crate_declaration"],
    keywords: &[
        "pub",
        "fn",
        "struct",
        "enum",
        "union",
        "trait",
        "impl",
        "mod",
        "const",
        "static",
        "type",
        "unsafe",
        "async",
        "extern",
        "macro_rules",
    ],
    attribute: |t| t == b"#" || (t.starts_with(b"#[") && t.ends_with(b"]")),
    probe: |site| match site.kind {
        SymbolKind::Field => "lean_ctx_probe: u8,",
        SymbolKind::EnumMember => "LeanCtxProbe,",
        _ => "fn lean_ctx_probe() {}",
    },
    declarations: Some(Reader::new(rust_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: |src| RustLexer::new(src, true).skippable(),
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_item" | "function_signature_item" => {
            one(named(K::Function, node, src).map(|d| d.sig_end(body)))
        }
        "struct_item" => one(named(K::Struct, node, src).map(|d| d.body(body))),
        "union_item" => one(named(K::Union, node, src).map(|d| d.body(body))),
        "enum_item" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "trait_item" => one(named(K::Trait, node, src).map(|d| d.body(body))),
        "mod_item" => one(named(K::Module, node, src).map(|d| d.body(body))),
        "field_declaration" => one(named(K::Field, node, src)),
        "enum_variant" => one(named(K::EnumMember, node, src)),
        "const_item" => one(named(K::Constant, node, src).map(|d| d.sig_end(field(node, "value")))),
        "static_item" => one(named(K::Static, node, src).map(|d| d.sig_end(field(node, "value")))),
        "type_item" | "associated_type" => one(named(K::TypeAlias, node, src)),
        "macro_definition" => one(named(K::Macro, node, src).map(|d| {
            let end = d.name_node;
            Def {
                signature_end: Some(end.end_byte()),
                ..d
            }
        })),
        "impl_item" => {
            let Some(ty) = field(node, "type") else {
                return vec![Visit::Skip];
            };
            let type_name = descendant(ty, &["type_identifier", "primitive_type"])
                .map_or_else(|| text(ty, src), |n| text(n, src));
            let header = match field(node, "trait") {
                Some(tr) => format!(
                    "impl {} for {}",
                    signature(text(tr, src).as_bytes()),
                    signature(text(ty, src).as_bytes())
                ),
                None => format!("impl {}", signature(text(ty, src).as_bytes())),
            };
            let mut def = Def::new(K::Impl, node, ty, src).body(body);
            def.name = header;
            def.scope = Some(type_name.to_string());
            vec![Visit::Symbol(Box::new(def))]
        }
        "declaration_list" | "foreign_mod_item" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}
