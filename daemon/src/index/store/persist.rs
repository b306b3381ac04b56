//! The persisted index: what the daemon-wide caches (`caches.rs`) learned, kept on disk
//! so a daemon that starts again (an upgrade, a reboot, the idle exit) re-reads and
//! re-parses only what changed. Three maps: file identity → content hash, git blob →
//! content hash, (grammar, content hash) → parsed symbols.
//!
//! # Where and how
//!
//! `<state dir>/index/` (`$LEAN_CTX_STATE_DIR/index`, else `$XDG_STATE_HOME/lean-ctx/index`),
//! a directory of ours, 0700, opened `O_NOFOLLOW` and refused when it or its parent is
//! writable by others; everything in it is opened relative to that descriptor,
//! `O_NOFOLLOW`, 0600. Two files: `index.key` (32 random bytes) and `index.store`, a
//! 76-byte header (magic, format, the build's extractor tag, a keyed BLAKE3 of those)
//! followed by append-only records `[len u32][kind u8][body][mac 16]`, each `mac` the
//! keyed BLAKE3 (key: `index.key`) of kind and body. A parse's body starts with its
//! key and its figures (symbol count, resident size; the binary flag is the
//! encoding's second byte), so the load reads only the first `SYM_HEAD` bytes of
//! each parse: a restart reads a few MiB of a store of a hundred, and the roots list
//! files with those figures, reading a parse only when its symbols are asked for
//! (`caches.rs`, [`Store::meta`]). `lean-ctx daemon clear-cache`
//! removes both files; a running daemon notices on its next write or status and
//! starts a new store.
//!
//! # Why a format of our own
//!
//! An embedded database (redb, sled) would bring its own crash recovery, but not what
//! this store most needs: every record sealed so that nothing we did not write under
//! this store's key is ever served, a store of another build told apart by its
//! header alone, reads by offset with only a small map resident (the symbols stay on
//! disk until asked for), and a full disk that costs one batch. An append-only log
//! gives all of that in a few hundred lines: a kill -9 can only tear the last batch,
//! which the load truncates away; there is no in-place update to tear.
//!
//! # What is detected, and how
//!
//! - **Another build**: the header's tag is BLAKE3 of the format number, the wire
//!   schema, the syntax crate's fingerprint (its sources and the tree-sitter packages
//!   of `Cargo.lock`: `syntax/build.rs`) and `LEAN_CTX_STORE_ENCODING_HASH` (this
//!   file's and the listing's encodings: `daemon/build.rs`). A different tag: the
//!   store is rebuilt, with a new key.
//! - **Torn or corrupted**: the load walks every record's framing and verifies the
//!   keyed checksum of every small one (hashes, blobs), truncating the file at the
//!   first that does not hold (a torn tail, a flipped bit): everything before it is
//!   ours, everything after it is dropped and re-learned. A parse's checksum is
//!   verified when it is read (most of the file's bytes; hashing them twice cost a
//!   restart tens of milliseconds); one that does not verify is never served and
//!   discards the whole store (its reader parses the file instead). Its figures are
//!   read unverified with the framing: they are counts in `daemon status`, never
//!   symbols, and a damaged one is gone with the store once its parse is read. A
//!   header that does not verify rebuilds the store.
//! - **A store that lies** (well-formed, correctly sealed, wrong symbols for a content
//!   hash): the key lives outside the store file, owner-only, and is rotated on every
//!   rebuild, so no store file but the one this key sealed verifies, and nothing
//!   copied or left from an older store does. What remains is a lie we wrote
//!   ourselves, i.e. a bug: after each full walk the root re-parses a sample of the
//!   files whose symbols the walk left on disk (reading those from the store) (a bottom-k sample of their content hashes,
//!   so uniform and cheap) and compares; a mismatch discards the store and the
//!   in-memory caches and walks every open root again (`Caches::verify_sample`).
//!   Checking every entry before serving it would cost the first index we are here
//!   to save; a sealed store narrows lies to our own writer, and the sample bounds
//!   how long such a bug can go unnoticed.
//! - **kill -9 during a write**: records are appended in runs of at most
//!   [`RUN_BYTES`], each with one `pwrite` and a `fdatasync`; a kill loses the run in
//!   flight (torn tail, truncated on the next load), what was still queued, and
//!   nothing before it.
//! - **Full disk**: a failed run is truncated back to the last good length, logged
//!   once as a warning and shown in `daemon status`; the runs before it stay, the
//!   daemon goes on serving from memory and tries again with the next batch.
//!
//! # Bounded
//!
//! `index.store_max_bytes` (default 512 MiB; 0 turns the store off). Over it, the
//! writer compacts: the most recently used symbol entries (use is counted per
//! lookup, and the file keeps them oldest first, so the order survives restarts)
//! are copied into a new file up to three quarters of the cap, with the hashes that
//! lead to them, and the new file is renamed over the old one.
//!
//! # Off the request path
//!
//! Inserts go to a writer thread over a channel (dropped, and counted, when more
//! than [`MAX_PENDING`] wait), which encodes, seals and writes them in batches,
//! held back while a full walk of this daemon runs ([`Store::walking`]).
//! Lookups take a read lock on the resident maps and one `pread`.
//!
//! **Invariant:** nothing from the persisted index is served unless its seal verifies
//! under the current key and its header carries this build's extractor tag; a parse
//! the store served is re-checked against a fresh parse of the same bytes after each
//! walk, and one mismatch discards everything it said. Writes never happen on the
//! request path, and a failed write leaves whole records only. With the store on, a
//! root holds no parse: resident parses are bounded by the symbol cache, and a parse
//! is read from the store when first asked for, its seal checked before it is served.

use std::{
    fs::File,
    io::{self, Read},
    os::{
        fd::{AsFd, OwnedFd},
        unix::fs::{DirBuilderExt, FileExt, MetadataExt},
    },
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex, PoisonError, RwLock,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
        mpsc,
    },
    thread::JoinHandle,
    time::Duration,
};

use rustc_hash::{FxHashMap, FxHashSet};
use rustix::fs::{AtFlags, Mode, OFlags};

use super::recent::{self, Recent};
use crate::index::ids::{FileId, Hash, Oid, file_id_bytes, file_id_of};
use lean_ctx_syntax::{
    FileSymbols, Lang,
    symbols::{lang_byte, lang_of},
};

use lean_ctx_shared::index_store::{self, KEY, LISTING_PREFIX, STORE, TEXT};

const MAGIC: &[u8; 8] = b"LCTXIDX\0";
/// The on-disk layout's number: bumped with any change to header, records or codec
/// (which also changes the encoding hash or the syntax fingerprint; this one says so
/// on purpose).
const FORMAT: u32 = 2;
const HEADER: usize = 76;
const MAC: usize = 16;

const K_HASH: u8 = 1;
const K_BLOB: u8 = 2;
const K_SYMBOLS: u8 = 3;

/// Inserts waiting for the writer, beyond which new ones are dropped (counted): a
/// writer that cannot keep up must not grow the daemon.
pub const MAX_PENDING: usize = 1 << 16;
/// Messages taken into one batch.
const BATCH: usize = 4096;
/// The longest the writer holds records back for a running walk.
const WALK_WAIT: Duration = Duration::from_secs(5);
/// Parse bytes the writer writes and drops before it asks the allocator to give
/// free memory back ([`crate::sys::release_free_memory`]), once it has caught up.
const TRIM_AFTER: usize = 64 << 20;
/// The most the writer holds back for a running walk, in the parses' resident
/// bytes: what it holds outlives the symbol cache's evictions, so on a root larger
/// than the cache (the 100k-file composite) up to this much is memory beyond the
/// cache's cap. Half the default cap: the Rust bench corpus' parses (about 150 MiB)
/// are held for most of its walk, where writing them competed with it.
const HOLD_BYTES: usize = 128 << 20;
/// A batch's records are written and synced in runs of at most this many bytes: a
/// full disk keeps the runs that fitted (a batch held back through a walk is
/// large), and a kill tears at most the run in flight.
const RUN_BYTES: usize = 64 * 1024;

/// A full walk running ([`Store::walking`]); dropped when it ends.
#[derive(Debug)]
pub struct Walking(Arc<Shared>);

impl Drop for Walking {
    fn drop(&mut self) {
        self.0.walking.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The build's tag: records of a store with another tag are never read.
pub fn build_tag() -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&FORMAT.to_le_bytes());
    h.update(lean_ctx_shared::protocol::SCHEMA.as_bytes());
    h.update(lean_ctx_syntax::FINGERPRINT.as_bytes());
    h.update(env!("LEAN_CTX_STORE_ENCODING_HASH").as_bytes());
    *h.finalize().as_bytes()
}

type SymKey = (u8, Hash);

#[derive(Debug)]
struct Slot {
    off: u64,
    len: u32,
    /// What a root shows of the parse without reading it (read with the framing,
    /// unsealed: figures for `daemon status`, never symbols).
    meta: Meta,
    /// Last use (the store's tick): what compaction keeps first.
    used: AtomicU64,
}

/// A stored parse's figures, kept in the map so a root can list a file whose parse
/// stays on disk until someone asks for its symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub count: u32,
    pub weight: u32,
    pub binary: bool,
}

impl Meta {
    pub fn of(s: &FileSymbols) -> Meta {
        Meta {
            count: s.count.min(u32::MAX as usize) as u32,
            weight: s.weight.min(u32::MAX as usize) as u32,
            binary: s.binary,
        }
    }
}

/// A symbol record's body: the key (language byte, content hash), the parse's
/// count and weight (u32 LE each), then its encoding, whose second byte holds the
/// binary flag: everything [`Meta`] needs is in the first [`SYM_HEAD`] bytes, which
/// is all the load reads of a parse.
const SYM_META: usize = 33;
const SYM_CODE: usize = SYM_META + 8;
const SYM_HEAD: usize = SYM_CODE + 2;

/// The open store: its file and the maps read from it.
#[derive(Debug)]
struct Disk {
    dir: Arc<OwnedFd>,
    file: Arc<File>,
    /// (dev, ino) of `file`, to notice it was removed or replaced by name.
    ino: (u64, u64),
    key: [u8; 32],
    len: u64,
    symbols: FxHashMap<SymKey, Slot>,
    hashes: FxHashMap<FileId, Hash>,
    blobs: FxHashMap<Oid, Hash>,
}

enum Msg {
    Hash(FileId, Hash),
    Blob(Oid, Hash),
    Symbols(Lang, Hash, Arc<FileSymbols>),
    /// Start a new, empty store (the old one lied, or failed a read).
    Reset(String),
    /// Write what is queued, then answer.
    Flush(mpsc::Sender<()>),
    /// A call for this root at this time (unix ms): kept in `recent-roots`.
    Used(PathBuf, u64),
}

impl Msg {
    /// About what it holds in memory until it is written: a parse's resident bytes;
    /// a small record's fixed size.
    fn held(&self) -> usize {
        match self {
            Msg::Symbols(_, _, symbols) => symbols.weight.max(64),
            _ => 64,
        }
    }
}

