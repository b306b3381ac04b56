//! The lean-ctx protocol crate: everything that crosses the daemon socket.
//!
//! `shared` depends on nothing of ours; `daemon` and `client` depend on it and never on
//! each other. What crosses the socket in tarpc frames lives in [`wire`] (and only
//! that is fingerprinted into the schema): the tarpc service ([`protocol`]), the error
//! catalog ([`error`]), agent-facing positions ([`position`]) and the framing. Outside
//! it: the hello that precedes tarpc ([`hello`]), the client side of a connection
//! ([`transport`]), each error code's remedy ([`remedy`]), where files live
//! ([`paths`]), process facts ([`process`]), the editor signal file both sides read or
//! write ([`editor_signal`]), the JetBrains port file and project hash ([`ide`]), the
//! gain report both the CLI and the dashboard show ([`gain`]), the neutral
//! environment every tool either side starts runs with ([`tool_env`]), the record each
//! running daemon keeps ([`daemons`]), the canonical text of every answer ([`render`]),
//! `stats.json` ([`stats`]) and the names
//! the persisted index writes, all either side ever removes there ([`index_store`]).

pub mod daemons;
pub mod editor_signal;
pub mod gain;
pub mod hello;
pub mod ide;
pub mod index_store;
pub mod paths;
pub mod process;
pub mod remedy;
pub mod render;
pub mod servers;
pub mod stats;
pub mod tool_env;
pub mod transport;
pub mod wire;

pub use wire::{error, position, protocol};

/// The fingerprint and wire-set rule `build.rs` applies, compiled here too so their
/// tests run with the crate's.
#[cfg(test)]
#[path = "../schema.rs"]
mod schema;

pub use error::{Candidate, ErrorCode, ErrorDetails, LeanError, Progress};
pub use paths::Paths;
pub use position::{Location, Position, Range};
