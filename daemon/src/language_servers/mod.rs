//! Backing A: warm language servers, one per (worktree root, language, server
//! command), shared by every session.
//!
//! [`rpc`] speaks JSON-RPC over a server's stdio; [`positions`] converts positions and URIs
//! at this boundary, exactly once; [`server`] is one process with its handshake,
//! readiness and document sync; [`pool`] keeps them warm and evicts them (the
//! operations that turn agent calls into LSP requests are `backing/lsp.rs`); [`edits`]
//! applies a server's text edits to disk bytes, narrowed to what changes;
//! [`ancestry`] holds a trusted root's servers to configuration above it that only the
//! user controls, at start and before every change a server is told of.

pub mod ancestry;
pub mod edits;
pub mod pool;
pub mod positions;
pub mod rpc;
pub mod server;
