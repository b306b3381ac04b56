//! The index's memory and its disk: the daemon-wide caches every root and worktree
//! share ([`caches`]), the persisted store behind them ([`persist`]), a root's last
//! walk kept for a restart ([`listing`]) and the roots to prewarm ([`recent`]).
//!
//! Below the root (`index/root/`), above the ids (`index/ids.rs`);
//! it knows nothing of walking or watching (`index/fs/`).

pub mod caches;
pub mod listing;
pub mod persist;
pub mod recent;

pub use caches::{Caches, ContentFacts, Counters, Parsed, WalkAgain};
