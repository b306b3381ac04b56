//! The framing every tarpc message travels in after the hello: u32-length-delimited
//! bincode (tarpc's serde transport) with an explicit maximum length, so a corrupt or
//! hostile length prefix closes the connection instead of allocating gigabytes. Two
//! builds that frame differently cannot talk, so this is part of the wire schema.

use tarpc::{
    serde_transport::{self, Transport},
    tokio_serde::formats::Bincode,
    tokio_util::codec::{Framed, LengthDelimitedCodec},
};
use tokio::net::UnixStream;

/// Largest tarpc frame either side accepts.
pub const MAX_FRAME_LEN: usize = 16 * 1024 * 1024;

/// A tarpc transport over a connected socket whose hello has been exchanged.
pub type SocketTransport<Item, SinkItem> =
    Transport<UnixStream, Item, SinkItem, Bincode<Item, SinkItem>>;

/// Wraps a connected socket in the framing both sides use.
pub fn socket_transport<Item, SinkItem>(stream: UnixStream) -> SocketTransport<Item, SinkItem>
where
    Item: for<'de> serde::Deserialize<'de>,
    SinkItem: serde::Serialize,
{
    let codec = LengthDelimitedCodec::builder()
        .max_frame_length(MAX_FRAME_LEN)
        .new_codec();
    serde_transport::new(Framed::new(stream, codec), Bincode::default())
}
