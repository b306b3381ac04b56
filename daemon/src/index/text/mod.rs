//! The text index: for each content the index read (by content hash, so every
//! worktree and every copy of a file shares one entry, as they share parses), which
//! trigrams it holds, inverted into one posting list per trigram. A text search
//! plans its pattern into a trigram query (`plan.rs`) and reads only the files whose
//! content satisfies it, or whose content the index has not seen (`Candidates`);
//! the regex engine then decides each line as before (`backing/grep.rs`).
//!
//! Posting lists are Roaring bitmaps (the `roaring` crate, the Rust implementation
//! the Roaring project itself keeps): document numbers are dense and given in
//! order, so lists append without search, a trigram in nearly every file costs a
//! bit per file rather than four bytes, and the and/or of a query are the library's
//! own set operations. No crate plans a regular expression into trigrams, so that
//! part is ours (`plan.rs`).
//!
//! Contents come in on the threads that read them (the walk's parse workers), and
//! are inverted in batches: a batch's (trigram, document) pairs are sorted once, by
//! a counting sort on the trigram alone (pairs come in document order, and a stable
//! sort keeps it), and kept as they come out of it: trigrams ascending, each one's
//! documents after another in one array ([`Batch`]). Nothing is looked up per list:
//! when each batch was appended to a map of bitmaps, finding each list (cache
//! misses on the map and the bitmap's containers) was most of an inversion, and the
//! walk's workers pay for it. Batches are large (a 32 MiB buffer, kept for the next
//! batch while a walk fills them, given back after). A query inverts what is
//! pending first, and reads a trigram's documents from each batch.
//!
//! When a full walk ends, its batches are frozen ([`TextIndex::freeze`]): merged,
//! with what was frozen before, into one buffer of lists as the library serializes
//! them, trigrams ascending ([`Frozen`]): a list then costs its Roaring bytes (about
//! half a batch's four bytes a pair) and a query reads it back (a copy of a few KiB
//! at most), ORed with what was added since.
//!
//! Contents no file holds any more (a file changed or went away) are dropped,
//! entries and documents, by [`TextIndex::retain`], which the registry runs once
//! they are many (`ProjectRegistry::sweep_text`): an agent's edits would otherwise
//! keep every earlier version of a file in memory and against the cap.
//!
//! With the store on, the index is kept on disk as one snapshot ([`TextIndex::snapshot`],
//! sealed and replaced whole by the store: `store/persist.rs`) after each full walk
//! and when the daemon stops, and restored when a daemon starts
//! ([`TextIndex::restore`]), so a restarted daemon's first search reads no more
//! than a warm one's. A snapshot that does not decode is not restored; one that
//! decodes is checked after each walk against a sample of the contents it brought
//! ([`TextIndex::restored_sample`], [`TextIndex::holds`]), and one contradicted
//! loses the whole index ([`TextIndex::forget`]).
//!
//! **Invariant:** a content's entry is made from exactly the bytes its hash was
//! taken of, and a hash the index holds no entry for is always a candidate: what
//! the index does not know it never rules out.

pub mod plan;
pub mod trigrams;

use std::{
    sync::{
        Condvar, Mutex, RwLock, RwLockReadGuard,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

use super::ids::Hash;
use plan::Query;

/// Pending (trigram, document) pairs that make a batch worth inverting.
const BATCH_PAIRS: usize = 1 << 22;

#[derive(Debug, Default)]
pub struct TextIndex {
    /// Turned off by configuration: it takes nothing in and rules nothing out.
    off: bool,
    inverted: RwLock<Inverted>,
    pending: Mutex<Pending>,
    /// Held while a batch is inverted: batches go in one at a time, in document
    /// order, so each list only ever appends. It holds the sort's second buffer.
    inverting: Mutex<Vec<u64>>,
    /// Set from when a batch leaves `pending` until its contents have entries: a
    /// query that finds nothing pending waits for it all the same.
    in_transit: AtomicBool,
    /// Running figures, read by `daemon status` without a lock.
    counts: Counts,
    /// Set while a snapshot is on its way in: a query waits for it (up to
    /// [`RESTORE_WAIT`]) rather than read every file it would rule out.
    restoring: Mutex<bool>,
    restored: Condvar,
    /// Counts [`TextIndex::forget`]s: contents known before one are unknown after.
    epoch: AtomicU64,
    /// The most the lists may take, estimated as frozen ([`LIST_BYTES_PER_PAIR`]);
    /// 0: no bound. Contents past it are not taken in: they stay unknown, so every
    /// search reads them, as it would with no index.
    cap: u64,
    /// Set when a content was turned away for the cap (logged once an epoch).
    full: AtomicBool,
}

/// A (trigram, content) pair's bytes in a frozen list, about: Roaring keeps a
/// list of fewer than 4,096 contents as an array of 16-bit numbers, and a denser
/// one as a bitmap (a bit per content), so two bytes is its most.
const LIST_BYTES_PER_PAIR: u64 = 2;

/// The longest a query waits for a snapshot being restored.
const RESTORE_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Default)]
struct Counts {
    contents: AtomicU64,
    trigrams: AtomicU64,
    pairs: AtomicU64,
    bytes: AtomicU64,
    ruled_out: AtomicU64,
    kept: AtomicU64,
}

#[derive(Debug, Default)]
struct Inverted {
    docs: FxHashMap<Hash, u32>,
    /// The lists as of the last freeze.
    frozen: Frozen,
    /// What was inverted since, oldest first: each batch's documents are past
    /// every earlier one's.
    live: Vec<Batch>,
    /// The next document's number (past every number in `live`: a content added
    /// twice in a race leaves its first number unused).
    next: u32,
    /// Documents below this number came from a snapshot.
    restored: u32,
}

#[derive(Debug, Default)]
struct Pending {
    /// Contents taken in since the last batch, with their numbers.
    docs: FxHashMap<Hash, u32>,
    /// Their (trigram, document) pairs, in document order.
    pairs: Vec<u64>,
    /// A batch's buffer, emptied, for the next batch.
    spare: Vec<u64>,
    /// The next content's number.
    next: u32,
}

