//! The client side of a connection: connect, hello, tarpc. The framing itself is part
//! of the wire schema and lives in [`crate::wire::frame`]; it is re-exported here.

use std::{io, path::Path, time::Duration};

use tokio::net::UnixStream;

pub use crate::wire::frame::{MAX_FRAME_LEN, SocketTransport, socket_transport};
use crate::{
    hello::{ClientHello, HelloError, Outcome, ServerHello, read_hello, write_hello},
    protocol::LeanCtxClient,
};

/// Largest answer the daemon builds: the frame less 1 MiB for tarpc's envelope (request
/// id, result tag) and an error's text, so an answer that fits is never cut off by the
/// framing (which would drop the connection).
pub const MAX_ANSWER_BYTES: u64 = (MAX_FRAME_LEN - 1024 * 1024) as u64;

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// No socket, or nobody listening on it.
    #[error("no daemon is listening: {0}")]
    NotRunning(io::Error),
    #[error("cannot connect to the daemon: {0}")]
    Io(io::Error),
    #[error(transparent)]
    Hello(#[from] HelloError),
    /// The daemon answered the hello with something other than `Accepted`.
    #[error("the daemon did not accept the connection: {:?}", .0.outcome)]
    NotAccepted(Box<ServerHello>),
    #[error("the daemon did not answer the hello within {0:?}")]
    Timeout(Duration),
}

impl ConnectError {
    /// The connection was taken and then dropped before any hello came back: the
    /// listener's owner died with us in its accept queue (a killed daemon's socket
    /// lingers for a moment while the kernel tears the process down). The connect
    /// itself can fail so too: CI saw `ECONNRESET` from `connect` right after a
    /// daemon was killed with `kill -9`, where a moment later it is refused.
    pub fn peer_vanished(&self) -> bool {
        let dropped = |e: &io::Error| {
            matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::UnexpectedEof
                    | io::ErrorKind::BrokenPipe
            )
        };
        match self {
            ConnectError::Hello(HelloError::Io(e)) => dropped(e),
            ConnectError::Io(e) => e.kind() == io::ErrorKind::ConnectionReset,
            _ => false,
        }
    }
}

/// An accepted connection: the tarpc client and what the daemon said about itself.
#[derive(Debug)]
pub struct Connection {
    pub client: LeanCtxClient,
    pub server: ServerHello,
}

/// Connects, exchanges hellos within `timeout`, and, if accepted, starts a tarpc
/// client on the current tokio runtime.
pub async fn connect(
    socket: &Path,
    hello: &ClientHello,
    timeout: Duration,
) -> Result<Connection, ConnectError> {
    let (stream, server) = handshake(socket, hello, timeout).await?;
    if server.outcome != Outcome::Accepted {
        return Err(ConnectError::NotAccepted(Box::new(server)));
    }
    let transport = socket_transport(stream);
    let client = LeanCtxClient::new(tarpc::client::Config::default(), transport).spawn();
    Ok(Connection { client, server })
}

/// Connects and exchanges hellos, whatever the outcome; the caller decides.
pub async fn handshake(
    socket: &Path,
    hello: &ClientHello,
    timeout: Duration,
) -> Result<(UnixStream, ServerHello), ConnectError> {
    let mut stream = UnixStream::connect(socket)
        .await
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
                ConnectError::NotRunning(e)
            }
            _ => ConnectError::Io(e),
        })?;
    let exchange = async {
        write_hello(&mut stream, hello).await?;
        read_hello::<_, ServerHello>(&mut stream).await
    };
    let server = tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| ConnectError::Timeout(timeout))??;
    Ok((stream, server))
}
