//! `lean-ctxd`, the per-user daemon, as a library: the binary in `main.rs` only parses
//! arguments, sets up logging and calls [`accept::run`], so tests can start the real
//! server on a temp socket (mini-redis's `server::run(listener, shutdown)`).
//!
//! Module map (ARCHITECTURE.md, `daemon/`, has one paragraph per module): [`state`]
//! owns what lives for the daemon's whole life and the choke point every call goes
//! through; [`accept`] accepts connections, checks the peer and the hello and drives
//! tarpc; [`service`] implements the operations; [`route`] decides which backing
//! answers each one, in what order; [`backing`] holds the three backings' operations
//! over [`ide_windows`] (JetBrains IDE windows), [`language_servers`] (warm language servers) and
//! [`index`] (the headless symbol index); [`jail`], [`edit`], [`root_lock`] and
//! [`reads`] are how files are reached, written and remembered per session;
//! [`declarations`] is the door to the syntax crate (`lean-ctx-syntax`: what a file
//! declares), charging each parse to the budget;
//! [`registry`] and [`worktree`] know the projects; [`instance`], [`upgrade`],
//! [`idle`] and [`service_manager`] are the daemon's life; [`trust`] gates language
//! servers; [`accounting`] and [`tokens`] account, [`call_log`], [`status`] and
//! [`dashboard`] show; [`budget`] keeps every answer inside one frame; [`config`],
//! [`logging`] and [`sys`] are plumbing; `conformance` is the declaration model's
//! harness.

// The library is the binary's and the tests': its modules are documented for
// `cargo doc --document-private-items`, where these links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod accept;
pub(crate) mod accounting;
pub(crate) mod backing;
pub mod budget;
pub(crate) mod call_log;
pub mod config;
#[cfg(any(test, feature = "harness"))]
pub mod conformance;
pub(crate) mod dashboard;
pub(crate) mod declarations;
pub(crate) mod edit;
pub mod ide_windows;
pub mod idle;
pub mod index;
pub mod instance;
pub(crate) mod jail;
pub(crate) mod language_servers;
pub mod logging;
pub(crate) mod reads;
pub(crate) mod registry;
pub(crate) mod root_lock;
pub(crate) mod route;
pub(crate) mod service;
pub mod service_manager;
pub mod state;
pub(crate) mod status;
pub mod sys;
pub mod tokens;
pub(crate) mod trust;
pub mod upgrade;
pub(crate) mod worktree;
