//! Java: `.java` files, tree-sitter-java, the declaration reader `java_items` over
//! the brace lexer (`skeleton_brace`), which also finds the skeleton.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer, at_attribute};
use crate::{
    SymbolKind,
    classify::{Def, Visit, field, named, one, signature},
    decl,
    decl::{C_BLOCK, Comments, DocBlock},
    java_items,
    skeleton_brace::{self, Dialect},
};

pub(super) const JAVA: Language = Language {
    name: "java",
    extensions: &["java"],
    lsp_id: "java",
    grammar: Some(|| tree_sitter_java::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"//"],
        block: Some(C_BLOCK),
        doc_line: None,
        doc_block: DocBlock::One,
        quotes: b"\"'",
    },
    imports: &["import_declaration"],
    keywords: &[
        "public",
        "private",
        "protected",
        "static",
        "final",
        "abstract",
        "class",
        "interface",
        "enum",
        "record",
        "synchronized",
        "native",
        "transient",
        "volatile",
        "strictfp",
        "sealed",
    ],
    attribute: at_attribute,
    probe: |site| match (site.kind, site.parent) {
        (SymbolKind::EnumMember, _) => "LEAN_CTX_PROBE,",
        (_, None) => "class LeanCtxProbe {}",
        _ => "int leanCtxProbe();",
    },
    declarations: Some(Reader::new(java_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Java, src),
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "class_declaration" | "record_declaration" => {
            one(named(K::Class, node, src).map(|d| d.body(body)))
        }
        "interface_declaration" | "annotation_type_declaration" => {
            one(named(K::Interface, node, src).map(|d| d.body(body)))
        }
        "enum_declaration" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "enum_constant" => one(named(K::EnumMember, node, src)),
        "method_declaration" | "annotation_type_element_declaration" => {
            one(named(K::Method, node, src).map(|d| d.sig_end(body)))
        }
        "constructor_declaration" | "compact_constructor_declaration" => {
            one(named(K::Constructor, node, src).map(|d| d.sig_end(body)))
        }
        "variable_declarator" => one(named(K::Field, node, src).map(|d| {
            // `int a = 1, b = 2;`: the range is the whole declaration, the signature
            // names this declarator only: `private static int b`.
            let decl = node.parent().unwrap_or(node);
            let core = decl::core_start(decl);
            let head =
                &src[core..field(decl, "declarator").map_or(core, |first| first.start_byte())];
            let end = field(node, "value").map_or(node.end_byte(), |v| v.start_byte());
            let mut sig = head.to_vec();
            sig.extend_from_slice(&src[node.start_byte()..end]);
            Def {
                node: decl,
                signature: Some(signature(&sig)),
                ..d
            }
        })),
        "field_declaration"
        | "constant_declaration"
        | "class_body"
        | "interface_body"
        | "enum_body_declarations"
        | "annotation_type_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}
