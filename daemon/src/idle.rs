//! Idle exit: when nobody has been connected for the idle timeout, the daemon stops
//! itself so an unused one does not linger. Only where something starts it again on
//! demand: the shim (an auto-spawned daemon) or systemd's socket (socket activation).
//! A daemon started any other way (by hand, launchd, a service without its socket)
//! would not come back, so it idles out only when given `--idle-timeout`.

use std::time::Duration;

use tokio::sync::watch;

/// Resolves once the connection count has stayed at zero for `timeout` without a
/// break. A connection arriving restarts the wait.
pub async fn wait_for_idle(mut connections: watch::Receiver<usize>, timeout: Duration) {
    loop {
        // Map the borrowed value to a bool at once: a held watch guard is not `Send`.
        let closed = connections.wait_for(|c| *c == 0).await.is_err();
        if closed {
            return std::future::pending().await;
        }
        let busy = async { connections.wait_for(|c| *c > 0).await.is_ok() };
        tokio::select! {
            _ = tokio::time::sleep(timeout) => return,
            busy = busy => {
                if !busy {
                    return std::future::pending().await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    };

    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn exits_after_the_timeout_only_while_nobody_is_connected() {
        let (tx, rx) = watch::channel(1usize);
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        tokio::spawn(async move {
            wait_for_idle(rx, 30 * MIN).await;
            flag.store(true, Ordering::SeqCst);
        });

        // Connected for an hour: no exit.
        tokio::time::sleep(60 * MIN).await;
        assert!(!done.load(Ordering::SeqCst));

        // Disconnected for 20 minutes, then a connection comes and goes.
        tx.send(0).unwrap();
        tokio::time::sleep(20 * MIN).await;
        tx.send(1).unwrap();
        tokio::time::sleep(MIN).await;
        tx.send(0).unwrap();
        // The wait restarted: 29 minutes later still running, 31 minutes later gone.
        tokio::time::sleep(29 * MIN).await;
        assert!(!done.load(Ordering::SeqCst));
        tokio::time::sleep(2 * MIN).await;
        assert!(done.load(Ordering::SeqCst));
    }
}
