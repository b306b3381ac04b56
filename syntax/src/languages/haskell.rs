//! Haskell: `.hs` files, tree-sitter-haskell; a declaration reader
//! (`haskell_items`), a skeleton lexer (`skeleton_haskell`: equations' right-hand
//! sides and signatures' types are never entered).
//!
//! The symbols are what universal-ctags' Haskell parser calls functions, types and
//! constructors, with the members a class or an instance holds:
//!
//! - a top-level function or value is one symbol from its type signature (`f :: Int
//!   -> Int`, the declaration's head: the outline shows it) through its last equation
//!   (`f 0 = 1`, `f n = …`): the equations of a name that follow each other, comments
//!   and pragmas between them, are one definition, and the signature directly above
//!   them is its first line. Without a signature the first equation starts it.
//!   Replacing such a function rewrites signature and equations together, as a Rust
//!   item is rewritten with its `fn` line. A signature naming several (`a, b :: Int`)
//!   declares each name, sharing its range (`decl.rs`); their equations are symbols
//!   of their own.
//! - `data` and `newtype` are `Enum`s (algebraic types: a sum of constructors), their
//!   constructors `EnumMember`s, a record constructor's fields its `Field`s
//!   (`Shape/Rect/width`); `type` synonyms and type families are `TypeAlias`es, data
//!   families `Enum`s;
//! - a `class` is a `Trait` (a type class is what Rust's traits are modeled on), its
//!   signatures and default equations `Method`s; an `instance` (and a standalone
//!   `deriving instance`) is an `Impl` named by its head without the context (`Show
//!   (Wrap a)`), its equations `Method`s under it.
//!
//! Not symbols: the `module` header (the file is the module), imports, fixity
//! declarations, pragmas, Template Haskell splices, pattern synonyms, and anything
//! inside an equation (`where` and `let` bindings are locals).
//!
//! A doc comment is the run of `--` lines directly above (Haddock's `-- |` and its
//! continuation lines, which are plain `--` lines, so every one is taken, as Go's
//! are) or a `{-| … -}` block; a pragma (`{-# INLINE f #-}`) is neither.

use tree_sitter::Node;

use super::{Language, ProbeSite, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, child_of_kind, field, one, signature, text, token},
    decl::{Block, Comments, DocBlock},
};

pub(super) const HASKELL: Language = Language {
    name: "haskell",
    extensions: &["hs"],
    lsp_id: "haskell",
    grammar: Some(|| tree_sitter_haskell::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: Comments {
        line: &[b"--"],
        block: Some(Block {
            open: b"{-",
            close: b"-}",
            doc: b"{-|",
        }),
        doc_line: Some(crate::skeleton_haskell::line_comment),
        doc_block: DocBlock::One,
        // Not `'`: it is a letter of names (`foldl'`) as often as a character's quote.
        quotes: b"\"",
    },
    imports: &["import"],
    keywords: &[
        "data", "newtype", "type", "class", "instance", "deriving", "foreign", "pattern",
    ],
    attribute: |_| false,
    probe,
    declarations: Some(Reader {
        read: crate::haskell_items::parse,
        // Operators as `classify` names them (`(<+>)`), instances by their heads.
        name: Some(crate::haskell_items::name),
        own_start: None,
    }),
    skeleton: Some(SkeletonLexer {
        skippable: crate::skeleton_haskell::skippable,
        mark: Some(crate::lex::parenthesize),
        // The layout: a misread line moves a declaration's end far from where an
        // error shows (`skeleton_haskell.rs`).
        any_error: true,
    }),
};

fn probe(site: ProbeSite) -> &'static str {
    use SymbolKind as K;
    match site.parent {
        // Between constructors (`| A`, `= A`) or record fields (`, x`, `{ x`) no one
        // declaration fits every line: the lines are punctuated differently.
        Some(K::Enum | K::EnumMember) => "{- lean-ctx probe -}",
        Some(K::Trait) => "leanCtxProbe :: Int",
        _ => "leanCtxProbe = 0",
    }
}