/// One batch's lists as its sort left them: trigrams ascending, each one's
/// documents (ascending) one after another in `docs`.
#[derive(Debug, Default)]
struct Batch {
    trigrams: Vec<u32>,
    /// Where each trigram's documents end in `docs`.
    ends: Vec<u32>,
    docs: Vec<u32>,
}

impl Batch {
    /// The lists of `pairs`, sorted by trigram then document.
    fn of_sorted(pairs: &[u64]) -> Batch {
        let mut batch = Batch {
            docs: Vec::with_capacity(pairs.len()),
            ..Batch::default()
        };
        for run in pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
            batch.trigrams.push((run[0] >> 32) as u32);
            batch.docs.extend(run.iter().map(|p| *p as u32));
            batch.ends.push(batch.docs.len() as u32);
        }
        batch
    }

    /// The documents of the `i`th trigram.
    fn docs_of(&self, i: usize) -> &[u32] {
        let start = match i {
            0 => 0,
            i => self.ends[i - 1] as usize,
        };
        &self.docs[start..self.ends[i] as usize]
    }

    fn get(&self, trigram: u32) -> Option<&[u32]> {
        let i = self.trigrams.binary_search(&trigram).ok()?;
        Some(self.docs_of(i))
    }

    fn bytes(&self) -> usize {
        4 * (self.trigrams.len() + self.ends.len() + self.docs.len())
    }
}

/// Posting lists laid out for reading: trigrams ascending, each one's list as the
/// library serializes it, one after another in `lists`.
#[derive(Debug, Default)]
struct Frozen {
    trigrams: Vec<u32>,
    /// Where each trigram's list ends in `lists` (it starts where the last ended).
    ends: Vec<usize>,
    lists: Vec<u8>,
}

impl Frozen {
    /// The serialized list of the `i`th trigram.
    fn bytes(&self, i: usize) -> &[u8] {
        let start = match i {
            0 => 0,
            i => self.ends[i - 1],
        };
        &self.lists[start..self.ends[i]]
    }

    fn get(&self, trigram: u32) -> Option<RoaringBitmap> {
        let i = self.trigrams.binary_search(&trigram).ok()?;
        // Written by `push` from a list in memory, or checked when a snapshot was
        // decoded.
        RoaringBitmap::deserialize_unchecked_from(self.bytes(i)).ok()
    }

    fn push(&mut self, trigram: u32, list: &RoaringBitmap) {
        list.serialize_into(&mut self.lists)
            .expect("a Vec takes every write");
        self.push_end(trigram);
    }

    fn push_bytes(&mut self, trigram: u32, bytes: &[u8]) {
        self.lists.extend_from_slice(bytes);
        self.push_end(trigram);
    }

    fn push_end(&mut self, trigram: u32) {
        self.trigrams.push(trigram);
        self.ends.push(self.lists.len());
    }

    /// `self` without the documents `dead`, and the pairs left: a list that holds
    /// none of them is copied as it is, one left empty goes.
    fn without(&self, dead: &RoaringBitmap) -> (Frozen, u64) {
        let mut out = Frozen {
            trigrams: Vec::with_capacity(self.trigrams.len()),
            ends: Vec::with_capacity(self.trigrams.len()),
            lists: Vec::with_capacity(self.lists.len()),
        };
        let mut pairs = 0;
        for (i, &trigram) in self.trigrams.iter().enumerate() {
            let mut list = RoaringBitmap::deserialize_unchecked_from(self.bytes(i))
                .expect("written by push or checked when decoded");
            if list.is_disjoint(dead) {
                out.push_bytes(trigram, self.bytes(i));
            } else {
                list -= dead;
                if list.is_empty() {
                    continue;
                }
                out.push(trigram, &list);
            }
            pairs += list.len();
        }
        (out, pairs)
    }

    /// `self` and the batches `live` (oldest first) as one: a merge of their
    /// ascending trigrams, each list made of its frozen part and each batch's after
    /// it, in order.
    fn merged(&self, live: &[Batch]) -> Frozen {
        let mut out = Frozen {
            trigrams: Vec::with_capacity(self.trigrams.len()),
            ends: Vec::with_capacity(self.trigrams.len()),
            lists: Vec::with_capacity(self.lists.len()),
        };
        let mut at = vec![0; live.len()];
        let mut i = 0;
        loop {
            let next = live.iter().zip(&at).filter_map(|(b, &k)| b.trigrams.get(k));
            let old = self.trigrams.get(i);
            let Some(&t) = next.chain(old).min() else {
                return out;
            };
            let fresh = live
                .iter()
                .zip(&at)
                .any(|(b, &k)| b.trigrams.get(k) == Some(&t));
            if !fresh {
                out.push_bytes(t, self.bytes(i));
                i += 1;
                continue;
            }
            let mut list = match old == Some(&t) {
                true => {
                    i += 1;
                    RoaringBitmap::deserialize_unchecked_from(self.bytes(i - 1))
                        .expect("written by push or checked when decoded")
                }
                false => RoaringBitmap::new(),
            };
            for (batch, k) in live.iter().zip(&mut at) {
                if batch.trigrams.get(*k) == Some(&t) {
                    append(&mut list, batch.docs_of(*k));
                    *k += 1;
                }
            }
            out.push(t, &list);
        }
    }
}

/// What the text index holds, for `daemon status` and the benches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextFigures {
    /// Contents inverted.
    pub contents: u64,
    /// Distinct trigrams as of the last freeze (a walk's end), and (trigram,
    /// content) pairs.
    pub trigrams: u64,
    pub pairs: u64,
    /// The posting lists' size: frozen, as the library serializes them; in batches
    /// not frozen yet, four bytes a pair. What they hold in memory (as of the last
    /// time the index was not busy inverting).
    pub bytes: u64,
    /// Files searches left unread because of it, and files they read.
    pub ruled_out: u64,
    pub kept: u64,
}

