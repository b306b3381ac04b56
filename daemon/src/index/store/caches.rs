//! The daemon-wide caches, shared by every root and every worktree (docs/design.md
//! #5): file identity → BLAKE3 of the content, git blob → BLAKE3 of the content, and
//! (grammar, content hash) → parsed symbols. A second worktree of a repository finds
//! almost every file already parsed, and (through its git index, `fs/git_index.rs`)
//! most content hashes without reading a byte.
//!
//! Behind them, when the daemon persists its index, the store on disk
//! (`persist.rs`): a lookup the memory misses asks it before reading or parsing, and
//! whatever is learned from bytes is handed to its writer thread. A parse the store
//! holds is not read to index a file: the root keeps its figures ([`ContentFacts`]) and
//! fetches it when its symbols are asked for ([`Caches::symbols_of`]), so with the
//! store on, resident parses are bounded by the symbol cache's capacity and a miss
//! costs one `pread` and a decode. Parses left on disk feed a small uniform sample
//! that the roots check against fresh parses after each full walk
//! ([`Caches::verify_sample`]).

use std::{
    io::{self, Read},
    path::Path,
    sync::{
        Arc, Mutex, OnceLock, RwLock, Weak,
        atomic::{AtomicU64, Ordering},
    },
};

use lean_ctx_shared::protocol::{CacheCounters, CacheStatus};
use rustc_hash::FxHashMap;

use lean_ctx_syntax::{FileSymbols, Lang};

use super::persist::{Meta, Store, Summary};
use crate::{
    declarations::extract,
    index::{
        ids::{FileId, Hash, Oid, now},
        text::TextIndex,
    },
};

/// Per-root lookup counters, so status can say how much a root got from the shared
/// caches.
#[derive(Debug, Default)]
pub struct Counters {
    hash_hits: AtomicU64,
    hash_misses: AtomicU64,
    symbol_hits: AtomicU64,
    symbol_misses: AtomicU64,
}

impl Counters {
    pub fn hash(&self) -> CacheCounters {
        CacheCounters {
            hits: self.hash_hits.load(Ordering::Relaxed),
            misses: self.hash_misses.load(Ordering::Relaxed),
        }
    }

    pub fn symbols(&self) -> CacheCounters {
        CacheCounters {
            hits: self.symbol_hits.load(Ordering::Relaxed),
            misses: self.symbol_misses.load(Ordering::Relaxed),
        }
    }
}

/// A file's content hash and its parse.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub hash: Hash,
    pub symbols: Arc<FileSymbols>,
}

/// What a root keeps of a file's content: its hash and its parse's figures, and the
/// parse itself only where nothing else could give it back. With the store on, the
/// parse lives in the bounded symbol cache or on disk and is fetched when asked for
/// ([`Caches::symbols_of`]): a restarted daemon lists a root without reading a single
/// parse, and what stays resident is bounded by the symbol cache.
#[derive(Clone, Debug)]
pub struct ContentFacts {
    pub hash: Hash,
    pub lang: Lang,
    pub meta: Meta,
    /// Held by the root: without a store, an evicted parse would be re-parsed from
    /// the file on every ask.
    held: Option<Arc<FileSymbols>>,
}

/// What a git blob is known to hold: its content hash, and the parse last made of
/// it (weak: how long parses live is the symbol cache's business).
#[derive(Debug)]
struct Blob {
    hash: Hash,
    symbols: Weak<FileSymbols>,
}

#[derive(Debug)]
pub struct Caches {
    hashes: moka::sync::Cache<FileId, Hash>,
    /// Learned from files a git index vouched for. A plain map, not a cache: a
    /// second worktree looks up every file here and (through the weak parse) needs
    /// no other lookup, and a `moka` lookup costs several times a map's (it records
    /// each read for its eviction policy). Bounded by starting over when full.
    blobs: RwLock<FxHashMap<Oid, Blob>>,
    /// `blobs.len()`, kept under its write lock: status reads it without waiting.
    blob_count: AtomicU64,
    blob_totals: (AtomicU64, AtomicU64),
    symbols: moka::sync::Cache<(Lang, Hash), Arc<FileSymbols>>,
    symbol_capacity: u64,
    totals: Counters,
    /// The persisted index, once the daemon opened it.
    store: OnceLock<Arc<Store>>,
    /// Parses served from the store, to be checked against fresh ones.
    sample: Mutex<Vec<(u64, Lang, Hash)>>,
    /// The sample's current admission bound (its largest key while full).
    sample_bound: AtomicU64,
    /// The store generation whose new store was told what memory knows.
    relearned: AtomicU64,
    /// What to do when the store is found lying: each open root walks again.
    on_discard: Mutex<Vec<WalkAgain>>,
    /// The trigrams of every content read (`index/text/`).
    text: TextIndex,
    /// The text index's contents when its snapshot was last kept (or restored).
    text_saved: AtomicU64,
}

/// A root's way back to a fresh walk; `false` once the root is gone.
pub struct WalkAgain(pub Box<dyn Fn() -> bool + Send + Sync>);

impl std::fmt::Debug for WalkAgain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WalkAgain")
    }
}