/// What `node` declares; an operator is named in its prefix form, `(<+>)`, as
/// signatures and export lists write it (bare, `/` and `.` would read as a name
/// path's separators).
fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let mut visits = declaration(node, src);
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit
            && matches!(def.name_node.kind(), "operator" | "constructor_operator")
        {
            def.name = format!("({})", def.name);
        }
    }
    visits
}

fn declaration<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let name = field(node, "name").map(unwrapped);
    // The signature stops before `=` or `where`.
    let head_end = || token(node, &["=", "where"]);
    match node.kind() {
        "declarations" => vec![Visit::Descend],
        "signature" | "function" | "bind" => function(node, src),
        "data_type" | "newtype" | "data_family" => {
            // A newtype's one constructor is its child, not in a list of them.
            let body = field(node, "constructors").or(field(node, "constructor").map(|_| node));
            one(name.map(|n| {
                Def::new(K::Enum, node, n, src)
                    .body(body)
                    .sig_end(head_end())
            }))
        }
        "type_synonym" | "type_family" => one(name.map(|n| {
            let end = head_end().or(field(node, "closed_family"));
            Def::new(K::TypeAlias, node, n, src).sig_end(end)
        })),
        "class" => one(name.map(|n| {
            Def::new(K::Trait, node, n, src)
                .body(field(node, "declarations"))
                .sig_end(head_end())
        })),
        "instance" | "deriving_instance" => one(name.map(|n| {
            let head = field(node, "patterns").map_or(n.end_byte(), |p| p.end_byte());
            Def {
                name: signature(&src[n.start_byte()..head]),
                ..Def::new(K::Impl, node, n, src)
                    .body(field(node, "declarations"))
                    .sig_end(head_end())
            }
        })),
        "foreign_import" => one(field(node, "signature")
            .and_then(|s| field(s, "name"))
            .map(|n| Def::new(K::Function, node, unwrapped(n), src))),
        "data_constructor" => {
            let Some(con) = field(node, "constructor") else {
                return vec![Visit::Skip];
            };
            // `Rect { … }` and `Circle Double` by their name, `a :+ b` by its operator.
            let name = field(con, "name").or(field(con, "operator"));
            let fields = field(con, "fields");
            // An infix constructor's node starts at the blank before its left operand
            // (not before a context: `Show a => a :+ a`).
            let first =
                field(con, "left_operand").filter(|_| con.start_byte() == node.start_byte());
            one(name.map(|n| Def {
                end: Some(node.end_byte()),
                ..Def::new(K::EnumMember, first.unwrap_or(node), unwrapped(n), src)
                    .body(fields)
                    .sig_end(fields)
            }))
        }
        "newtype_constructor" => {
            let record = field(node, "field").filter(|f| f.kind() == "record");
            one(name.map(|n| {
                Def::new(K::EnumMember, node, n, src)
                    .body(record)
                    .sig_end(record)
            }))
        }
        "gadt_constructor" => {
            let fields = field(node, "type")
                .filter(|t| t.kind() == "record")
                .and_then(|r| field(r, "fields"));
            names(node)
                .into_iter()
                .map(|n| {
                    // The whole constructor's type, a record's too.
                    let def = Def::new(K::EnumMember, node, n, src).body(fields);
                    Visit::Symbol(Box::new(Def {
                        signature_end: Some(node.end_byte()),
                        ..def
                    }))
                })
                .collect()
        }
        "field" => {
            let mut cursor = node.walk();
            node.children_by_field_name("name", &mut cursor)
                .map(|n| Visit::Symbol(Box::new(Def::new(K::Field, node, n, src))))
                .collect()
        }
        _ => vec![Visit::Skip],
    }
}

