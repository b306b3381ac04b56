//! The daemons running for this user, one per wire schema, each recorded by a small
//! file in the runtime dir: what `daemon status` lists besides the daemon it talks
//! to, and how an older daemon learns it has been superseded.
//!
//! Why a daemon per schema (as Gradle keeps a daemon per version): bincode is not
//! self-describing, so a shim talks tarpc only to a daemon of its own schema (`SCHEMA`,
//! the fingerprint of `shared/src/wire`). With one socket for every build, an upgrade
//! made one side wait or fail: the new build's sessions were refused while an old
//! session used the old daemon, and replacing the old daemon broke the old sessions.
//! With the schema in the socket's name ([`crate::Paths::socket`]), each shim reaches
//! (and auto-spawns) the daemon of its own schema: a new build's session never waits on
//! an old daemon, and an old session keeps its daemon until it ends. Builds of equal
//! schema share one daemon (the hello settles a version difference as before).
//!
//! A record is `lean-ctxd-<schema short form>.json` in the runtime dir (owner-only,
//! written atomically by [`crate::paths::write_private`], removed by the daemon at
//! exit). A daemon killed with `kill -9` leaves its record behind: [`list`] ignores a
//! record whose pid is dead or belongs to another uid (a recycled pid), so a stale
//! file never names a daemon that is not there.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use crate::{
    process::pid_alive,
    protocol::{SCHEMA, VERSION, build_id},
};

/// How many hex digits of `SCHEMA` name a daemon's socket, lock and record: short
/// enough for `sun_path` on macOS (104 bytes), long enough that two schemas a user
/// runs side by side never share one (a clash needs 2^32 schemas).
pub const SCHEMA_SHORT_LEN: usize = 8;

/// This build's short schema: the name its socket, lock, record and service units
/// carry.
pub fn schema_short() -> &'static str {
    &SCHEMA[..SCHEMA_SHORT_LEN]
}

const RECORD_PREFIX: &str = "lean-ctxd-";
const RECORD_SUFFIX: &str = ".json";

/// What a running daemon says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub pid: u32,
    pub version: String,
    pub build: String,
    /// The full `SCHEMA`.
    pub schema: String,
    pub socket: PathBuf,
    pub started_at_unix_ms: u64,
    /// How it was started (`auto-spawn`, `systemd`, ...).
    pub started_by: String,
}

impl Record {
    /// The record of this process, a daemon of this build.
    pub fn ours(socket: &Path, started_at_unix_ms: u64, started_by: &str) -> Record {
        Record {
            pid: std::process::id(),
            version: VERSION.to_string(),
            build: build_id(),
            schema: SCHEMA.to_string(),
            socket: socket.to_path_buf(),
            started_at_unix_ms,
            started_by: started_by.to_string(),
        }
    }

    /// The schema's short form, the name of its socket and units.
    pub fn schema_short(&self) -> &str {
        self.schema.get(..SCHEMA_SHORT_LEN).unwrap_or(&self.schema)
    }

    /// Whether `other` supersedes this daemon: it serves another schema, and it is of a
    /// newer version, or of the same version and started later (two builds of one
    /// release: the one built and run last is the upgrade). An older version started
    /// later (an old session's shim spawning its own daemon again) supersedes nothing,
    /// so two builds never take turns replacing each other.
    pub fn superseded_by(&self, other: &Record) -> bool {
        if other.schema == self.schema {
            return false;
        }
        match version_key(&other.version).cmp(&version_key(&self.version)) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                (other.started_at_unix_ms, other.pid) > (self.started_at_unix_ms, self.pid)
            }
        }
    }
}

fn version_key(v: &str) -> Vec<u64> {
    v.split(['.', '-', '+'])
        .map_while(|p| p.parse().ok())
        .collect()
}

/// The record file of the daemon of `schema_short` in `runtime_dir`.
pub fn record_path(runtime_dir: &Path, schema_short: &str) -> PathBuf {
    runtime_dir.join(format!("{RECORD_PREFIX}{schema_short}{RECORD_SUFFIX}"))
}