impl TextIndex {
    pub fn off() -> TextIndex {
        TextIndex {
            off: true,
            ..TextIndex::default()
        }
    }

    /// An index whose lists take at most about `cap` bytes (0: no bound).
    pub fn with_cap(cap: u64) -> TextIndex {
        TextIndex {
            cap,
            ..TextIndex::default()
        }
    }

    /// Whether the pairs held and `more` pass the cap.
    fn over_cap(&self, held: u64, more: u64) -> bool {
        let over = self.cap > 0 && (held + more) * LIST_BYTES_PER_PAIR > self.cap;
        if over && !self.full.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                cap = self.cap,
                "the text index is at its cap (a quarter of index.store_max_bytes): \
                 files past it are searched by reading them"
            );
        }
        over
    }

    /// Whether configuration turned the index off ([`TextIndex::off`]).
    pub fn is_off(&self) -> bool {
        self.off
    }

    /// Whether a content was turned away for the cap since the index last forgot,
    /// or made room ([`TextIndex::retain`]).
    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// Adds the content `bytes` of hash `hash`, unless it is there already. Its
    /// number is given here, in the order contents come in, and batches are
    /// inverted in that order, so each list only ever appends.
    pub fn add(&self, hash: Hash, bytes: &[u8]) {
        // A walk's workers must not wait while a batch is inverted: when the index
        // is busy, the content is read again and the copy is dropped below.
        let inverted = self
            .inverted
            .try_read()
            .is_ok_and(|i| i.docs.contains_key(&hash));
        if self.off || inverted || self.pending.lock().unwrap().docs.contains_key(&hash) {
            return;
        }
        let held = || self.counts.pairs.load(Ordering::Relaxed);
        if self.over_cap(held(), 0) {
            return;
        }
        let trigrams = trigrams::of(bytes);
        let full = {
            let mut pending = self.pending.lock().unwrap();
            let more = (pending.pairs.len() + trigrams.len()) as u64;
            if pending.docs.contains_key(&hash) || self.over_cap(held(), more) {
                return;
            }
            let doc = pending.next;
            pending.next += 1;
            pending.docs.insert(hash, doc);
            let doc = u64::from(doc);
            pending
                .pairs
                .extend(trigrams.iter().map(|t| u64::from(*t) << 32 | doc));
            pending.pairs.len() >= BATCH_PAIRS
        };
        if full {
            self.flush();
        }
    }

    /// Whether content `hash` has an entry, or is on its way to one (always, when
    /// the index is off: nothing is missing from it).
    pub fn knows(&self, hash: &Hash) -> bool {
        if self.off || self.inverted.read().unwrap().docs.contains_key(hash) {
            return true;
        }
        self.pending.lock().unwrap().docs.contains_key(hash)
    }

    /// Inverts what is pending: the batch is taken under the inverting lock, so
    /// batches go in in the order their contents were numbered. Unless the batch
    /// was full (a walk is filling them), its buffers are given back.
    pub fn flush(&self) {
        self.flush_with(&mut self.inverting.lock().unwrap());
    }

    /// [`TextIndex::flush`] under the inverting lock, whose buffer sorts.
    fn flush_with(&self, scratch: &mut Vec<u64>) {
        // What comes next is numbered after what is taken.
        let (docs, mut pairs) = {
            let mut pending = self.pending.lock().unwrap();
            let spare = std::mem::take(&mut pending.spare);
            // Under the pending lock: a query that sees the batch gone sees it set.
            self.in_transit.store(true, Ordering::SeqCst);
            (
                std::mem::take(&mut pending.docs),
                std::mem::replace(&mut pending.pairs, spare),
            )
        };
        if docs.is_empty() {
            self.in_transit.store(false, Ordering::SeqCst);
            return;
        }
        sort_by_trigram(&mut pairs, scratch);
        let batch = Batch::of_sorted(&pairs);
        let mut inverted = self.inverted.write().unwrap();
        let added = docs.len() as u64;
        inverted.next = inverted.next.max(docs.values().max().map_or(0, |d| d + 1));
        inverted.docs.extend(docs);
        inverted.live.push(batch);
        self.in_transit.store(false, Ordering::SeqCst);
        drop(inverted);
        let counts = &self.counts;
        counts.contents.fetch_add(added, Ordering::Relaxed);
        counts
            .pairs
            .fetch_add(pairs.len() as u64, Ordering::Relaxed);
        // A full batch means more are coming (a walk): its buffers are kept for
        // them. Any other is the last for now, and the memory goes back.
        if pairs.len() >= BATCH_PAIRS {
            pairs.clear();
            let mut pending = self.pending.lock().unwrap();
            if pending.spare.capacity() < pairs.capacity() {
                pending.spare = pairs;
            }
        } else {
            *scratch = Vec::new();
            let mut pending = self.pending.lock().unwrap();
            pending.spare = Vec::new();
            if pending.pairs.is_empty() {
                pending.pairs = Vec::new();
            }
        }
    }

    /// The contents that may hold a match of `query`.
    pub fn candidates(&self, query: &Query) -> Candidates<'_> {
        let restoring = self.restoring.lock().unwrap();
        drop(
            self.restored
                .wait_timeout_while(restoring, RESTORE_WAIT, |coming| *coming)
                .unwrap(),
        );
        // Only contents still pending or on their way in make a query wait (for
        // the batch or freeze under way, then for their own batch): a freeze
        // builds under the read lock, beside the queries.
        let pending = !self.pending.lock().unwrap().docs.is_empty();
        if pending || self.in_transit.load(Ordering::SeqCst) {
            self.flush();
        }
        let inverted = self.inverted.read().unwrap();
        let matched = match self.off {
            true => None,
            false => eval(&inverted, query),
        };
        Candidates { inverted, matched }
    }

    /// Moves the batches inverted since the last freeze into the frozen lists
    /// (after a full walk: module doc), and gives the memory they took back.
    pub fn freeze(&self) {
        self.freeze_with(&mut self.inverting.lock().unwrap());
    }

    /// [`TextIndex::freeze`] under the inverting lock.
    fn freeze_with(&self, scratch: &mut Vec<u64>) {
        self.flush_with(scratch);
        // Built under the read lock (searches go on meanwhile); no batch can go in
        // while the inverting lock is held.
        let frozen = {
            let inverted = self.inverted.read().unwrap();
            if inverted.live.is_empty() {
                return;
            }
            inverted.frozen.merged(&inverted.live)
        };
        self.counts
            .trigrams
            .store(frozen.trigrams.len() as u64, Ordering::Relaxed);
        let old = {
            let mut inverted = self.inverted.write().unwrap();
            inverted.live = Vec::new();
            std::mem::replace(&mut inverted.frozen, frozen)
        };
        drop(old);
        crate::sys::release_free_memory();
    }

    /// The number the next content takes: [`TextIndex::retain`] keeps every content
    /// numbered from a mark taken before its caller looked for the live ones.
    pub fn mark(&self) -> u32 {
        self.pending.lock().unwrap().next
    }

    /// Drops the entries of the contents numbered below `mark` that `live` says no
    /// file holds any more (a file changed or went away), and their documents from
    /// every list: the memory comes back and the cap has room again. Contents
    /// numbered from `mark` came in while the caller looked, and stay. Dropping is
    /// always safe: a content without an entry is a candidate of every search (a
    /// live one dropped in a race is read again by the next full walk's
    /// `RootIndex::fill_text`). How many went.
    pub fn retain(&self, mark: u32, live: impl Fn(&Hash) -> bool) -> u64 {
        let mut scratch = self.inverting.lock().unwrap();
        self.freeze_with(&mut scratch);
        // Built under the read lock, as a freeze is; no batch goes in meanwhile.
        let (dead, frozen, pairs) = {
            let inverted = self.inverted.read().unwrap();
            let dead: RoaringBitmap = (inverted.docs.iter())
                .filter(|(hash, doc)| **doc < mark && !live(hash))
                .map(|(_, doc)| *doc)
                .collect();
            if dead.is_empty() {
                return 0;
            }
            let (frozen, pairs) = inverted.frozen.without(&dead);
            (dead, frozen, pairs)
        };
        let old = {
            let mut inverted = self.inverted.write().unwrap();
            inverted.docs.retain(|_, doc| !dead.contains(*doc));
            let c = &self.counts;
            c.contents
                .store(inverted.docs.len() as u64, Ordering::Relaxed);
            c.trigrams
                .store(frozen.trigrams.len() as u64, Ordering::Relaxed);
            c.pairs.store(pairs, Ordering::Relaxed);
            c.bytes.store(frozen.lists.len() as u64, Ordering::Relaxed);
            std::mem::replace(&mut inverted.frozen, frozen)
        };
        drop(old);
        drop(scratch);
        // Room again: contents turned away since are taken in by the next fill.
        if !self.over_cap(self.counts.pairs.load(Ordering::Relaxed), 0) {
            self.full.store(false, Ordering::Relaxed);
        }
        crate::sys::release_free_memory();
        dead.len()
    }

    /// The whole index as bytes (frozen first): the contents in document order (a
    /// number no content holds any more as zeros), then each trigram's list as the
    /// library serializes it, trigrams ascending. `None` when nothing was added
    /// since `since` contents (the count a caller last saved at:
    /// [`TextFigures::contents`]).
    pub fn snapshot(&self, since: u64) -> Option<(Vec<u8>, u64)> {
        // No batch goes in between the freeze and the copy: its contents would be
        // listed without their lists, and ruled out by the restored index.
        let mut scratch = self.inverting.lock().unwrap();
        self.freeze_with(&mut scratch);
        let inverted = self.inverted.read().unwrap();
        let contents = inverted.docs.len() as u64;
        if self.off || contents == since {
            return None;
        }
        let mut hashes = vec![[0u8; 32]; inverted.next as usize];
        for (hash, doc) in &inverted.docs {
            hashes[*doc as usize] = *hash;
        }
        let frozen = &inverted.frozen;
        let lists = frozen.lists.len() + 8 * frozen.trigrams.len();
        let mut out = Vec::with_capacity(12 + 32 * hashes.len() + lists);
        out.extend_from_slice(&SNAPSHOT_MAGIC.to_le_bytes());
        out.extend_from_slice(&inverted.next.to_le_bytes());
        out.extend_from_slice(&(frozen.trigrams.len() as u32).to_le_bytes());
        hashes.iter().for_each(|h| out.extend_from_slice(h));
        for (i, trigram) in frozen.trigrams.iter().enumerate() {
            let list = frozen.bytes(i);
            out.extend_from_slice(&trigram.to_le_bytes());
            out.extend_from_slice(&(list.len() as u32).to_le_bytes());
            out.extend_from_slice(list);
        }
        Some((out, contents))
    }

    /// A snapshot is on its way: queries wait for [`TextIndex::restore`] or
    /// [`TextIndex::restore_none`].
    pub fn restore_coming(&self) {
        *self.restoring.lock().unwrap() = true;
    }

    /// No snapshot is coming after all.
    pub fn restore_none(&self) {
        *self.restoring.lock().unwrap() = false;
        self.restored.notify_all();
    }

    /// Takes in a [`TextIndex::snapshot`] if nothing was inverted yet (contents
    /// pending stay pending, numbered after it); `false` if it does not decode (a
    /// list's numbers past its contents, a length past the end) or came too late.
    pub fn restore(&self, bytes: &[u8]) -> bool {
        let taken = self.take_in(bytes);
        self.restore_none();
        taken
    }

    fn take_in(&self, bytes: &[u8]) -> bool {
        let Some((restored, pairs)) = decode(bytes) else {
            return false;
        };
        let _one_at_a_time = self.inverting.lock().unwrap();
        let mut inverted = self.inverted.write().unwrap();
        if self.off || inverted.next > 0 {
            return false;
        }
        let c = &self.counts;
        c.contents
            .store(restored.docs.len() as u64, Ordering::Relaxed);
        c.trigrams
            .store(restored.frozen.trigrams.len() as u64, Ordering::Relaxed);
        c.pairs.store(pairs, Ordering::Relaxed);
        c.bytes
            .store(restored.frozen.lists.len() as u64, Ordering::Relaxed);
        // Contents pending were numbered from 0: after the snapshot's now.
        let shift = restored.next;
        let mut pending = self.pending.lock().unwrap();
        pending.docs.values_mut().for_each(|d| *d += shift);
        pending
            .pairs
            .iter_mut()
            .for_each(|p| *p += u64::from(shift));
        pending.next += shift;
        *inverted = restored;
        true
    }

    /// Up to `k` contents a snapshot brought, the same ones until the index changes
    /// (the smallest hashes: a uniform sample, hashes being uniform).
    pub fn restored_sample(&self, k: usize) -> Vec<Hash> {
        let inverted = self.inverted.read().unwrap();
        let mut sample: Vec<Hash> = inverted
            .docs
            .iter()
            .filter(|(_, doc)| **doc < inverted.restored)
            .map(|(hash, _)| *hash)
            .collect();
        sample.sort_unstable();
        sample.truncate(k);
        sample
    }

    /// Whether the entry for content `hash` lists every trigram of `bytes` (its
    /// content): an entry that misses one would rule out a file that matches.
    /// `true` for a content it has no entry for.
    pub fn holds(&self, hash: &Hash, bytes: &[u8]) -> bool {
        let inverted = self.inverted.read().unwrap();
        let Some(doc) = inverted.docs.get(hash) else {
            return true;
        };
        trigrams::of(bytes).iter().all(|t| {
            let live = inverted.live.iter().filter_map(|b| b.get(*t));
            live.into_iter().any(|docs| docs.binary_search(doc).is_ok())
                || inverted
                    .frozen
                    .get(*t)
                    .is_some_and(|list| list.contains(*doc))
        })
    }

    /// Drops every entry: nothing is ruled out until contents are read again.
    pub fn forget(&self) {
        let _one_at_a_time = self.inverting.lock().unwrap();
        self.epoch.fetch_add(1, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        *self.pending.lock().unwrap() = Pending::default();
        *self.inverted.write().unwrap() = Inverted::default();
        for n in [
            &self.counts.contents,
            &self.counts.trigrams,
            &self.counts.pairs,
            &self.counts.bytes,
        ] {
            n.store(0, Ordering::Relaxed);
        }
    }

    /// Changes when the index forgets what it knew: a caller that gave it every
    /// content of its files in one epoch need not look for gaps again in it.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Counts what a search did with the candidates: files left unread, files read.
    pub fn searched(&self, ruled_out: u64, kept: u64) {
        self.counts
            .ruled_out
            .fetch_add(ruled_out, Ordering::Relaxed);
        self.counts.kept.fetch_add(kept, Ordering::Relaxed);
    }

    /// The bound [`TextIndex::with_cap`] set (0: none).
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Read without waiting for a lock: what is pending is not in them yet, and
    /// the lists' size is measured only when no batch is being inverted.
    pub fn figures(&self) -> TextFigures {
        let c = &self.counts;
        if let Ok(inverted) = self.inverted.try_read() {
            let live = inverted.live.iter().map(Batch::bytes);
            let bytes = inverted.frozen.lists.len() + live.sum::<usize>();
            c.bytes.store(bytes as u64, Ordering::Relaxed);
        }
        let get = |n: &AtomicU64| n.load(Ordering::Relaxed);
        TextFigures {
            contents: get(&c.contents),
            trigrams: get(&c.trigrams),
            pairs: get(&c.pairs),
            bytes: get(&c.bytes),
            ruled_out: get(&c.ruled_out),
            kept: get(&c.kept),
        }
    }
}

