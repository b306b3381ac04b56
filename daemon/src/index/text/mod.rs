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
//! list as it comes. A query inverts what is pending first.
//!
//! **Invariant:** a content's entry is made from exactly the bytes its hash was
//! taken of, and a hash the index holds no entry for is always a candidate: what
//! the index does not know it never rules out.

pub mod plan;
pub mod trigrams;

use std::sync::{
    Mutex, RwLock, RwLockReadGuard,
    atomic::{AtomicU64, Ordering},
};

use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::ids::Hash;
use plan::Query;

/// Pending (trigram, document) pairs that make a batch worth inverting.
const BATCH_PAIRS: usize = 1 << 20;

#[derive(Debug, Default)]
pub struct TextIndex {
    /// Turned off by configuration: it takes nothing in and rules nothing out.
    off: bool,
    inverted: RwLock<Inverted>,
    pending: Mutex<Pending>,
    /// Held while a batch is inverted: batches go in one at a time, in document
    /// order, so each list only ever appends.
    inverting: Mutex<()>,
    /// Running figures, read by `daemon status` without a lock.
    counts: Counts,
}

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
}

#[derive(Debug, Default)]
struct Pending {
    contents: Vec<(Hash, Vec<u32>)>,
    hashes: FxHashSet<Hash>,
    pairs: usize,
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
    /// memory, within the maps' own overhead.
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

    /// Adds the content `bytes` of hash `hash`, unless it is there already.
    pub fn add(&self, hash: Hash, bytes: &[u8]) {
        if self.off
            || self.inverted.read().unwrap().docs.contains_key(&hash)
            || self.pending.lock().unwrap().hashes.contains(&hash)
        {
            return;
        }
        let trigrams = trigrams::of(bytes);
        let batch = {
            let mut pending = self.pending.lock().unwrap();
            if !pending.hashes.insert(hash) {
                return;
            }
            pending.pairs += trigrams.len();
            pending.contents.push((hash, trigrams));
            (pending.pairs >= BATCH_PAIRS).then(|| std::mem::take(&mut *pending))
        };
        if let Some(batch) = batch {
            self.invert(batch);
        }
    }

    /// Inverts what is pending.
    fn flush(&self) {
        let batch = std::mem::take(&mut *self.pending.lock().unwrap());
        if !batch.contents.is_empty() {
            self.invert(batch);
        }
    }

    fn invert(&self, batch: Pending) {
        let _one_at_a_time = self.inverting.lock().unwrap();
        let first = {
            let inverted = self.inverted.read().unwrap();
            inverted.docs.len() as u32
        };
        let mut pairs: Vec<u64> = Vec::with_capacity(batch.pairs);
        let mut docs = Vec::with_capacity(batch.contents.len());
        for (hash, trigrams) in batch.contents {
            let doc = first + docs.len() as u32;
            docs.push(hash);
            pairs.extend(
                trigrams
                    .iter()
                    .map(|t| u64::from(*t) << 32 | u64::from(doc)),
            );
        }
        pairs.sort_unstable();
        let mut inverted = self.inverted.write().unwrap();
        for (i, hash) in docs.iter().enumerate() {
            inverted.docs.insert(*hash, first + i as u32);
        }
        let (mut new_lists, mut grown) = (0, 0);
        for run in pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
            let list = inverted.postings.entry((run[0] >> 32) as u32).or_default();
            let before = list.serialized_size();
            new_lists += u64::from(list.is_empty());
            // Every document of the batch is numbered past all before it.
            let appended = list.append(run.iter().map(|p| *p as u32));
            debug_assert!(appended.is_ok(), "documents out of order");
            grown += list.serialized_size() - before;
        }
        let counts = &self.counts;
        counts
            .contents
            .fetch_add(docs.len() as u64, Ordering::Relaxed);
        counts.trigrams.fetch_add(new_lists, Ordering::Relaxed);
        counts
            .pairs
            .fetch_add(pairs.len() as u64, Ordering::Relaxed);
        counts.bytes.fetch_add(grown as u64, Ordering::Relaxed);
    }

    /// The contents that may hold a match of `query`.
    pub fn candidates(&self, query: &Query) -> Candidates<'_> {
        self.flush();
        let inverted = self.inverted.read().unwrap();
        let matched = match self.off {
            true => None,
            false => eval(&inverted.postings, query),
        };
        Candidates { inverted, matched }
    }

    /// Counts what a search did with the candidates: files left unread, files read.
    pub fn searched(&self, ruled_out: u64, kept: u64) {
        self.counts
            .ruled_out
            .fetch_add(ruled_out, Ordering::Relaxed);
        self.counts.kept.fetch_add(kept, Ordering::Relaxed);
    }

    /// Read without a lock: what is pending is not in them yet.
    pub fn figures(&self) -> TextFigures {
        let c = &self.counts;
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

    /// Batches are inverted as they fill, in document order, and what is pending
    /// is inverted before a query: the answer is the same either way.
    #[test]
    fn batches_append_in_order_and_pending_contents_are_queried() {
        let index = TextIndex::default();
        let text = |i: u32| format!("item_{i:06} shared_tail");
        for i in 0..60_000u32 {
            let mut h = [0u8; 32];
            h[..4].copy_from_slice(&i.to_le_bytes());
            index.add(h, text(i).as_bytes());
        }
        // More than one batch went in as they filled; the rest is pending.
        let before = index.figures();
        assert!((1..60_000).contains(&before.contents), "{before:?}");
        let c = index.candidates(&plan::query("item_012345", false, false));
        let mut h = [0u8; 32];
        h[..4].copy_from_slice(&12_345u32.to_le_bytes());
        assert!(c.may_hold(&h));
        h[..4].copy_from_slice(&12_346u32.to_le_bytes());
        assert!(!c.may_hold(&h));
        assert_eq!(c.matched.as_ref().map(RoaringBitmap::len), Some(1));
    }
}