/// The bytes of a root's file whose content has this hash (parsed as this
/// language, if one is given): what a walk's checks compare the caches with.
pub type ContentOf<'a> = dyn Fn(Option<Lang>, &Hash) -> Option<Vec<u8>> + 'a;

/// How many contents the text index's snapshot brought are checked after a walk.
const TEXT_SAMPLE: usize = 8;
/// The longest the text index's snapshot waits for the records queued before it.
const RECORDS_BEFORE_TEXT: std::time::Duration = std::time::Duration::from_secs(10);

/// How many parses served from disk are checked after a walk: a bottom-k sample by
/// content hash (uniform, since hashes are), so each walk checks a few dozen files.
const SAMPLE: usize = 32;

/// Entries of the file-hash cache (about 100 bytes each) and of the blob map (about
/// 80, and what a parse it outlived leaves: its `Arc`'s allocation, about 90).
const HASH_ENTRIES: u64 = 500_000;

impl Caches {
    pub fn new(symbol_capacity_bytes: u64) -> Caches {
        Caches {
            hashes: moka::sync::Cache::new(HASH_ENTRIES),
            blobs: RwLock::default(),
            blob_count: AtomicU64::new(0),
            blob_totals: Default::default(),
            symbols: moka::sync::Cache::builder()
                .weigher(|_, v: &Arc<FileSymbols>| v.weight.min(u32::MAX as usize) as u32)
                .max_capacity(symbol_capacity_bytes)
                .build(),
            symbol_capacity: symbol_capacity_bytes,
            totals: Counters::default(),
            store: OnceLock::new(),
            sample: Mutex::default(),
            sample_bound: AtomicU64::new(u64::MAX),
            relearned: AtomicU64::new(0),
            on_discard: Mutex::default(),
            text: TextIndex::default(),
            text_saved: AtomicU64::new(0),
        }
    }

    /// The caches with a text index whose lists take at most about `cap` bytes,
    /// or without one (`[index] text_index = false`): nothing is ruled out, every
    /// search reads every file.
    pub fn with_text_index(mut self, on: bool, cap: u64) -> Caches {
        self.text = match on {
            true => TextIndex::with_cap(cap),
            false => TextIndex::off(),
        };
        self
    }

    /// Backs the caches by the persisted index from now on; text searches wait
    /// for [`Caches::restore_text`], which the caller runs next.
    pub fn persist(&self, store: Arc<Store>) {
        let _ = self.store.set(store);
        self.text.restore_coming();
    }

    /// The text index of every content read (`index/text/mod.rs`).
    pub fn text(&self) -> &TextIndex {
        &self.text
    }

    pub(in crate::index) fn store(&self) -> Option<&Store> {
        self.store.get().map(|s| &**s)
    }

    /// Held by a full walk while it runs: the store's writer waits for it.
    pub fn walking(&self) -> Option<super::persist::Walking> {
        self.store.get().map(|s| s.walking())
    }

    /// Writes what the store's writer still holds and stops it (at exit), the text
    /// index's snapshot first.
    pub fn close_store(&self, limit: std::time::Duration) {
        if let Some(store) = self.store() {
            self.save_text();
            store.close(limit);
        }
    }

    /// Restores the text index from the store's snapshot, if one is kept (at
    /// start, off the request path: a search meanwhile reads every file it must).
    pub fn restore_text(&self) {
        let Some(store) = self.store() else { return };
        let Some(snapshot) = store.load_text() else {
            self.text.restore_none();
            return;
        };
        if self.text.restore(&snapshot) {
            let contents = self.text.figures().contents;
            self.text_saved.store(contents, Ordering::Relaxed);
            tracing::info!(contents, bytes = snapshot.len(), "text index restored");
        }
    }

    /// Keeps the text index's snapshot in the store if it learned contents since
    /// the last one (after a full walk, at exit).
    pub fn save_text(&self) {
        // What the walk left pending goes in now, its batch buffers go back and its
        // lists are frozen (by the snapshot, or alone), whether or not a store
        // keeps the result.
        self.text.flush();
        let since = self.text_saved.load(Ordering::Relaxed);
        // The records queued before it go to disk first: a restart serves from
        // them, while the snapshot only spares it reads. On a disk with room for
        // one of the two, the records win; a writer that does not catch up in time
        // leaves the snapshot for the next walk. Waited for before the snapshot is
        // made, so its copy of the lists is held only while it is written.
        let store = self.store().filter(|store| {
            self.text.figures().contents != since && store.flush(RECORDS_BEFORE_TEXT)
        });
        let Some(store) = store else {
            self.text.freeze();
            return;
        };
        if let Some((snapshot, contents)) = self.text.snapshot(since)
            && store.save_text(&snapshot)
        {
            self.text_saved.store(contents, Ordering::Relaxed);
        }
    }

    /// Waits until everything learned so far is on disk (tests, benches).
    pub fn flush_store(&self, limit: std::time::Duration) -> bool {
        self.store().is_none_or(|s| s.flush(limit))
    }

    pub fn store_summary(&self) -> Option<Summary> {
        self.store().map(Store::summary)
    }

    /// Notes a call for `root`, for the next start's prewarm (`recent.rs`).
    pub fn used(&self, root: &Path) {
        if let Some(store) = self.store() {
            store.used(root);
        }
    }