/// What `daemon status` shows of the store.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub path: PathBuf,
    pub bytes: u64,
    pub entries: u64,
    pub cap_bytes: u64,
    pub hits: u64,
    pub misses: u64,
    /// The last problem (a write that failed, a store rebuilt and why).
    pub note: Option<String>,
}

#[derive(Debug, Default)]
struct Shared {
    disk: RwLock<Option<Disk>>,
    /// Set once the writer has loaded (or given up on) the store.
    loaded: (Mutex<bool>, Condvar),
    tick: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    pending: AtomicUsize,
    /// What the queued messages hold ([`Msg::held`]).
    pending_bytes: AtomicUsize,
    dropped: AtomicU64,
    note: Mutex<Option<String>>,
    /// The served store's length and entries, published by whoever changes it: a
    /// status reads them without waiting for the writer's lock.
    bytes: AtomicU64,
    entries: AtomicU64,
    /// Stores started over since the open (a discard, a removal): what memory knows
    /// is to be written again to the new one ([`Store::generation`]).
    generation: AtomicU64,
    /// Full walks of this daemon running now ([`Store::walking`]): the writer waits
    /// for them.
    walking: AtomicUsize,
    /// A flush is queued: the writer stops waiting for walks.
    flushing: AtomicBool,
}

impl Shared {
    /// Serves `disk` from now on (`None`: nothing).
    fn set_disk(&self, disk: Option<Disk>) {
        let mut served = self.disk.write().unwrap();
        *served = disk;
        self.publish(&served);
    }

    fn publish(&self, disk: &Option<Disk>) {
        let (bytes, entries) = disk.as_ref().map_or((0, 0), |d| {
            let n = d.symbols.len() + d.hashes.len() + d.blobs.len();
            (d.len, n as u64)
        });
        self.bytes.store(bytes, Ordering::Relaxed);
        self.entries.store(entries, Ordering::Relaxed);
    }

    fn note(&self, warn: bool, what: String) {
        if warn {
            tracing::warn!(store = "index", "{what}");
        } else {
            tracing::info!(store = "index", "{what}");
        }
        *self.note.lock().unwrap() = Some(what);
    }
}

/// The persisted store; lookups answer once the writer thread has loaded it.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    cap: u64,
    tx: Mutex<Option<mpsc::Sender<Msg>>>,
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl Store {
    /// Opens (or creates) this build's store in `index_dir` (in its subdirectory
    /// [`build_dir_name`]) on a writer thread of its own; returns at once. Lookups
    /// wait for the load.
    pub fn open(index_dir: &Path, cap_bytes: u64) -> Arc<Store> {
        let dir = index_dir.join(build_dir_name());
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let writer = Writer {
            path: dir.clone(),
            cap: cap_bytes,
            tag: build_tag(),
            shared: shared.clone(),
            lock: None,
            lost: std::cell::Cell::new(false),
        };
        let handle = std::thread::Builder::new()
            .name("lean-ctx-store".into())
            .spawn(move || writer.run(rx))
            .expect("spawn store writer");
        Arc::new(Store {
            dir,
            cap: cap_bytes,
            tx: Mutex::new(Some(tx)),
            shared,
            writer: Mutex::new(Some(handle)),
        })
    }

    /// The store file's path.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(STORE)
    }

    fn loaded(&self) -> Option<std::sync::RwLockReadGuard<'_, Option<Disk>>> {
        let (done, cv) = &self.shared.loaded;
        drop(cv.wait_while(done.lock().unwrap(), |done| !*done).unwrap());
        let disk = self.shared.disk.read().unwrap();
        disk.is_some().then_some(disk)
    }

    pub fn hash_of(&self, id: &FileId) -> Option<Hash> {
        self.loaded()?.as_ref()?.hashes.get(id).copied()
    }

    pub fn blob(&self, oid: &Oid) -> Option<Hash> {
        self.loaded()?.as_ref()?.blobs.get(oid).copied()
    }

    /// The figures of the stored parse of content `hash` as `lang`, if the store
    /// holds one: a root lists the file with them and reads the parse only when its
    /// symbols are asked for ([`Store::symbols`]).
    pub fn meta(&self, lang: Lang, hash: &Hash) -> Option<Meta> {
        let guard = self.loaded()?;
        let slot = guard.as_ref()?.symbols.get(&(lang_byte(lang), *hash))?;
        Some(slot.meta)
    }

    /// For each file identity of `files` (with the grammar it is parsed as): the
    /// content hash the store knows it by and the figures of that content's parse,
    /// when it holds both. One look under one lock for the whole batch: a restart
    /// asks for every file of a root at once ([`Store::hash_of`] and
    /// [`Store::meta`] take the lock twice a file).
    pub fn known_many(&self, files: &[(FileId, Lang)]) -> Vec<Option<(Hash, Meta)>> {
        let guard = self.loaded();
        let Some(disk) = guard.as_ref().and_then(|g| g.as_ref()) else {
            return vec![None; files.len()];
        };
        files
            .iter()
            .map(|(id, lang)| {
                let hash = *disk.hashes.get(id)?;
                let slot = disk.symbols.get(&(lang_byte(*lang), hash))?;
                Some((hash, slot.meta))
            })
            .collect()
    }

    /// The stored parse of content `hash` as `lang`, verified against its seal.
    pub fn symbols(&self, lang: Lang, hash: &Hash) -> Option<FileSymbols> {
        let key = (lang_byte(lang), *hash);
        let found = {
            let guard = self.loaded()?;
            let disk = guard.as_ref()?;
            disk.symbols.get(&key).map(|slot| {
                let tick = self.shared.tick.fetch_add(1, Ordering::Relaxed);
                slot.used.store(tick, Ordering::Relaxed);
                (disk.file.clone(), slot.off, slot.len, disk.key)
            })
        };
        let Some((file, off, len, seal)) = found else {
            self.shared.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let mut buf = vec![0; len as usize];
        let record = file
            .read_exact_at(&mut buf, off)
            .ok()
            .and_then(|()| open_record(&seal, &buf));
        let symbols = match record {
            Some((K_SYMBOLS, body)) if body.get(..33) == Some(&key_bytes(&key)[..]) => {
                FileSymbols::decode(&body[SYM_CODE..]).filter(|s| s.lang == lang)
            }
            _ => None,
        };
        if symbols.is_none() {
            // Sealed when written, not now: the file changed under us.
            self.discard(format!(
                "a record at offset {off} no longer verifies: store discarded"
            ));
        }
        let counter = match symbols {
            Some(_) => &self.shared.hits,
            None => &self.shared.misses,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        symbols
    }

    fn send(&self, msg: Msg) {
        if self.shared.pending.load(Ordering::Relaxed) >= MAX_PENDING {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.enqueue(msg);
    }

    /// Queues `msg` for the writer, counted in `pending` (which the writer takes off
    /// per message it receives); `false` once the writer is gone.
    fn enqueue(&self, msg: Msg) -> bool {
        let held = msg.held();
        self.shared.pending.fetch_add(1, Ordering::Relaxed);
        self.shared.pending_bytes.fetch_add(held, Ordering::Relaxed);
        let sent = self.tx.lock().unwrap().as_ref().map(|tx| tx.send(msg));
        let sent = matches!(sent, Some(Ok(())));
        if !sent {
            self.shared.pending.fetch_sub(1, Ordering::Relaxed);
            self.shared.pending_bytes.fetch_sub(held, Ordering::Relaxed);
        }
        sent
    }

    pub fn put_hash(&self, id: FileId, hash: Hash) {
        self.send(Msg::Hash(id, hash));
    }

    pub fn put_blob(&self, oid: Oid, hash: Hash) {
        self.send(Msg::Blob(oid, hash));
    }

    pub fn put_symbols(&self, lang: Lang, hash: Hash, symbols: Arc<FileSymbols>) {
        self.send(Msg::Symbols(lang, hash, symbols));
    }

    /// Keeps `listing` (`listing.rs`) for the root at `root`, sealed with the store's
    /// key and the root's path, replacing the one kept before; the oldest are
    /// removed beyond [`MAX_LISTINGS`]. Best effort: a listing that cannot be kept
    /// costs the next start a walk, nothing else.
    pub fn save_listing(&self, root: &Path, listing: &[u8]) {
        let Some((dir, key)) = self.dir_and_key() else {
            return;
        };
        let sealed = sealed(listing, listing_mac(&key, root, listing));
        let name = listing_name(root);
        if let Err(e) = write_replacing(&dir, &name, &sealed) {
            tracing::debug!(root = %root.display(), error = %e, "cannot keep the root's listing");
            return;
        }
        evict_listings(&dir, &name);
    }

    /// Keeps the text index's snapshot (`index/text/mod.rs`), sealed with the
    /// store's key, replacing the one kept before; `false` if it is not kept: larger
    /// than a quarter of `index.store_max_bytes` (the one before is removed: it
    /// would be restored stale), or not written (a full disk: the one before
    /// stays, still true of the contents it names).
    pub fn save_text(&self, snapshot: &[u8]) -> bool {
        let Some((dir, key)) = self.dir_and_key() else {
            return false;
        };
        if snapshot.len() as u64 > self.cap / 4 {
            let _ = rustix::fs::unlinkat(dir.as_fd(), TEXT, AtFlags::empty());
            tracing::info!(
                bytes = snapshot.len(),
                "the text index is larger than a quarter of the store's cap: not kept"
            );
            return false;
        }
        match write_replacing(&dir, TEXT, &sealed(snapshot, text_mac(&key, snapshot))) {
            Ok(_) => true,
            Err(e) => {
                tracing::warn!(error = %e, "cannot keep the text index");
                false
            }
        }
    }

    /// The text index's snapshot, if one is kept and its seal verifies.
    pub fn load_text(&self) -> Option<Vec<u8>> {
        let (dir, key) = self.dir_and_key()?;
        unsealed(read_private(&dir, TEXT)?, |body| text_mac(&key, body))
    }

    /// Removes the text index's snapshot (it was contradicted).
    pub fn drop_text(&self) {
        if let Some((dir, _)) = self.dir_and_key() {
            let _ = rustix::fs::unlinkat(dir.as_fd(), TEXT, AtFlags::empty());
        }
    }

    /// Notes a call for `root` now in the index directory's `recent-roots`
    /// (`recent.rs`), on the writer thread.
    pub fn used(&self, root: &Path) {
        self.send(Msg::Used(
            root.to_path_buf(),
            crate::sys::unix_ms(std::time::SystemTime::now()),
        ));
    }

    /// The roots calls were last made for, most recent first (none if the file is
    /// missing, not ours alone, or damaged).
    pub fn recent_roots(&self) -> Vec<(PathBuf, u64)> {
        let dir = self.dir.parent().map(open_private_dir);
        let recent = dir.and_then(Result::ok).and_then(|dir| read_recent(&dir));
        recent.unwrap_or_default().0
    }

    /// Whether a listing is kept for `root` (not read: whether it verifies is the
    /// start's to find out).
    pub fn has_listing(&self, root: &Path) -> bool {
        self.dir_and_key().is_some_and(|(dir, _)| {
            rustix::fs::statat(&dir, listing_name(root).as_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok()
        })
    }

    /// The listing kept for `root`, if there is one and its seal verifies.
    pub fn load_listing(&self, root: &Path) -> Option<Vec<u8>> {
        let (dir, key) = self.dir_and_key()?;
        unsealed(read_private(&dir, &listing_name(root))?, |body| {
            listing_mac(&key, root, body)
        })
    }

    fn dir_and_key(&self) -> Option<(Arc<OwnedFd>, [u8; 32])> {
        let guard = self.loaded()?;
        let d = guard.as_ref()?;
        Some((d.dir.clone(), d.key))
    }

    /// Stops serving the store at once and has the writer start a new one.
    pub fn discard(&self, why: String) {
        self.shared.set_disk(None);
        // Counted before the reset is queued: what the caches then write again is
        // queued after it, into the new store.
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        self.shared.note(true, why.clone());
        self.send(Msg::Reset(why));
    }

    /// How many times the store started over since it was opened: a new one holds
    /// nothing the old one did, so whoever knows more (the caches) says it again.
    pub fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::SeqCst)
    }

    /// Waits (up to `limit`) until everything sent so far is written.
    pub fn flush(&self, limit: Duration) -> bool {
        let (tx, rx) = mpsc::channel();
        self.shared.flushing.store(true, Ordering::Relaxed);
        self.enqueue(Msg::Flush(tx)) && rx.recv_timeout(limit).is_ok()
    }

    /// Held by a full walk while it runs: the writer holds its records back until no
    /// walk runs (at most [`WALK_WAIT`], and no longer than [`MAX_PENDING`] / 2
    /// messages or [`HOLD_BYTES`] wait).
    /// On 2 cores, encoding, sealing and syncing a first index's records as they
    /// came took a fifth of a core from the walk (the Rust bench corpus' first index:
    /// 0.49x ctags' time with the writer competing, 0.40x with it behind). Only this
    /// daemon's walks are waited for: a writer at a lower CPU priority also waited
    /// for every other process, and starved on a busy machine.
    pub fn walking(self: &Arc<Self>) -> Walking {
        self.shared.walking.fetch_add(1, Ordering::Relaxed);
        Walking(self.shared.clone())
    }

    /// Writes what is queued and stops the writer (at exit), waiting at most
    /// `limit`: a writer stuck on a hung disk is left behind.
    pub fn close(&self, limit: Duration) {
        let flushed = self.flush(limit);
        self.tx.lock().unwrap().take();
        let handle = self.writer.lock().unwrap().take();
        if let Some(handle) = handle.filter(|_| flushed) {
            let _ = handle.join();
        }
    }

    /// What `daemon status` shows; never waits for the writer (its figures are
    /// published, and the removal check is left to the next status or write when
    /// the writer holds the lock).
    pub fn summary(&self) -> Summary {
        self.notice_removal();
        let mut note = self.shared.note.lock().unwrap().clone();
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        if dropped > 0 {
            note = Some(format!(
                "{}{dropped} inserts dropped (writer behind)",
                note.map(|n| format!("{n}; ")).unwrap_or_default()
            ));
        }
        Summary {
            path: Store::path(&self.dir),
            bytes: self.shared.bytes.load(Ordering::Relaxed),
            entries: self.shared.entries.load(Ordering::Relaxed),
            cap_bytes: self.cap,
            hits: self.shared.hits.load(Ordering::Relaxed),
            misses: self.shared.misses.load(Ordering::Relaxed),
            note,
        }
    }
    /// A store file removed (or replaced) by name is no longer served.
    fn notice_removal(&self) {
        let moved = match self.shared.disk.try_read() {
            Ok(disk) => disk.as_ref().is_some_and(|d| !still_there(d)),
            Err(_) => false,
        };
        if moved {
            self.discard("the store file was removed: starting a new one".into());
        }
    }
}

/// What a record says, as far as telling one twice goes.
#[derive(PartialEq, Eq, Hash)]
enum RecordKey {
    Hash(FileId, Hash),
    Blob(Oid, Hash),
    Symbols(SymKey),
}

/// Whether `put` tells the store something it does not hold and this batch has not
/// told it already (`seen`). One content can be sent twice, when a file answered on
/// demand is parsed by the walk at the same time; each key is written once, so the
/// file holds no dead duplicates and a load enters every record it reads.
fn news(d: &Disk, put: &Msg, seen: &mut FxHashSet<RecordKey>) -> bool {
    let said = match put {
        Msg::Hash(id, hash) if d.hashes.get(id) != Some(hash) => RecordKey::Hash(*id, *hash),
        Msg::Blob(oid, hash) if d.blobs.get(oid) != Some(hash) => RecordKey::Blob(*oid, *hash),
        Msg::Symbols(lang, hash, _) => {
            let key = (lang_byte(*lang), *hash);
            if d.symbols.contains_key(&key) {
                return false;
            }
            RecordKey::Symbols(key)
        }
        _ => return false,
    };
    seen.insert(said)
}

fn still_there(d: &Disk) -> bool {
    rustix::fs::statat(d.dir.as_fd(), STORE, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| dev_ino(&st) == d.ino)
}

// The field types differ between platforms (and are the target type on some).
#[allow(clippy::unnecessary_cast)]
fn dev_ino(st: &rustix::fs::Stat) -> (u64, u64) {
    (st.st_dev as u64, st.st_ino as u64)
}

fn key_bytes(key: &SymKey) -> [u8; 33] {
    let mut out = [0; 33];
    out[0] = key.0;
    out[1..].copy_from_slice(&key.1);
    out
}

fn mac(key: &[u8; 32], data: &[u8]) -> [u8; 32] {
    *blake3::keyed_hash(key, data).as_bytes()
}

/// Appends one sealed record.
fn seal(key: &[u8; 32], kind: u8, body: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&(1 + body.len() as u32).to_le_bytes());
    out.push(kind);
    out.extend_from_slice(body);
    let tag = mac(key, &out[start + 4..]);
    out.extend_from_slice(&tag[..MAC]);
}

