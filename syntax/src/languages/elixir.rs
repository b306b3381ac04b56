//! Elixir: `.ex` and `.exs` files, tree-sitter-elixir; no declaration reader, a
//! skeleton lexer (`skeleton_elixir`: function bodies are never entered).
//!
//! Elixir declares with macros, so the grammar sees calls: a symbol is a call of a
//! defining macro at the top of a file or in a module's `do` block. Modules
//! (`defmodule`), protocols (`defprotocol`, interfaces), implementations (`defimpl`,
//! `Impl`), functions (`def`, `defp`, `defdelegate`), macros (`defmacro`,
//! `defmacrop`, and `defguard`, `defguardp`, which define macros), the module's
//! struct (`defstruct`, `defexception`: named `__struct__`, the function they
//! define) and types (`@type`, `@typep`, `@opaque`); nothing inside a function, nor
//! in a `quote` or an `if`.
//!
//! - A module's dotted name is a path: `defmodule MyApp.User` is `User` under
//!   `MyApp` (`MyApp/User`), and a module nested in it `MyApp/User/Nested`, the
//!   module `MyApp.User.Nested` Elixir defines. `defimpl Size, for: List` defines
//!   `Size.List`, so it is `List` under `Size`.
//! - Each clause of a multi-clause function is a symbol of its own (`fact`,
//!   `fact[1]`), as Rust's duplicates are: each is edited on its own.
//! - `@doc`, `@spec`, `@impl`, `@deprecated` (and `@derive`, `@enforce_keys` above
//!   `defstruct`) directly above a declaration
//!   (blank lines and comments between them aside) are its attributes, in its range:
//!   siblings the grammar leaves before the call. Another module attribute
//!   (`@moduledoc`, `@compile`, `@max 10`) is the module's, not the declaration's
//!   below it.
//! - A type keeps no attributes (`@typedoc` is not one): its own text starts with
//!   `@`, which a replacement reads as bringing attributes (`edit.rs`), so a type's
//!   `@typedoc` would be lost replacing the type alone. For the same reason callbacks
//!   (`@callback`), which `@doc` documents, are not symbols.
//! - `import`, `alias`, `require` and `use` are calls too: not imports in the
//!   `imports` sense (a node kind), since a call's kind does not say which it is.
//!
//! There are no doc comments: docs are the `@doc` attributes, in the range.

use tree_sitter::Node;

use super::{Language, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, field, one, text},
    decl::{Comments, DocBlock},
};

pub(super) const ELIXIR: Language = Language {
    name: "elixir",
    extensions: &["ex", "exs"],
    lsp_id: "elixir",
    grammar: Some(|| tree_sitter_elixir::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"#"],
        block: None,
        doc_line: None,
        doc_block: DocBlock::No,
        quotes: b"\"'",
    },
    imports: &[],
    keywords: &[
        "def",
        "defp",
        "defmacro",
        "defmacrop",
        "defguard",
        "defguardp",
        "defdelegate",
        "defmodule",
        "defprotocol",
        "defimpl",
        "defstruct",
        "defexception",
    ],
    attribute: |line| {
        line.strip_prefix(b"@").is_some_and(|rest| {
            let name = rest
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .map_or(rest, |end| &rest[..end]);
            ATTRIBUTES.iter().any(|a| a.as_bytes() == name)
        })
    },
    probe: |site| match site.parent {
        None => "defmodule LeanCtxProbe, do: nil",
        // A protocol's functions have no bodies.
        Some(SymbolKind::Interface) => "def lean_ctx_probe(x)",
        Some(_) => "def lean_ctx_probe, do: nil",
    },
    declarations: None,
    skeleton: Some(SkeletonLexer {
        skippable: crate::skeleton_elixir::skippable,
        mark: None,
        // A misread `do` or `end` moves a body's end far from where an error shows
        // (`skeleton_elixir.rs`).
        any_error: true,
    }),
};

