//! Upgrades that never break a running session and never block a new one.
//!
//! **A daemon per wire schema.** A shim connects to, and auto-spawns, the daemon of its
//! own schema: the socket, the single-instance lock and the spawn lock carry the
//! schema's short form (`Paths::socket`, `shared::daemons`). After `cargo install` of a
//! build with another schema, the new build's sessions get a daemon of their own at
//! once, and the sessions that were running keep theirs. (The alternative, a handover
//! where the old daemon keeps its connections while the new one takes the one socket,
//! cannot serve an old session that reconnects: its shim would find only the new
//! daemon. Gradle keeps a daemon per version for the same reason.) Builds of one schema
//! share a daemon, their version difference settled by the hello as before.
//!
//! **Each daemon records itself** (`shared::daemons`: pid, version, build, schema,
//! socket, start time; 0600, atomic, removed at exit, stale ones ignored by pid and
//! uid). `daemon status` lists the other builds' daemons from these records.
//!
//! **A superseded daemon steps down.** Every [`POLL`] the daemon reads the records; once
//! one of another schema that supersedes it is there (`Record::superseded_by`: a newer
//! version, or the same version started later), it
//! - exits as soon as no connection has been open for [`SUPERSEDED_GRACE`] (not the
//!   30-minute idle timeout, and whether or not it was started with one: a systemd or
//!   launchd daemon of the old build steps down too);
//! - starts no language server for a root its sessions were not working in when it was
//!   superseded (`Pool::supersede`); servers running keep serving its sessions.
//!
//! **How long two daemons overlap.** From the new daemon's start until the old one's
//! last connection closes, plus [`SUPERSEDED_GRACE`]. An agent session that stays
//! quiet has its connection closed after `daemon.connection_idle_timeout` (10 minutes)
//! and reconnects on its next call, so the overlap lasts as long as an old session is
//! in use, and at most that timeout plus the grace after its last call. Language
//! servers do not double up beyond it: the old daemon starts none for new roots, and
//! its own go with it when it exits; a root both builds work in has one server in each
//! for that time.
//!
//! **Writes.** Both daemons may serve one root meanwhile. Every write of ours (symbol
//! edits, renames, reformat: `edit::apply` and `edit::apply_many`) holds the root's
//! cross-daemon lock (`root_lock::RootWriteLock`, a flock in the runtime dir) around the
//! read-check-write, so the two never interleave, and each daemon's watcher sees the
//! other's writes as external edits and reindexes, as it would for an editor's.

use std::{collections::HashSet, path::PathBuf, sync::Arc, time::Duration};

use lean_ctx_shared::{
    Paths,
    daemons::{self, Record},
};

use crate::{idle, state::Daemon};

/// How often a daemon looks for a daemon of a newer build.
pub const POLL: Duration = Duration::from_secs(1);

/// How long a superseded daemon waits with no connection open before it exits: long
/// enough for a CLI session's next call (one connection per call) to come, short
/// enough that an unused old daemon is gone within seconds.
pub const SUPERSEDED_GRACE: Duration = Duration::from_secs(5);

/// This daemon's record in the runtime dir, removed when dropped.
#[derive(Debug)]
pub struct Recorded {
    runtime_dir: PathBuf,
    record: Record,
}

impl Recorded {
    pub fn write(paths: &Paths, record: Record) -> std::io::Result<Recorded> {
        daemons::write(&paths.runtime_dir, &record)?;
        Ok(Recorded {
            runtime_dir: paths.runtime_dir.clone(),
            record,
        })
    }

    pub fn record(&self) -> &Record {
        &self.record
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        daemons::remove(
            &self.runtime_dir,
            self.record.schema_short(),
            self.record.pid,
        );
    }
}

/// Waits until a daemon that supersedes `ours` is recorded, then steps down as the
/// module doc says. Returns when the daemon stops for any reason.
pub async fn step_down_when_superseded(daemon: Arc<Daemon>, ours: Record) {
    let stop = daemon.shutdown_token().clone();
    let successor = loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(POLL) => {}
        }
        let runtime = daemon.config.paths.runtime_dir.clone();
        let found = tokio::task::spawn_blocking(move || daemons::list(&runtime))
            .await
            .unwrap_or_default();
        if let Some(newer) = found.into_iter().find(|r| ours.superseded_by(r)) {
            break newer;
        }
    };
    let roots: HashSet<PathBuf> = daemon.registry.list().into_iter().map(|p| p.root).collect();
    tracing::info!(
        by = %successor.build,
        pid = successor.pid,
        roots = roots.len(),
        "superseded by a newer build: exiting once no session has been connected for {SUPERSEDED_GRACE:?}"
    );
    daemon.lsp.supersede(roots, successor.build);
    tokio::select! {
        _ = stop.cancelled() => {}
        _ = idle::wait_for_idle(daemon.subscribe_connections(), SUPERSEDED_GRACE) => {
            tracing::info!("superseded and no session left: stopping");
            daemon.shutdown();
        }
    }
}
