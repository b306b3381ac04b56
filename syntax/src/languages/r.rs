//! R: `.R` and `.r` files, tree-sitter-r; a declaration reader (`r_items`), and a
//! skeleton lexer (`skeleton_r`: blocks and calls' arguments are never entered) for
//! the files it declines.
//!
//! R declares by assigning: a symbol is a top-level assignment to a name (`f <-
//! function(x) …`, `f = function(x) …`, `f <<- …`, the name also quoted or in
//! backticks: `` `%+%` <- … ``), a `Function` when the value is a `function`, else a
//! `Variable`, as universal-ctags' R parser has it (its `function` and `globalVar`).
//! Its range is the whole assignment, from the name: R has no declaration keyword.
//! Not symbols: assignments inside a function (locals) or a block, to a member
//! (`obj$f <- …`), rightward (`… -> f`); S4 (`setClass`, `setGeneric`) and R6
//! (`R6Class(…)`) classes, which are calls whose meaning is their package's; and
//! `library()`, a call, so there are no imports.
//!
//! The doc comment is the roxygen block directly above (`#'` lines); a plain `#`
//! comment is not one.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, one, text},
    decl::{Comments, DocBlock},
};

pub(super) const R: Language = Language {
    name: "r",
    extensions: &["R", "r"],
    lsp_id: "r",
    grammar: Some(|| tree_sitter_r::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"#"],
        block: None,
        doc_line: Some(|l| l.starts_with(b"#'")),
        doc_block: DocBlock::No,
        quotes: b"\"'`",
    },
    imports: &[],
    keywords: &[],
    attribute: |_| false,
    probe: |_| "lean_ctx_probe <- function() NULL",
    declarations: Some(Reader {
        read: crate::r_items::parse,
        // `` `%+%` ``: the name without its backticks, as `classify` names it.
        name: Some(|src, _, name| {
            Some(
                String::from_utf8_lossy(&src[name])
                    .trim_matches('`')
                    .to_string(),
            )
        }),
        own_start: None,
    }),
    skeleton: Some(SkeletonLexer {
        skippable: crate::skeleton_r::skippable,
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    if node.kind() != "binary_operator" {
        return vec![Visit::Skip];
    }
    let (Some(lhs), Some(op), Some(rhs)) = (
        field(node, "lhs"),
        field(node, "operator"),
        field(node, "rhs"),
    ) else {
        return vec![Visit::Skip];
    };
    if !matches!(op.kind(), "<-" | "<<-" | "=") {
        return vec![Visit::Skip];
    }
    let name = match lhs.kind() {
        "identifier" => Some(lhs),
        "string" => child_of_kind(lhs, &["string_content"]),
        _ => None,
    };
    one(name.map(|n| {
        let def = Def::new(SymbolKind::Variable, node, n, src);
        // `` `%+%` ``: the name without its backticks.
        let name = text(n, src).trim_matches('`').to_string();
        match field(rhs, "body").filter(|_| rhs.kind() == "function_definition") {
            // The signature: the name and the parameters (`f <- function(x)`).
            Some(body) => Def {
                kind: SymbolKind::Function,
                name,
                ..def.sig_end(Some(body))
            },
            None => Def {
                name,
                ..def.sig_end(Some(op))
            },
        }
    }))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn r_assignments_of_functions_and_values() {
        check(
            Lang::R,
            crate::skeleton_r::TRICKY,
            expect![[r#"
                function add 5:0-8:1 name@5:0 | add <- function(x, y = list(a = {1}))
                function sub 11:0-11:23 name@11:0 | sub = function(a)
                function quoted 12:0-12:27 name@12:1 | "quoted" <- function()
                function %+% 13:0-13:35 name@13:0 | `%+%` <- function(a, b)
                variable VERSION 14:0-14:39 name@14:0 | VERSION
                variable cache 15:0-15:19 name@15:0 | cache
                variable Counter 19:0-21:3 name@19:0 | Counter
                variable total 30:0-30:28 name@30:0 | total
                function lambda 31:0-31:20 name@31:0 | lambda <- \(x)
            "#]],
        );
    }
}
