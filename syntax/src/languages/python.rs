//! Python: `.py` and `.pyi` files, tree-sitter-python, the declaration reader
//! `python_items` and the indentation lexer `skeleton_python`.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer, at_attribute};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, named, one, text},
    decl::{Comments, DocBlock},
    python_items, skeleton_python,
};

pub(super) const PYTHON: Language = Language {
    name: "python",
    extensions: &["py", "pyi"],
    lsp_id: "python",
    grammar: Some(|| tree_sitter_python::LANGUAGE.into()),
    classify,
    sibling_attribute: None,
    comments: Comments {
        line: &[b"#"],
        block: None,
        doc_line: None,
        doc_block: DocBlock::No,
        quotes: b"\"'`",
    },
    imports: &[
        "import_statement",
        "import_from_statement",
        "future_import_statement",
    ],
    keywords: &["def", "class", "async"],
    attribute: at_attribute,
    probe: |_| "def lean_ctx_probe(): pass",
    declarations: Some(Reader::new(python_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: skeleton_python::skippable,
        mark: Some(skeleton_python::mark),
        any_error: true,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    // A decorated definition's range starts at its first decorator.
    let decorated = |d: Def<'t>| Def {
        node: node
            .parent()
            .filter(|p| p.kind() == "decorated_definition")
            .unwrap_or(node),
        ..d
    };
    match node.kind() {
        "function_definition" => {
            one(named(K::Function, node, src).map(|d| decorated(d.sig_end(body))))
        }
        "class_definition" => one(named(K::Class, node, src).map(|d| decorated(d.body(body)))),
        "decorated_definition" => vec![Visit::Descend],
        // `NAME = value` at module or class level.
        "expression_statement" => {
            let Some(assign) = child_of_kind(node, &["assignment"]) else {
                return vec![Visit::Skip];
            };
            let Some(left) = field(assign, "left").filter(|l| l.kind() == "identifier") else {
                return vec![Visit::Skip];
            };
            let name = text(left, src);
            let kind = match parent {
                Some(K::Class) => K::Field,
                _ if name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()) =>
                {
                    K::Constant
                }
                _ => K::Variable,
            };
            let mut def = Def::new(kind, assign, left, src);
            def.signature_end = field(assign, "right").map(|r| r.start_byte());
            vec![Visit::Symbol(Box::new(def))]
        }
        _ => vec![Visit::Skip],
    }
}
