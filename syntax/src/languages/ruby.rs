//! Ruby: `.rb`, `.rake`, `.gemspec` and `.ru` files, tree-sitter-ruby; a
//! declaration reader (`ruby_items`) and a skeleton lexer of its own
//! (`skeleton_ruby`: method bodies, blocks without symbols, comments).
//!
//! Symbols are what universal-ctags' Ruby parser calls them: modules (`Module`),
//! classes (`Class`), methods (`Method` in a class or module, `Function` at the top),
//! constants (`Constant`) and the accessors `attr_reader`, `attr_writer` and
//! `attr_accessor` declare (`Property`). Members of a class or module are its
//! children, and so are those of its `class << self` (singleton methods, as
//! `def self.x` is). Decisions:
//!
//! - `class A::B` is `B` written in `A`: its name is `B`, its name path `A/B` (under
//!   the enclosing module's), as if it were nested.
//! - `def self.build` is named `build`, as ctags names it; its signature keeps the
//!   `self.`. Operator methods (`def ==`, `def []`) are named by their operator.
//! - `attr_accessor :a, :b` is a call, but it is how Ruby declares attributes: each
//!   symbol it names is a `Property`, the call their shared range.
//! - A call that wraps a definition (`private def x`, `private attr_reader :x`,
//!   `memoize def y`) is part of its range: the wrapping word is a modifier.
//! - `Point = Struct.new(:x)` (also `Class.new`, `Data.define`) is a `Class` and
//!   `Mod = Module.new` a `Module`, the methods of their block their members: that is
//!   what they define.
//! - Definitions inside `if`/`unless` (also `class … end if cond`), `begin` and
//!   blocks at a container's level (`unless method_defined?(:x)`, RSpec's
//!   `describe … do`, a concern's `included do`) are its members: Ruby defines them
//!   in the enclosing module (a `class` in a `describe` block is a top-level
//!   constant). Those inside method bodies and lambdas are not symbols, as locals
//!   are not.
//! - Aliases (`alias`, `alias_method`) and `require`s are calls and not symbols.
//!
//! Doc comments are the `#` lines directly above (the shebang never is); Ruby has no
//! attributes.

use tree_sitter::Node;

use super::{Language, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, field, one, signature, text},
    decl::{self, Comments, DocBlock},
    skeleton_ruby,
};

pub(super) const RUBY: Language = Language {
    name: "ruby",
    extensions: &["rb", "rake", "gemspec", "ru"],
    lsp_id: "ruby",
    grammar: Some(|| tree_sitter_ruby::LANGUAGE.into()),
    classify,
    sibling_attribute: None,
    comments: Comments {
        line: &[b"#"],
        block: None,
        doc_line: Some(|l| l.starts_with(b"#") && !l.starts_with(b"#!")),
        doc_block: DocBlock::No,
        quotes: b"\"'`",
    },
    imports: &[],
    // Not `private`, `protected` or `public`: on a line of their own they open a
    // section of methods rather than start one (`private def x` is in its range
    // all the same, see `wrapped`).
    keywords: &[
        "def",
        "class",
        "module",
        "attr_reader",
        "attr_writer",
        "attr_accessor",
    ],
    attribute: |_| false,
    probe: |_| "def lean_ctx_probe; end",
    declarations: Some(Reader {
        read: crate::ruby_items::parse,
        // An accessor by its symbol without the colon (`attr_reader :a` is `a`).
        name: Some(|src, _, name| {
            Some(
                String::from_utf8_lossy(&src[name])
                    .trim_start_matches(':')
                    .to_string(),
            )
        }),
        own_start: None,
    }),
    // A misread keyword moves an `end` anywhere: any error may be the lexer's.
    skeleton: Some(SkeletonLexer {
        skippable: skeleton_ruby::skippable,
        mark: None,
        any_error: true,
    }),
};

/// The calls that declare attributes.
const ACCESSORS: &[&str] = &["attr_reader", "attr_writer", "attr_accessor"];

