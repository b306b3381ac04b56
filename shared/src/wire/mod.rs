//! Everything that crosses the daemon socket after the hello, and nothing else: the
//! tarpc service and its types ([`protocol`]), the error they answer with ([`error`]),
//! the positions they carry ([`position`]) and the framing they travel in ([`frame`]).

pub mod error;
pub mod frame;
pub mod position;
pub mod protocol;