/// The module attributes that belong to the declaration below them.
const ATTRIBUTES: &[&str] = &[
    "doc",
    "spec",
    "impl",
    "deprecated",
    "derive",
    "enforce_keys",
];

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let def = match node.kind() {
        "call" => {
            let Some(target) = field(node, "target").filter(|t| t.kind() == "identifier") else {
                return vec![Visit::Skip];
            };
            let args = first_argument(node);
            let body = child(node, "do_block");
            match (text(target, src), args) {
                ("defmodule", Some(name)) => {
                    module(K::Module, node, name, src).map(|d| d.body(body))
                }
                ("defprotocol", Some(name)) => {
                    module(K::Interface, node, name, src).map(|d| d.body(body))
                }
                ("defimpl", Some(protocol)) => {
                    implementation(node, protocol, src).map(|d| d.body(body))
                }
                ("def" | "defp" | "defdelegate", Some(head)) => {
                    function(K::Function, node, head, src)
                }
                ("defmacro" | "defmacrop" | "defguard" | "defguardp", Some(head)) => {
                    function(K::Macro, node, head, src)
                }
                ("defstruct" | "defexception", _) => {
                    let mut def = Def::new(K::Struct, node, target, src);
                    def.name = "__struct__".into();
                    Some(def)
                }
                _ => None,
            }
        }
        // A type keeps no attributes (module doc).
        "unary_operator" => return one(typespec(node, src)),
        _ => None,
    };
    let Some(mut def) = def else {
        return vec![Visit::Skip];
    };
    // The attributes above: the range starts at the first, the core at the call.
    let core = def.node.start_byte();
    def.core = Some(core);
    def.end = Some(def.node.end_byte());
    let mut above = node.prev_named_sibling();
    while let Some(sibling) = above {
        match sibling.kind() {
            "comment" => {}
            "unary_operator" if is_attribute(sibling, src) => def.node = sibling,
            _ => break,
        }
        above = sibling.prev_named_sibling();
    }
    vec![Visit::Symbol(Box::new(def))]
}

fn child<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    crate::classify::child_of_kind(node, &[kind])
}

/// The first argument of a call: a module's name, a function's head.
fn first_argument(call: Node<'_>) -> Option<Node<'_>> {
    child(call, "arguments").and_then(|a| a.named_child(0))
}

/// `@name …` with `name` one of [`ATTRIBUTES`].
fn is_attribute(node: Node<'_>, src: &[u8]) -> bool {
    (ELIXIR.attribute)(text(node, src).as_bytes())
}

/// A module named `A.B.C`: `C` under `A/B`.
fn module<'t>(kind: SymbolKind, node: Node<'t>, name: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let mut def = Def::new(kind, node, name, src);
    def.signature_end = Some(name.end_byte());
    if name.kind() == "alias"
        && let Some((outer, last)) = def.name.rsplit_once('.')
    {
        def.qualifier = Some(outer.replace('.', "/"));
        def.name = last.to_string();
    }
    Some(def)
}

/// `defimpl Protocol, for: Type`: the module `Protocol.Type`, `Type` under
/// `Protocol`; without `for:` (inside the type's module) the protocol's name.
fn implementation<'t>(node: Node<'t>, protocol: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let args = child(node, "arguments")?;
    let target = child(args, "keywords").and_then(|k| {
        let mut cursor = k.walk();
        let pair = k
            .named_children(&mut cursor)
            .find(|p| field(*p, "key").is_some_and(|key| text(key, src).trim() == "for:"));
        pair.and_then(|p| field(p, "value"))
    });
    let mut def = Def::new(SymbolKind::Impl, node, target.unwrap_or(protocol), src);
    if target.is_some() {
        def.qualifier = Some(text(protocol, src).replace('.', "/"));
    }
    def.signature_end = Some(child(node, "do_block").map_or(args.end_byte(), |b| b.start_byte()));
    Some(def)
}

/// `def name(args) when guard`, `def name`, `def a + b`: named by the call, the
/// identifier or the operator; a name made at compile time (`def unquote(n)(…)`)
/// names nothing here.
fn function<'t>(kind: SymbolKind, node: Node<'t>, head: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let mut callee = head;
    if callee.kind() == "binary_operator"
        && field(callee, "operator").is_some_and(|o| text(o, src) == "when")
    {
        callee = field(callee, "left")?;
    }
    let name = match callee.kind() {
        "call" => field(callee, "target").filter(|t| t.kind() == "identifier")?,
        "identifier" => callee,
        "binary_operator" | "unary_operator" => field(callee, "operator")?,
        _ => return None,
    };
    Some(Def {
        signature_end: Some(head.end_byte()),
        ..Def::new(kind, node, name, src)
    })
}

