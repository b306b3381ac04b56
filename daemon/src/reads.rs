//! What each agent session has already been given (`read`'s cache coherence): per
//! session, per (root, file, view), the hash and the text of the last answer and its
//! read number. A re-read of an unchanged view is then one line, a changed one the diff
//! against exactly what the session holds, and a stale `expected_hash` can be shown
//! what changed since the text it was taken from.
//!
//! Bounded: entries and bytes per session (least recently used entries go first),
//! sessions in all (the least recently used session goes), and a session idle for
//! [`IDLE`] is forgotten. A session named by an MCP server's connection lives as long
//! as that server's process ([`Bound`]): the connection closing while the process
//! lives (the daemon closes quiet connections after `connection_idle_timeout`; the
//! server reconnects on its next call) keeps it, the process gone forgets it at the
//! next read.
//!
//! Besides the sessions, one daemon-wide cache from (root, hash) to text (`TEXT_BYTES`,
//! 32 MiB) keeps what answers hashed, for a stale `expected_hash`'s diff; a root's
//! answers see only that root's texts ([`Reads::of`]), so no project's text reaches
//! another's agent. A connection's [`Bound`] is held by its handler
//! (`service::Handler`) with the peer's pid from the socket's credentials.

use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use lean_ctx_shared::protocol::ReadSession;

/// Entries one session keeps.
const SESSION_ENTRIES: usize = 1024;
/// Text bytes one session keeps.
const SESSION_BYTES: usize = 8 << 20;
/// Sessions kept at once.
const SESSIONS: usize = 32;
/// A session without a read for this long is forgotten.
pub const IDLE: Duration = Duration::from_secs(2 * 60 * 60);

/// What a read is of, within one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// The whole file (`full`, and what `diff` compares against).
    File,
    Lines(u32, u32),
    Symbol(String),
    Map,
    Signatures,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub root: PathBuf,
    pub path: String,
    pub view: View,
}

/// What the session was given before this read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Nothing of this view: read number `read`.
    New { read: u32 },
    /// Exactly this, as read number `since`.
    Same { since: u32 },
    /// Something else, as read number `since` (its text `old`, starting on line
    /// `first`); this is `read`.
    Changed {
        since: u32,
        old: Arc<str>,
        first: u32,
        read: u32,
    },
}

/// The read number `seen` answers with.
pub fn latest(seen: &Seen) -> u32 {
    match seen {
        Seen::New { read } | Seen::Changed { read, .. } => *read,
        Seen::Same { since } => *since,
    }
}

#[derive(Debug)]
struct Entry {
    hash: String,
    text: Arc<str>,
    first: u32,
    read: u32,
    used: u64,
}

#[derive(Debug)]
struct Session {
    entries: HashMap<Key, Entry>,
    bytes: usize,
    reads: u32,
    tick: u64,
    last: Instant,
}

impl Session {
    fn new() -> Session {
        Session {
            entries: HashMap::new(),
            bytes: 0,
            reads: 0,
            tick: 0,
            last: Instant::now(),
        }
    }

    /// Drops least recently used entries until the caps hold.
    fn shrink(&mut self) {
        while self.entries.len() > SESSION_ENTRIES || self.bytes > SESSION_BYTES {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.text.len();
            }
        }
    }
}

pub use lean_ctx_shared::render::SHORT_HASH;

/// Bytes of hashed texts kept for stale-hash diffs, across sessions.
const TEXT_BYTES: u64 = 32 << 20;

/// The texts answers in one root hashed ([`Reads::of`]).
#[derive(Clone, Copy, Debug)]
pub struct Texts<'a> {
    reads: &'a Reads,
    root: &'a Path,
}