/// The kind and body of the one record `buf` holds, if its seal verifies.
fn open_record<'a>(key: &[u8; 32], buf: &'a [u8]) -> Option<(u8, &'a [u8])> {
    let n = u32::from_le_bytes(buf.get(..4)?.try_into().ok()?) as usize;
    if n == 0 || buf.len() != 4 + n + MAC {
        return None;
    }
    let sealed = &buf[4..4 + n];
    let tag = mac(key, sealed);
    // Constant time is not the point (the key never leaves this user); equality is.
    (tag[..MAC] == buf[4 + n..]).then(|| (sealed[0], &sealed[1..]))
}

fn header(key: &[u8; 32], tag: &[u8; 32]) -> [u8; HEADER] {
    let mut h = [0; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT.to_le_bytes());
    h[12..44].copy_from_slice(tag);
    let m = mac(key, &h[..44]);
    h[44..].copy_from_slice(&m);
    h
}

/// Why the store on disk cannot be used as it is.
enum Unusable {
    /// Nothing there yet (or only part of it): start one, quietly.
    Missing,
    /// Rebuilt, and said so.
    Rebuild(String),
}

/// The writer thread's side: the one place that changes the file.
struct Writer {
    /// This build's directory: `<index dir>/<build>` ([`build_dir_name`]).
    path: PathBuf,
    cap: u64,
    tag: [u8; 32],
    shared: Arc<Shared>,
    /// The flock on `<index dir>/<build>.lock`, held for as long as the writer runs.
    lock: Option<File>,
    /// The store's directory kept vanishing while it was opened again (clears in a
    /// burst): the next write tries again instead of serving from memory until the
    /// next start.
    lost: std::cell::Cell<bool>,
}

/// Marks the store loaded when dropped, however the writer's load ends: a load
/// that panics (a bug) leaves no store to serve, and lookups answer as without
/// one instead of waiting for a load that never comes.
struct LoadEnds<'a>(&'a Shared);

impl Drop for LoadEnds<'_> {
    fn drop(&mut self) {
        let shared = self.0;
        if std::thread::panicking() {
            // Whatever the load left half made is dropped, and the locks it held
            // are usable again.
            *shared.disk.write().unwrap_or_else(PoisonError::into_inner) = None;
            shared.disk.clear_poison();
            shared.note.clear_poison();
            shared.note(true, "the store's load failed: serving without it".into());
        }
        let (done, cv) = &shared.loaded;
        *done.lock().unwrap_or_else(PoisonError::into_inner) = true;
        done.clear_poison();
        cv.notify_all();
    }
}

impl Writer {
    fn run(mut self, rx: mpsc::Receiver<Msg>) {
        let shared = self.shared.clone();
        let load = LoadEnds(&shared);
        self.lock = self.lock_build_dir();
        let disk = self.lock.as_ref().and_then(|_| self.open());
        self.shared.set_disk(disk);
        drop(load);
        // Bytes of parses written and dropped since the allocator was last asked to
        // give free memory back.
        let mut dropped = 0;
        while let Ok(first) = rx.recv() {
            if !matches!(first, Msg::Reset(_) | Msg::Flush(_)) {
                self.wait_for_walks();
            }
            let mut batch = vec![first];
            while batch.len() < BATCH {
                match rx.try_recv() {
                    Ok(m) => batch.push(m),
                    Err(_) => break,
                }
            }
            self.shared
                .pending
                .fetch_sub(batch.len(), Ordering::Relaxed);
            let held = batch.iter().map(Msg::held).sum();
            self.shared.pending_bytes.fetch_sub(held, Ordering::Relaxed);
            self.apply(batch);
            dropped += held;
            // Caught up after a walk's worth of parses: the memory they (and the
            // walk) freed goes back to the system instead of staying in the
            // allocator's arenas (about 190 MiB after a first index of 105,000 files).
            if dropped >= TRIM_AFTER && self.shared.pending.load(Ordering::Relaxed) == 0 {
                let trim = std::time::Instant::now();
                crate::sys::release_free_memory();
                tracing::debug!(
                    ms = trim.elapsed().as_millis() as u64,
                    dropped,
                    "gave free memory back"
                );
                dropped = 0;
            }
        }
    }

