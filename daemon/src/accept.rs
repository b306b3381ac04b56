//! The accept loop and one connection's life: peer check, hello, tarpc, drain.
//!
//! Connections are accepted by hand (not by tarpc's incoming helper) so that each one
//! is checked before any byte of it is decoded: the peer's uid must be ours, the first
//! frame must be a well-formed hello within [`HELLO_TIMEOUT`], and tarpc frames are
//! length-limited. A bad connection is closed and logged; the others never notice.
//! Connections are bounded: over `daemon.max_connections` a hello is refused
//! (`TooManyConnections`; a shutdown always passes, or a full daemon could not be
//! stopped), and one without a call for `daemon.connection_idle_timeout`
//! is closed (the shim reconnects on its next call), so a quiet peer neither piles up
//! nor keeps an auto-spawned daemon from its idle exit.

use std::{sync::Arc, time::Duration};

use futures::{StreamExt, future};
use lean_ctx_shared::{
    hello::{
        ClientHello, Intent, Outcome, RefuseReason, ServerHello, decide, read_hello, write_hello,
    },
    protocol::{LeanCtx, OPERATIONS, PROTOCOL_VERSION, SCHEMA, VERSION, build_id},
    transport::socket_transport,
};
use tarpc::server::{BaseChannel, Channel};
use tokio::{
    net::{UnixListener, UnixStream},
    sync::watch,
    time::Instant,
};
use tokio_util::task::TaskTracker;

use crate::{dashboard::Dashboard, service::Handler, state::Daemon};

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
    // One dashboard per daemon, started by the first `dashboard` call.
    let dashboard = Arc::new(Dashboard::default());
    let shutdown = daemon.shutdown_token().clone();
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(daemon.clone(), dashboard.clone(), stream));
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

async fn serve_connection(daemon: Arc<Daemon>, dashboard: Arc<Dashboard>, mut stream: UnixStream) {
    let peer_pid = match check_peer(&stream) {
        Ok(pid) => pid,
        Err(reason) => {
            tracing::warn!(%reason, "refused connection");
            return;
        }
    };
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
    let max = daemon.config.limits.max_connections;
    // Over the cap a caller is refused, never an older connection dropped: an agent's
    // session may sit quiet between calls. A shutdown is always let through, so
    // `lean-ctx daemon stop` works on a flooded daemon.
    let outcome = if daemon.connections() > max && !matches!(hello.intent, Intent::Shutdown) {
        Outcome::Refused {
            reason: RefuseReason::TooManyConnections,
            message: format!("{max} connections are open already (daemon.max_connections)"),
        }
    } else {
        decide(&hello, idle)
    };
    tracing::debug!(client = %hello.client, build = %hello.build, ?outcome, "hello");
    let reply = ServerHello {
        protocol: PROTOCOL_VERSION,
        schema: SCHEMA.to_string(),
        version: VERSION.to_string(),
        build: build_id(),
        pid: std::process::id(),
        capabilities: OPERATIONS.iter().map(|c| c.to_string()).collect(),
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
        sessions: Arc::new(crate::reads::Bound::new(daemon.reads.clone(), peer_pid)),
        daemon: daemon.clone(),
        dashboard,
    };
    let activity = Activity::default();
    let requests = BaseChannel::with_defaults(socket_transport(stream))
        .execute(handler.serve())
        .for_each(|call| {
            let done = activity.begin();
            tokio::spawn(async move {
                call.await;
                drop(done);
            });
            future::ready(())
        });
    let mut requests = std::pin::pin!(requests);
    let idle_after = daemon.config.limits.connection_idle;
    tokio::select! {
        // The peer closed the connection, or sent a frame that does not decode.
        _ = &mut requests => {}
        () = activity.idle_for(idle_after) => {
            tracing::info!("closing connection: no call for {idle_after:?}");
        }
        _ = daemon.drained_token().cancelled() => {
            let _ = tokio::time::timeout(FLUSH_GRACE, &mut requests).await;
        }
    }
}

/// One connection's calls: how many run and when the last one started or ended.
#[derive(Debug)]
struct Activity(watch::Sender<(usize, Instant)>);

impl Default for Activity {
    fn default() -> Activity {
        Activity(watch::Sender::new((0, Instant::now())))
    }
}

/// Ends a call's part in [`Activity`] when dropped (also when the call is aborted).
struct CallDone(watch::Sender<(usize, Instant)>);

impl Drop for CallDone {
    fn drop(&mut self) {
        self.0.send_modify(|(running, last)| {
            *running -= 1;
            *last = Instant::now();
        });
    }
}

impl Activity {
    fn begin(&self) -> CallDone {
        self.0.send_modify(|(running, last)| {
            *running += 1;
            *last = Instant::now();
        });
        CallDone(self.0.clone())
    }

    /// Resolves once no call has run for `timeout`: never while one runs, however
    /// long it takes.
    async fn idle_for(&self, timeout: Duration) {
        let mut rx = self.0.subscribe();
        loop {
            let (running, last) = *rx.borrow_and_update();
            if running > 0 {
                // The sender lives in `self`: `changed` cannot fail while we wait.
                let _ = rx.changed().await;
                continue;
            }
            tokio::select! {
                () = tokio::time::sleep_until(last + timeout) => return,
                _ = rx.changed() => {}
            }
        }
    }
}

/// The peer must run as our own user: the socket dir is private, and this check keeps
/// it so even if someone loosens the dir. Its pid, when the kernel gives one, is what
/// a read session bound to this connection outlives the connection by (`Bound`).
fn check_peer(stream: &UnixStream) -> Result<Option<u32>, String> {
    let ours = rustix::process::getuid().as_raw();
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == ours => Ok(cred.pid().and_then(|p| u32::try_from(p).ok())),
        Ok(cred) => Err(format!("peer uid {} is not ours ({ours})", cred.uid())),
        Err(e) => Err(format!("cannot read peer credentials: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_idle_only_after_its_last_call_ended_plus_the_timeout() {
        let activity = Arc::new(Activity::default());
        let idle = {
            let activity = activity.clone();
            tokio::spawn(async move {
                activity.idle_for(10 * SEC).await;
                Instant::now()
            })
        };
        tokio::time::sleep(5 * SEC).await;
        // A call that runs for a minute, well past the timeout.
        let call = activity.begin();
        tokio::time::sleep(60 * SEC).await;
        assert!(!idle.is_finished());
        drop(call);
        let ended = Instant::now();
        let at = idle.await.unwrap();
        assert_eq!(at - ended, 10 * SEC);
    }
}
