//! The headless backing's symbol index, in rooms, each using only those below it:
//!
//! - `root.rs` on top: one root's index (the walk, watching each directory before
//!   listing it, the `FileTable` of its files with running totals `daemon status`
//!   reads without a lock, event handling, a restart's check against the last
//!   listing).
//! - [`store`]: the daemon-wide caches and the persisted store behind them, a root's
//!   last listing, the roots to prewarm.
//! - [`fs`]: the index's own walk and ignore rules, directory watches, a worktree's
//!   git index.
//! - The extraction, flat here: tree-sitter parses ([`symbols`]) per language
//!   ([`lang`]), positions converted once ([`text`]); Rust, Python, Go, Java and
//!   TypeScript/JavaScript declarations read off the tokens where possible
//!   (`rust_items`, `python_items`, `go_items`, `java_items`, `ts_items`), and
//!   tree-sitter parsing only a skeleton of the rest (`skeleton*`): the same symbols,
//!   several times faster.
//! - [`ids`] and `bytes.rs` at the bottom: the identities the rooms share, the bytes
//!   the lexers scan.
//!
//! **Invariant:** a declaration reader answers only for a file it vouches for; any
//! other goes to the skeleton parse and, on a syntax error it may have caused, to a
//! whole parse. Its symbols equal a whole tree-sitter parse's on every cleanly
//! parsing file of the corpora `fast_check` runs, and on a file the grammar fails on,
//! outside the failing top-level statements, those of a whole parse of the file with
//! those statements' lines blanked (error recovery is not local). Kotlin, which has no
//! reader, has no blanked text: on a file the grammar fails on, every symbol the whole
//! parse recovers is one of the skeleton parse's. A symbol whose name error recovery
//! made up is never listed.
//!
//! **Invariant:** a skeleton lexer skips only what it is sure the walker never enters;
//! unsure, it keeps the block; unable to follow the text, it skips nothing. A skeleton
//! parse with a syntax error next to a skipped range is replaced by a whole parse.

mod bytes;
pub(crate) mod decl;
#[cfg(any(test, feature = "harness"))]
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
