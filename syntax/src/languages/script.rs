//! TypeScript (`.ts`, `.mts`, `.cts`), TSX (`.tsx`) and JavaScript (`.js`, `.mjs`,
//! `.cjs`, `.jsx`): three grammars, one `classify`, the declaration reader
//! `ts_items` and the brace lexer (`skeleton_brace`) in its script dialects.

use tree_sitter::Node;

use super::{Language, ProbeSite, Reader, SkeletonLexer, at_attribute};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, named, one, signature, text},
    decl,
    decl::{C_BLOCK, Comments, DocBlock},
    skeleton_brace::{self, Dialect},
    ts_items,
};

/// What the three share: comments and strings, keywords, the reader, the lexer.
const COMMENTS: Comments = Comments {
    line: &[b"//"],
    block: Some(C_BLOCK),
    doc_line: None,
    doc_block: DocBlock::One,
    quotes: b"\"'`",
};

const KEYWORDS: &[&str] = &[
    "export",
    "default",
    "declare",
    "abstract",
    "async",
    "function",
    "class",
    "interface",
    "type",
    "enum",
    "namespace",
    "module",
    "const",
    "let",
    "var",
    "static",
    "public",
    "private",
    "protected",
    "readonly",
    "override",
    "accessor",
];

fn probe(site: ProbeSite) -> &'static str {
    match (site.kind, site.parent) {
        (_, Some(SymbolKind::Interface)) => "lean_ctx_probe: number;",
        (SymbolKind::EnumMember, _) => "LeanCtxProbe,",
        (_, Some(SymbolKind::Class)) => "lean_ctx_probe = 0;",
        _ => "function lean_ctx_probe() {}",
    }
}

pub(super) const TYPESCRIPT: Language = Language {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    lsp_id: "typescript",
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["import_statement"],
    keywords: KEYWORDS,
    attribute: at_attribute,
    probe,
    declarations: Some(Reader::new(|src| {
        ts_items::parse(Dialect::Script { jsx: false }, true, src)
    })),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Script { jsx: false }, src),
        mark: None,
        any_error: false,
    }),
};

pub(super) const TSX: Language = Language {
    name: "tsx",
    extensions: &["tsx"],
    lsp_id: "typescriptreact",
    grammar: Some(|| tree_sitter_typescript::LANGUAGE_TSX.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["import_statement"],
    keywords: KEYWORDS,
    attribute: at_attribute,
    probe,
    declarations: Some(Reader::new(|src| {
        ts_items::parse(Dialect::Script { jsx: true }, true, src)
    })),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Script { jsx: true }, src),
        mark: None,
        any_error: false,
    }),
};

pub(super) const JAVASCRIPT: Language = Language {
    name: "javascript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    lsp_id: "javascript",
    grammar: Some(|| tree_sitter_javascript::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["import_statement"],
    keywords: KEYWORDS,
    attribute: at_attribute,
    probe,
    declarations: Some(Reader::new(|src| {
        ts_items::parse(Dialect::Script { jsx: true }, false, src)
    })),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_brace::skippable(Dialect::Script { jsx: true }, src),
        mark: None,
        any_error: false,
    }),
};

/// TypeScript, TSX and JavaScript share most node kinds. A declaration's range
/// takes in what wraps it: `export`/`export default` (and decorators before them),
/// `declare`, and the `const`/`let`/`var` of its declaration, which several names
/// share (`const a = 1, b = 2`: each name's range is the whole declaration, its
/// signature names it alone, `const b`, as Java's `int a, b;`).
fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let mut visits = script_kind(node, src);
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit {
            let own = def.node;
            def.node = wrapped(own);
            let decl = own.parent().filter(|p| {
                own.kind() == "variable_declarator" && {
                    let mut cursor = p.walk();
                    p.named_children(&mut cursor)
                        .filter(|c| c.kind() == "variable_declarator")
                        .count()
                        > 1
                }
            });
            if let Some(decl) = decl {
                let core = decl::core_start(def.node);
                // A tree recovered from a syntax error may put the first declarator
                // before the core.
                let first = child_of_kind(decl, &["variable_declarator"])
                    .map_or(core, |d| d.start_byte())
                    .max(core);
                let end = def
                    .signature_end
                    .unwrap_or(own.end_byte())
                    .max(own.start_byte());
                let mut sig = src[core..first].to_vec();
                sig.extend_from_slice(&src[own.start_byte()..end]);
                def.signature = Some(signature(&sig));
            }
        }
    }
    visits
}

fn wrapped(mut node: Node<'_>) -> Node<'_> {
    while let Some(parent) = node.parent() {
        if !matches!(
            parent.kind(),
            "export_statement"
                | "ambient_declaration"
                | "lexical_declaration"
                | "variable_declaration"
        ) {
            break;
        }
        node = parent;
    }
    node
}

fn script_kind<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            one(named(K::Function, node, src).map(|d| d.sig_end(body)))
        }
        "class_declaration" | "abstract_class_declaration" | "class" => {
            one(named(K::Class, node, src).map(|d| d.body(body)))
        }
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            one(named(K::Method, node, src).map(|d| {
                let kind = if d.name == "constructor" {
                    K::Constructor
                } else {
                    K::Method
                };
                Def {
                    kind,
                    ..d.sig_end(body)
                }
            }))
        }
        "public_field_definition" => {
            one(named(K::Field, node, src).map(|d| d.sig_end(field(node, "value"))))
        }
        "field_definition" => one(field(node, "property")
            .map(|n| Def::new(K::Field, node, n, src).sig_end(field(node, "value")))),
        "property_signature" => one(named(K::Property, node, src)),
        "interface_declaration" => one(named(K::Interface, node, src).map(|d| d.body(body))),
        "type_alias_declaration" => {
            one(named(K::TypeAlias, node, src).map(|d| d.sig_end(field(node, "value"))))
        }
        "enum_declaration" => one(named(K::Enum, node, src).map(|d| d.body(body))),
        "enum_assignment" => one(named(K::EnumMember, node, src)),
        "property_identifier" if node.parent().is_some_and(|p| p.kind() == "enum_body") => {
            vec![Visit::Symbol(Box::new(Def::new(
                K::EnumMember,
                node,
                node,
                src,
            )))]
        }
        "internal_module" | "module" => one(named(K::Module, node, src).map(|d| d.body(body))),
        "variable_declarator" => {
            let Some(name) = field(node, "name").filter(|n| n.kind() == "identifier") else {
                return vec![Visit::Skip];
            };
            let value = field(node, "value");
            let is_fn = value.is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function" | "generator_function"
                )
            });
            let is_const = node
                .parent()
                .and_then(|p| field(p, "kind"))
                .is_some_and(|k| text(k, src) == "const");
            let kind = match (is_fn, is_const) {
                (true, _) => K::Function,
                (false, true) => K::Constant,
                (false, false) => K::Variable,
            };
            let mut def = Def::new(kind, node, name, src);
            def.signature_end = if is_fn {
                value.and_then(|v| field(v, "body")).map(|b| b.start_byte())
            } else {
                value.map(|v| v.start_byte())
            };
            vec![Visit::Symbol(Box::new(def))]
        }
        "export_statement"
        | "lexical_declaration"
        | "variable_declaration"
        | "ambient_declaration"
        | "expression_statement"
        | "statement_block"
        | "class_body"
        | "interface_body"
        | "object_type"
        | "enum_body" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}