fn classify<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    match node.kind() {
        "module" | "class" => {
            let kind = if node.kind() == "module" {
                K::Module
            } else {
                K::Class
            };
            let header = field(node, "superclass").or(field(node, "name"));
            one(constant(node, field(node, "name"), kind, src).map(|d| Def {
                signature_end: header.map(|h| h.end_byte()),
                ..d.body(field(node, "body"))
            }))
        }
        "method" | "singleton_method" => one(method(node, src, parent)),
        "call" => {
            let inner = wrapped(node);
            match inner.kind() {
                "method" | "singleton_method" => {
                    one(method(inner, src, parent).map(|d| Def { node, ..d }))
                }
                // `describe … do … end`, `included do … end`: a class, constant or
                // method defined in a block is the enclosing module's, as Ruby
                // scopes it.
                _ if field(node, "block").is_some() => vec![Visit::Descend],
                _ => accessors(node, inner, src),
            }
        }
        "do_block" | "block" => vec![Visit::Descend],
        "assignment" | "operator_assignment" => constants(node, src),
        // `class << self`: its methods are the enclosing class's.
        "singleton_class" | "body_statement" | "block_body" => vec![Visit::Descend],
        // Conditional definitions, and `begin require 'x'; class … end rescue LoadError
        // end`: the definitions of the level they are at.
        "if" | "unless" | "then" | "else" | "elsif" | "if_modifier" | "unless_modifier"
        | "begin" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

/// A symbol named by `name`, a constant or `A::B` (named `B`, its path under `A`).
fn constant<'t>(
    node: Node<'t>,
    name: Option<Node<'t>>,
    kind: SymbolKind,
    src: &[u8],
) -> Option<Def<'t>> {
    let name = name?;
    match name.kind() {
        "constant" => Some(Def::new(kind, node, name, src)),
        "scope_resolution" => {
            let own = field(name, "name")?;
            Some(Def {
                qualifier: field(name, "scope").map(|s| text(s, src).replace("::", "/")),
                ..Def::new(kind, node, own, src)
            })
        }
        _ => None,
    }
}

/// `def x` and `def self.x`: a method in a class or module, else a function; the
/// signature ends with the parameters (an endless method's `= value` is its body).
fn method<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    let kind = match parent {
        Some(SymbolKind::Class | SymbolKind::Module) => SymbolKind::Method,
        _ => SymbolKind::Function,
    };
    let name = field(node, "name")?;
    let header = field(node, "parameters").unwrap_or(name);
    Some(Def {
        signature_end: Some(header.end_byte()),
        ..Def::new(kind, node, name, src)
    })
}

/// What a call wraps: through calls of one argument and no receiver or block
/// (`private`, `memoize`), the definition or call they end at; `node` itself when it
/// wraps nothing.
fn wrapped(node: Node<'_>) -> Node<'_> {
    let mut at = node;
    while at.kind() == "call" && field(at, "receiver").is_none() && field(at, "block").is_none() {
        let Some(args) = field(at, "arguments") else {
            break;
        };
        let mut cursor = args.walk();
        let mut named = args.named_children(&mut cursor);
        match (named.next(), named.next()) {
            (Some(inner), None)
                if matches!(inner.kind(), "method" | "singleton_method" | "call") =>
            {
                at = inner;
            }
            _ => break,
        }
    }
    at
}

/// `attr_reader :a, :b` (`call`, perhaps wrapped in `private`: `node`): a property
/// per symbol, `node` their range.
fn accessors<'t>(node: Node<'t>, call: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let Some(method) = field(call, "method").filter(|m| ACCESSORS.contains(&text(*m, src))) else {
        return vec![Visit::Skip];
    };
    if field(call, "receiver").is_some() {
        return vec![Visit::Skip];
    }
    let Some(args) = field(call, "arguments") else {
        return vec![Visit::Skip];
    };
    let mut cursor = args.walk();
    let names: Vec<Node<'t>> = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() == "simple_symbol")
        .collect();
    // Of several, each one's signature names it alone: `private attr_reader :b`.
    let head = &src[decl::core_start(node)..method.end_byte()];
    let several = names.len() > 1;
    names
        .into_iter()
        .map(|n| {
            let mut def = Def::new(SymbolKind::Property, node, n, src);
            def.name = def.name.trim_start_matches(':').to_string();
            if several {
                def.signature = Some(signature(&[head, b" ", text(n, src).as_bytes()].concat()));
            }
            Visit::Symbol(Box::new(def))
        })
        .collect()
}

/// `NAME = value` (also `A, B = …` and `NAME ||= value`): a constant per name; a
/// class or module when the value makes one (`Struct.new(:a) do … end`), the
/// methods of its block its members.
fn constants<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let (Some(left), right) = (field(node, "left"), field(node, "right")) else {
        return vec![Visit::Skip];
    };
    if left.kind() == "left_assignment_list" {
        let mut cursor = left.walk();
        let names: Vec<Node<'t>> = left
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "constant")
            .collect();
        return names
            .into_iter()
            .map(|n| {
                let mut def = Def::new(SymbolKind::Constant, node, n, src);
                def.signature = Some(def.name.clone());
                Visit::Symbol(Box::new(def))
            })
            .collect();
    }
    // The signature: the name alone (not `||=`), or what makes the class up to its
    // block.
    let (kind, body, signature_end) = match right.and_then(|r| defines(r, src)) {
        Some((kind, block)) => (
            kind,
            block.and_then(|b| field(b, "body")),
            block.map(|b| b.start_byte()),
        ),
        None => (SymbolKind::Constant, None, Some(left.end_byte())),
    };
    one(constant(node, Some(left), kind, src).map(|d| Def {
        body,
        signature_end,
        ..d
    }))
}