    /// Waits while a walk of this daemon runs ([`Store::walking`]), unless a flush is
    /// queued or too much waits.
    fn wait_for_walks(&self) {
        let shared = &self.shared;
        let until = std::time::Instant::now() + WALK_WAIT;
        while shared.walking.load(Ordering::Relaxed) > 0
            && !shared.flushing.load(Ordering::Relaxed)
            && shared.pending.load(Ordering::Relaxed) < MAX_PENDING / 2
            && shared.pending_bytes.load(Ordering::Relaxed) < HOLD_BYTES
            && std::time::Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Takes this build's directory for this daemon, and removes the directories of
    /// builds no daemon runs any more. During an upgrade two builds' daemons run side
    /// by side (`upgrade.rs`); each keeps its own directory, so neither takes the
    /// other's store for a store of another build and rebuilds it under the other's
    /// feet, and once the old daemon is gone its store goes too: one store per
    /// running build on disk. `None` (said so) if a daemon of this build holds it.
    fn lock_build_dir(&self) -> Option<File> {
        let (Some(index_dir), Some(ours)) = (self.path.parent(), self.path.file_name()) else {
            return None;
        };
        // The index dir is checked as the store's own is (ours, nobody else can
        // write it) before anything is created in it.
        let taken = open_private_dir(index_dir)
            .and_then(|_| try_lock(&index_dir.join(format!("{}.lock", ours.to_string_lossy()))));
        let lock = match taken {
            Ok(Some(lock)) => lock,
            Ok(None) => {
                self.shared.note(
                    true,
                    format!(
                        "not persisting the index: another lean-ctxd of this build uses {}",
                        self.path.display()
                    ),
                );
                return None;
            }
            Err(e) => {
                self.shared.note(
                    true,
                    format!("not persisting the index: {}: {e}", index_dir.display()),
                );
                return None;
            }
        };
        // Only stores: a build's directory (its name, beside its lock file), and
        // in it only the files a store writes (`index_store`): a state dir pointed
        // at the wrong place loses nothing.
        for entry in std::fs::read_dir(index_dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let Some(name) = name
                .to_str()
                .filter(|n| is_dir && index_store::is_build_dir(n))
            else {
                continue;
            };
            let their_lock = index_dir.join(format!("{name}.lock"));
            let locked = std::fs::symlink_metadata(&their_lock).is_ok_and(|m| m.is_file());
            if *name == *ours || !locked {
                continue;
            }
            // Held: that build's daemon still runs. Taken: nobody uses it. (A daemon
            // of that build starting right now makes a new lock file and directory.)
            if let Ok(Some(_held)) = try_lock(&their_lock) {
                match index_store::remove_build_dir(&entry.path()) {
                    Ok(removed) if removed.kept.is_empty() => {
                        let _ = std::fs::remove_file(&their_lock);
                    }
                    Ok(removed) => {
                        tracing::warn!(dir = %entry.path().display(), kept = ?removed.kept, "another build's index store holds files lean-ctx did not write; they are kept")
                    }
                    Err(e) => {
                        tracing::warn!(dir = %entry.path().display(), error = %e, "cannot remove another build's index store")
                    }
                }
            }
        }
        Some(lock)
    }

    /// Loads the store, or starts a new one; `None` if neither is possible (said so).
    fn open(&self) -> Option<Disk> {
        self.open_by_name(true)
    }

    /// The store's directory opened by name, then the store in it loaded (when
    /// `load`) or made new. A directory removed under either step (`clear-cache`
    /// renames it away and removes it) is opened by name again: a clear must not
    /// leave the daemon serving from memory until its next start.
    fn open_by_name(&self, load: bool) -> Option<Disk> {
        let mut tries = 0;
        self.lost.set(false);
        loop {
            let dir = match open_private_dir(&self.path) {
                Ok(dir) => Arc::new(dir),
                Err(e) if e.kind() == io::ErrorKind::NotFound && tries < 3 => {
                    tries += 1;
                    continue;
                }
                Err(e) => {
                    self.lost.set(e.kind() == io::ErrorKind::NotFound);
                    self.shared.note(
                        true,
                        format!("not persisting the index: {}: {e}", self.path.display()),
                    );
                    return None;
                }
            };
            if load {
                match self.load(&dir) {
                    Ok(disk) => return Some(disk),
                    Err(Unusable::Missing) => {}
                    Err(Unusable::Rebuild(why)) => {
                        self.shared.note(false, format!("rebuilt: {why}"))
                    }
                }
            }
            match create(&dir, &self.tag) {
                Ok(disk) => return Some(disk),
                Err(e) if e.kind() == io::ErrorKind::NotFound && tries < 3 => tries += 1,
                Err(e) => {
                    self.lost.set(e.kind() == io::ErrorKind::NotFound);
                    self.shared.note(
                        true,
                        format!(
                            "cannot create the index store in {}: {e}; serving from memory",
                            self.path.display()
                        ),
                    );
                    return None;
                }
            }
        }
    }

    fn load(&self, dir: &Arc<OwnedFd>) -> Result<Disk, Unusable> {
        let key = match read_key(dir) {
            Ok(key) => key,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Unusable::Missing),
            Err(e) => return Err(Unusable::Rebuild(format!("its key: {e}"))),
        };
        let fd = match rustix::fs::openat(
            dir.as_fd(),
            STORE,
            OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(e) if e == rustix::io::Errno::NOENT => return Err(Unusable::Missing),
            Err(e) => return Err(Unusable::Rebuild(format!("cannot open it: {e}"))),
        };
        let st = private_file(&fd).map_err(|e| Unusable::Rebuild(e.to_string()))?;
        let file = File::from(fd);
        let size = st.st_size as u64;
        let mut head = [0; HEADER];
        let read = file.read_exact_at(&mut head, 0);
        if read.is_err() || head != header(&key, &self.tag) {
            let why = match read {
                Ok(()) if head[..8] == MAGIC[..] && head[44..] == mac(&key, &head[..44])[..] => {
                    "written by another build"
                }
                _ => "its header does not verify (torn, corrupted, or sealed by another key)",
            };
            return Err(Unusable::Rebuild(why.into()));
        }
        let mut disk = Disk {
            dir: dir.clone(),
            file: Arc::new(file),
            ino: dev_ino(&st),
            key,
            len: HEADER as u64,
            symbols: FxHashMap::default(),
            hashes: FxHashMap::default(),
            blobs: FxHashMap::default(),
        };
        // Through a small window: a parse's body (most of the file) is not read here,
        // only its head; a restart reads a few MiB of a store of a hundred.
        let mut window = Window::new(disk.file.clone(), size);
        let mut at = HEADER as u64;
        while at < size {
            let Some(len) = window.get(at, 4).and_then(record_len_at) else {
                break;
            };
            if at + len as u64 > size {
                break;
            }
            let Some(kind) = window.get(at + 4, 1).map(|k| k[0]) else {
                break;
            };
            // A parse's seal is checked when it is read (most of the file, and read
            // at most once per run); the small records are checked here.
            let indexed = match kind {
                K_SYMBOLS => window
                    .get(at + 5, SYM_HEAD.min(len as usize - 5 - MAC))
                    .map(<[u8]>::to_vec)
                    .is_some_and(|body| self.index(&mut disk, kind, &body, at, len)),
                _ => window
                    .get(at, len as usize)
                    .and_then(|record| open_record(&key, record))
                    .map(|(kind, body)| (kind, body.to_vec()))
                    .is_some_and(|(kind, body)| self.index(&mut disk, kind, &body, at, len)),
            };
            if !indexed {
                break;
            }
            at += u64::from(len);
        }
        disk.len = at;
        if at < size {
            let dropped = size - at;
            self.shared.note(
                true,
                format!(
                    "the store's record at offset {at} does not verify (torn or corrupted): {dropped} bytes from there dropped"
                ),
            );
            disk.file
                .set_len(at)
                .and_then(|()| disk.file.sync_data())
                .map_err(|e| Unusable::Rebuild(format!("cannot truncate it: {e}")))?;
        }
        tracing::info!(
            store = "index",
            symbols = disk.symbols.len(),
            hashes = disk.hashes.len(),
            blobs = disk.blobs.len(),
            bytes = disk.len,
            "loaded"
        );
        Ok(disk)
    }

    /// Enters a verified record into the maps; `false` if it is not well formed.
    fn index(&self, disk: &mut Disk, kind: u8, body: &[u8], off: u64, len: u32) -> bool {
        let hash = |b: &[u8]| -> Hash { b.try_into().unwrap() };
        match (kind, body.len()) {
            (K_HASH, 88) => {
                disk.hashes
                    .insert(file_id_of(&body[..56]), hash(&body[56..]));
            }
            (K_BLOB, 52) => {
                disk.blobs
                    .insert(body[..20].try_into().unwrap(), hash(&body[20..]));
            }
            (K_SYMBOLS, n) if n >= SYM_HEAD && lang_of(body[0]).is_some() => {
                let tick = self.shared.tick.fetch_add(1, Ordering::Relaxed);
                let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
                let slot = Slot {
                    off,
                    len,
                    meta: Meta {
                        count: word(SYM_META),
                        weight: word(SYM_META + 4),
                        binary: body[SYM_CODE + 1] & 1 != 0,
                    },
                    used: AtomicU64::new(tick),
                };
                disk.symbols.insert((body[0], hash(&body[1..33])), slot);
            }
            _ => return false,
        }
        true
    }

    fn apply(&self, batch: Vec<Msg>) {
        if batch.iter().any(|m| matches!(m, Msg::Flush(_))) {
            // Cleared before the flush is written: one queued after it sets it again.
            self.shared.flushing.store(false, Ordering::Relaxed);
        }
        let mut acks = Vec::new();
        let mut puts = Vec::with_capacity(batch.len());
        for msg in batch {
            match msg {
                Msg::Flush(ack) => acks.push(ack),
                Msg::Reset(why) => {
                    puts.clear();
                    self.reset(&why);
                }
                Msg::Used(root, at) => self.used(&root, at),
                put => puts.push(put),
            }
        }
        self.append(puts);
        for ack in acks {
            let _ = ack.send(());
        }
    }

    /// Moves `root` to the front of `recent-roots`. Only while this daemon holds
    /// its build's directory (the one that persists); best effort: a root missing
    /// from the file costs the next start its prewarm, nothing else.
    fn used(&self, root: &Path, at: u64) {
        let Some(index_dir) = self.path.parent().filter(|_| self.lock.is_some()) else {
            return;
        };
        // One descriptor for the read and the write.
        let written = open_private_dir(index_dir).and_then(|dir| {
            let mut recent = read_recent(&dir).unwrap_or_default();
            recent.used(root, at);
            write_replacing(&dir, recent::FILE, &recent.encode())
        });
        if let Err(e) = written {
            tracing::debug!(error = %e, "cannot keep the recent roots");
        }
    }

    /// A new, empty store with a new key, replacing whatever is there (the
    /// directory opened again by name: `clear-cache` may have removed it).
    fn reset(&self, why: &str) {
        self.shared.note(true, format!("rebuilt: {why}"));
        self.shared.set_disk(None);
        if self.lock.is_none() {
            return;
        }
        let disk = self.open_by_name(false);
        self.shared.set_disk(disk);
    }

    /// Appends `puts` in runs of at most [`RUN_BYTES`] each, stopping at the first
    /// that cannot be written (what follows it is served from memory).
    fn append(&self, puts: Vec<Msg>) {
        let mut run = Vec::new();
        let mut bytes = 0;
        for put in puts {
            bytes += put.held();
            run.push(put);
            if bytes >= RUN_BYTES {
                if !self.append_run(std::mem::take(&mut run)) {
                    return;
                }
                bytes = 0;
                // Between runs too: a walk that started meanwhile (a second
                // worktree opened right after a first index) goes first.
                self.wait_for_walks();
            }
        }
        self.append_run(run);
    }