    /// Whether the store keeps a listing of `root`'s last walk.
    pub fn has_listing(&self, root: &Path) -> bool {
        self.store().is_some_and(|s| s.has_listing(root))
    }

    /// The roots calls were last made for, most recent first, with the unix ms of
    /// the last call each got (none without a store).
    pub fn recent_roots(&self) -> Vec<(std::path::PathBuf, u64)> {
        self.store().map(Store::recent_roots).unwrap_or_default()
    }

    /// Registers what a root does when the store was found lying.
    pub fn on_discard(&self, rewalk: WalkAgain) {
        self.on_discard.lock().unwrap().push(rewalk);
    }

    /// Offers a parse served from disk to the sample.
    fn sampled(&self, lang: Lang, hash: Hash) {
        let key = u64::from_le_bytes(hash[..8].try_into().unwrap());
        if key >= self.sample_bound.load(Ordering::Relaxed) {
            return;
        }
        let mut sample = self.sample.lock().unwrap();
        if sample.iter().any(|s| s.0 == key) {
            return;
        }
        sample.push((key, lang, hash));
        if sample.len() > SAMPLE {
            sample.sort_unstable_by_key(|s| s.0);
            sample.truncate(SAMPLE);
            self.sample_bound
                .store(sample[SAMPLE - 1].0, Ordering::Relaxed);
        }
    }

    /// Checks the sampled parses served from disk against fresh parses of the same
    /// bytes (`bytes_of`: the content of a file of the caller's with that hash, if it
    /// has one). A mismatch means the store lied: it is discarded with everything in
    /// memory, and every root walks again. What the caller cannot check stays for
    /// another root. Off the request path: after a full walk, on the index thread.
    pub fn verify_sample(&self, bytes_of: &ContentOf<'_>) {
        self.verify_text(bytes_of);
        let taken = std::mem::take(&mut *self.sample.lock().unwrap());
        let mut left = Vec::new();
        for (key, lang, hash) in taken {
            let Some(bytes) =
                bytes_of(Some(lang), &hash).filter(|b| *blake3::hash(b).as_bytes() == hash)
            else {
                left.push((key, lang, hash));
                continue;
            };
            // What a root would be served: the parse in memory, else the one on disk
            // (a restart lists files without reading their parses).
            let Some(served) = self.cached(lang, &hash) else {
                continue;
            };
            let (mut stored, mut fresh) = (Vec::new(), Vec::new());
            served.encode(&mut stored);
            extract(lang, &bytes).encode(&mut fresh);
            if stored != fresh {
                self.lied(&hash);
                return;
            }
        }
        self.relearn();
        let mut sample = self.sample.lock().unwrap();
        sample.extend(left);
        sample.truncate(SAMPLE);
        if sample.len() < SAMPLE {
            self.sample_bound.store(u64::MAX, Ordering::Relaxed);
        }
    }

    /// Checks a sample of the contents the text index's snapshot brought against
    /// their bytes: an entry missing a trigram of its content would rule out a file
    /// that matches, so one such entry loses the whole index and its snapshot.
    fn verify_text(&self, bytes_of: &ContentOf<'_>) {
        for hash in self.text.restored_sample(TEXT_SAMPLE) {
            let Some(bytes) = bytes_of(None, &hash).filter(|b| *blake3::hash(b).as_bytes() == hash)
            else {
                continue;
            };
            if !self.text.holds(&hash, &bytes) {
                let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
                tracing::warn!(content = %hex, "the text index's snapshot contradicts a content: discarding it");
                self.text.forget();
                self.text_saved.store(0, Ordering::Relaxed);
                if let Some(store) = self.store() {
                    store.drop_text();
                }
                return;
            }
        }
    }

    /// The store served a parse that a fresh parse contradicts: nothing it said is
    /// believed any more, in memory or on disk.
    fn lied(&self, hash: &Hash) {
        let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
        tracing::warn!(
            content = %hex,
            "the index store served symbols a fresh parse contradicts: discarding it and walking every root again"
        );
        if let Some(store) = self.store() {
            store.discard(format!(
                "it served symbols for content {hex}… that a fresh parse contradicts"
            ));
        }
        self.symbols.invalidate_all();
        self.hashes.invalidate_all();
        self.blobs.write().unwrap().clear();
        self.blob_count.store(0, Ordering::Relaxed);
        self.sample.lock().unwrap().clear();
        self.sample_bound.store(u64::MAX, Ordering::Relaxed);
        let rewalks = std::mem::take(&mut *self.on_discard.lock().unwrap());
        let alive: Vec<WalkAgain> = rewalks.into_iter().filter(|r| (r.0)()).collect();
        self.on_discard.lock().unwrap().extend(alive);
    }

