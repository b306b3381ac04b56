//! Everything that crosses the daemon socket after the hello, and nothing else: the
//! tarpc service and its types ([`protocol`]), the error they answer with ([`error`]),
//! the positions they carry ([`position`]) and the framing they travel in ([`frame`]).
//!
//! `build.rs` fingerprints exactly the files of this directory into
//! [`protocol::SCHEMA`], so a change here (a comment included) is a new wire schema and
//! a change anywhere else in the crate is not. It refuses to build if a file here names
//! anything of the crate outside `wire` (`crate::` must go on with `wire::`, `super`
//! must not climb above it): a wire type can only embed what is hashed with it.
//! Rendering, remedies, gain, stats, paths, the editor signal and the hello (JSON, its
//! shape frozen by its own test) live outside.

pub mod error;
pub mod frame;
pub mod position;
pub mod protocol;
