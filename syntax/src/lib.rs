//! lean-ctx's declaration model: which language a file is ([`Lang`]), the
//! declarations in it with their name paths, kinds and ranges ([`symbols`]), and the
//! conversions between byte offsets and agent positions ([`text`], [`position`]).
//! It depends on tree-sitter and the grammar crates only, never on the daemon or the
//! wire: the daemon converts at its edge, and charges the parses it asks for to its
//! memory budget (`daemon/src/index/mod.rs`).
//!
//! Map, from the bottom up:
//! - [`bom`], `bytes`, [`position`] and [`text`]: the bytes underneath, and byte
//!   offsets ↔ agent positions.
//! - [`decl`], the declaration model: where a declaration's doc comment, attributes
//!   and core start, and how a language writes comments. `classify`: what a
//!   language's `classify` says of a tree-sitter node (`Def`, `Visit`).
//! - The fast paths. Lexers that find what the walker never enters (`skeleton_rust`,
//!   `skeleton_brace` for TypeScript, TSX, JavaScript, Java, Kotlin, Swift and
//!   Scala, `skeleton_c` for C, C++ and C#, `skeleton_php`, `skeleton_go`,
//!   `skeleton_python`, `skeleton_lua`, `skeleton_r`, `skeleton_ruby`,
//!   `skeleton_bash`, `skeleton_haskell`, `skeleton_ocaml`, `skeleton_elixir`;
//!   `lex` is the cursor and scanning they share), and
//!   declaration readers that read a file's declarations off their tokens where
//!   they can vouch for it (`rust_items`, `python_items`, `go_items`, `java_items`,
//!   `ts_items`, `lua_items`, `php_items`, `csharp_items`, `r_items`,
//!   `ocaml_items`, `haskell_items`, `c_items`, `bash_items`, `ruby_items`,
//!   `scala_items`;
//!   `lookahead` is their token lookahead).
//! - [`languages`]: one module per language and the one table that registers them
//!   ([`Lang`]): extensions, grammar, `classify`, comment rules, which fast paths.
//!   Adding a language is a module there and one line (its module doc says how).
//! - `skeleton` (the skeleton parse: blanked text, included ranges) and [`symbols`]
//!   on top: one tree-sitter walker driven by the language's `classify`,
//!   [`FileSymbols`] stored flat, [`extract`]; `symbols/codec.rs` is its on-disk
//!   form. [`name_path`] parses and matches `Type/method[1]` addresses.
//! - `fast_check` (feature `harness`, tests and benches only) compares the fast paths
//!   with a whole parse over real corpora.
//!
//! **Invariant:** a declaration reader answers only for a file it vouches for; any
//! other goes to the skeleton parse and, on a syntax error it may have caused, to a
//! whole parse. Its symbols equal a whole tree-sitter parse's on every cleanly
//! parsing file of the corpora `fast_check` runs, and on a file the grammar fails on,
//! outside the failing top-level statements (and what either parse reads as one
//! statement with one of them), those of a whole parse of the file with those
//! statements' lines blanked (error recovery is not local). Kotlin, which has no
//! reader, has no blanked text: on a file the grammar fails on, every symbol the whole
//! parse recovers is one of the skeleton parse's. A symbol whose name error recovery
//! made up is never listed.
//!
//! **Invariant:** a skeleton lexer skips only what it is sure the walker never enters;
//! unsure, it keeps the block; unable to follow the text, it skips nothing. A skeleton
//! parse with a syntax error next to a skipped range is replaced by a whole parse.
//!
//! **Invariant:** [`FINGERPRINT`] changes whenever what this crate extracts could:
//! it hashes the crate's sources and the tree-sitter packages `Cargo.lock` pins
//! (`build.rs`). The daemon's persisted index stamps it into its header, so parses
//! stored by a build whose symbols could differ are rebuilt, never served.

mod bash_items;
pub mod bom;
mod bytes;
mod c_items;
mod classify;
mod csharp_items;
pub mod decl;
#[cfg(any(test, feature = "harness"))]
pub mod fast_check;
mod go_items;
mod haskell_items;
mod java_items;
pub mod languages;
mod lex;
mod lookahead;
mod lua_items;
pub mod name_path;
mod ocaml_items;
mod php_items;
pub mod position;
mod python_items;
mod r_items;
mod ruby_items;
mod rust_items;
mod scala_items;
mod skeleton;
mod skeleton_bash;
mod skeleton_brace;
mod skeleton_c;
mod skeleton_elixir;
mod skeleton_go;
mod skeleton_haskell;
mod skeleton_lua;
mod skeleton_ocaml;
mod skeleton_php;
mod skeleton_python;
mod skeleton_r;
mod skeleton_ruby;
mod skeleton_rust;
pub mod symbols;
pub mod text;
mod ts_items;

#[cfg(test)]
mod tests;

pub use languages::Lang;
pub use position::{Position, Range, SymbolKind};
pub use symbols::{FileSymbols, Symbol, extract, syntax_error};

/// A hash of everything that decides what this crate extracts (see the invariant
/// above), in hex.
pub const FINGERPRINT: &str = env!("LEAN_CTX_SYNTAX_FINGERPRINT");