    /// Hash and parse figures of the file `open` opens (identity `id`), reading and
    /// parsing only what the caches do not already know (`open` is only called for
    /// reading: by name for the walk, beneath the jail's held directory for a
    /// request). A parse the store holds is not read: the answer names it, and
    /// [`Caches::symbols_of`] fetches it when its symbols are asked for. `blob`: the
    /// git blob the worktree's index says the file holds, if it vouches for it.
    /// Counts into `root` and the daemon totals (a hash known from the blob counts as
    /// a hash hit, a parse known to the store as a symbol hit). With the parse:
    /// whether `id` stands for those bytes for as long as it lasts, and so is
    /// remembered (known already, vouched for by git, or settled when read:
    /// [`FileId::settled`]). `text_now`: whether bytes read go to the text index as
    /// they are read; a root's full walk leaves them to its end, which fills the
    /// text index in (`RootIndex::fill_text`) once the waiting calls are answered.
    pub fn parse(
        &self,
        open: &dyn Fn() -> io::Result<std::fs::File>,
        id: FileId,
        lang: Lang,
        root: &Counters,
        blob: Option<Oid>,
        text_now: bool,
    ) -> io::Result<(ContentFacts, bool)> {
        self.relearn();
        // What git vouches for first: in a fresh worktree the identity is new anyway.
        // (Upgraded under the lock: cloning the weak pointer out first would cost two
        // more atomic operations on a line nobody else touched lately.)
        let mut blob_stored = false;
        let from_blob = blob.and_then(|blob| {
            let in_memory = self.blobs.read().unwrap().get(&blob).map(|b| {
                let symbols = b.symbols.upgrade().filter(|s| s.lang == lang);
                (b.hash, symbols)
            });
            let known = in_memory.or_else(|| Some((self.store()?.blob(&blob)?, None)));
            blob_stored = known.is_some();
            let counter = match known {
                Some(_) => &self.blob_totals.0,
                None => &self.blob_totals.1,
            };
            counter.fetch_add(1, Ordering::Relaxed);
            known
        });
        // What git vouched for is this identity's content too: the store learns it,
        // so a restart (which reads no git index) knows the file by identity alone
        // instead of reading it (a second worktree's files, and every copy of one
        // content, would otherwise be read again at each restart).
        if let (Some((hash, _)), Some(store)) = (&from_blob, self.store()) {
            store.put_hash(id, *hash);
        }
        let from_blob = match from_blob {
            Some((hash, Some(symbols))) => {
                bump(&root.hash_hits, &self.totals.hash_hits);
                bump(&root.symbol_hits, &self.totals.symbol_hits);
                return Ok((self.known(hash, symbols), true));
            }
            Some((hash, None)) => Some(hash),
            None => None,
        };
        // Whether `hash` is known to be the content `id` stands for (and so, for a
        // vouched file, the blob's): not if the file changed while we read it.
        let mut content = None;
        let from_store = || {
            let hash = self.store()?.hash_of(&id)?;
            self.hashes.insert(id, hash);
            Some(hash)
        };
        let known = from_blob
            .or_else(|| self.hashes.get(&id))
            .or_else(from_store);
        let (hash, faithful, settled) = match known {
            Some(hash) => {
                bump(&root.hash_hits, &self.totals.hash_hits);
                (hash, true, true)
            }
            None => {
                bump(&root.hash_misses, &self.totals.hash_misses);
                let (bytes, unchanged) = read_unchanged(open()?, id)?;
                let hash = *blake3::hash(&bytes).as_bytes();
                // Remembered by identity only if that cannot name other bytes by
                // now: settled, or vouched for by git's index (whose own racy rule
                // compared the entry with when the index was written).
                let settled = unchanged && (blob.is_some() || id.settled(now()));
                if settled {
                    self.hashes.insert(id, hash);
                    if let Some(store) = self.store() {
                        store.put_hash(id, hash);
                    }
                }
                if text_now {
                    self.text.add(hash, &bytes);
                }
                content = Some(bytes);
                (hash, unchanged, settled)
            }
        };
        // A parse the store holds stays there: offered to the sample the walk checks.
        let stored = || {
            let meta = self.store()?.meta(lang, &hash)?;
            self.sampled(lang, hash);
            Some(meta)
        };
        let (known, symbols) = match self.symbols.get(&(lang, hash)) {
            Some(symbols) => {
                bump(&root.symbol_hits, &self.totals.symbol_hits);
                (self.known(hash, symbols.clone()), Some(symbols))
            }
            None => match stored() {
                Some(meta) => {
                    bump(&root.symbol_hits, &self.totals.symbol_hits);
                    let held = None;
                    (
                        ContentFacts {
                            hash,
                            lang,
                            meta,
                            held,
                        },
                        None,
                    )
                }
                None => {
                    bump(&root.symbol_misses, &self.totals.symbol_misses);
                    // Bytes read above are the ones hashed; bytes read only now may
                    // differ from what the hash was learnt from (the file changed
                    // since), so those are keyed by what is parsed.
                    let (bytes, hashed) = match content {
                        Some(bytes) => (bytes, Some(hash)),
                        None => (read_unchanged(open()?, id)?.0, None),
                    };
                    let (parsed_hash, symbols) = self.made(lang, &bytes, hashed);
                    if parsed_hash != hash {
                        return Ok((self.known(parsed_hash, symbols), false));
                    }
                    (self.known(hash, symbols.clone()), Some(symbols))
                }
            },
        };
        if let Some(blob) = blob.filter(|_| faithful) {
            if let Some(store) = self.store().filter(|_| !blob_stored) {
                store.put_blob(blob, hash);
            }
            let mut blobs = self.blobs.write().unwrap();
            if blobs.len() as u64 >= HASH_ENTRIES {
                blobs.clear();
            }
            let symbols = symbols.as_ref().map_or_else(Weak::new, Arc::downgrade);
            blobs.insert(blob, Blob { hash, symbols });
            self.blob_count.store(blobs.len() as u64, Ordering::Relaxed);
        }
        Ok((known, settled))
    }

