//! Backing B: JetBrains IDE windows running the lean-ctx plugin. [`discovery`] finds
//! them through their port files and checks they answer; [`backend`] speaks the HTTP
//! wire (docs/ide-wire.md) to one; [`actions`] are the operations an IDE answers.

pub mod backend;
pub mod discovery;