impl Texts<'_> {
    fn key(&self, hash: &str) -> Option<(PathBuf, String)> {
        let short = hash.get(..SHORT_HASH)?.to_ascii_lowercase();
        Some((self.root.to_path_buf(), short))
    }

    /// Whether a text is kept under `hash` (BLAKE3 hex, whole): looking counts as a
    /// use, so it stays kept as long as answers keep handing the hash out.
    pub fn keeps(&self, hash: &str) -> bool {
        self.key(hash)
            .and_then(|k| self.reads.texts.get(&k))
            .is_some_and(|h| h.hash.eq_ignore_ascii_case(hash))
    }

    /// Keeps `text` under its BLAKE3 hex `hash`: an answer handed that hash out.
    pub fn hashed(&self, hash: &str, text: Arc<str>) {
        self.hashed_from(hash, text, None);
    }

    /// [`Texts::hashed`] for a read view of whole lines from line `first` on (the
    /// whole file, a window): a stale hash of it is diffed against those lines now.
    pub fn hashed_from(&self, hash: &str, text: Arc<str>, first: Option<u32>) {
        if let Some(key) = self.key(hash) {
            let hash = hash.to_ascii_lowercase();
            self.reads.texts.insert(key, Hashed { hash, text, first });
        }
    }

    /// The text an answer in this root hashed to `hash` (hex, any case; whole or its
    /// first [`SHORT_HASH`] digits or more), while it is kept: what a stale
    /// `expected_hash` was taken from, to show what changed since; with the first
    /// line of the read view it was, if it was one ([`Texts::hashed_from`]).
    pub fn view_of(&self, hash: &str) -> Option<(Arc<str>, Option<u32>)> {
        let given = hash.trim().to_ascii_lowercase();
        let h = self.reads.texts.get(&self.key(&given)?)?;
        h.hash.starts_with(&given).then_some((h.text, h.first))
    }
}

/// A text an answer hashed: its whole hash, and where it starts when it was a read
/// view of whole lines.
#[derive(Clone, Debug)]
struct Hashed {
    hash: String,
    text: Arc<str>,
    first: Option<u32>,
}

/// Every session's reads, daemon-wide, and the texts recent answers hashed.
#[derive(Debug)]
pub struct Reads {
    sessions: Mutex<HashMap<String, Session>>,
    /// Sessions whose connection closed while the process that named them lived: the
    /// process's pid, checked at each read.
    owners: Mutex<HashMap<String, u32>>,
    /// (root, the first [`SHORT_HASH`] hex digits of a BLAKE3) → the whole hash and
    /// the text it was taken from (a read's range, each symbol an answer listed).
    /// Keyed by root: a stale hash's diff shows text of the call's own root only,
    /// never another project's that happened to hash alike.
    texts: moka::sync::Cache<(PathBuf, String), Hashed>,
}

impl Default for Reads {
    fn default() -> Reads {
        Reads {
            sessions: Mutex::default(),
            owners: Mutex::default(),
            texts: moka::sync::Cache::builder()
                .max_capacity(TEXT_BYTES)
                .weigher(|(r, k): &(PathBuf, String), h: &Hashed| {
                    (r.as_os_str().len() + k.len() + h.hash.len() + h.text.len())
                        .try_into()
                        .unwrap_or(u32::MAX)
                })
                .build(),
        }
    }
}