/// What `Struct.new(…)`, `Class.new(…)`, `Data.define(…)` and `Module.new` define,
/// and the block holding its methods, if any.
fn defines<'t>(value: Node<'t>, src: &[u8]) -> Option<(SymbolKind, Option<Node<'t>>)> {
    if value.kind() != "call" {
        return None;
    }
    let receiver = text(field(value, "receiver")?, src);
    let method = text(field(value, "method")?, src);
    let kind = match (receiver, method) {
        ("Struct" | "Class", "new") | ("Data", "define") => SymbolKind::Class,
        ("Module", "new") => SymbolKind::Module,
        _ => return None,
    };
    Some((kind, field(value, "block")))
}
#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn modules_classes_methods_accessors_and_constants() {
        check(
            Lang::Ruby,
            r##"#!/usr/bin/env ruby
# frozen_string_literal: true
require "set"

# The server.
module Puma
  VERSION = "5.6.5"
  A, B = 1, 2
  CODES ||= {}

  # A request.
  class Server::Request < Base
    attr_reader :app
    attr_accessor :host, :port

    # Builds one.
    def self.build(app) = new(app)

    def initialize(app, host = "#")
      @app = app
      helper = ->(x) { x }
    end

    class << self
      def meta; end
    end

    private def secret; end
    private attr_writer :token

    def ==(other); end

    unless method_defined?(:call)
      def call(env); end
    end
  end

  Point = Struct.new(:x, :y) do
    def norm; end
  end
  Empty = Class.new(StandardError)
end

def top_level; end
class ::Global; end

RSpec.describe Puma do
  class Fake < Puma::Server::Request; end
  let(:app) { ->(env) { [200, {}, []] } }
  def build; end
end

begin
  require "rails/railtie"
  class Railtie < Rails::Railtie; end
rescue LoadError
end

class Forked; end if Process.respond_to?(:fork)
"##,
            expect![[r##"
                module Puma 6:0-42:3 name@6:7 | module Puma
                  constant Puma/VERSION 7:2-7:19 name@7:2 | VERSION
                  constant Puma/A 8:2-8:13 name@8:2 | A
                  constant Puma/B 8:2-8:13 name@8:5 | B
                  constant Puma/CODES 9:2-9:14 name@9:2 | CODES
                  class Puma/Server/Request 12:2-36:5 name@12:16 | class Server::Request < Base
                    property Puma/Server/Request/app 13:4-13:20 name@13:16 | attr_reader :app
                    property Puma/Server/Request/host 14:4-14:30 name@14:18 | attr_accessor :host
                    property Puma/Server/Request/port 14:4-14:30 name@14:25 | attr_accessor :port
                    method Puma/Server/Request/build 17:4-17:34 name@17:13 | def self.build(app)
                    method Puma/Server/Request/initialize 19:4-22:7 name@19:8 | def initialize(app, host = "#")
                    method Puma/Server/Request/meta 25:6-25:19 name@25:10 | def meta
                    method Puma/Server/Request/secret 28:4-28:27 name@28:16 | private def secret
                    property Puma/Server/Request/token 29:4-29:30 name@29:24 | private attr_writer :token
                    method Puma/Server/Request/== 31:4-31:22 name@31:8 | def ==(other)
                    method Puma/Server/Request/call 34:6-34:24 name@34:10 | def call(env)
                  class Puma/Point 38:2-40:5 name@38:2 | Point = Struct.new(:x, :y)
                    method Puma/Point/norm 39:4-39:17 name@39:8 | def norm
                  class Puma/Empty 41:2-41:34 name@41:2 | Empty = Class.new(StandardError)
                function top_level 44:0-44:18 name@44:4 | def top_level
                class Global 45:0-45:19 name@45:8 | class ::Global
                class Fake 48:2-48:41 name@48:8 | class Fake < Puma::Server::Request
                function build 50:2-50:16 name@50:6 | def build
                class Railtie 55:2-55:37 name@55:8 | class Railtie < Rails::Railtie
                class Forked 59:0-59:17 name@59:6 | class Forked
            "##]],
        );
    }
}
