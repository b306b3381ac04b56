//! Backing B: JetBrains IDE windows running the lean-ctx plugin. [`discovery`] finds
//! them through their port files and checks they answer; [`backend`] speaks the HTTP
//! wire (docs/ide-wire.md) to one. The operations an IDE answers are the backing's,
//! `backing/ide.rs`: this module knows windows and HTTP, not operations.

pub mod backend;
pub mod discovery;