impl Reads {
    /// Records that `session` is given `text` (hashing to `hash`, starting on line
    /// `first`) for `key`, and says what it held before.
    pub fn give(&self, session: &str, key: Key, hash: &str, first: u32, text: Arc<str>) -> Seen {
        self.sweep();
        let mut sessions = self.sessions.lock().unwrap();
        sessions.retain(|_, s| s.last.elapsed() < IDLE);
        if !sessions.contains_key(session) && sessions.len() >= SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, s)| s.last)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                sessions.remove(&oldest);
            }
        }
        let s = sessions
            .entry(session.to_string())
            .or_insert_with(Session::new);
        s.last = Instant::now();
        s.tick += 1;
        let tick = s.tick;
        if let Some(e) = s.entries.get_mut(&key)
            && e.hash == hash
        {
            e.used = tick;
            return Seen::Same { since: e.read };
        }
        s.reads += 1;
        let read = s.reads;
        let before = s.entries.insert(
            key,
            Entry {
                hash: hash.to_string(),
                text: text.clone(),
                first,
                read,
                used: tick,
            },
        );
        s.bytes += text.len();
        let seen = match before {
            Some(old) => {
                s.bytes -= old.text.len();
                Seen::Changed {
                    since: old.read,
                    old: old.text,
                    first: old.first,
                    read,
                }
            }
            None => Seen::New { read },
        };
        s.shrink();
        seen
    }

    /// What `session` holds of the file `key` names as windows (line ranges,
    /// symbols), each with its text, first line and read number.
    pub fn windows(&self, session: &str, key: &Key) -> Vec<(Key, Arc<str>, u32, u32)> {
        let sessions = self.sessions.lock().unwrap();
        let Some(s) = sessions.get(session) else {
            return Vec::new();
        };
        let mut out: Vec<_> = s
            .entries
            .iter()
            .filter(|(k, _)| k.root == key.root && k.path == key.path)
            .filter(|(k, _)| matches!(k.view, View::Lines(..) | View::Symbol(_)))
            .map(|(k, e)| (k.clone(), e.text.clone(), e.first, e.read))
            .collect();
        out.sort_by_key(|(_, _, first, _)| *first);
        out
    }

    /// `session` now holds `text` (hashing to `hash`, from line `first`) as `new`
    /// where it held `old`: a window that moved with the lines around it. Answers the
    /// read number.
    pub fn moved(
        &self,
        session: &str,
        old: &Key,
        new: Key,
        hash: &str,
        first: u32,
        text: Arc<str>,
    ) -> u32 {
        if let Some(s) = self.sessions.lock().unwrap().get_mut(session)
            && let Some(e) = s.entries.remove(old)
        {
            s.bytes -= e.text.len();
        }
        latest(&self.give(session, new, hash, first, text))
    }

    /// The hash of what `session` holds of `key`, if anything.
    pub fn hash_of(&self, session: &str, key: &Key) -> Option<String> {
        let sessions = self.sessions.lock().unwrap();
        Some(sessions.get(session)?.entries.get(key)?.hash.clone())
    }

    /// Whether `session` holds anything of `key`.
    pub fn holds(&self, session: &str, key: &Key) -> bool {
        let sessions = self.sessions.lock().unwrap();
        sessions
            .get(session)
            .is_some_and(|s| s.entries.contains_key(key))
    }

    /// The texts answers in `root` hashed.
    pub fn of<'a>(&'a self, root: &'a Path) -> Texts<'a> {
        Texts { reads: self, root }
    }

    /// Forgets `session` and everything it was given.
    pub fn forget(&self, session: &str) {
        self.sessions.lock().unwrap().remove(session);
        self.owners.lock().unwrap().remove(session);
    }

    /// Forgets the sessions whose process is gone.
    fn sweep(&self) {
        let gone: Vec<String> = self
            .owners
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, pid)| !lean_ctx_shared::process::pid_alive(**pid))
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            self.forget(&id);
        }
    }

    /// Sessions and text bytes held (status, tests).
    pub fn size(&self) -> (usize, usize) {
        let sessions = self.sessions.lock().unwrap();
        (sessions.len(), sessions.values().map(|s| s.bytes).sum())
    }
}

/// The sessions one connection named with `ends_with_connection`. When the
/// connection's last handler is dropped (the connection closed), each is forgotten if
/// the peer process (`pid`, from the socket's credentials) is gone, else kept until it
/// is ([`Reads`] checks at each read): a quiet MCP server's connection is closed by the
/// daemon and reopened on its next call, and its session must not lose what it read.
#[derive(Debug)]
pub struct Bound {
    reads: Arc<Reads>,
    pid: Option<u32>,
    ids: Mutex<HashSet<String>>,
}

impl Bound {
    pub fn new(reads: Arc<Reads>, pid: Option<u32>) -> Bound {
        Bound {
            reads,
            pid,
            ids: Mutex::default(),
        }
    }