    /// Appends one run with one write and one sync; `false` if it could not.
    fn append_run(&self, puts: Vec<Msg>) -> bool {
        if puts.is_empty() {
            return true;
        }
        let removed = {
            let disk = self.shared.disk.read().unwrap();
            // None: never opened (said so once), discarded (a reset is queued), or
            // lost to clears in a burst (tried again).
            match disk.as_ref() {
                Some(d) => !still_there(d),
                None => self.lost.get(),
            }
        };
        if removed {
            // `clear-cache`, or someone else: start again.
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
            self.reset("the store file was removed");
        }
        let (file, key, start, puts) = {
            let disk = self.shared.disk.read().unwrap();
            let Some(d) = disk.as_ref() else {
                return false;
            };
            let mut seen = FxHashSet::default();
            let puts: Vec<Msg> = puts.into_iter().filter(|p| news(d, p, &mut seen)).collect();
            (d.file.clone(), d.key, d.len, puts)
        };
        if puts.is_empty() {
            return true;
        }
        let mut buf = Vec::new();
        let mut body = Vec::new();
        let mut entered = Vec::with_capacity(puts.len());
        for put in &puts {
            body.clear();
            let kind = match put {
                Msg::Hash(id, hash) => {
                    body.extend_from_slice(&file_id_bytes(id));
                    body.extend_from_slice(hash);
                    K_HASH
                }
                Msg::Blob(oid, hash) => {
                    body.extend_from_slice(oid);
                    body.extend_from_slice(hash);
                    K_BLOB
                }
                Msg::Symbols(lang, hash, symbols) => {
                    body.extend_from_slice(&key_bytes(&(lang_byte(*lang), *hash)));
                    let meta = Meta::of(symbols);
                    body.extend_from_slice(&meta.count.to_le_bytes());
                    body.extend_from_slice(&meta.weight.to_le_bytes());
                    symbols.encode(&mut body);
                    K_SYMBOLS
                }
                Msg::Reset(_) | Msg::Flush(_) | Msg::Used(..) => continue,
            };
            let off = start + buf.len() as u64;
            seal(&key, kind, &body, &mut buf);
            entered.push((kind, off, (start + buf.len() as u64 - off) as u32));
        }
        let written = file
            .write_all_at(&buf, start)
            .and_then(|()| file.sync_data());
        if let Err(e) = written {
            // Full disk, quota, I/O error: back to the last good length, so the file
            // stays a sequence of whole records; the batch is served from memory.
            let undone = file.set_len(start).and_then(|()| file.sync_data());
            self.shared.note(
                true,
                format!(
                    "cannot write {} index records ({e}){}; serving from memory",
                    entered.len(),
                    match undone {
                        Ok(()) => String::new(),
                        Err(e) => format!(", nor truncate back ({e})"),
                    }
                ),
            );
            return false;
        }
        let mut disk = self.shared.disk.write().unwrap();
        let Some(d) = disk.as_mut() else {
            return false;
        };
        if !Arc::ptr_eq(&d.file, &file) {
            return false;
        }
        for &(kind, off, len) in &entered {
            let rel = (off - start) as usize;
            self.index(d, kind, &buf[rel + 5..rel + len as usize - MAC], off, len);
        }
        d.len = start + buf.len() as u64;
        let over = d.len > self.cap;
        self.shared.publish(&disk);
        drop(disk);
        if over {
            self.compact();
        }
        true
    }

    /// Keeps the most recently used symbol entries up to three quarters of the cap
    /// (and the hashes leading to them) in a new file renamed over the old one.
    fn compact(&self) {
        let (dir, file, key, mut order, hashes, blobs) = {
            let disk = self.shared.disk.read().unwrap();
            let Some(d) = disk.as_ref() else { return };
            let order: Vec<(u64, SymKey, u64, u32)> = d
                .symbols
                .iter()
                .map(|(k, s)| (s.used.load(Ordering::Relaxed), *k, s.off, s.len))
                .collect();
            (
                d.dir.clone(),
                d.file.clone(),
                d.key,
                order,
                d.hashes.clone(),
                d.blobs.clone(),
            )
        };
        order.sort_unstable_by_key(|o| std::cmp::Reverse(o.0));
        let budget = self.cap / 4 * 3;
        let mut kept = Vec::new();
        let mut total = HEADER as u64;
        for (used, key, off, len) in order {
            // Hash and blob records of its content come along: about 150 bytes.
            if total + u64::from(len) + 150 > budget {
                break;
            }
            total += u64::from(len) + 150;
            kept.push((used, key, off, len));
        }
        kept.reverse();
        let contents: FxHashSet<Hash> = kept.iter().map(|k| k.1.1).collect();
        let mut buf = header(&key, &self.tag).to_vec();
        let mut body = Vec::new();
        for (id, hash) in hashes.iter().filter(|(_, h)| contents.contains(*h)) {
            body.clear();
            body.extend_from_slice(&file_id_bytes(id));
            body.extend_from_slice(hash);
            seal(&key, K_HASH, &body, &mut buf);
        }
        for (oid, hash) in blobs.iter().filter(|(_, h)| contents.contains(*h)) {
            body.clear();
            body.extend_from_slice(oid);
            body.extend_from_slice(hash);
            seal(&key, K_BLOB, &body, &mut buf);
        }
        let mut record = Vec::new();
        for &(_, _, off, len) in &kept {
            record.resize(len as usize, 0);
            // Copied as sealed, after checking the seal still holds.
            if file.read_exact_at(&mut record, off).is_ok() && open_record(&key, &record).is_some()
            {
                buf.extend_from_slice(&record);
            }
        }
        let before = file.metadata().map_or(0, |m| m.len());
        match replace_store(&dir, &buf) {
            Ok(_) => {
                tracing::info!(
                    store = "index",
                    before,
                    after = buf.len(),
                    kept = kept.len(),
                    "compacted"
                );
                // Reload from what was written: offsets, maps and order in one place.
                match self.load(&dir) {
                    Ok(disk) => self.shared.set_disk(Some(disk)),
                    Err(_) => {
                        self.shared.generation.fetch_add(1, Ordering::SeqCst);
                        self.reset("compaction's new file did not load");
                    }
                }
            }
            Err(e) => self.shared.note(
                true,
                format!("cannot compact the index store ({e}); it stays over its cap"),
            ),
        }
    }
}

/// The whole length of the record whose length field is `field`.
fn record_len_at(field: &[u8]) -> Option<u32> {
    let n = u32::from_le_bytes(field.try_into().ok()?);
    (n > 0).then_some(n)?.checked_add((4 + MAC) as u32)
}

/// Reads of a file through one small buffer: what a load reads in order (small
/// records, the heads of parses) costs one `pread` per buffer, not per record.
struct Window {
    file: Arc<File>,
    size: u64,
    buf: Vec<u8>,
    start: u64,
}

impl Window {
    /// Enough for a run of hash and blob records and the head of the parse after them.
    const SPAN: usize = 4096;

    fn new(file: Arc<File>, size: u64) -> Window {
        Window {
            file,
            size,
            buf: Vec::new(),
            start: 0,
        }
    }

    /// The `n` bytes at `off`, if the file has them.
    fn get(&mut self, off: u64, n: usize) -> Option<&[u8]> {
        let end = off.checked_add(n as u64)?;
        if end > self.size {
            return None;
        }
        if off < self.start || end > self.start + self.buf.len() as u64 {
            let want = n.max(Self::SPAN).min((self.size - off) as usize);
            self.buf.resize(want, 0);
            self.file.read_exact_at(&mut self.buf, off).ok()?;
            self.start = off;
        }
        let from = (off - self.start) as usize;
        Some(&self.buf[from..from + n])
    }
}

/// An exclusive flock on `path` (created 0600, never through a symlink), or `None`
/// if another open file holds it.
fn try_lock(path: &Path) -> io::Result<Option<File>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(file)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The name of this build's directory in the index dir: the first 16 hex digits of
/// [`build_tag`].
pub fn build_dir_name() -> String {
    build_tag()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The store's directory: created 0700; refused unless it is a directory of ours
/// that nobody else can write, in a parent nobody else can write (its group and
/// other bits are taken off if merely readable).
fn open_private_dir(dir: &Path) -> io::Result<OwnedFd> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
        let meta = std::fs::metadata(parent)?;
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            return Err(io::Error::other(format!(
                "{} is writable by others",
                parent.display()
            )));
        }
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let fd = rustix::fs::open(
        dir,
        OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )?;
    let st = rustix::fs::fstat(&fd)?;
    let uid = rustix::process::geteuid().as_raw();
    if st.st_uid != uid {
        return Err(io::Error::other(format!(
            "owned by uid {}, not {uid}",
            st.st_uid
        )));
    }
    let mode = st.st_mode & 0o777;
    if mode & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "mode {mode:o} is writable by others"
        )));
    }
    if mode & 0o077 != 0 {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))?;
    }
    Ok(fd)
}

/// Checks a file of the store: regular, ours, 0600 (tightened if only readable by
/// others; refused if others could have written it).
fn private_file(fd: &OwnedFd) -> io::Result<rustix::fs::Stat> {
    let st = rustix::fs::fstat(fd)?;
    let uid = rustix::process::geteuid().as_raw();
    if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile {
        return Err(io::Error::other("not a regular file"));
    }
    if st.st_uid != uid {
        return Err(io::Error::other(format!("owned by uid {}", st.st_uid)));
    }
    let mode = st.st_mode & 0o777;
    if mode & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "mode {mode:o} is writable by others"
        )));
    }
    if mode & 0o077 != 0 {
        rustix::fs::fchmod(fd, Mode::from_raw_mode(0o600))?;
    }
    Ok(st)
}

fn read_key(dir: &OwnedFd) -> io::Result<[u8; 32]> {
    let fd = rustix::fs::openat(
        dir.as_fd(),
        KEY,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    private_file(&fd)?;
    let mut key = [0; 32];
    let mut file = File::from(fd);
    file.read_exact(&mut key)?;
    if file.read(&mut [0])? != 0 {
        return Err(io::Error::other("longer than a key"));
    }
    Ok(key)
}

/// Writes `bytes` to `name.tmp` beneath `dir` (0600, never through a symlink),
/// fsyncs it and renames it over `name`; returns the new file.
fn write_replacing(dir: &OwnedFd, name: &str, bytes: &[u8]) -> io::Result<OwnedFd> {
    let tmp = format!("{name}.tmp");
    match rustix::fs::unlinkat(dir.as_fd(), tmp.as_str(), AtFlags::empty()) {
        Ok(()) | Err(rustix::io::Errno::NOENT) => {}
        Err(e) => return Err(e.into()),
    }
    let fd = rustix::fs::openat(
        dir.as_fd(),
        tmp.as_str(),
        OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let file = File::from(fd);
    let written = file
        .write_all_at(bytes, 0)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            rustix::fs::renameat(dir.as_fd(), tmp.as_str(), dir.as_fd(), name)
                .map_err(io::Error::from)
        });
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(dir.as_fd(), tmp.as_str(), AtFlags::empty());
        return Err(e);
    }
    rustix::fs::fsync(dir)?;
    Ok(OwnedFd::from(file))
}