/// The first four bytes of a snapshot (its format: a new layout takes a new one).
const SNAPSHOT_MAGIC: u32 = 0x4C54_5831;

/// A snapshot's index and its (trigram, content) pairs, or `None` if it does not
/// hold together.
fn decode(bytes: &[u8]) -> Option<(Inverted, u64)> {
    fn u32_(rest: &mut &[u8]) -> Option<u32> {
        let (n, tail) = rest.split_first_chunk::<4>()?;
        *rest = tail;
        Some(u32::from_le_bytes(*n))
    }
    let mut rest = bytes;
    if u32_(&mut rest)? != SNAPSHOT_MAGIC {
        return None;
    }
    let next = u32_(&mut rest)?;
    let lists = u32_(&mut rest)?;
    let (table, tail) = rest.split_at_checked(32 * next as usize)?;
    rest = tail;
    let mut docs = FxHashMap::default();
    for (doc, hash) in table.chunks_exact(32).enumerate() {
        let hash: Hash = hash.try_into().ok()?;
        if hash != [0; 32] {
            docs.insert(hash, doc as u32);
        }
    }
    let mut frozen = Frozen::default();
    let mut pairs = 0;
    for _ in 0..lists {
        let trigram = u32_(&mut rest)?;
        let len = u32_(&mut rest)? as usize;
        let (bytes, tail) = rest.split_at_checked(len)?;
        rest = tail;
        let list = RoaringBitmap::deserialize_from(bytes).ok()?;
        let ascending = frozen.trigrams.last().is_none_or(|last| *last < trigram);
        if !ascending || trigram > 0xFF_FFFF || list.max().is_some_and(|max| max >= next) {
            return None;
        }
        pairs += list.len();
        frozen.push_bytes(trigram, bytes);
    }
    let inverted = Inverted {
        docs,
        frozen,
        live: Vec::new(),
        next,
        restored: next,
    };
    rest.is_empty().then_some((inverted, pairs))
}