    /// Notes a request's session, if it ends with this connection.
    pub fn note(&self, session: Option<&ReadSession>) {
        if let Some(s) = session.filter(|s| s.ends_with_connection) {
            self.ids.lock().unwrap().insert(s.id.clone());
        }
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        for id in self.ids.get_mut().unwrap().drain() {
            match self
                .pid
                .filter(|pid| lean_ctx_shared::process::pid_alive(*pid))
            {
                Some(pid) => {
                    self.reads.owners.lock().unwrap().insert(id, pid);
                }
                None => self.reads.forget(&id),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &str) -> Key {
        Key {
            root: "/r".into(),
            path: path.into(),
            view: View::File,
        }
    }

    #[test]
    fn a_re_read_is_same_or_changed_and_numbered_per_session() {
        let reads = Reads::default();
        assert_eq!(
            reads.give("a", key("x"), "h1", 1, "one".into()),
            Seen::New { read: 1 }
        );
        assert_eq!(
            reads.give("a", key("x"), "h1", 1, "one".into()),
            Seen::Same { since: 1 }
        );
        assert_eq!(
            reads.give("b", key("x"), "h1", 1, "one".into()),
            Seen::New { read: 1 },
            "another session has its own reads"
        );
        assert_eq!(
            reads.give("a", key("x"), "h2", 1, "two".into()),
            Seen::Changed {
                since: 1,
                old: "one".into(),
                first: 1,
                read: 2
            }
        );
        let hash = "0123456789abcdef0123";
        let texts = reads.of(Path::new("/a"));
        let text = |t: &Texts<'_>, h: &str| t.view_of(h).map(|(text, _)| text);
        assert!(!texts.keeps(hash));
        texts.hashed(hash, "two".into());
        assert!(texts.keeps(hash) && texts.keeps(&hash.to_ascii_uppercase()));
        assert!(
            !texts.keeps("0123456789abcdef9999"),
            "another hash, same prefix"
        );
        assert_eq!(text(&texts, " 0123456789ABCDEF").as_deref(), Some("two"));
        assert_eq!(text(&texts, hash).as_deref(), Some("two"));
        assert_eq!(text(&texts, "0123456789abcdef9"), None, "another hash");
        assert_eq!(text(&texts, "0123"), None, "too short to name one");
        // Another root's answers never hand this root's text out.
        let other = reads.of(Path::new("/b"));
        assert!(!other.keeps(hash));
        assert_eq!(text(&other, hash), None, "a text of another root");
        reads.forget("a");
        assert_eq!(
            reads.give("a", key("x"), "h2", 1, "two".into()),
            Seen::New { read: 1 }
        );
    }

    #[test]
    fn memory_is_bounded_per_session_and_in_all() {
        let reads = Reads::default();
        let big: Arc<str> = "x".repeat(SESSION_BYTES / 4).into();
        for i in 0..10 {
            reads.give("a", key(&i.to_string()), &i.to_string(), 1, big.clone());
        }
        assert!(reads.size().1 <= SESSION_BYTES, "{:?}", reads.size());
        // The newest entry stays; the oldest went.
        assert!(reads.holds("a", &key("9")));
        assert!(!reads.holds("a", &key("0")));
        for i in 0..SESSION_ENTRIES + 5 {
            reads.give("b", key(&i.to_string()), "h", 1, "t".into());
        }
        let sessions = reads.sessions.lock().unwrap();
        assert_eq!(sessions["b"].entries.len(), SESSION_ENTRIES);
        drop(sessions);
        for i in 0..SESSIONS + 3 {
            reads.give(&format!("s{i}"), key("x"), "h", 1, "t".into());
        }
        assert_eq!(reads.size().0, SESSIONS);
    }

    #[test]
    fn a_bound_session_outlives_its_connection_while_its_process_lives() {
        let reads = Arc::new(Reads::default());
        let mcp = ReadSession {
            id: "m".into(),
            ends_with_connection: true,
        };
        let mut peer = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let bound = Bound::new(reads.clone(), Some(peer.id()));
        bound.note(Some(&mcp));
        reads.give("m", key("x"), "h", 1, "t".into());
        // The connection closes (idle), the MCP server still runs: kept.
        drop(bound);
        assert!(reads.holds("m", &key("x")));
        // The server exits: forgotten at the next read, whoever's.
        peer.kill().unwrap();
        peer.wait().unwrap();
        reads.give("other", key("y"), "h", 1, "t".into());
        assert!(!reads.holds("m", &key("x")));
    }

    #[test]
    fn a_bound_session_is_forgotten_with_its_connection() {
        let reads = Arc::new(Reads::default());
        // No peer pid known (or a dead one): forgotten with the connection.
        let bound = Bound::new(reads.clone(), None);
        let mcp = ReadSession {
            id: "m".into(),
            ends_with_connection: true,
        };
        let cli = ReadSession {
            id: "c".into(),
            ends_with_connection: false,
        };
        bound.note(Some(&mcp));
        bound.note(Some(&cli));
        reads.give("m", key("x"), "h", 1, "t".into());
        reads.give("c", key("x"), "h", 1, "t".into());
        drop(bound);
        assert!(!reads.holds("m", &key("x")));
        assert!(reads.holds("c", &key("x")));
    }
}
