//! The daemon-wide caches, shared by every root and every worktree (DESIGN invariant
//! 5): file identity → BLAKE3 of the content, git blob → BLAKE3 of the content, and
//! (grammar, content hash) → parsed symbols. A second worktree of a repository finds
//! almost every file already parsed, and (through its git index, `git_index.rs`)
//! most content hashes without reading a byte.

use std::{
    fs::Metadata,
    io,
    os::unix::fs::MetadataExt,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use lean_ctx_shared::protocol::{CacheCounters, CacheStatus};

use super::{
    git_index::Oid,
    lang::Lang,
    symbols::{FileSymbols, extract},
};

pub type Hash = [u8; 32];

/// What identifies a file's content without reading it: if none of these changed,
/// neither did the bytes (ctime catches writes that restore the mtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileId {
    pub fn of(meta: &Metadata) -> FileId {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

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

#[derive(Debug)]
pub struct Caches {
    hashes: moka::sync::Cache<FileId, Hash>,
    /// Learned from files a git index vouched for: the content hash of a blob.
    blobs: moka::sync::Cache<Oid, Hash>,
    blob_totals: (AtomicU64, AtomicU64),
    symbols: moka::sync::Cache<(Lang, Hash), Arc<FileSymbols>>,
    symbol_capacity: u64,
    totals: Counters,
}

/// Entries of the file-hash cache (about 100 bytes each).
const HASH_ENTRIES: u64 = 500_000;

impl Caches {
    pub fn new(symbol_capacity_bytes: u64) -> Caches {
        Caches {
            hashes: moka::sync::Cache::new(HASH_ENTRIES),
            blobs: moka::sync::Cache::new(HASH_ENTRIES),
            blob_totals: Default::default(),
            symbols: moka::sync::Cache::builder()
                .weigher(|_, v: &Arc<FileSymbols>| v.weight.min(u32::MAX as usize) as u32)
                .max_capacity(symbol_capacity_bytes)
                .build(),
            symbol_capacity: symbol_capacity_bytes,
            totals: Counters::default(),
        }
    }

    /// Hash and symbols of the file at `path` (metadata `meta`), reading and parsing
    /// only what the caches do not already know. `blob`: the git blob the worktree's
    /// index says the file holds, if it vouches for it. Counts into `root` and the
    /// daemon totals (a hash known from the blob counts as a hash hit).
    pub fn parse(
        &self,
        path: &Path,
        meta: &Metadata,
        lang: Lang,
        root: &Counters,
        blob: Option<Oid>,
    ) -> io::Result<Parsed> {
        let id = FileId::of(meta);
        let mut content = None;
        // What git vouches for first: in a fresh worktree the identity is new anyway.
        let from_blob = blob.and_then(|blob| {
            let hash = self.blobs.get(&blob);
            let counter = match hash {
                Some(_) => &self.blob_totals.0,
                None => &self.blob_totals.1,
            };
            counter.fetch_add(1, Ordering::Relaxed);
            hash
        });
        let known = from_blob.or_else(|| self.hashes.get(&id));
        let hash = match known {
            Some(hash) => {
                bump(&root.hash_hits, &self.totals.hash_hits);
                hash
            }
            None => {
                bump(&root.hash_misses, &self.totals.hash_misses);
                let bytes = std::fs::read(path)?;
                let hash = *blake3::hash(&bytes).as_bytes();
                self.hashes.insert(id, hash);
                if let Some(blob) = blob {
                    self.blobs.insert(blob, hash);
                }
                content = Some(bytes);
                hash
            }
        };
        if let Some(symbols) = self.symbols.get(&(lang, hash)) {
            bump(&root.symbol_hits, &self.totals.symbol_hits);
            return Ok(Parsed { hash, symbols });
        }
        bump(&root.symbol_misses, &self.totals.symbol_misses);
        let (hash, bytes) = match content {
            Some(bytes) => (hash, bytes),
            None => {
                // The file may have changed since it was hashed: key by what we parse.
                let bytes = std::fs::read(path)?;
                (*blake3::hash(&bytes).as_bytes(), bytes)
            }
        };
        let symbols = Arc::new(extract(lang, &bytes));
        self.symbols.insert((lang, hash), symbols.clone());
        Ok(Parsed { hash, symbols })
    }

    /// Caches bytes already in hand (after our own write), with their parse if the
    /// caller already made it.
    pub fn parse_bytes(
        &self,
        meta: &Metadata,
        lang: Lang,
        bytes: &[u8],
        parsed: Option<FileSymbols>,
    ) -> Parsed {
        let hash = *blake3::hash(bytes).as_bytes();
        self.hashes.insert(FileId::of(meta), hash);
        let symbols = self.symbols.get_with((lang, hash), || {
            Arc::new(parsed.unwrap_or_else(|| extract(lang, bytes)))
        });
        Parsed { hash, symbols }
    }

    pub fn status(&self) -> Vec<CacheStatus> {
        self.hashes.run_pending_tasks();
        self.blobs.run_pending_tasks();
        self.symbols.run_pending_tasks();
        let hash = self.totals.hash();
        let sym = self.totals.symbols();
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
                entries: self.blobs.entry_count(),
                bytes: self.blobs.entry_count() * 80,
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
        ]
    }
}

fn bump(root: &AtomicU64, total: &AtomicU64) {
    root.fetch_add(1, Ordering::Relaxed);
    total.fetch_add(1, Ordering::Relaxed);
}