/// Writes `record` atomically, mode 0600.
pub fn write(runtime_dir: &Path, record: &Record) -> io::Result<()> {
    let json = serde_json::to_vec_pretty(record).map_err(io::Error::other)?;
    crate::paths::write_private(&record_path(runtime_dir, record.schema_short()), &json)
}

/// Removes the record of `schema_short` if it is still the one of `pid` (a successor
/// of the same schema may already have written its own).
pub fn remove(runtime_dir: &Path, schema_short: &str, pid: u32) {
    let path = record_path(runtime_dir, schema_short);
    if read(&path).is_some_and(|r| r.pid == pid) {
        let _ = fs::remove_file(path);
    }
}

fn read(path: &Path) -> Option<Record> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// Every live daemon recorded in `runtime_dir`, oldest first. A record whose pid is
/// gone, or is a process of another user (the pid was reused), is left out.
pub fn list(runtime_dir: &Path) -> Vec<Record> {
    let Ok(entries) = fs::read_dir(runtime_dir) else {
        return vec![];
    };
    let mut records: Vec<Record> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(RECORD_PREFIX) && name.ends_with(RECORD_SUFFIX)
        })
        .filter_map(|e| read(&e.path()))
        .filter(|r| pid_alive(r.pid) && pid_is_ours(r.pid))
        .collect();
    records.sort_by_key(|r| (r.started_at_unix_ms, r.pid));
    records
}

/// Whether `pid` runs as this user: `/proc/<pid>` is owned by the process's uid. Where
/// there is no `/proc` (macOS), `kill(pid, 0)` succeeding (in `pid_alive`) already
/// means the process is ours, unless we are root.
fn pid_is_ours(pid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(format!("/proc/{pid}")) {
        Ok(meta) => meta.uid() == rustix::process::getuid().as_raw(),
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(schema: &str, version: &str, started: u64) -> Record {
        Record {
            pid: std::process::id(),
            version: version.into(),
            build: format!("{version}+{schema}"),
            schema: schema.into(),
            socket: PathBuf::from("/run/x.sock"),
            started_at_unix_ms: started,
            started_by: "auto-spawn".into(),
        }
    }

    #[test]
    fn a_later_or_newer_daemon_of_another_schema_supersedes_and_nothing_else_does() {
        let old = record("aaaaaaaaaaaaaaaa", "0.1.0", 100);
        assert!(old.superseded_by(&record("bbbbbbbbbbbbbbbb", "0.1.0", 200)));
        assert!(old.superseded_by(&record("bbbbbbbbbbbbbbbb", "0.2.0", 50)));
        // The same schema is the same daemon slot, never a successor.
        assert!(!old.superseded_by(&record("aaaaaaaaaaaaaaaa", "0.2.0", 200)));
        // An older release started again later replaces nothing.
        assert!(!old.superseded_by(&record("bbbbbbbbbbbbbbbb", "0.0.9", 300)));
        assert!(!old.superseded_by(&record("bbbbbbbbbbbbbbbb", "0.1.0", 50)));
    }

    #[test]
    fn records_are_private_listed_while_alive_and_removed_only_by_their_daemon() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let mine = Record::ours(&run.join("s.sock"), 5, "auto-spawn");
        write(&run, &mine).unwrap();
        let path = record_path(&run, schema_short());
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(list(&run), vec![mine.clone()]);

        // A dead pid's record (a daemon killed with -9) is not listed.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let mut stale = record("cccccccccccccccc", "0.1.0", 1);
        stale.pid = dead;
        write(&run, &stale).unwrap();
        // A live process of another user (pid 1 is root's; the test may run as root,
        // so only checked when it does not).
        let mut foreign = record("dddddddddddddddd", "0.1.0", 2);
        foreign.pid = 1;
        write(&run, &foreign).unwrap();
        let listed = list(&run);
        assert!(!listed.iter().any(|r| r.pid == dead), "{listed:?}");
        if rustix::process::getuid().as_raw() != 0 {
            assert!(!listed.iter().any(|r| r.pid == 1), "{listed:?}");
        }

        remove(&run, schema_short(), std::process::id() + 1);
        assert!(path.exists(), "another pid removed our record");
        remove(&run, schema_short(), std::process::id());
        assert!(!path.exists());
    }
}