    /// A root's record of `symbols`, the parse of content `hash`: held by the root
    /// only if no store could give it back once the symbol cache let it go.
    fn known(&self, hash: Hash, symbols: Arc<FileSymbols>) -> ContentFacts {
        ContentFacts {
            hash,
            lang: symbols.lang,
            meta: Meta::of(&symbols),
            held: self.store().is_none().then_some(symbols),
        }
    }

    /// Parses `bytes` as `lang` into the symbol cache and the store; `hash` is
    /// theirs if the caller has it (a first index hashed every file it read, and
    /// hashing again was 2% of lodash's index threads in perf); bytes it hashed
    /// went to the text index with it (or are left to a full walk's end), others go
    /// in here.
    fn made(&self, lang: Lang, bytes: &[u8], hash: Option<Hash>) -> (Hash, Arc<FileSymbols>) {
        let hash = hash.unwrap_or_else(|| {
            let hash = *blake3::hash(bytes).as_bytes();
            self.text.add(hash, bytes);
            hash
        });
        let symbols = Arc::new(extract(lang, bytes));
        self.symbols.insert((lang, hash), symbols.clone());
        if let Some(store) = self.store() {
            store.put_symbols(lang, hash, symbols.clone());
        }
        (hash, symbols)
    }

    /// The parse of content `hash` as `lang` from memory, else from the store (then
    /// cached; callers asking for one parse at once read it once): `None` if neither
    /// has it.
    fn cached(&self, lang: Lang, hash: &Hash) -> Option<Arc<FileSymbols>> {
        let store = self.store();
        let generation = store.map(|s| s.generation());
        let symbols = self
            .symbols
            .optionally_get_with((lang, *hash), || store?.symbols(lang, hash).map(Arc::new))?;
        // A parse read from the store while it was found lying (`lied`: the store
        // discarded, then this cache emptied) can land here after the emptying and
        // be served for good (a CI run saw it): once the store started over, what
        // was just looked up is dropped and not served; the caller parses the file.
        if store.is_some_and(|s| Some(s.generation()) != generation) {
            self.symbols.invalidate(&(lang, *hash));
            return None;
        }
        Some(symbols)
    }

    /// The symbols of what `known` names, for the file with identity `id` that
    /// `open` opens: held, cached or stored; else (evicted before it was written,
    /// the store discarded or cleared) parsed again from the file, whose bytes then
    /// decide the answer's hash.
    pub fn symbols_of(
        &self,
        known: &ContentFacts,
        id: FileId,
        open: &dyn Fn() -> io::Result<std::fs::File>,
    ) -> io::Result<Parsed> {
        let hash = known.hash;
        if let Some(symbols) = known
            .held
            .clone()
            .or_else(|| self.cached(known.lang, &hash))
        {
            return Ok(Parsed { hash, symbols });
        }
        self.relearn();
        let (hash, symbols) = self.made(known.lang, &read_unchanged(open()?, id)?.0, None);
        Ok(Parsed { hash, symbols })
    }

