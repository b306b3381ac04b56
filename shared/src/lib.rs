//! The lean-ctx protocol crate: everything that crosses the daemon socket.
//!
//! `shared` depends on nothing of ours; `daemon` and `client` depend on it and never on
//! each other. It owns the tarpc service ([`protocol`]), the hello that precedes it
//! ([`hello`]), the framing ([`transport`]), the error catalog ([`error`]), agent-facing
//! positions ([`position`]), where files live ([`paths`]), process facts
//! ([`process`]), the editor signal file both sides read or write
//! ([`editor_signal`]), the JetBrains port file and project hash ([`ide`]) the gain
//! report both the CLI and the dashboard show ([`gain`]) and the neutral environment
//! every tool either side starts runs with ([`tool_env`]).

pub mod editor_signal;
pub mod error;
pub mod gain;
pub mod hello;
pub mod ide;
pub mod paths;
pub mod position;
pub mod process;
pub mod protocol;
pub mod render;
pub mod stats;
pub mod tool_env;
pub mod transport;

pub use error::{Candidate, ErrorCode, ErrorDetails, LeanError, Progress};
pub use paths::Paths;
pub use position::{Location, Position, Range};