/// Sorts (trigram, document) pairs by trigram, keeping the documents' order within
/// each trigram: two counting passes of 12 bits over the 24-bit trigram, through
/// `scratch` (a comparison sort of a batch costs several times as much).
fn sort_by_trigram(pairs: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    scratch.clear();
    scratch.resize(pairs.len(), 0);
    for shift in [32, 44] {
        let bucket = |p: u64| ((p >> shift) & 0xFFF) as usize;
        let mut starts = vec![0usize; 1 << 12];
        for &p in pairs.iter() {
            starts[bucket(p)] += 1;
        }
        let mut at = 0;
        for start in &mut starts {
            (*start, at) = (at, at + *start);
        }
        for &p in pairs.iter() {
            let b = bucket(p);
            scratch[starts[b]] = p;
            starts[b] += 1;
        }
        std::mem::swap(pairs, scratch);
    }
}

/// Adds a batch's `docs` to `list`. Numbers only grow, so this appends (a tenth
/// of inserting each, in a freeze); were one ever out of order, it is inserted
/// where it belongs rather than lost.
fn append(list: &mut RoaringBitmap, docs: &[u32]) {
    if list.append(docs.iter().copied()).is_err() {
        list.extend(docs.iter().copied());
    }
}

/// The documents satisfying `query`; `None` for all of them.
fn eval(inverted: &Inverted, query: &Query) -> Option<RoaringBitmap> {
    match query {
        Query::All => None,
        Query::Tri(t) => {
            let mut docs = inverted.frozen.get(*t).unwrap_or_default();
            for live in inverted.live.iter().filter_map(|b| b.get(*t)) {
                append(&mut docs, live);
            }
            Some(docs)
        }
        Query::And(all) => {
            let mut acc: Option<RoaringBitmap> = None;
            for q in all {
                if let Some(docs) = eval(inverted, q) {
                    acc = Some(match acc {
                        Some(acc) => acc & docs,
                        None => docs,
                    });
                    if acc.as_ref().is_some_and(RoaringBitmap::is_empty) {
                        break;
                    }
                }
            }
            acc
        }
        Query::Or(any) => {
            let mut acc = RoaringBitmap::new();
            for q in any {
                acc |= eval(inverted, q)?;
            }
            Some(acc)
        }
    }
}