    /// Once the store started over (a parse that no longer verified, a removed
    /// file), writes what memory knows to the new one: roots keep listing files
    /// whose parse the old store held, and learn nothing more about them by
    /// themselves, so without this the new store would stay empty of them.
    fn relearn(&self) {
        let Some(store) = self.store() else { return };
        let (now, seen) = (store.generation(), self.relearned.load(Ordering::Relaxed));
        if now == seen
            || self
                .relearned
                .compare_exchange(seen, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        for (id, hash) in self.hashes.iter() {
            store.put_hash(*id, hash);
        }
        let blobs: Vec<(Oid, Hash)> = {
            let blobs = self.blobs.read().unwrap();
            blobs.iter().map(|(oid, b)| (*oid, b.hash)).collect()
        };
        for (oid, hash) in blobs {
            store.put_blob(oid, hash);
        }
        for (key, symbols) in self.symbols.iter() {
            store.put_symbols(key.0, key.1, symbols);
        }
    }

    /// The records of files the store knows by identity alone, for a restart's
    /// check of a root: `Some` for each whose content hash and parse figures the
    /// store holds, `None` for the rest (the caller reads those through
    /// [`Caches::parse`]). No file is opened, and nothing is copied into the memory
    /// caches: the store holds it, and [`Caches::parse`] finds it there too. Counts
    /// like [`Caches::parse`]'s store hits.
    pub fn stored_many(
        &self,
        files: &[(FileId, Lang)],
        root: &Counters,
    ) -> Vec<Option<ContentFacts>> {
        self.relearn();
        let Some(store) = self.store() else {
            return vec![None; files.len()];
        };
        let mut hits = 0;
        let known = store
            .known_many(files)
            .into_iter()
            .zip(files)
            .map(|(found, &(_, lang))| {
                let (hash, meta) = found?;
                // Offered to the sample the walk checks, as a parse left on disk.
                self.sampled(lang, hash);
                hits += 1;
                let held = None;
                Some(ContentFacts {
                    hash,
                    lang,
                    meta,
                    held,
                })
            })
            .collect();
        bump_by(&root.hash_hits, &self.totals.hash_hits, hits);
        bump_by(&root.symbol_hits, &self.totals.symbol_hits, hits);
        known
    }

    /// Whether the caches (or the store) know a content for identity `id`.
    #[cfg(test)]
    pub(in crate::index) fn knows(&self, id: &FileId) -> bool {
        self.hashes.contains_key(id) || self.store().is_some_and(|s| s.hash_of(id).is_some())
    }

    /// Caches bytes already in hand (after our own write), with their parse if the
    /// caller already made it.
    pub fn parse_bytes(
        &self,
        lang: Lang,
        bytes: &[u8],
        parsed: Option<FileSymbols>,
    ) -> ContentFacts {
        // The identity is not remembered: the write just made it, so it is never
        // settled yet (`RACY`); the root's table holds it for the next answer.
        let hash = *blake3::hash(bytes).as_bytes();
        self.text.add(hash, bytes);
        let store = self.store();
        let symbols = self.symbols.get_with((lang, hash), || {
            let symbols = Arc::new(parsed.unwrap_or_else(|| extract(lang, bytes)));
            if let Some(store) = store {
                store.put_symbols(lang, hash, symbols.clone());
            }
            symbols
        });
        self.known(hash, symbols)
    }

    /// Does the bookkeeping the caches deferred (recency and frequency of entries,
    /// evictions): after a full walk, so that the walk that caused it pays for it,
    /// not the lookups of the next one.
    pub fn settle(&self) {
        self.hashes.run_pending_tasks();
        self.symbols.run_pending_tasks();
    }

    /// The caches' figures. Not settled first: settling does all the bookkeeping a
    /// walk deferred, however much a first index of 100,000 files has queued, and
    /// `daemon status` must answer at once; a full walk settles when it ends, so
    /// only figures taken while one runs lag by what it has not settled.
    pub fn status(&self) -> Vec<CacheStatus> {
        let hash = self.totals.hash();
        let sym = self.totals.symbols();
        let blobs = self.blob_count.load(Ordering::Relaxed);
        let text = self.text.figures();
        vec![
            CacheStatus {
                name: "file_hash".into(),
                entries: self.hashes.entry_count(),
                bytes: self.hashes.entry_count() * 100,
                capacity_bytes: HASH_ENTRIES * 100,
                hits: hash.hits,
                misses: hash.misses,
            },
            CacheStatus {
                name: "git_blob".into(),
                entries: blobs,
                bytes: blobs * 80,
                capacity_bytes: HASH_ENTRIES * 80,
                hits: self.blob_totals.0.load(Ordering::Relaxed),
                misses: self.blob_totals.1.load(Ordering::Relaxed),
            },
            CacheStatus {
                name: "symbols".into(),
                entries: self.symbols.entry_count(),
                bytes: self.symbols.weighted_size(),
                capacity_bytes: self.symbol_capacity,
                hits: sym.hits,
                misses: sym.misses,
            },
            // Hits: files a search left unread; misses: files it had to read.
            CacheStatus {
                name: "text_index".into(),
                entries: text.contents,
                bytes: text.bytes,
                capacity_bytes: self.text.cap(),
                hits: text.ruled_out,
                misses: text.kept,
            },
        ]
    }
}

/// The bytes of the file at `path`, and whether it still is the file `id` describes
/// (nothing wrote to it since: its ctime would have moved).
fn read_unchanged(file: std::fs::File, id: FileId) -> io::Result<(Vec<u8>, bool)> {
    let mut bytes = Vec::with_capacity(id.size as usize);
    // Through `Take`: `File`'s own `read_to_end` asks `statx` and `lseek` for a
    // size hint we already have (two syscalls per file of a first index).
    (&file).take(u64::MAX).read_to_end(&mut bytes)?;
    let now = FileId::from(&rustix::fs::fstat(&file)?);
    Ok((bytes, now == id))
}

fn bump(root: &AtomicU64, total: &AtomicU64) {
    bump_by(root, total, 1);
}

fn bump_by(root: &AtomicU64, total: &AtomicU64, n: u64) {
    root.fetch_add(n, Ordering::Relaxed);
    total.fetch_add(n, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use std::{fs, time::Duration};

    use super::*;
    use crate::index::ids::RACY;

    /// The walk's way of opening `rel` under `dir`: by name.
    fn at(dir: &Path, rel: &str) -> impl Fn() -> io::Result<fs::File> {
        let path = dir.join(rel);
        move || fs::File::open(&path)
    }

    fn counts(c: &Counters) -> [u64; 4] {
        let (h, s) = (c.hash(), c.symbols());
        [h.hits, h.misses, s.hits, s.misses]
    }

    #[test]
    fn a_file_a_git_index_vouches_for_is_answered_from_its_blob_without_reading() {
        let tmp = tempfile::tempdir().unwrap();
        let (first, second) = (tmp.path().join("a.rs"), tmp.path().join("b.rs"));
        fs::write(&first, "fn shared() {}\n").unwrap();
        fs::write(&second, "fn shared() {}\n").unwrap();
        let caches = Caches::new(1 << 20);
        let root = Counters::default();
        let blob = [7; 20];
        let a = caches
            .parse(
                &at(tmp.path(), "a.rs"),
                FileId::stat(&first).unwrap(),
                Lang::Rust,
                &root,
                Some(blob),
                true,
            )
            .unwrap()
            .0;
        assert_eq!(counts(&root), [0, 1, 0, 1]);
        // A second worktree's copy: its identity is new, its blob is not. It is
        // never read (gone by now), and its parse is the first one's.
        let id = FileId::stat(&second).unwrap();
        fs::remove_file(&second).unwrap();
        let b = caches
            .parse(
                &at(tmp.path(), "b.rs"),
                id,
                Lang::Rust,
                &root,
                Some(blob),
                true,
            )
            .unwrap()
            .0;
        assert_eq!(b.hash, a.hash);
        assert!(Arc::ptr_eq(
            a.held.as_ref().unwrap(),
            b.held.as_ref().unwrap()
        ));
        assert_eq!(counts(&root), [1, 1, 1, 1]);
        // Another language's parse of the same bytes is not taken for this one.
        let c = caches.parse(
            &at(tmp.path(), "a.rs"),
            FileId::stat(&first).unwrap(),
            Lang::Go,
            &root,
            Some(blob),
            true,
        );
        assert_eq!(c.unwrap().0.lang, Lang::Go);
    }

    /// The text index outlives the process through the store (kept at close,
    /// restored at start: the next process rules files out without reading them),
    /// and a snapshot that contradicts a content is found after a walk and loses
    /// the index and its file.
    #[test]
    fn the_text_index_is_restored_and_a_lying_one_forgotten() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.rs");
        fs::write(&path, "fn alpha() { poll_ready(); }\n").unwrap();
        let index_dir = tmp.path().join("index");
        let id = FileId::stat(&path).unwrap();
        let root = Counters::default();
        let first = Caches::new(1 << 20);
        first.persist(Store::open(&index_dir, 1 << 30));
        let hash = first
            .parse(&at(tmp.path(), "a.rs"), id, Lang::Rust, &root, None, true)
            .unwrap()
            .0
            .hash;
        first.close_store(Duration::from_secs(30));
        drop(first);

        let query = |c: &Caches, pattern| {
            c.text()
                .candidates(&crate::index::text::plan::query(pattern, false, false))
                .may_hold(&hash)
        };
        let second = Caches::new(1 << 20);
        let store = Store::open(&index_dir, 1 << 30);
        second.persist(store.clone());
        second.restore_text();
        assert!(query(&second, "poll_ready"));
        assert!(!query(&second, "poll_next"), "ruled out without reading");
        // Its bytes agree: it stays.
        let bytes = fs::read(&path).unwrap();
        second.verify_sample(&|_, h| (*h == hash).then(|| bytes.clone()));
        assert!(!query(&second, "poll_next"));

        // A snapshot whose entry for this content was made from other bytes (a lie
        // we wrote ourselves): the next walk's check drops the index and its file.
        let liar = TextIndex::default();
        liar.add(hash, b"something else entirely");
        assert!(store.save_text(&liar.snapshot(0).unwrap().0));
        let third = Caches::new(1 << 20);
        third.persist(store.clone());
        third.restore_text();
        assert!(!query(&third, "poll_ready"), "the lie rules the file out");
        third.verify_sample(&|_, h| (*h == hash).then(|| bytes.clone()));
        assert!(query(&third, "poll_ready"), "forgotten: nothing ruled out");
        assert_eq!(store.load_text(), None, "its file is gone");
        store.close(Duration::from_secs(30));
    }

    /// With a store behind them, the caches list a file whose parse the store holds
    /// without reading it, read it when its symbols are asked for, and parse the
    /// file again when neither memory nor the store has it any more.
    #[test]
    fn a_stored_parse_stays_on_disk_until_its_symbols_are_asked_for() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.rs");
        fs::write(&path, "fn alpha() {}\nstruct Apple;\n").unwrap();
        let index_dir = tmp.path().join("index");
        let id = FileId::stat(&path).unwrap();
        let root = Counters::default();
        let first = Caches::new(1 << 20);
        first.persist(Store::open(&index_dir, 1 << 30));
        let made = first
            .parse(&at(tmp.path(), "a.rs"), id, Lang::Rust, &root, None, true)
            .unwrap()
            .0;
        assert!(made.held.is_none(), "the store gives it back: not held");
        first.close_store(Duration::from_secs(30));
        drop(first);

        // The next process.
        let second = Caches::new(1 << 20);
        let store = Store::open(&index_dir, 1 << 30);
        second.persist(store.clone());
        let listed = second
            .parse(&at(tmp.path(), "a.rs"), id, Lang::Rust, &root, None, true)
            .unwrap()
            .0;
        assert_eq!((listed.hash, listed.meta), (made.hash, made.meta));
        assert_eq!(store.summary().hits, 0, "listed without reading the parse");
        let names =
            |p: &Parsed| -> Vec<String> { p.symbols.top().map(|s| s.name().to_string()).collect() };
        let asked = second
            .symbols_of(&listed, id, &at(tmp.path(), "a.rs"))
            .unwrap();
        assert_eq!(names(&asked), ["alpha", "Apple"]);
        assert_eq!(store.summary().hits, 1);

        // Neither memory (a new process) nor the store (discarded) has it: the file.
        store.discard("test".into());
        let third = Caches::new(1 << 20);
        third.persist(store.clone());
        let again = third
            .symbols_of(&listed, id, &at(tmp.path(), "a.rs"))
            .unwrap();
        assert_eq!((again.hash, names(&again)), (made.hash, names(&asked)));
        store.close(Duration::from_secs(30));
    }