/// `recent-roots` in the index directory `dir`, if it is there, ours alone and
/// whole.
fn read_recent(dir: &OwnedFd) -> Option<Recent> {
    Recent::decode(&read_private(dir, recent::FILE)?)
}

/// The whole of file `name` in `dir`, if it is a regular file of ours that others
/// cannot write (never through a symlink).
fn read_private(dir: &OwnedFd, name: &str) -> Option<Vec<u8>> {
    let fd = rustix::fs::openat(
        dir.as_fd(),
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    private_file(&fd).ok()?;
    let mut bytes = Vec::new();
    File::from(fd).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Roots whose listings are kept: beyond it the least recently written go.
const MAX_LISTINGS: usize = 64;

/// A root's listing file: named by a hash of its path, so any path fits.
fn listing_name(root: &Path) -> String {
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
    format!("{LISTING_PREFIX}{}", &hash[..32])
}

/// A listing's seal: under the store's key (a new store's key voids every listing
/// of the old one), over the root's path (a listing is only its root's).
fn listing_mac(key: &[u8; 32], root: &Path, listing: &[u8]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new_keyed(key);
    let path = root.as_os_str().as_encoded_bytes();
    hasher.update(b"listing\0");
    hasher.update(&(path.len() as u64).to_le_bytes());
    hasher.update(path);
    hasher.update(listing);
    *hasher.finalize().as_bytes()
}

/// `body` followed by its seal (a file of the store's kept beside the record log).
fn sealed(body: &[u8], mac: [u8; 32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + mac.len());
    out.extend_from_slice(body);
    out.extend_from_slice(&mac);
    out
}

/// The body of [`sealed`] bytes if their seal is `mac_of` the body.
fn unsealed(mut bytes: Vec<u8>, mac_of: impl Fn(&[u8]) -> [u8; 32]) -> Option<Vec<u8>> {
    let body = bytes.len().checked_sub(32)?;
    (mac_of(&bytes[..body])[..] == bytes[body..]).then(|| {
        bytes.truncate(body);
        bytes
    })
}

/// The text snapshot's seal: under the store's key, so a new store's key voids it.
fn text_mac(key: &[u8; 32], snapshot: &[u8]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new_keyed(key);
    hasher.update(b"text\0");
    hasher.update(snapshot);
    *hasher.finalize().as_bytes()
}

/// Removes the least recently written listings beyond [`MAX_LISTINGS`], never
/// `written` (mtimes written within one clock tick tie).
fn evict_listings(dir: &OwnedFd, written: &str) {
    let Ok(mut listed) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    let mut kept = Vec::new();
    while let Some(Ok(entry)) = listed.read() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(LISTING_PREFIX) || name.ends_with(".tmp") || name == written {
            continue;
        }
        if let Ok(st) = rustix::fs::statat(dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            kept.push((FileId::from(&st).mtime, name));
        }
    }
    if kept.len() < MAX_LISTINGS {
        return;
    }
    kept.sort_unstable();
    for (_, name) in &kept[..=kept.len() - MAX_LISTINGS] {
        let _ = rustix::fs::unlinkat(dir, name.as_str(), AtFlags::empty());
    }
}

fn replace_store(dir: &OwnedFd, bytes: &[u8]) -> io::Result<OwnedFd> {
    write_replacing(dir, STORE, bytes)
}

/// A new, empty store under a new key (the key first: a store left by a crash in
/// between does not verify under it and is rebuilt again).
fn create(dir: &Arc<OwnedFd>, tag: &[u8; 32]) -> io::Result<Disk> {
    let mut key = [0; 32];
    File::open("/dev/urandom")?.read_exact(&mut key)?;
    write_replacing(dir, KEY, &key)?;
    let fd = replace_store(dir, &header(&key, tag))?;
    let st = rustix::fs::fstat(&fd)?;
    Ok(Disk {
        dir: dir.clone(),
        file: Arc::new(File::from(fd)),
        ino: dev_ino(&st),
        key,
        len: HEADER as u64,
        symbols: FxHashMap::default(),
        hashes: FxHashMap::default(),
        blobs: FxHashMap::default(),
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use lean_ctx_syntax::extract;

    /// A record that claims no kind byte is refused, even when its seal verifies (a
    /// store written with the key: the mutation run found the length check untested,
    /// and without it the kind would be read past the record's end).
    #[test]
    fn an_empty_record_is_refused_even_under_a_valid_seal() {
        let key = [7u8; 32];
        let mut buf = 0u32.to_le_bytes().to_vec();
        buf.extend_from_slice(&mac(&key, &[])[..MAC]);
        assert_eq!(open_record(&key, &buf), None);
        let mut one = Vec::new();
        seal(&key, 3, b"body", &mut one);
        assert_eq!(open_record(&key, &one), Some((3, &b"body"[..])));
    }

    /// Real sources of several languages: this crate's own and the test fixtures'.
    fn samples() -> Vec<(Lang, Vec<u8>)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in [
            "src/index",
            "src/backing",
            "../tests/fixtures",
            "../tests/mcp",
        ] {
            for entry in fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
                let path = entry.path();
                if let (Some(lang), true) = (Lang::from_path(&path), path.is_file()) {
                    out.push((lang, fs::read(&path).unwrap()));
                }
            }
        }
        out.push((
            Lang::Python,
            b"class A:\n    def f(self): pass\n  x = (\n".to_vec(),
        ));
        out.push((Lang::Go, b"package p\n\x00binary".to_vec()));
        assert!(out.len() > 10, "too few samples: {}", out.len());
        out
    }

    fn encoded(s: &FileSymbols) -> Vec<u8> {
        let mut out = Vec::new();
        s.encode(&mut out);
        out
    }

    /// Every symbol with all it answers, children by the tree's own links.
    fn listing(s: &FileSymbols) -> String {
        fn walk(sym: lean_ctx_syntax::Symbol<'_>, out: &mut String) {
            out.push_str(&format!(
                "{:?} {} {} {:?} {:?} {} {} {:?} {:?}\n",
                sym.kind(),
                sym.name(),
                sym.name_path(),
                sym.signature(),
                sym.bytes(),
                sym.doc_start(),
                sym.core_start(),
                sym.range(),
                sym.name_range()
            ));
            for c in sym.children() {
                walk(c, out);
            }
        }
        let mut out = format!(
            "{:?} {} {:?} {}\n",
            s.lang, s.binary, s.syntax_error, s.count
        );
        for sym in s.top() {
            walk(sym, &mut out);
        }
        out
    }

    #[test]
    fn the_encoding_round_trips_every_symbol_and_is_smaller_than_the_memory_form() {
        let (mut stored, mut resident) = (0, 0);
        for (lang, src) in samples() {
            let parsed = extract(lang, &src);
            let bytes = encoded(&parsed);
            let back = FileSymbols::decode(&bytes).expect("decodes");
            assert_eq!(listing(&back), listing(&parsed));
            assert_eq!(encoded(&back), bytes);
            stored += bytes.len();
            resident += parsed.weight;
        }
        assert!(
            stored * 3 < resident * 2,
            "{stored} bytes stored for {resident} resident"
        );
    }

    #[test]
    fn a_damaged_encoding_decodes_to_nothing_or_to_symbols_that_can_be_walked() {
        let src = fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/index/store/caches.rs"))
            .unwrap();
        let bytes = encoded(&extract(Lang::Rust, &src[..4000]));
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                if let Some(s) = FileSymbols::decode(&bad) {
                    // Iterating must terminate and stay in bounds.
                    listing(&s);
                }
            }
            assert!(FileSymbols::decode(&bytes[..i]).is_none(), "cut at {i}");
        }
    }

    fn put(store: &Store, lang: Lang, src: &[u8]) -> Hash {
        let hash = *blake3::hash(src).as_bytes();
        store.put_symbols(lang, hash, Arc::new(extract(lang, src)));
        hash
    }

    fn reopen(dir: &Path, cap: u64) -> Arc<Store> {
        Store::open(dir, cap)
    }

    /// `daemon status` reads the store's figures while the writer holds its maps.
    #[test]
    fn the_summary_does_not_wait_for_the_writer() {
        let tmp = tempfile::tempdir().unwrap();
        let store = reopen(tmp.path(), 1 << 30);
        put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        let held = store.shared.disk.write().unwrap();
        let (tx, rx) = mpsc::channel();
        let asking = store.clone();
        let thread = std::thread::spawn(move || {
            let _ = tx.send(asking.summary().entries);
        });
        let answered = rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        thread.join().unwrap();
        assert_eq!(answered, Ok(1), "the parse");
        store.close(Duration::from_secs(30));
    }

    /// A listing is served only to its root, only under the key it was sealed
    /// with, never altered; beyond [`MAX_LISTINGS`] the oldest go.
    #[test]
    fn a_listing_is_its_roots_alone_sealed_and_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let store = reopen(tmp.path(), 1 << 30);
        let (a, b) = (Path::new("/r/a"), Path::new("/r/b"));
        store.save_listing(a, b"what a's walk found");
        assert_eq!(
            store.load_listing(a).as_deref(),
            Some(&b"what a's walk found"[..])
        );
        assert_eq!(store.load_listing(b), None, "another root's");
        // Copied over another root's name, or altered: not served.
        let dir = tmp.path().join(build_dir_name());
        fs::copy(dir.join(listing_name(a)), dir.join(listing_name(b))).unwrap();
        assert_eq!(store.load_listing(b), None, "a's listing under b's name");
        let path = dir.join(listing_name(a));
        let mut bytes = fs::read(&path).unwrap();
        bytes[3] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(store.load_listing(a), None, "a flipped bit");
        for i in 0..MAX_LISTINGS + 6 {
            store.save_listing(Path::new(&format!("/many/{i}")), b"x");
        }
        let kept = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(LISTING_PREFIX))
            .count();
        assert_eq!(kept, MAX_LISTINGS);
        let last = format!("/many/{}", MAX_LISTINGS + 5);
        assert_eq!(
            store.load_listing(Path::new(&last)).as_deref(),
            Some(&b"x"[..])
        );
        // A new store (a new key) voids every listing of the old one.
        store.discard("test".into());
        assert!(store.flush(Duration::from_secs(30)));
        assert_eq!(store.load_listing(Path::new(&last)), None);
        store.close(Duration::from_secs(30));
    }

    /// The text index's snapshot is served only as written under this store's key;
    /// one over a quarter of the cap is not kept and takes the one before with it;
    /// a new store voids it.
    #[test]
    fn the_text_snapshot_is_sealed_bounded_and_voided_with_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let store = reopen(tmp.path(), 4096);
        assert_eq!(store.load_text(), None);
        assert!(store.save_text(b"the inverted lists"));
        assert_eq!(
            store.load_text().as_deref(),
            Some(&b"the inverted lists"[..])
        );
        let path = tmp.path().join(build_dir_name()).join(TEXT);
        let mut bytes = fs::read(&path).unwrap();
        bytes[2] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(store.load_text(), None, "a flipped bit");
        assert!(store.save_text(b"again"));
        assert!(!store.save_text(&[0; 1025]), "over a quarter of the cap");
        assert_eq!(store.load_text(), None, "the one before is gone too");
        assert!(store.save_text(b"again"));
        store.discard("test".into());
        assert!(store.flush(Duration::from_secs(30)));
        assert_eq!(store.load_text(), None, "another key's");
        store.close(Duration::from_secs(30));
    }

    /// A reopened store knows each parse's figures from its head alone.
    #[test]
    fn a_parse_s_figures_are_known_without_reading_it() {
        let tmp = tempfile::tempdir().unwrap();
        let store = reopen(tmp.path(), 1 << 30);
        let src = b"fn a() {}\nstruct B { c: u8 }\nimpl B { fn d(&self) {} }\n";
        let hash = put(&store, Lang::Rust, src);
        store.close(Duration::from_secs(30));
        let again = reopen(tmp.path(), 1 << 30);
        assert_eq!(
            again.meta(Lang::Rust, &hash),
            Some(Meta::of(&extract(Lang::Rust, src)))
        );
        assert_eq!(again.summary().hits, 0);
        assert_eq!(again.meta(Lang::Python, &hash), None);
        again.close(Duration::from_secs(30));
    }

    #[test]
    fn each_build_keeps_its_own_store_and_those_of_builds_no_daemon_runs_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        // Two other builds' stores: one whose daemon still runs (it holds its lock),
        // one left behind by a daemon that is gone (its lock file stays).
        let (running, gone) = ("0000000000000001", "0000000000000002");
        for other in [running, gone] {
            fs::create_dir_all(dir.join(other)).unwrap();
            fs::write(dir.join(other).join(STORE), b"theirs").unwrap();
            fs::write(dir.join(format!("{other}.lock")), b"").unwrap();
        }
        let held = try_lock(&dir.join(format!("{running}.lock")))
            .unwrap()
            .unwrap();
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        assert_eq!(fs::read(dir.join(running).join(STORE)).unwrap(), b"theirs");
        assert!(!dir.join(gone).exists() && !dir.join(format!("{gone}.lock")).exists());
        // A second store of this build (a second daemon) gets none, and says so.
        let second = reopen(&dir, 1 << 30);
        assert!(second.symbols(Lang::Rust, &a).is_none());
        assert!(
            second
                .summary()
                .note
                .is_some_and(|n| n.contains("another lean-ctxd"))
        );
        second.close(Duration::from_secs(30));
        assert!(store.symbols(Lang::Rust, &a).is_some());
        store.close(Duration::from_secs(30));
        drop(held);
    }

    #[test]
    fn what_was_written_is_read_back_by_the_next_process_and_a_torn_tail_is_cut_off() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        let id = FileId::stat(tmp.path()).unwrap();
        store.put_hash(id, a);
        store.put_blob([9; 20], a);
        assert!(store.flush(Duration::from_secs(30)));
        let b = put(&store, Lang::Python, b"def b(): pass\n");
        store.close(Duration::from_secs(30));
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode(&dir.join(build_dir_name())), 0o700);
        assert_eq!(mode(&dir.join(build_dir_name()).join(STORE)), 0o600);
        assert_eq!(mode(&dir.join(build_dir_name()).join(KEY)), 0o600);

        let store = reopen(&dir, 1 << 30);
        assert_eq!(
            store
                .symbols(Lang::Rust, &a)
                .unwrap()
                .top()
                .next()
                .unwrap()
                .name(),
            "a"
        );
        assert_eq!(store.symbols(Lang::Python, &b).unwrap().count, 1);
        assert!(
            store.symbols(Lang::Go, &a).is_none(),
            "keyed by grammar too"
        );
        assert_eq!(store.hash_of(&id), Some(a));
        assert_eq!(store.blob(&[9; 20]), Some(a));
        store.close(Duration::from_secs(30));

        // The last record loses its last byte (a kill during the write).
        let path = dir.join(build_dir_name()).join(STORE);
        let len = fs::metadata(&path).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len - 1)
            .unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Python, &b).is_none());
        assert!(
            store.symbols(Lang::Rust, &a).is_some(),
            "what came before stays"
        );
        let note = store.summary().note.unwrap();
        assert!(note.contains("does not verify"), "{note}");
        store.close(Duration::from_secs(30));
        let kept = fs::metadata(&path).unwrap().len();
        assert!(kept < len - 1, "truncated to whole records");
        // The note says where and how much, as the file shows it.
        let said = format!(
            "record at offset {kept} does not verify (torn or corrupted): {} bytes from there dropped",
            len - 1 - kept
        );
        assert!(note.contains(&said), "{note}");
    }

    /// A restart knows each stored parse's figures (what a root lists a file with
    /// before its symbols are read) as they were when it was put.
    #[test]
    fn a_reopened_store_knows_each_parse_by_its_figures() {
        let tmp = tempfile::tempdir().unwrap();
        let src = b"/// Docs.\nfn a() {}\nstruct B { c: u8 }\nimpl B { fn d(&self) {} }\n";
        let binary = b"package p\n\x00binary";
        let store = reopen(tmp.path(), 1 << 30);
        let a = put(&store, Lang::Rust, src);
        let b = put(&store, Lang::Go, binary);
        // The flag is not the language byte's low bit: Python's is 1.
        let c = put(&store, Lang::Python, b"def c(): pass\n");
        store.close(Duration::from_secs(30));
        let store = reopen(tmp.path(), 1 << 30);
        let meta = store.meta(Lang::Rust, &a).unwrap();
        assert_eq!(meta, Meta::of(&extract(Lang::Rust, src)));
        assert!(
            meta.count > 1 && meta.weight > 1 && !meta.binary,
            "{meta:?}"
        );
        let meta = store.meta(Lang::Go, &b).unwrap();
        assert_eq!(meta, Meta::of(&extract(Lang::Go, binary)));
        assert!(meta.binary, "{meta:?}");
        assert!(!store.meta(Lang::Python, &c).unwrap().binary);
        store.close(Duration::from_secs(30));
    }

    /// A record whose length field reads zero (a write torn at its start) ends the
    /// load there: what came before stays, the rest is dropped and said.
    #[test]
    fn a_record_of_length_zero_ends_the_load_there() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(build_dir_name()).join(STORE);
        let store = reopen(tmp.path(), 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        let before = fs::metadata(&path).unwrap().len();
        let b = put(&store, Lang::Rust, b"fn b() {}\n");
        store.close(Duration::from_secs(30));
        let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&[0; 4], before).unwrap();
        drop(file);
        let store = reopen(tmp.path(), 1 << 30);
        assert!(
            store.symbols(Lang::Rust, &a).is_some(),
            "what came before stays"
        );
        assert!(store.symbols(Lang::Rust, &b).is_none());
        let note = store.summary().note.unwrap_or_default();
        assert!(
            note.contains(&format!("offset {before} does not verify")),
            "{note}"
        );
        store.close(Duration::from_secs(30));
        assert_eq!(fs::metadata(&path).unwrap().len(), before);
    }

    /// The store's directory is made 0700, kept ours and private: merely readable
    /// by others it is tightened; writable by them, a symlink, another user's, or
    /// in a parent others may write (but a sticky one, as `/tmp`) it is refused.
    #[test]
    fn the_stores_directory_is_ours_private_and_in_a_parent_only_we_write() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o7777;
        let chmod =
            |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
        let refused = |dir: &Path, why: &str| {
            let e = open_private_dir(dir).map(drop).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        };
        let tmp = tempfile::tempdir().unwrap();
        let parent = tmp.path().join("parent");
        fs::create_dir(&parent).unwrap();
        chmod(&parent, 0o755);
        let dir = parent.join("index");
        open_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700, "made private");
        open_private_dir(&dir).unwrap();
        chmod(&dir, 0o755);
        open_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700, "tightened");
        for writable in [0o720, 0o702] {
            chmod(&dir, writable);
            refused(&dir, "writable by others");
        }
        chmod(&dir, 0o700);
        for writable in [0o775, 0o777] {
            chmod(&parent, writable);
            refused(&dir, "is writable by others");
        }
        chmod(&parent, 0o1777);
        open_private_dir(&dir).unwrap();
        chmod(&parent, 0o755);
        // A symlink to a private directory of ours is not followed.
        let real = parent.join("real");
        fs::create_dir(&real).unwrap();
        chmod(&real, 0o700);
        let link = parent.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(open_private_dir(&link).is_err(), "a symlink opened");
        // Another user's (root can give it away).
        if rustix::process::geteuid().is_root() {
            std::os::unix::fs::chown(&dir, Some(4_000_000), None).unwrap();
            refused(&dir, "owned by uid 4000000");
        }
    }

    /// A store file merely readable by others is tightened to 0600; one they could
    /// have written, or not a regular file, is refused.
    #[test]
    fn a_store_file_is_a_regular_file_only_we_write() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("file");
        fs::write(&path, b"x").unwrap();
        let check = |m: u32| {
            fs::set_permissions(&path, fs::Permissions::from_mode(m)).unwrap();
            let fd: OwnedFd = File::open(&path).unwrap().into();
            private_file(&fd).map(|_| fs::metadata(&path).unwrap().mode() & 0o777)
        };
        assert_eq!(check(0o600).unwrap(), 0o600);
        assert_eq!(check(0o644).unwrap(), 0o600, "tightened");
        for writable in [0o620, 0o602] {
            let e = check(writable).unwrap_err().to_string();
            assert!(e.contains("writable by others"), "{e}");
        }
        let dir: OwnedFd = File::open(tmp.path()).unwrap().into();
        assert!(private_file(&dir).is_err(), "a directory");
    }

    /// A store whose last record is a small one (a file identity's hash, ending the
    /// file exactly) keeps it across a restart.
    #[test]
    fn a_small_record_at_the_end_of_the_file_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let store = reopen(tmp.path(), 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        store.put_blob([7; 20], a);
        store.close(Duration::from_secs(30));
        let store = reopen(tmp.path(), 1 << 30);
        assert_eq!(store.blob(&[7; 20]), Some(a));
        assert_eq!(store.summary().note, None);
        store.close(Duration::from_secs(30));
    }

    /// A load that panics (a bug: no input may make it) while it holds the served
    /// store's lock leaves no store, and lookups answer at once, as with none,
    /// instead of waiting for the load forever.
    #[test]
    fn a_load_that_panics_leaves_lookups_answering_without_a_store() {
        let shared = Arc::new(Shared::default());
        let loading = shared.clone();
        let load = std::thread::spawn(move || {
            let _ends = LoadEnds(&loading);
            let _half_made = loading.disk.write().unwrap();
            panic!("a bug in the load");
        });
        assert!(load.join().is_err());
        let store = Store {
            dir: PathBuf::new(),
            cap: 1 << 30,
            tx: Mutex::new(None),
            shared,
            writer: Mutex::new(None),
        };
        // Asked on a thread of its own, so a lookup that waits fails the test
        // rather than hanging it.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let answers = (
                store.blob(&[9; 20]),
                store.symbols(Lang::Rust, &[1; 32]).is_none(),
                store.flush(Duration::from_secs(1)),
                store.summary().note.unwrap_or_default(),
            );
            let _ = tx.send(answers);
        });
        let (blob, no_symbols, flushed, note) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("lookups answer");
        assert_eq!(blob, None);
        assert!(no_symbols);
        assert!(!flushed, "no writer to flush");
        assert!(note.contains("load failed"), "{note}");
    }

    /// A first start, and a clean reopen whose last record is the smallest parse
    /// (an empty file's: shorter than a parse's head), note nothing; a key or a
    /// store file that is there but cannot be used is rebuilt, and said so.
    #[test]
    fn a_first_or_clean_start_notes_nothing_and_an_unusable_key_or_file_is_said() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let build = dir.join(build_dir_name());
        let note = |store: &Store| store.summary().note;
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        let empty = put(&store, Lang::Python, b"");
        assert!(store.flush(Duration::from_secs(30)));
        assert_eq!(note(&store), None, "a first start");
        store.close(Duration::from_secs(30));

        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Python, &empty).is_some());
        assert!(store.symbols(Lang::Rust, &a).is_some());
        assert_eq!(note(&store), None, "a clean reopen");
        store.close(Duration::from_secs(30));

        // The store file gone, its key kept: a quiet new start.
        fs::remove_file(build.join(STORE)).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        assert_eq!(note(&store), None, "a missing store file");
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));

        // The store file a symlink (to itself, every byte valid): not opened.
        let real = build.join("real");
        fs::rename(build.join(STORE), &real).unwrap();
        std::os::unix::fs::symlink(&real, build.join(STORE)).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        let said = note(&store).unwrap_or_default();
        assert!(said.contains("rebuilt: cannot open it"), "{said:?}");
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));

        // The key a symlink to a copy of itself: not read, so nothing verifies.
        let copy = build.join("key-copy");
        fs::copy(build.join(KEY), &copy).unwrap();
        fs::remove_file(build.join(KEY)).unwrap();
        std::os::unix::fs::symlink(&copy, build.join(KEY)).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(
            store.symbols(Lang::Rust, &a).is_none(),
            "read through a link"
        );
        let said = note(&store).unwrap_or_default();
        assert!(said.contains("rebuilt: its key"), "{said:?}");
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));

        // A key one byte too long.
        let mut key = fs::read(build.join(KEY)).unwrap();
        key.push(0);
        fs::write(build.join(KEY), key).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        let said = note(&store).unwrap_or_default();
        assert!(said.contains("rebuilt: its key"), "{said:?}");
        store.close(Duration::from_secs(30));
    }

    /// The roots calls were made for outlive a restart, and are read only from a
    /// regular file of ours that others cannot write: a symlink to a copy of it, or
    /// the file made group-writable, reads as none.
    #[test]
    fn recent_roots_are_read_back_only_from_a_private_file() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        store.used(Path::new("/p/one"));
        store.used(Path::new("/p/two"));
        store.close(Duration::from_secs(30));
        let roots = |store: &Store| -> Vec<PathBuf> {
            store.recent_roots().into_iter().map(|(p, _)| p).collect()
        };
        let store = reopen(&dir, 1 << 30);
        let mut both = roots(&store);
        both.sort();
        assert_eq!(both, [Path::new("/p/one"), Path::new("/p/two")]);

        let file = dir.join(recent::FILE);
        let copy = dir.join("recent-copy");
        fs::copy(&file, &copy).unwrap();
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&copy, &file).unwrap();
        assert!(roots(&store).is_empty(), "read through a link");

        fs::remove_file(&file).unwrap();
        fs::rename(&copy, &file).unwrap();
        assert_eq!(roots(&store).len(), 2);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o620)).unwrap();
        assert!(roots(&store).is_empty(), "writable by the group");
        store.close(Duration::from_secs(30));
    }

    /// A parse record whose length was cut below a parse's head (a flipped bit in
    /// its length field): the load stops there, says so, and the store goes on;
    /// the head is never read past the record.
    #[test]
    fn a_parse_record_shorter_than_its_head_ends_the_load_there() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));
        let path = dir.join(build_dir_name()).join(STORE);
        let mut bytes = fs::read(&path).unwrap();
        assert_eq!(
            bytes[HEADER + 4],
            K_SYMBOLS,
            "the first record is the parse"
        );
        bytes[HEADER..HEADER + 4].copy_from_slice(&11u32.to_le_bytes());
        fs::write(&path, bytes).unwrap();

        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        let note = store.summary().note.unwrap_or_default();
        assert!(note.contains("does not verify"), "{note:?}");
        let b = put(&store, Lang::Python, b"def b(): pass\n");
        assert!(store.flush(Duration::from_secs(30)));
        assert_eq!(store.symbols(Lang::Python, &b).map(|s| s.count), Some(1));
        store.close(Duration::from_secs(30));
    }

    /// A store file replaced by name while its writer runs (another process, a
    /// restore from a backup: here a copy of itself, so every byte is valid) is
    /// not written through the old file's descriptor: what comes next is in the
    /// file the next process opens.
    #[test]
    fn a_store_file_replaced_under_its_running_writer_is_started_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        let path = dir.join(build_dir_name()).join(STORE);
        let copy = path.with_extension("copy");
        fs::copy(&path, &copy).unwrap();
        fs::rename(&copy, &path).unwrap();

        let b = put(&store, Lang::Python, b"def b(): pass\n");
        assert!(store.flush(Duration::from_secs(30)));
        let note = store.summary().note.unwrap_or_default();
        assert!(note.contains("removed"), "{note}");
        store.close(Duration::from_secs(30));

        let store = reopen(&dir, 1 << 30);
        assert_eq!(store.symbols(Lang::Python, &b).map(|s| s.count), Some(1));
        assert!(store.symbols(Lang::Rust, &a).is_none(), "a new store");
        store.close(Duration::from_secs(30));
    }

    /// The store file is opened close-on-exec (no language server the daemon starts
    /// inherits it) and never through a symlink put in its place: a link to a
    /// copy of it (every byte valid) is not served, and the copy is left as it was.
    #[test]
    fn the_store_file_is_not_inherited_nor_opened_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        assert!(store.flush(Duration::from_secs(30)));
        {
            let disk = store.shared.disk.read().unwrap();
            let file = disk.as_ref().unwrap().file.as_fd();
            let flags = rustix::io::fcntl_getfd(file).unwrap();
            assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
        }
        store.close(Duration::from_secs(30));

        let path = dir.join(build_dir_name()).join(STORE);
        let copy = path.with_extension("real");
        fs::rename(&path, &copy).unwrap();
        std::os::unix::fs::symlink(&copy, &path).unwrap();
        let before = fs::read(&copy).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(
            store.symbols(Lang::Rust, &a).is_none(),
            "served through a link"
        );
        store.close(Duration::from_secs(30));
        assert_eq!(fs::read(&copy).unwrap(), before);
    }

    #[test]
    fn a_flipped_bit_in_a_parse_is_never_served() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.flush(Duration::from_secs(30));
        let after_a = fs::metadata(dir.join(build_dir_name()).join(STORE))
            .unwrap()
            .len() as usize;
        let b = put(&store, Lang::Rust, b"fn b() {}\n");
        let c = put(&store, Lang::Rust, b"fn c() {}\n");
        store.close(Duration::from_secs(30));
        let clean = fs::read(dir.join(build_dir_name()).join(STORE)).unwrap();

        // In b's key (its content hash): b is not found under its hash, and what
        // the flipped key names fails its seal if ever asked for; c is unharmed.
        let mut bytes = clean.clone();
        bytes[after_a + 4 + 1 + 5] ^= 4;
        fs::write(dir.join(build_dir_name()).join(STORE), &bytes).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &b).is_none());
        assert!(store.symbols(Lang::Rust, &c).is_some());
        store.close(Duration::from_secs(30));

        // In b's symbols: reading it breaks the seal, the store is discarded, and
        // nothing of it is served any more.
        let mut bytes = clean;
        bytes[after_a + 4 + 1 + 33 + 3] ^= 4;
        fs::write(dir.join(build_dir_name()).join(STORE), &bytes).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_some());
        assert!(store.symbols(Lang::Rust, &b).is_none());
        assert!(store.summary().note.unwrap().contains("no longer verifies"));
        assert!(store.symbols(Lang::Rust, &c).is_none());
        store.close(Duration::from_secs(30));
    }

    #[test]
    fn a_store_of_another_build_or_another_key_is_rebuilt_under_a_new_key() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));
        let key: [u8; 32] = fs::read(dir.join(build_dir_name()).join(KEY))
            .unwrap()
            .try_into()
            .unwrap();
        // Another build: a valid header with another tag.
        let mut bytes = fs::read(dir.join(build_dir_name()).join(STORE)).unwrap();
        bytes[..HEADER].copy_from_slice(&header(&key, &[7; 32]));
        fs::write(dir.join(build_dir_name()).join(STORE), &bytes).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        let note = store.summary().note.unwrap();
        assert!(note.contains("another build"), "{note}");
        store.close(Duration::from_secs(30));
        assert_ne!(
            fs::read(dir.join(build_dir_name()).join(KEY)).unwrap(),
            key,
            "the key rotates"
        );

        // Another key: this store's records no longer verify.
        let store = reopen(&dir, 1 << 30);
        let a = put(&store, Lang::Rust, b"fn a() {}\n");
        store.close(Duration::from_secs(30));
        fs::write(dir.join(build_dir_name()).join(KEY), [1; 32]).unwrap();
        let store = reopen(&dir, 1 << 30);
        assert!(store.symbols(Lang::Rust, &a).is_none());
        assert!(
            store
                .summary()
                .note
                .unwrap()
                .contains("header does not verify")
        );
        store.close(Duration::from_secs(30));
    }

    #[test]
    fn over_its_cap_the_store_keeps_the_most_recently_used_parses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("index");
        let cap = 64 * 1024;
        let store = reopen(&dir, cap);
        // Each parse is about 1 KiB on disk (the name is in name, path and signature).
        let src = |i: usize| format!("fn f{i}_{}() {{}}\n", "x".repeat(300));
        let first = put(&store, Lang::Rust, src(0).as_bytes());
        store.flush(Duration::from_secs(30));
        let mut last = Vec::new();
        for i in 1..400 {
            // The first one stays in use: it must survive.
            assert!(store.symbols(Lang::Rust, &first).is_some(), "lost at {i}");
            last.push(put(&store, Lang::Rust, src(i).as_bytes()));
            store.flush(Duration::from_secs(30));
        }
        let size = fs::metadata(dir.join(build_dir_name()).join(STORE))
            .unwrap()
            .len();
        assert!(size <= cap, "{size} over the cap {cap}");
        assert!(store.symbols(Lang::Rust, last.last().unwrap()).is_some());
        assert!(
            store.symbols(Lang::Rust, &last[0]).is_none(),
            "the oldest went"
        );
        store.close(Duration::from_secs(30));
    }
}