/// `@type t :: …`, `@typep`, `@opaque`: a type alias.
fn typespec<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let call = field(node, "operand").filter(|o| o.kind() == "call")?;
    if !matches!(
        text(field(call, "target")?, src),
        "type" | "typep" | "opaque"
    ) {
        return None;
    }
    // `name(args) :: type`: the name left of `::`.
    let mut spec = first_argument(call)?;
    while spec.kind() == "binary_operator" {
        spec = field(spec, "left")?;
    }
    let name = match spec.kind() {
        "call" => field(spec, "target")?,
        _ => spec,
    };
    Some(Def::new(SymbolKind::TypeAlias, node, name, src))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn elixir_modules_functions_clauses_attributes_protocols_and_types() {
        check(
            Lang::Elixir,
            r#"defmodule MyApp.Accounts.User do
  @moduledoc """
  Users.
  """
  use Ecto.Schema
  import Ecto.Changeset

  @typedoc "A user."
  @type t :: %__MODULE__{}
  @max 10

  @derive {Inspect, only: [:name]}
  defstruct [:name, age: 0]

  @doc """
  Creates a user: "quoted", and it's fine.
  """
  @spec create(map()) ::
          t
  def create(attrs \\ %{}) do
    attrs
  end

  @doc "Factorial."
  # The base case first.
  def fact(0), do: 1
  def fact(n) when n > 0, do: n * fact(n - 1)

  @compile {:inline, secret: 0}
  defp secret, do: :ok

  def left <~> right, do: {left, right}

  defmacro my_macro(x) do
    quote do
      def generated, do: unquote(x)
    end
  end

  defguard is_even(x) when rem(x, 2) == 0

  defdelegate size(x), to: Enum, as: :count

  defmodule Nested do
    def inner, do: 1
  end
end

defmodule MyApp.Error do
  defexception message: "boom"
end

defprotocol Size do
  @doc "Size."
  def size(data)
end

defimpl Size, for: BitString do
  def size(s), do: byte_size(s)
end
"#,
            expect![[r#"
                module MyApp/Accounts/User 1:0-47:3 name@1:10 | defmodule MyApp.Accounts.User
                  type_alias MyApp/Accounts/User/t 9:2-9:26 name@9:8 | @type t :: %__MODULE__{}
                  struct MyApp/Accounts/User/__struct__ 12:2-13:27 name@13:2 | defstruct [:name, age: 0]
                  function MyApp/Accounts/User/create 15:2-22:5 name@20:6 | def create(attrs \\ %{})
                  function MyApp/Accounts/User/fact 24:2-26:20 name@26:6 | def fact(0)
                  function MyApp/Accounts/User/fact[1] 27:2-27:45 name@27:6 | def fact(n) when n > 0
                  function MyApp/Accounts/User/secret 30:2-30:22 name@30:7 | defp secret
                  function MyApp/Accounts/User/<~> 32:2-32:39 name@32:11 | def left <~> right
                  macro MyApp/Accounts/User/my_macro 34:2-38:5 name@34:11 | defmacro my_macro(x)
                  macro MyApp/Accounts/User/is_even 40:2-40:41 name@40:11 | defguard is_even(x) when rem(x, 2) == 0
                  function MyApp/Accounts/User/size 42:2-42:43 name@42:14 | defdelegate size(x)
                  module MyApp/Accounts/User/Nested 44:2-46:5 name@44:12 | defmodule Nested
                    function MyApp/Accounts/User/Nested/inner 45:4-45:20 name@45:8 | def inner
                module MyApp/Error 49:0-51:3 name@49:10 | defmodule MyApp.Error
                  struct MyApp/Error/__struct__ 50:2-50:30 name@50:2 | defexception message: "boom"
                interface Size 53:0-56:3 name@53:12 | defprotocol Size
                  method Size/size 54:2-55:16 name@55:6 | def size(data)
                impl Size/BitString 58:0-60:3 name@58:19 | defimpl Size, for: BitString
                  method Size/BitString/size 59:2-59:31 name@59:6 | def size(s)
            "#]],
        );
    }
}