    /// `daemon status` reads the blob count while the walk holds the blob map.
    #[test]
    fn status_does_not_wait_for_the_blob_map() {
        let caches = Arc::new(Caches::new(1 << 20));
        let held = caches.blobs.write().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let asking = caches.clone();
        let thread = std::thread::spawn(move || {
            let _ = tx.send(asking.status().len());
        });
        let answered = rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        thread.join().unwrap();
        assert_eq!(answered, Ok(4));
    }

    #[test]
    fn once_its_parse_is_gone_a_blob_still_knows_the_content_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.rs");
        fs::write(&path, "fn a() {}\n").unwrap();
        // No room for parses: each is dropped as soon as nobody holds it.
        let caches = Caches::new(0);
        let root = Counters::default();
        let id = FileId::stat(&path).unwrap();
        let hash = caches
            .parse(
                &at(tmp.path(), "a.rs"),
                id,
                Lang::Rust,
                &root,
                Some([1; 20]),
                true,
            )
            .unwrap()
            .0
            .hash;
        caches.settle();
        let again = caches
            .parse(
                &at(tmp.path(), "a.rs"),
                id,
                Lang::Rust,
                &root,
                Some([1; 20]),
                true,
            )
            .unwrap()
            .0;
        assert_eq!(again.hash, hash);
        assert_eq!(again.meta.count, 1);
        assert_eq!(
            counts(&root),
            [1, 1, 0, 2],
            "hash from the blob, parsed again"
        );
    }

    #[test]
    fn a_file_written_after_its_stat_teaches_the_caches_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.rs");
        fs::write(&path, "fn old() {}\n").unwrap();
        let stale = FileId::stat(&path).unwrap();
        // A different size too: timestamps may be as coarse as a clock tick.
        fs::write(&path, "fn newer() {}\n").unwrap();
        let (bytes, unchanged) = read_unchanged(fs::File::open(&path).unwrap(), stale).unwrap();
        assert_eq!(
            (bytes.as_slice(), unchanged),
            (&b"fn newer() {}\n"[..], false)
        );
        assert!(
            read_unchanged(fs::File::open(&path).unwrap(), FileId::stat(&path).unwrap())
                .unwrap()
                .1
        );

        let caches = Caches::new(1 << 20);
        let root = Counters::default();
        // The walk saw the old file, git vouched for it as blob [2; 20]; what is read
        // is the new one: parsed and answered, but neither that identity nor that
        // blob is taken to mean these bytes.
        let parsed = caches
            .parse(
                &at(tmp.path(), "a.rs"),
                stale,
                Lang::Rust,
                &root,
                Some([2; 20]),
                true,
            )
            .unwrap()
            .0;
        assert_eq!(parsed.hash, *blake3::hash(b"fn newer() {}\n").as_bytes());
        assert!(caches.blobs.read().unwrap().is_empty());
        caches
            .parse(
                &at(tmp.path(), "a.rs"),
                stale,
                Lang::Rust,
                &root,
                None,
                true,
            )
            .unwrap();
        assert_eq!(counts(&root)[1], 2, "the stale identity is read again");
    }

    #[test]
    fn a_file_read_within_a_tick_of_its_change_is_remembered_by_identity_only_once_settled() {
        let ctime = |secs| FileId {
            dev: 1,
            ino: 2,
            size: 3,
            mtime: (0, 0),
            ctime: (secs, 500),
        };
        let seen = (1_000, 500);
        assert!(ctime(1_000 - 3).settled(seen));
        assert!(!ctime(1_000 - 2).settled(seen), "exactly RACY before");
        assert!(!ctime(1_000 - 1).settled(seen));
        assert!(!ctime(1_001).settled(seen), "a ctime in the future");

        // Written just now: a second write in the same timestamp tick, of the same
        // size, would leave this identity as it is, so it stands for nothing yet.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.rs");
        fs::write(&path, "fn fresh() {}\n").unwrap();
        let id = FileId::stat(&path).unwrap();
        let caches = Caches::new(1 << 20);
        let root = Counters::default();
        for _ in 0..2 {
            caches
                .parse(&at(tmp.path(), "a.rs"), id, Lang::Rust, &root, None, true)
                .unwrap();
        }
        assert_eq!(counts(&root)[..2], [0, 2], "read both times");
        assert_eq!(caches.hashes.get(&id), None);

        // Settled, the identity is remembered by the read that follows.
        std::thread::sleep(RACY + Duration::from_millis(100));
        for _ in 0..2 {
            caches
                .parse(&at(tmp.path(), "a.rs"), id, Lang::Rust, &root, None, true)
                .unwrap();
        }
        assert_eq!(counts(&root)[..2], [1, 3], "read once more, then known");
    }
}
