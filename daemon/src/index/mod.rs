//! The headless backing's symbol index: tree-sitter parses ([`symbols`]) per language
//! ([`lang`]), positions converted once ([`text`]).
//!
//! **Architecture Invariant:** the index knows nothing about tarpc, LSP or HTTP; it
//! takes bytes and paths and returns symbols.

pub mod lang;
pub mod symbols;
pub mod text;

pub mod root;
pub mod store;
#[cfg(test)]
mod tests;