/// A function: its signature and the equations that follow it, or equations without
/// one (see the module doc). A later equation is part of the symbol its first one
/// starts.
fn function<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    if node.kind() == "signature" && field(node, "names").is_some() {
        // `a, b :: Int`: each name, sharing the signature.
        return names(node)
            .into_iter()
            .map(|n| Visit::Symbol(Box::new(Def::new(SymbolKind::Function, node, n, src))))
            .collect();
    }
    let Some(name) = bound_name(node) else {
        return vec![Visit::Skip];
    };
    let of_name = |n: Node<'_>| bound_name(n).is_some_and(|b| text(b, src) == text(name, src));
    let equation = |n: Node<'_>| matches!(n.kind(), "function" | "bind") && of_name(n);
    if node.kind() != "signature"
        && neighbour(node, Node::prev_named_sibling).is_some_and(|p| {
            equation(p) || (p.kind() == "signature" && field(p, "names").is_none() && of_name(p))
        })
    {
        return vec![Visit::Skip];
    }
    let mut last = node;
    while let Some(next) = neighbour(last, Node::next_named_sibling).filter(|n| equation(*n)) {
        last = next;
    }
    // The signature line, or the first equation's head (`f x`, before `=` or a guard).
    let head = match node.kind() {
        "signature" => node.end_byte(),
        _ => field(node, "match").map_or(node.end_byte(), |m| m.start_byte()),
    };
    one(Some(Def {
        end: Some(last.end_byte()),
        signature_end: Some(head),
        ..Def::new(SymbolKind::Function, node, name, src)
    }))
}

/// The declaration next to `node` one way, past comments and pragmas.
fn neighbour<'t>(node: Node<'t>, step: fn(&Node<'t>) -> Option<Node<'t>>) -> Option<Node<'t>> {
    let mut at = step(&node)?;
    while matches!(at.kind(), "comment" | "haddock" | "pragma") {
        at = step(&at)?;
    }
    Some(at)
}

