//! Bash: `.sh` and `.bash` files, tree-sitter-bash; a declaration reader
//! (`bash_items`) on the marks of its skeleton lexer (`skeleton_bash`: function
//! bodies, loops, groups, comments).
//!
//! Symbols are functions (`Function`), in both forms (`f() { … }`, `function f { … }`,
//! with any compound command as body): what universal-ctags' Sh parser calls them.
//! Decisions:
//!
//! - A function defined in another's body is its child (`outer/inner`): it exists
//!   only once the outer one ran, but is then as global as any, and scripts define
//!   their helpers so.
//! - Functions defined inside `if`/`elif`/`else` (a fallback when a command is
//!   missing) are symbols of the level the `if` is at; those in loops, `case` arms
//!   and pipelines are not.
//! - Variables are not symbols: an assignment at the top is as often a setting
//!   changed further down as a declaration, and ctags does not list them either.
//!
//! Doc comments are the `#` lines directly above; the shebang never is one. Shell has
//! no attributes and no static imports (`source` is a command).

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Visit, field, named, one},
    decl::{Comments, DocBlock},
    skeleton_bash,
};

pub(super) const BASH: Language = Language {
    name: "bash",
    extensions: &["sh", "bash"],
    lsp_id: "shellscript",
    grammar: Some(|| tree_sitter_bash::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"#"],
        block: None,
        doc_line: Some(|l| l.starts_with(b"#") && !l.starts_with(b"#!")),
        doc_block: DocBlock::No,
        quotes: b"\"'",
    },
    imports: &[],
    keywords: &["function"],
    attribute: |_| false,
    probe: |_| "lean_ctx_probe() { :; }",
    declarations: Some(Reader::new(crate::bash_items::parse)),
    // A misread reserved word moves a `}` or `done` anywhere: any error may be the
    // lexer's.
    skeleton: Some(SkeletonLexer {
        skippable: skeleton_bash::skippable,
        mark: None,
        any_error: true,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    match node.kind() {
        "function_definition" => {
            let body = field(node, "body");
            // Only a `{ … }` body holds statements to look for functions in.
            let members = body.filter(|b| b.kind() == "compound_statement");
            one(named(SymbolKind::Function, node, src).map(|d| d.sig_end(body).body(members)))
        }
        "if_statement" | "elif_clause" | "else_clause" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn functions_in_both_forms_nested_and_conditional() {
        check(
            Lang::Bash,
            r#"#!/bin/bash
# Prints usage.
usage() {
    echo "usage: $0 # not a comment"
}

# Installs.
# shellcheck disable=SC2034
function install {
    local dest=$1
    helper() { :; }
    helper
}

function in_subshell() ( cd /tmp && ls )

VERSION=1.0
readonly PREFIX=/usr

if ! command -v realpath >/dev/null; then
    realpath() { readlink -f "$1"; }
else
    :
fi

for f in a b; do
    looped() { :; }
done
"#,
            expect![[r#"
                function usage 3:0-5:1 name@3:0 | usage()
                function install 9:0-13:1 name@9:9 | function install
                  function install/helper 11:4-11:19 name@11:4 | helper()
                function in_subshell 15:0-15:40 name@15:9 | function in_subshell()
                function realpath 21:4-21:36 name@21:4 | realpath()
            "#]],
        );
    }
}
