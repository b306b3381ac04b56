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
//! are inverted in batches: a batch's (trigram, document) pairs are sorted once and
//! appended list by list, which costs a small fraction of adding each pair to its
//! list as it comes. A list costs a lookup and a few cache misses per batch however
//! few pairs it gets, so batches are large (a 32 MiB buffer, kept for the next batch
//! while a walk fills them, given back after), and the sort is a counting sort on
//! the trigram alone: pairs come in document order, and a stable sort keeps it. A
//! query inverts what is pending first.
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
        atomic::{AtomicU64, Ordering},
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
    /// Running figures, read by `daemon status` without a lock.
    counts: Counts,
    /// Set while a snapshot is on its way in: a query waits for it (up to
    /// [`RESTORE_WAIT`]) rather than read every file it would rule out.
    restoring: Mutex<bool>,
    restored: Condvar,
}

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
    postings: FxHashMap<u32, RoaringBitmap>,
    /// The next document's number (past every number in `postings`: a content
    /// added twice in a race leaves its first number unused).
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

/// What the text index holds, for `daemon status` and the benches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextFigures {
    /// Contents inverted.
    pub contents: u64,
    /// Distinct trigrams, and (trigram, content) pairs.
    pub trigrams: u64,
    pub pairs: u64,
    /// The posting lists' size as the library serializes them: what they hold in
    /// memory, within the maps' own overhead (as of the last time the index was
    /// not busy inverting).
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
        let trigrams = trigrams::of(bytes);
        let full = {
            let mut pending = self.pending.lock().unwrap();
            if pending.docs.contains_key(&hash) {
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

    /// Inverts what is pending: the batch is taken under the inverting lock, so
    /// batches go in in the order their contents were numbered. Unless the batch
    /// was full (a walk is filling them), its buffers are given back.
    pub fn flush(&self) {
        let mut scratch = self.inverting.lock().unwrap();
        // What comes next is numbered after what is taken.
        let (docs, mut pairs) = {
            let mut pending = self.pending.lock().unwrap();
            let spare = std::mem::take(&mut pending.spare);
            (
                std::mem::take(&mut pending.docs),
                std::mem::replace(&mut pending.pairs, spare),
            )
        };
        if docs.is_empty() {
            return;
        }
        sort_by_trigram(&mut pairs, &mut scratch);
        let mut inverted = self.inverted.write().unwrap();
        let added = docs.len() as u64;
        inverted.next = inverted.next.max(docs.values().max().map_or(0, |d| d + 1));
        inverted.docs.extend(docs);
        let mut new_lists = 0;
        for run in pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
            let list = inverted.postings.entry((run[0] >> 32) as u32).or_default();
            new_lists += u64::from(list.is_empty());
            let docs = run.iter().map(|p| *p as u32);
            // Numbers only grow, so this appends; were one ever out of order, it
            // is inserted where it belongs rather than lost.
            if list.append(docs.clone()).is_err() {
                list.extend(docs);
            }
        }
        drop(inverted);
        let counts = &self.counts;
        counts.contents.fetch_add(added, Ordering::Relaxed);
        counts.trigrams.fetch_add(new_lists, Ordering::Relaxed);
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
        self.flush();
        let inverted = self.inverted.read().unwrap();
        let matched = match self.off {
            true => None,
            false => eval(&inverted.postings, query),
        };
        Candidates { inverted, matched }
    }

    /// The whole index as bytes: the contents in document order (a number no
    /// content holds any more as zeros), then each trigram's list as the library
    /// serializes it. `None` when nothing was added since `since` contents (the
    /// count a caller last saved at: [`TextFigures::contents`]).
    pub fn snapshot(&self, since: u64) -> Option<(Vec<u8>, u64)> {
        self.flush();
        let inverted = self.inverted.read().unwrap();
        let contents = inverted.docs.len() as u64;
        if self.off || contents == since {
            return None;
        }
        let mut hashes = vec![[0u8; 32]; inverted.next as usize];
        for (hash, doc) in &inverted.docs {
            hashes[*doc as usize] = *hash;
        }
        let lists: usize = inverted
            .postings
            .values()
            .map(|l| 8 + l.serialized_size())
            .sum();
        let mut out = Vec::with_capacity(16 + 32 * hashes.len() + lists);
        out.extend_from_slice(&SNAPSHOT_MAGIC.to_le_bytes());
        out.extend_from_slice(&inverted.next.to_le_bytes());
        out.extend_from_slice(&(inverted.postings.len() as u32).to_le_bytes());
        hashes.iter().for_each(|h| out.extend_from_slice(h));
        for (trigram, list) in &inverted.postings {
            out.extend_from_slice(&trigram.to_le_bytes());
            out.extend_from_slice(&(list.serialized_size() as u32).to_le_bytes());
            list.serialize_into(&mut out)
                .expect("a Vec takes every write");
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
        let Some(restored) = decode(bytes) else {
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
            .store(restored.postings.len() as u64, Ordering::Relaxed);
        let (pairs, bytes) = restored.postings.values().fold((0, 0), |(p, b), l| {
            (p + l.len(), b + l.serialized_size() as u64)
        });
        c.pairs.store(pairs, Ordering::Relaxed);
        c.bytes.store(bytes, Ordering::Relaxed);
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
            inverted
                .postings
                .get(t)
                .is_some_and(|list| list.contains(*doc))
        })
    }

    /// Drops every entry: nothing is ruled out until contents are read again.
    pub fn forget(&self) {
        let _one_at_a_time = self.inverting.lock().unwrap();
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

    /// Counts what a search did with the candidates: files left unread, files read.
    pub fn searched(&self, ruled_out: u64, kept: u64) {
        self.counts
            .ruled_out
            .fetch_add(ruled_out, Ordering::Relaxed);
        self.counts.kept.fetch_add(kept, Ordering::Relaxed);
    }

    /// Read without waiting for a lock: what is pending is not in them yet, and
    /// the lists' size is measured only when no batch is being inverted.
    pub fn figures(&self) -> TextFigures {
        let c = &self.counts;
        if let Ok(inverted) = self.inverted.try_read() {
            let bytes = inverted.postings.values().map(|l| l.serialized_size());
            c.bytes
                .store(bytes.sum::<usize>() as u64, Ordering::Relaxed);
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

/// A snapshot's index, or `None` if it does not hold together.
fn decode(bytes: &[u8]) -> Option<Inverted> {
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
    let mut postings = FxHashMap::default();
    for _ in 0..lists {
        let trigram = u32_(&mut rest)?;
        let len = u32_(&mut rest)? as usize;
        let (list, tail) = rest.split_at_checked(len)?;
        rest = tail;
        let list = RoaringBitmap::deserialize_from(list).ok()?;
        if trigram > 0xFF_FFFF || list.max().is_some_and(|max| max >= next) {
            return None;
        }
        postings.insert(trigram, list);
    }
    rest.is_empty().then_some(Inverted {
        docs,
        postings,
        next,
        restored: next,
    })
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

/// The documents satisfying `query`; `None` for all of them.
fn eval(postings: &FxHashMap<u32, RoaringBitmap>, query: &Query) -> Option<RoaringBitmap> {
    match query {
        Query::All => None,
        Query::Tri(t) => Some(postings.get(t).cloned().unwrap_or_default()),
        Query::And(all) => {
            let mut acc: Option<RoaringBitmap> = None;
            for q in all {
                if let Some(docs) = eval(postings, q) {
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
                acc |= eval(postings, q)?;
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
    /// Whether content `hash` may hold a match: it satisfies the query, or the
    /// index has not seen it.
    pub fn may_hold(&self, hash: &Hash) -> bool {
        match (&self.matched, self.inverted.docs.get(hash)) {
            (Some(matched), Some(doc)) => matched.contains(*doc),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(n: u8) -> Hash {
        [n; 32]
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
    }
}