/// A query's answer: the contents that may hold a match. Holds the index's read
/// lock, so batches wait while a search picks its files (a pass over a root's
/// table).
#[derive(Debug)]
pub struct Candidates<'a> {
    inverted: RwLockReadGuard<'a, Inverted>,
    /// `None`: every content.
    matched: Option<RoaringBitmap>,
}

impl Candidates<'_> {
    /// How many of the index's contents satisfy the query (`None`: every one).
    pub fn matched(&self) -> Option<u64> {
        self.matched.as_ref().map(RoaringBitmap::len)
    }

    /// Whether content `hash` may hold a match: it satisfies the query, or the
    /// index has not seen it.
    pub fn may_hold(&self, hash: &Hash) -> bool {
        // Every content for a query the index cannot plan: no lookup.
        let Some(matched) = &self.matched else {
            return true;
        };
        self.inverted
            .docs
            .get(hash)
            .is_none_or(|doc| matched.contains(*doc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(n: u8) -> Hash {
        [n; 32]
    }

    /// Contents retained against go from every list and from the counts; those
    /// numbered from the mark stay; what is left holds through a snapshot, and a
    /// full index has room again.
    #[test]
    fn retained_against_contents_are_unknown_again_and_their_room_comes_back() {
        let index = TextIndex::with_cap(LIST_BYTES_PER_PAIR * 60);
        index.add(hash(1), b"fn poll_ready(&mut self)");
        index.add(hash(2), b"fn poll_next(&mut self)");
        index.flush();
        index.add(hash(3), b"let poll_ready_x = 1; and a longer tail");
        assert!(!index.knows(&hash(3)) && index.is_full());
        let before = index.figures();
        let mark = index.mark();
        // Came in while the caller looked (small enough to pass the cap).
        index.add(hash(4), b"poll_ready");
        assert_eq!(index.retain(mark, |h| *h != hash(1)), 1);
        let after = index.figures();
        assert_eq!(after.contents, 2);
        assert!(after.pairs < before.pairs, "{after:?}");
        assert!(!index.is_full(), "room again");
        assert!(!index.knows(&hash(1)) && index.knows(&hash(2)) && index.knows(&hash(4)));
        let query = plan::query("poll_ready", false, false);
        let check = |index: &TextIndex| {
            let c = index.candidates(&query);
            // Unknown again: a candidate; known without it: ruled out.
            assert!(c.may_hold(&hash(1)) && !c.may_hold(&hash(2)));
        };
        check(&index);
        let (bytes, _) = index.snapshot(0).unwrap();
        let restored = TextIndex::default();
        assert!(restored.restore(&bytes));
        check(&restored);
        assert_eq!(index.retain(index.mark(), |_| true), 0);
    }

    #[test]
    fn only_contents_satisfying_the_query_or_unseen_are_candidates() {
        let index = TextIndex::default();
        index.add(hash(1), b"fn poll_ready(&mut self)");
        index.add(hash(2), b"fn poll_next(&mut self)");
        index.add(hash(3), b"let POLL_READY = 1;");
        // Added again: one entry.
        index.add(hash(1), b"fn poll_ready(&mut self)");
        let q = plan::query("poll_ready", false, false);
        let c = index.candidates(&q);
        assert!(c.may_hold(&hash(1)));
        assert!(!c.may_hold(&hash(2)));
        // Folded: a case-sensitive pattern keeps it for the regex to judge.
        assert!(c.may_hold(&hash(3)));
        // Never seen: never ruled out.
        assert!(c.may_hold(&hash(9)));
        drop(c);
        let all = index.candidates(&plan::query(".*", true, false));
        assert!(all.may_hold(&hash(2)));
        drop(all);
        index.flush();
        let figures = index.figures();
        assert_eq!(figures.contents, 3);
        assert!(figures.pairs > 40 && figures.bytes > 0, "{figures:?}");
    }

    /// The invariant on random patterns and texts: a text with a line the pattern
    /// matches (ripgrep's matcher, built as the search builds it) is a candidate.
    /// Patterns mix literals, ASCII and non-ASCII case variants, classes,
    /// alternations, repetitions and anchors; texts are drawn from the same letters.
    #[test]
    fn every_text_with_a_matching_line_is_a_candidate() {
        use grep_matcher::Matcher;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let letters = [
            "a", "b", "A", "B", "k", "K", "\u{212a}", "s", "\u{17f}", "é", "É", "_", "(",
        ];
        let atoms = [
            "ab", "ba", "abk", "ks", "[ab]", "[a-c]", "\\w", ".", "(a|bk)", "(ab)+", "k?", "a*",
            "^", "$", "\\b", "[^a]", "sé", "(?i:ab)", "é{2}", "a{2,}",
        ];
        let mut failures = Vec::new();
        let mut candidates_seen = 0;
        for _ in 0..400 {
            let index = TextIndex::default();
            let texts: Vec<String> = (0..12)
                .map(|_| {
                    (0..next(30))
                        .map(|_| match next(12) {
                            0 => "\n".to_string(),
                            _ => letters[next(letters.len())].to_string(),
                        })
                        .collect()
                })
                .collect();
            for (i, t) in texts.iter().enumerate() {
                // Some contents frozen, some live, some frozen over frozen ones.
                if i % 5 == 4 {
                    index.freeze();
                }
                index.add(hash(i as u8), t.as_bytes());
            }
            let (regex, case_insensitive) = (next(3) > 0, next(2) == 0);
            let pattern: String = match regex {
                true => (0..1 + next(4)).map(|_| atoms[next(atoms.len())]).collect(),
                false => (0..1 + next(5))
                    .map(|_| letters[next(letters.len())])
                    .collect(),
            };
            let Ok(matcher) = grep_regex::RegexMatcherBuilder::new()
                .fixed_strings(!regex)
                .case_insensitive(case_insensitive)
                .crlf(true)
                .build(&pattern)
            else {
                continue;
            };
            let q = plan::query(&pattern, regex, case_insensitive);
            let c = index.candidates(&q);
            for (i, t) in texts.iter().enumerate() {
                let matches = t
                    .split('\n')
                    .any(|line| matcher.is_match(line.as_bytes()).unwrap());
                if matches && !c.may_hold(&hash(i as u8)) {
                    failures.push((pattern.clone(), case_insensitive, t.clone(), q.clone()));
                }
                candidates_seen += usize::from(!c.may_hold(&hash(i as u8)));
            }
        }
        assert!(
            failures.is_empty(),
            "{:#?}",
            &failures[..failures.len().min(5)]
        );
        // The test rules files out, so it can fail.
        assert!(candidates_seen > 100, "{candidates_seen}");
    }

    /// A content added again while the index is busy (its check skipped, so it is
    /// numbered twice) leaves every later content findable: numbers come from the
    /// pending batch, never from how many contents there are. (Counting contents
    /// once numbered a later batch below an earlier one, and every list that held
    /// a larger number dropped the batch: Kubernetes' search missed most files.)
    #[test]
    fn a_content_numbered_twice_leaves_every_later_content_findable() {
        let index = TextIndex::default();
        index.add(hash(1), b"fn shared_content() {}");
        index.flush();
        std::thread::scope(|s| {
            let busy = index.inverted.write().unwrap();
            s.spawn(|| index.add(hash(1), b"fn shared_content() {}"))
                .join()
                .unwrap();
            drop(busy);
        });
        index.flush();
        for i in 2..40u8 {
            index.add(hash(i), format!("fn later_{i:03}() {{}}").as_bytes());
            if i % 7 == 0 {
                index.flush();
            }
        }
        for i in 2..40u8 {
            let c = index.candidates(&plan::query(&format!("later_{i:03}"), false, false));
            assert!(c.may_hold(&hash(i)), "content {i} ruled out");
            assert!(!c.may_hold(&hash(i + 1)) || i + 1 >= 40);
        }
        let c = index.candidates(&plan::query("shared_content", false, false));
        assert!(c.may_hold(&hash(1)) && !c.may_hold(&hash(2)));
    }

    /// A snapshot restores the same answers, numbers what comes after it past its
    /// own, and is refused when it does not hold together or comes after contents
    /// were inverted.
    #[test]
    fn a_snapshot_restores_the_same_index_and_a_broken_one_nothing() {
        let index = TextIndex::default();
        index.add(hash(1), b"fn poll_ready(&mut self)");
        index.add(hash(2), b"fn poll_next(&mut self)");
        let (snapshot, contents) = index.snapshot(0).unwrap();
        assert_eq!(contents, 2);
        assert_eq!(index.snapshot(2), None, "nothing new since");

        let restored = TextIndex::default();
        // Pending when the snapshot comes in: numbered after it.
        restored.add(hash(3), b"let poll_ready = 3;");
        assert!(restored.restore(&snapshot));
        let q = plan::query("poll_ready", false, false);
        let c = restored.candidates(&q);
        assert!(c.may_hold(&hash(1)) && c.may_hold(&hash(3)) && !c.may_hold(&hash(2)));
        drop(c);
        assert_eq!(restored.figures().contents, 3);
        assert_eq!(restored.restored_sample(8), vec![hash(1), hash(2)]);
        assert!(
            !restored.restore(&snapshot),
            "contents were inverted already"
        );

        let mut broken = vec![snapshot[..snapshot.len() - 1].to_vec()];
        let mut magic = snapshot.clone();
        magic[0] ^= 1;
        broken.push(magic);
        // The number of documents cut to one: the lists name a second.
        let mut short = snapshot.clone();
        short[4..8].copy_from_slice(&1u32.to_le_bytes());
        short.drain(8 + 4 + 32..8 + 4 + 64);
        broken.push(short);
        for b in broken {
            assert!(!TextIndex::default().restore(&b));
        }
    }

    /// An entry that misses a trigram of its content is caught by `holds`, and
    /// `forget` leaves nothing ruled out.
    #[test]
    fn an_entry_missing_its_contents_trigrams_is_caught_and_forgotten() {
        let lying = TextIndex::default();
        lying.add(hash(1), b"something else entirely");
        let (snapshot, _) = lying.snapshot(0).unwrap();
        let index = TextIndex::default();
        assert!(index.restore(&snapshot));
        assert!(index.holds(&hash(1), b"something else"));
        assert!(!index.holds(&hash(1), b"fn poll_ready()"));
        assert!(index.holds(&hash(9), b"never seen"));
        index.forget();
        let c = index.candidates(&plan::query("poll_ready", false, false));
        assert!(c.may_hold(&hash(1)));
        assert_eq!(index.figures(), TextFigures::default());
    }

    /// Batches are inverted as they fill, in document order, and what is pending
    /// is inverted before a query: the answer is the same either way.
    /// Frozen lists answer as the map did, and what comes after a freeze is merged
    /// with them (in a query, and in the next freeze), for every trigram either
    /// holds.
    #[test]
    fn frozen_lists_answer_as_live_ones_and_merge_with_what_comes_after() {
        let index = TextIndex::default();
        index.add(hash(1), b"fn poll_ready(&mut self)");
        index.add(hash(2), b"fn poll_next(&mut self)");
        let ready = plan::query("poll_ready", false, false);
        let next = plan::query("poll_next", false, false);
        let matched = |q: &Query| index.candidates(q).matched.unwrap();
        let before = (matched(&ready), matched(&next));
        index.freeze();
        assert_eq!((matched(&ready), matched(&next)), before);
        assert!(index.inverted.read().unwrap().live.is_empty());
        assert_eq!(
            index.figures().bytes,
            index.inverted.read().unwrap().frozen.lists.len() as u64
        );
        assert!(index.holds(&hash(1), b"fn poll_ready(&mut self)"));
        assert!(!index.holds(&hash(1), b"fn poll_ready(&mut self) + more"));

        // Added after the freeze: found beside the frozen ones, then frozen with them.
        index.add(hash(3), b"let poll_ready = poll_next;");
        index.add(hash(4), b"unrelated text");
        let after = matched(&ready);
        assert_eq!(after.iter().collect::<Vec<_>>(), [0, 2]);
        index.freeze();
        assert_eq!(matched(&ready), after);
        assert_eq!(matched(&next).iter().collect::<Vec<_>>(), [1, 2]);
        assert!(index.holds(&hash(3), b"let poll_ready = poll_next;"));
        let frozen = &index.inverted.read().unwrap().frozen;
        assert!(frozen.trigrams.is_sorted() && frozen.trigrams.len() == frozen.ends.len());
    }

    /// Past its cap the index takes no content in: those stay unknown, so they are
    /// always candidates, and a forget makes room again.
    #[test]
    fn contents_past_the_cap_stay_unknown_and_are_always_candidates() {
        // Room for about 40 pairs: the first text's 22 trigrams, not the second's.
        let index = TextIndex::with_cap(80);
        index.add(hash(1), b"fn poll_ready(&mut self)");
        assert!(!index.is_full());
        index.add(hash(2), b"fn poll_next(&mut self)");
        assert!(index.is_full());
        assert!(index.knows(&hash(1)) && !index.knows(&hash(2)));
        let c = index.candidates(&plan::query("poll_ready", false, false));
        assert!(c.may_hold(&hash(1)) && c.may_hold(&hash(2)));
        drop(c);
        let c = index.candidates(&plan::query("poll_next", false, false));
        assert!(!c.may_hold(&hash(1)) && c.may_hold(&hash(2)));
        drop(c);
        index.forget();
        assert!(!index.is_full());
        index.add(hash(2), b"fn poll_next(&mut self)");
        assert!(index.knows(&hash(2)));
    }

    /// Pairs in document order come out as a full sort would leave them.
    #[test]
    fn the_counting_sort_orders_by_trigram_then_document() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut pairs = Vec::new();
        for doc in 0..2_000u64 {
            for _ in 0..(doc % 37) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pairs.push((seed & 0xFF_FFFF) << 32 | doc);
            }
        }
        let mut sorted = pairs.clone();
        sorted.sort_unstable();
        sort_by_trigram(&mut pairs, &mut Vec::new());
        assert_eq!(pairs, sorted);
    }

    #[test]
    fn batches_append_in_order_and_pending_contents_are_queried() {
        let index = TextIndex::default();
        let text = |i: u32| format!("item_{i:06} shared_tail");
        // About fifteen distinct trigrams each: more than a batch in all.
        let n = (BATCH_PAIRS / 10) as u32;
        for i in 0..n {
            let mut h = [0u8; 32];
            h[..4].copy_from_slice(&i.to_le_bytes());
            index.add(h, text(i).as_bytes());
        }
        // More than one batch went in as they filled; the rest is pending.
        let before = index.figures();
        assert!((1..n as u64).contains(&before.contents), "{before:?}");
        let c = index.candidates(&plan::query("item_012345", false, false));
        let mut h = [0u8; 32];
        h[..4].copy_from_slice(&12_345u32.to_le_bytes());
        assert!(c.may_hold(&h));
        h[..4].copy_from_slice(&12_346u32.to_le_bytes());
        assert!(!c.may_hold(&h));
        assert_eq!(c.matched.as_ref().map(RoaringBitmap::len), Some(1));
        drop(c);

        // Several batches frozen into one list each: the same answers.
        assert!(index.inverted.read().unwrap().live.len() > 1);
        let shared = plan::query("shared_tail", false, false);
        let every = index.candidates(&shared).matched.unwrap();
        assert_eq!(every.len(), u64::from(n));
        index.freeze();
        assert_eq!(index.candidates(&shared).matched.unwrap(), every);
        let c = index.candidates(&plan::query("item_012345", false, false));
        assert_eq!(c.matched.as_ref().map(RoaringBitmap::len), Some(1));
        h[..4].copy_from_slice(&12_345u32.to_le_bytes());
        assert!(c.may_hold(&h));
        drop(c);
        assert!(index.holds(&h, text(12_345).as_bytes()));
        assert!(!index.holds(&h, text(12_346).as_bytes()));
    }
}
