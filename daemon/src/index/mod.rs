//! The headless backing's symbol index, in rooms, each using only those below it:
//!
//! - [`root`] on top: one root's index (the walk, watching each directory before
//!   listing it, the `FileTable` of its files with running totals `daemon status`
//!   reads without a lock), with a restart's check against the last listing in
//!   `root/warm.rs` and the watcher's events in `root/events.rs`.
//! - [`store`]: the daemon-wide caches and the persisted store behind them, a root's
//!   last listing, the roots to prewarm.
//! - [`text`]: the text index, trigram posting lists per content hash, and the
//!   planner that turns a search pattern into a query over them.
//! - [`fs`]: the index's own walk and ignore rules, directory watches, a worktree's
//!   git index.
//! - [`ids`] at the bottom: the identities the rooms share.
//!
//! What a file declares is the syntax crate's (`syntax/src/lib.rs`): the index asks
//! it through `crate::declarations`, which charges each parse to the memory budget.

pub mod fs;
pub mod ids;
pub mod root;
pub mod store;
pub mod text;
