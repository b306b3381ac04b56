//! The client side of a connection: connect, hello, tarpc. The framing itself is part
//! of the wire schema and lives in [`crate::wire::frame`]; it is re-exported here.
//!
//! Before one byte is sent, on every connect, the listener proves it is our daemon: the
//! socket's directory is ours alone and the listening process runs as our uid
//! (`SO_PEERCRED`). [`MAX_ANSWER_BYTES`] is the largest answer a daemon builds, the
//! frame less room for tarpc's envelope.

use std::{
    io,
    path::{Path, PathBuf},
    time::Duration,
};

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
    /// The socket's directory is not ours alone ([`crate::paths::not_private`]):
    /// whoever controls it controls what listens there. Nothing was sent.
    #[error("refusing the daemon socket in {dir}: the directory is {reason}")]
    UntrustedDir { dir: PathBuf, reason: String },
    /// The process listening on the socket runs as another user. Nothing was sent.
    #[error("refusing {socket}: the process listening there runs as uid {uid}, not {ours}")]
    ForeignPeer {
        socket: PathBuf,
        uid: u32,
        ours: u32,
    },
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
///
/// Before one byte is sent, on every connect (a check made once, when the shim
/// spawned its daemon, is waited out): the socket's directory is ours alone, and
/// the listening process runs as our uid (`SO_PEERCRED`). Otherwise another user
/// who made the directory first (`/tmp/lean-ctx-<uid>` without
/// `XDG_RUNTIME_DIR`) would be sent every request.
pub async fn handshake(
    socket: &Path,
    hello: &ClientHello,
    timeout: Duration,
) -> Result<(UnixStream, ServerHello), ConnectError> {
    let dir = socket.parent().unwrap_or(Path::new("/"));
    match std::fs::symlink_metadata(dir) {
        Ok(meta) => {
            if let Some(reason) = crate::paths::not_private(&meta) {
                return Err(ConnectError::UntrustedDir {
                    dir: dir.to_path_buf(),
                    reason,
                });
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ConnectError::NotRunning(e)),
        Err(e) => return Err(ConnectError::Io(e)),
    }
    let mut stream = UnixStream::connect(socket)
        .await
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
                ConnectError::NotRunning(e)
            }
            _ => ConnectError::Io(e),
        })?;
    let ours = rustix::process::getuid().as_raw();
    let uid = stream.peer_cred().map_err(ConnectError::Io)?.uid();
    if uid != ours {
        return Err(ConnectError::ForeignPeer {
            socket: socket.to_path_buf(),
            uid,
            ours,
        });
    }
    let exchange = async {
        write_hello(&mut stream, hello).await?;
        read_hello::<_, ServerHello>(&mut stream).await
    };
    let server = tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| ConnectError::Timeout(timeout))??;
    Ok((stream, server))
}
