//! The last calls the daemon answered and how many it answers per second: what the
//! dashboard's overview shows live. Filled by [`Daemon::call`](crate::state::Daemon::call)
//! only, so every operation is in it and nothing else is.
//!
//! Which root a call was for and which backing answered are known deep inside the
//! operations, not at the choke point; operations report them with [`note_root`] and
//! [`note_backing`] into a task-local [`Note`] that `Daemon::call` scopes around each
//! call. Outside a call both are no-ops, so a helper never has to know who called it.

use std::{
    cell::RefCell,
    collections::VecDeque,
    future::Future,
    path::{Path, PathBuf},
    sync::Mutex,
};

use serde::Serialize;

/// Calls kept for the dashboard.
pub const RECENT: usize = 100;

/// The rate is averaged over this many seconds.
const RATE_WINDOW_SECS: u64 = 10;

/// One answered call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRecord {
    /// 1 for the daemon's first call; the page uses it to spot new rows.
    pub seq: u64,
    pub at_unix_ms: u64,
    pub action: &'static str,
    pub root: Option<PathBuf>,
    /// e.g. `pylsp`, `rust-analyzer`, `jetbrains`, `headless`; `None` where no
    /// backing was involved or the call failed before one answered.
    pub backing: Option<String>,
    pub latency_us: u64,
    /// The catalog code of a failed call.
    pub error: Option<&'static str>,
}

/// What an operation tells about itself while it runs.
#[derive(Debug, Default)]
pub struct Note {
    pub root: Option<PathBuf>,
    pub backing: Option<String>,
}

tokio::task_local! {
    static NOTE: RefCell<Note>;
}

/// Records the project root the running call is about (no-op outside a call).
pub fn note_root(root: &Path) {
    let _ = NOTE.try_with(|n| n.borrow_mut().root = Some(root.to_path_buf()));
}

/// Records the backing that answered the running call (no-op outside a call).
pub fn note_backing(backing: &str) {
    let _ = NOTE.try_with(|n| n.borrow_mut().backing = Some(backing.to_string()));
}

/// Runs `fut` with a fresh [`Note`] and returns what it noted.
pub async fn noted<F: Future>(fut: F) -> (F::Output, Note) {
    NOTE.scope(RefCell::new(Note::default()), async {
        let out = fut.await;
        (out, NOTE.with(|n| n.take()))
    })
    .await
}

#[derive(Debug, Default)]
pub struct CallLog {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    recent: VecDeque<CallRecord>,
    /// Calls per unix second, a ring indexed by `second % RATE_WINDOW_SECS`; a slot
    /// whose second is stale counts as empty.
    per_second: [(u64, u64); RATE_WINDOW_SECS as usize],
}

impl CallLog {
    pub fn record(&self, record: CallRecord) {
        let mut inner = self.inner.lock().unwrap();
        let second = record.at_unix_ms / 1000;
        let slot = &mut inner.per_second[(second % RATE_WINDOW_SECS) as usize];
        if slot.0 == second {
            slot.1 += 1;
        } else {
            *slot = (second, 1);
        }
        if inner.recent.len() == RECENT {
            inner.recent.pop_front();
        }
        inner.recent.push_back(record);
    }

    /// Newest first.
    pub fn recent(&self) -> Vec<CallRecord> {
        self.inner
            .lock()
            .unwrap()
            .recent
            .iter()
            .rev()
            .cloned()
            .collect()
    }

    /// Calls per second over the last [`RATE_WINDOW_SECS`] seconds up to `now_ms`
    /// (the current, partial second included).
    pub fn per_second(&self, now_ms: u64) -> f64 {
        let now = now_ms / 1000;
        let inner = self.inner.lock().unwrap();
        let calls: u64 = inner
            .per_second
            .iter()
            .filter(|(second, _)| *second <= now && now - second < RATE_WINDOW_SECS)
            .map(|(_, n)| n)
            .sum();
        calls as f64 / RATE_WINDOW_SECS as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(seq: u64, at_unix_ms: u64) -> CallRecord {
        CallRecord {
            seq,
            at_unix_ms,
            action: "outline",
            root: None,
            backing: None,
            latency_us: 1,
            error: None,
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_hundred_newest_first() {
        let log = CallLog::default();
        for seq in 1..=150 {
            log.record(call(seq, 1_000));
        }
        let recent = log.recent();
        assert_eq!(recent.len(), RECENT);
        assert_eq!(recent[0].seq, 150);
        assert_eq!(recent[RECENT - 1].seq, 51);
    }

    #[test]
    fn the_rate_counts_only_the_last_ten_seconds() {
        let log = CallLog::default();
        // 20 calls at second 100, 10 at second 105.
        for seq in 0..20 {
            log.record(call(seq, 100_000 + seq));
        }
        for seq in 0..10 {
            log.record(call(seq, 105_500));
        }
        assert_eq!(log.per_second(105_900), 3.0);
        // Second 100 has left the window; 105 is still in it.
        assert_eq!(log.per_second(110_000), 1.0);
        assert_eq!(log.per_second(200_000), 0.0);
        // A slot reused by a later second forgets the earlier one.
        log.record(call(0, 115_000));
        assert_eq!(log.per_second(115_000), 0.1);
    }

    #[tokio::test]
    async fn notes_are_per_call_and_ignored_outside_one() {
        note_root(Path::new("/outside"));
        let ((), note) = noted(async {
            note_root(Path::new("/p"));
            tokio::task::yield_now().await;
            note_backing("pylsp");
        })
        .await;
        assert_eq!(note.root.as_deref(), Some(Path::new("/p")));
        assert_eq!(note.backing.as_deref(), Some("pylsp"));
        let ((), empty) = noted(async {}).await;
        assert!(empty.root.is_none() && empty.backing.is_none());
    }
}
