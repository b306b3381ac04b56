//! `lean-ctxd`, the per-user daemon, as a library: the binary in `main.rs` only parses
//! arguments, sets up logging and calls [`server::run`], so tests can start the real
//! server on a temp socket (mini-redis's `server::run(listener, shutdown)`).
//!
//! Module map: [`state`] owns what lives for the daemon's whole life (counters, the
//! shutdown token, the project registry); [`server`] accepts connections, checks the
//! peer and the hello and drives tarpc; [`service`] implements the operations behind
//! one panic-catching choke point; [`registry`] and [`worktree`] know the projects;
//! [`instance`] guarantees a single daemon per user and owns the socket file;
//! [`idle`] exits an auto-spawned daemon nobody uses; [`upgrade`] records the daemon,
//! steps it down once a newer build's daemon runs and locks roots across daemons; [`ide`] finds JetBrains IDE windows and
//! talks to them; [`lsp`] keeps language servers
//! warm and answers navigation and refactorings through them; [`call_log`] keeps the
//! last calls and [`dashboard`] serves them, with the status and gain, as a local web
//! page; [`budget`] keeps every answer inside one frame; [`config`], [`logging`] and
//! [`sys`] are plumbing.

pub mod backing;
pub mod bom;
pub mod budget;
pub mod call_log;
pub mod config;
pub mod conformance;
pub mod dashboard;
pub mod edit;
pub mod gain;
pub mod ide;
pub mod idle;
pub mod index;
pub mod instance;
pub mod jail;
pub mod logging;
pub mod lsp;
pub mod reads;
pub mod registry;
pub mod root_lock;
pub mod route;
pub mod server;
pub mod service;
pub mod service_manager;
pub mod state;
pub mod status;
pub mod sys;
pub mod tokens;
pub mod trust;
pub mod upgrade;
pub mod worktree;
