//! The accept loop and one connection's life: peer check, hello, tarpc, drain.
//!
//! Connections are accepted by hand (not by tarpc's incoming helper) so that each one
//! is checked before any byte of it is decoded: the peer's uid must be ours, the first
//! frame must be a well-formed hello within [`HELLO_TIMEOUT`], and tarpc frames are
//! length-limited. A bad connection is closed and logged; the others never notice.

use std::{sync::Arc, time::Duration};

use futures::{StreamExt, future};
use lean_ctx_shared::{
    hello::{ClientHello, Outcome, ServerHello, decide, read_hello, write_hello},
    protocol::{LeanCtx, PROTOCOL_VERSION, SCHEMA, VERSION, build_id},
    transport::socket_transport,
};
use tarpc::server::{BaseChannel, Channel};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::task::TaskTracker;

use crate::{service::CAPABILITIES, service::Handler, state::Daemon};

/// A peer must send its hello within this time, or it is dropped.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest a shutdown waits for in-flight calls before closing connections anyway.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// After the last call finished, how long a connection keeps running so its answer
/// is written out (tarpc queues responses and writes them on the next poll).
const FLUSH_GRACE: Duration = Duration::from_millis(200);

/// Serves until [`Daemon::shutdown`] is called, then drains: stops accepting, lets
/// in-flight calls finish (at most [`DRAIN_TIMEOUT`]), flushes their answers and
/// closes every connection. The caller removes the socket file afterwards.
pub async fn run(listener: UnixListener, daemon: Arc<Daemon>) {
    let connections = TaskTracker::new();
    let shutdown = daemon.shutdown_token().clone();
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(daemon.clone(), stream));
                }
                Err(e) => {
                    // EMFILE and friends: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    // Stop accepting: from here a connect is refused, so a new shim spawns a successor
    // (which waits for our lock) instead of talking to a daemon on its way out.
    drop(listener);
    tracing::info!(in_flight = daemon.in_flight(), "draining");
    if !daemon.wait_idle_calls(DRAIN_TIMEOUT).await {
        tracing::warn!(in_flight = daemon.in_flight(), "drain timed out");
    }
    daemon.drained_token().cancel();
    connections.close();
    connections.wait().await;
    tracing::info!("drained");
}

async fn serve_connection(daemon: Arc<Daemon>, mut stream: UnixStream) {
    if let Err(reason) = check_peer(&stream) {
        tracing::warn!(%reason, "refused connection");
        return;
    }
    let _counted = daemon.connection_guard();
    let hello = match tokio::time::timeout(HELLO_TIMEOUT, read_hello::<_, ClientHello>(&mut stream))
        .await
    {
        Ok(Ok(hello)) => hello,
        Ok(Err(e)) => {
            tracing::info!(error = %e, "closing connection: bad hello");
            return;
        }
        Err(_) => {
            tracing::info!("closing connection: no hello within {HELLO_TIMEOUT:?}");
            return;
        }
    };
    // Idle: this is the only connection and nothing runs.
    let idle = daemon.connections() == 1 && daemon.in_flight() == 0;
    let outcome = decide(&hello, idle);
    tracing::debug!(client = %hello.client, build = %hello.build, ?outcome, "hello");
    let reply = ServerHello {
        protocol: PROTOCOL_VERSION,
        schema: SCHEMA.to_string(),
        version: VERSION.to_string(),
        build: build_id(),
        pid: std::process::id(),
        capabilities: CAPABILITIES.iter().map(|c| c.to_string()).collect(),
        outcome: outcome.clone(),
    };
    if let Err(e) = write_hello(&mut stream, &reply).await {
        tracing::info!(error = %e, "closing connection: hello reply failed");
        return;
    }
    match outcome {
        Outcome::Accepted => {}
        Outcome::Refused { reason, message } => {
            tracing::warn!(?reason, %message, client = %hello.client, "refused hello");
            return;
        }
        Outcome::ShuttingDown { message } => {
            tracing::info!(%message, "stopping");
            daemon.shutdown();
            return;
        }
    }

    let handler = Handler {
        daemon: daemon.clone(),
    };
    let requests = BaseChannel::with_defaults(socket_transport(stream))
        .execute(handler.serve())
        .for_each(|call| {
            tokio::spawn(call);
            future::ready(())
        });
    let mut requests = std::pin::pin!(requests);
    tokio::select! {
        // The peer closed the connection, or sent a frame that does not decode.
        _ = &mut requests => {}
        _ = daemon.drained_token().cancelled() => {
            let _ = tokio::time::timeout(FLUSH_GRACE, &mut requests).await;
        }
    }
}

/// The peer must run as our own user: the socket dir is private, and this check keeps
/// it so even if someone loosens the dir.
fn check_peer(stream: &UnixStream) -> Result<(), String> {
    let ours = rustix::process::getuid().as_raw();
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == ours => Ok(()),
        Ok(cred) => Err(format!("peer uid {} is not ours ({ours})", cred.uid())),
        Err(e) => Err(format!("cannot read peer credentials: {e}")),
    }
}