/// The name a signature or an equation binds: `f` of `f x = …`, `<+>` of `(<+>) ::
/// …` and of `a <+> b = …`; none for a pattern binding (`(a, b) = …`).
fn bound_name(node: Node<'_>) -> Option<Node<'_>> {
    let name = field(node, "name")
        .or_else(|| child_of_kind(node, &["infix"]).and_then(|i| field(i, "operator")))?;
    Some(unwrapped(name))
}

/// The names of a declaration of several (`a, b :: Int`, GADT's `A, B :: T`), or
/// its one name.
fn names(node: Node<'_>) -> Vec<Node<'_>> {
    match field(node, "names") {
        Some(list) => {
            let mut cursor = list.walk();
            list.named_children(&mut cursor).map(unwrapped).collect()
        }
        None => field(node, "name").map(unwrapped).into_iter().collect(),
    }
}

/// `(<+>)` and `` `div` ``: the operator or name inside, as it is defined.
fn unwrapped(node: Node<'_>) -> Node<'_> {
    match node.kind() {
        "prefix_id" | "infix_id" => node.named_child(0).unwrap_or(node),
        _ => node,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn an_import_is_its_own_range() {
        let src = "module M where\nimport qualified Data.Map as M\nf = M.empty\n";
        let imports = Lang::Haskell.imports(src.as_bytes());
        let at = src.find("import qualified Data.Map as M").unwrap();
        assert_eq!(imports.len(), 1, "{imports:?}");
        assert_eq!(imports[0], at..at + "import qualified Data.Map as M".len());
    }

    #[test]
    fn haskell_functions_types_classes_and_instances() {
        check(
            Lang::Haskell,
            r#"{-# LANGUAGE OverloadedStrings #-}
-- | The module.
module Data.Shape (Shape (..), area) where

import qualified Data.Map as M

-- | The area.
-- Of a shape.
area :: Shape -> Double
area (Circle r) = pi * r * r
{-# INLINE area #-}
area (Rect w h) = w * h

-- a comment, not Haddock
x <+> y = x + y
infixl 6 <+>

(<->) :: Int -> Int -> Int
a <-> b = a - b

abs' n
  | n < 0 = negate n
  | otherwise = n
  where helper = 1

lo, hi :: Int
lo = 0

main = print (area (Circle 1))

{-| A shape. -}
data Shape
  = Circle Double -- ^ radius
  | Rect { width, height :: Double }
  | Double :* Double
  deriving (Show, Eq)

newtype Wrap a = Wrap { unWrap :: a }

type Name = String

data G a where
  GInt :: Int -> G Int
  GRec :: { gb :: Bool } -> G Bool

class Monad m => MonadLog m where
  -- | Logs.
  logMsg :: String -> m ()
  logMsg _ = pure ()
  (<!>), (<?>) :: m a -> m a -> m a
  type Elem m

instance MonadLog IO where
  logMsg = putStrLn

instance (Show a) => Show (Wrap a) where
  show (Wrap a) = show a

deriving instance Ord Shape

foreign import ccall "sin" c_sin :: Double -> Double
"#,
            expect![[r#"
                function area 9:0-12:23 name@9:0 | area :: Shape -> Double
                function (<+>) 15:0-15:15 name@15:2 | x <+> y
                function (<->) 18:0-19:15 name@18:1 | (<->) :: Int -> Int -> Int
                function abs' 21:0-24:18 name@21:0 | abs' n
                function lo 26:0-26:13 name@26:0 | lo, hi :: Int
                function hi 26:0-26:13 name@26:4 | lo, hi :: Int
                function lo[1] 27:0-27:6 name@27:0 | lo
                function main 29:0-29:30 name@29:0 | main
                enum Shape 32:0-36:21 name@32:5 | data Shape
                  enum_member Shape/Circle 33:4-33:17 name@33:4 | Circle Double
                  enum_member Shape/Rect 34:4-34:36 name@34:4 | Rect
                    field Shape/Rect/width 34:11-34:34 name@34:11 | width, height :: Double
                    field Shape/Rect/height 34:11-34:34 name@34:18 | width, height :: Double
                  enum_member Shape/(:*) 35:4-35:20 name@35:11 | Double :* Double
                enum Wrap 38:0-38:37 name@38:8 | newtype Wrap a
                  enum_member Wrap/Wrap 38:17-38:37 name@38:17 | Wrap
                    field Wrap/Wrap/unWrap 38:24-38:35 name@38:24 | unWrap :: a
                type_alias Name 40:0-40:18 name@40:5 | type Name
                enum G 42:0-44:34 name@42:5 | data G a
                  enum_member G/GInt 43:2-43:22 name@43:2 | GInt :: Int -> G Int
                  enum_member G/GRec 44:2-44:34 name@44:2 | GRec :: { gb :: Bool } -> G Bool
                    field G/GRec/gb 44:12-44:22 name@44:12 | gb :: Bool
                trait MonadLog 46:0-51:13 name@46:17 | class Monad m => MonadLog m
                  method MonadLog/logMsg 48:2-49:20 name@48:2 | logMsg :: String -> m ()
                  method MonadLog/(<!>) 50:2-50:35 name@50:3 | (<!>), (<?>) :: m a -> m a -> m a
                  method MonadLog/(<?>) 50:2-50:35 name@50:10 | (<!>), (<?>) :: m a -> m a -> m a
                  type_alias MonadLog/Elem 51:2-51:13 name@51:7 | type Elem m
                impl MonadLog IO 53:0-54:19 name@53:9 | instance MonadLog IO
                  method MonadLog IO/logMsg 54:2-54:19 name@54:2 | logMsg
                impl Show (Wrap a) 56:0-57:24 name@56:21 | instance (Show a) => Show (Wrap a)
                  method Show (Wrap a)/show 57:2-57:24 name@57:2 | show (Wrap a)
                impl Ord Shape 59:0-59:27 name@59:18 | deriving instance Ord Shape
                function c_sin 61:0-61:52 name@61:27 | foreign import ccall "sin" c_sin :: Double -> Double
            "#]],
        );
    }
}
