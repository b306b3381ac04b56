//! The index's view of the file system: its own directory walk and the ignore rules
//! it shares with the watcher ([`walk`]), directory watches on one shared inotify
//! instance ([`watch`]), and what a worktree's git index already knows
//! ([`git_index`]).
//!
//! Below the root (`index/root/`), above the ids (`index/ids.rs`); it knows
//! nothing of the store (`index/store/`).

pub mod git_index;
pub mod walk;
pub mod watch;
