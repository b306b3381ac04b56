//! Lua: `.lua` files, tree-sitter-lua; a declaration reader (`lua_items`) and,
//! where it declines, a skeleton lexer (`skeleton_lua`: function bodies and table
//! constructors are never entered).
//!
//! Symbols are functions, as universal-ctags' Lua parser has them: `function f`,
//! `local function f`, `function a.b.f` and `function a.b:m` (a `Method`: it takes
//! `self`), and a function assigned to one name (`M.f = function … end`, `local f =
//! function … end`). Decisions:
//!
//! - `function a.b:m` is named `m`, its name path `a/b/m`: the table it is stored in
//!   is its qualifier (as a Go method's receiver is), though the table itself is no
//!   symbol (a module table is an ordinary `local M = {}`).
//! - Variables and table fields holding anything but a function are not symbols:
//!   top-level `local`s are mostly `require`s and cached globals (`local pairs =
//!   pairs`). Functions inside function bodies are locals; those inside `do … end`
//!   and `if` at the top (private scopes, fallbacks) are symbols.
//!
//! Doc comments are the `--` lines directly above (LDoc's `---` and its `--`
//! continuations), not a `--]]` closing a block comment; `--[[ … ]]` blocks are not
//! doc comments. Lua has no attributes above a declaration and `require` is a call,
//! so no imports.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, one, text},
    decl::{Block, Comments, DocBlock},
};

pub(super) const LUA: Language = Language {
    name: "lua",
    extensions: &["lua"],
    lsp_id: "lua",
    grammar: Some(|| tree_sitter_lua::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"--"],
        block: Some(Block {
            open: b"--[[",
            close: b"]]",
            doc: b"--[[",
        }),
        doc_line: Some(|l| l.starts_with(b"--") && !l.starts_with(b"--]")),
        doc_block: DocBlock::No,
        quotes: b"\"'",
    },
    imports: &[],
    keywords: &["local", "function"],
    attribute: |_| false,
    probe: |_| "local function lean_ctx_probe() end",
    declarations: Some(Reader::new(crate::lua_items::parse)),
    skeleton: Some(SkeletonLexer {
        skippable: crate::skeleton_lua::skippable,
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    match node.kind() {
        "function_declaration" => one(field(node, "name").and_then(|name| {
            let (name, qualifier, kind) = match name.kind() {
                "identifier" => (name, None, SymbolKind::Function),
                "dot_index_expression" => (
                    field(name, "field")?,
                    Some(field(name, "table")?),
                    SymbolKind::Function,
                ),
                "method_index_expression" => (
                    field(name, "method")?,
                    Some(field(name, "table")?),
                    SymbolKind::Method,
                ),
                _ => return None,
            };
            function(kind, node, name, qualifier, node, src)
        })),
        "variable_declaration" => {
            one(child_of_kind(node, &["assignment_statement"]).and_then(|a| assigned(node, a, src)))
        }
        "assignment_statement" => one(assigned(node, node, src)),
        "do_statement" | "if_statement" | "elseif_statement" | "else_statement" | "block" => {
            vec![Visit::Descend]
        }
        _ => vec![Visit::Skip],
    }
}

/// A function named `name`, stored in the table `qualifier` (`a.b` of `a.b.f`), its
/// signature ending with the parameters of `function`.
fn function<'t>(
    kind: SymbolKind,
    node: Node<'t>,
    name: Node<'t>,
    qualifier: Option<Node<'t>>,
    function: Node<'t>,
    src: &[u8],
) -> Option<Def<'t>> {
    // A table named by a path of names (`a.b`), not an expression (`f().x`).
    let qualifier = match qualifier.map(|q| text(q, src)) {
        Some(q)
            if q.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') =>
        {
            Some(q.replace('.', "/"))
        }
        Some(_) => return None,
        None => None,
    };
    let header = field(function, "parameters").unwrap_or(name);
    Some(Def {
        qualifier,
        signature_end: Some(header.end_byte()),
        ..Def::new(kind, node, name, src)
    })
}

/// `name = function … end` (`assign`, in `node`, a `local` declaration or the
/// assignment itself): one name, one function.
fn assigned<'t>(node: Node<'t>, assign: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let names = child_of_kind(assign, &["variable_list"])?;
    let values = child_of_kind(assign, &["expression_list"])?;
    if names.named_child_count() != 1 || values.named_child_count() != 1 {
        return None;
    }
    let (name, value) = (names.named_child(0)?, values.named_child(0)?);
    if value.kind() != "function_definition" {
        return None;
    }
    match name.kind() {
        "identifier" => function(SymbolKind::Function, node, name, None, value, src),
        "dot_index_expression" => function(
            SymbolKind::Function,
            node,
            field(name, "field")?,
            Some(field(name, "table")?),
            value,
            src,
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn functions_methods_module_tables_and_doc_comments() {
        check(
            Lang::Lua,
            r#"--- A module.
-- @module util
local M = {}
local pairs = pairs
M.VERSION = "1.0"

--- Adds two numbers.
-- @param a a number
function M.add(a, b) return a + b end

function M.sub.deep:method(x)
  local function inner() end
  return x
end

local function helper() end
M.scale = function(x) return x * 2 end
local twice = function(x) return x end
function global() end
M["key"] = function() end
local a, b = function() end, function() end

--[[
  Not a doc comment.
--]]
do
  local function private() end
end

if not table.unpack then
  function table.unpack(t) return unpack(t) end
end

return M
"#,
            expect![[r#"
                function M/add 9:0-9:37 name@9:11 | function M.add(a, b)
                method M/sub/deep/method 11:0-14:3 name@11:20 | function M.sub.deep:method(x)
                function helper 16:0-16:27 name@16:15 | local function helper()
                function M/scale 17:0-17:38 name@17:2 | M.scale = function(x)
                function twice 18:0-18:38 name@18:6 | local twice = function(x)
                function global 19:0-19:21 name@19:9 | function global()
                function private 27:2-27:30 name@27:17 | local function private()
                function table/unpack 31:2-31:47 name@31:17 | function table.unpack(t)
            "#]],
        );
    }
}
