//! The headless backing's symbol index: tree-sitter parses ([`symbols`]) per language
//! ([`lang`]), positions converted once ([`text`]). Rust, Python, Go and Java
//! declarations are read off the tokens where possible (`rust_items`, `python_items`,
//! `go_items`, `java_items`), and tree-sitter parses only a skeleton of the rest
//! ([`skeleton`]): the same symbols, several times faster.
//!
//! **Architecture Invariant:** the index knows nothing about tarpc, LSP or HTTP; it
//! takes bytes and paths and returns symbols.

mod bytes;
pub(crate) mod decl;
pub mod fast_check;
pub mod fs;
mod go_items;
pub mod ids;
mod java_items;
pub mod lang;
pub mod name_path;
mod python_items;
mod rust_items;
mod skeleton;
mod skeleton_brace;
mod skeleton_go;
mod skeleton_python;
pub mod symbols;
pub mod text;
mod ts_items;

pub mod root;
pub mod store;
#[cfg(test)]
mod tests;
