//! Token counts under OpenAI's `o200k_base`, for gain accounting (`accounting.rs`): the
//! number of tokens tiktoken's `encode_ordinary` gives a text, nothing else (no token
//! ids, no decoding, no special tokens).
//!
//! The tables are compiled in by `build.rs` from tiktoken-rs (every token's bytes in
//! rank order, a lookup table by bytes laid out in `o200k_slots.rs`, and the
//! pre-tokenizing pattern), so loading is the pattern's compile, where tiktoken-rs's
//! `o200k_base()` decodes base64 text into a map, a decoder and a sorted copy and
//! clones its regex 128 times (figures in BENCHMARKS.md, `--bench tokens`). The merge is tiktoken's: a pre-tokenized
//! piece that is not a token itself is split into bytes, and the adjacent pair that
//! forms the token of lowest rank (the leftmost of equals) is merged until no pair
//! forms a token. Tests hold the counts to tiktoken-rs's on real sources.
//!
//! The tables stay in the binary's read-only pages; a load only compiles the pattern
//! (about 3.5 ms and 3 MiB, where tiktoken-rs's own load takes 90-240 ms and 45 MiB). A
//! piece of 100 bytes or more is merged with a heap, as tiktoken does. The counts are
//! held to tiktoken-rs's by tests on the pinned Rust corpus's crates and by `--bench
//! tokens` on every corpus.

use std::{cmp::Reverse, collections::BinaryHeap};

static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bytes"));
static STARTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.starts"));
static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.slots"));
const PATTERN: &str = include_str!(concat!(env!("OUT_DIR"), "/o200k.pattern"));

include!("o200k_slots.rs");

/// No such token (also: the pair is gone).
const NONE: u32 = u32::MAX;

/// Pieces at least this long are merged with a heap: the list scan is quadratic, and
/// a megabyte of base64 or of one repeated character is one piece.
const LONG_PIECE: usize = 100;

/// The tokenizer: the pattern, compiled at load; the tables are static, in the
/// binary's read-only pages, shared and paged in as lookups touch them.
pub struct O200k {
    pattern: fancy_regex::Regex,
}

/// The `i`th little-endian `u32` of `table`.
fn word(table: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(table[i * 4..i * 4 + 4].try_into().unwrap())
}

fn bytes_of(rank: u32) -> &'static [u8] {
    let rank = rank as usize;
    &BYTES[word(STARTS, rank) as usize..word(STARTS, rank + 1) as usize]
}

/// The rank of the token `key`, or [`NONE`].
fn rank_of(key: &[u8]) -> u32 {
    let mask = SLOTS.len() / 4 - 1;
    let (mut i, tag) = home(key, mask);
    loop {
        match word(SLOTS, i) {
            0 => return NONE,
            slot if slot & !RANK_MASK == tag && bytes_of((slot & RANK_MASK) - 1) == key => {
                return (slot & RANK_MASK) - 1;
            }
            _ => i = (i + 1) & mask,
        }
    }
}

impl std::fmt::Debug for O200k {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("O200k")
    }
}

impl O200k {
    pub fn load() -> O200k {
        O200k {
            pattern: fancy_regex::Regex::new(PATTERN).expect("o200k_base's pattern compiles"),
        }
    }

    /// The number of tokens of `text`.
    pub fn count(&self, text: &str) -> u64 {
        let mut tokens = 0;
        let mut counted = 0;
        for found in self.pattern.find_iter(text) {
            let Ok(found) = found else {
                // The pattern's one look-ahead (`\s+(?!\S)`) backtracks a step at most,
                // so its backtracking limit is never met; were it met, the rest counts
                // a token a byte (tiktoken-rs would panic).
                return tokens + (text.len() - counted) as u64;
            };
            let piece = found.as_str().as_bytes();
            counted = found.end();
            tokens += match piece.len() {
                _ if rank_of(piece) != NONE => 1,
                n if n < LONG_PIECE => self.merge_short(piece),
                _ => self.merge_long(piece),
            } as u64;
        }
        tokens
    }

    /// The tokens `piece` merges into, by scanning a list of parts for the best pair
    /// after every merge: the cheapest way for the short pieces that are nearly all.
    fn merge_short(&self, piece: &[u8]) -> usize {
        // Each part's start and the rank of it merged with the next part; the last
        // entry only marks the end.
        let mut parts: Vec<(usize, u32)> = (0..=piece.len()).map(|i| (i, NONE)).collect();
        let pair = |parts: &[(usize, u32)], i: usize| match parts.get(i + 2) {
            Some(&(end, _)) => rank_of(&piece[parts[i].0..end]),
            None => NONE,
        };
        for i in 0..piece.len() {
            parts[i].1 = pair(&parts, i);
        }
        while let Some(i) = parts
            .iter()
            .enumerate()
            .filter(|(_, part)| part.1 != NONE)
            .min_by_key(|&(i, part)| (part.1, i))
            .map(|(i, _)| i)
        {
            parts.remove(i + 1);
            parts[i].1 = pair(&parts, i);
            if i > 0 {
                parts[i - 1].1 = pair(&parts, i - 1);
            }
        }
        parts.len() - 1
    }

    /// The same merges in the same order, the best pair kept in a heap: a merge
    /// changes the pairs of the merged part and of the part before it, which are
    /// pushed again; an entry whose rank is no longer its part's is stale. (A part's
    /// pair after a merge is longer, so never the same token: equal ranks mean the
    /// same pair.)
    fn merge_long(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // By each part's start: where it ends, where the part before it starts, and
        // the rank of it merged with the next part.
        let mut end: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let pair = |end: &[usize], start: usize| match end[start] {
            next if next < n => rank_of(&piece[start..end[next]]),
            _ => NONE,
        };
        let mut rank: Vec<u32> = (0..n).map(|start| pair(&end, start)).collect();
        let mut heap: BinaryHeap<_> = (0..n)
            .filter(|&start| rank[start] != NONE)
            .map(|start| Reverse((rank[start], start)))
            .collect();
        let mut parts = n;
        while let Some(Reverse((best, start))) = heap.pop() {
            if rank[start] != best {
                continue;
            }
            let gone = end[start];
            end[start] = end[gone];
            rank[gone] = NONE;
            parts -= 1;
            if end[start] < n {
                prev[end[start]] = start;
            }
            for part in [Some(start), (start > 0).then(|| prev[start])]
                .into_iter()
                .flatten()
            {
                rank[part] = pair(&end, part);
                if rank[part] != NONE {
                    heap.push(Reverse((rank[part], part)));
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    /// Text files under `dir` (sorted, at most `cap` bytes each).
    fn texts(dir: &Path, cap: u64, out: &mut Vec<(PathBuf, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                texts(&path, cap, out);
            } else if path.metadata().is_ok_and(|m| m.len() <= cap)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                out.push((path, text));
            }
        }
    }

    /// Crates' sources from the pinned Rust corpus: real text in many languages
    /// (Rust, C, Markdown, Unicode tables) nobody here wrote, the same on every
    /// machine.
    fn crate_sources() -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        for krate in [
            "regex-syntax",
            "unicode-ident",
            "similar",
            "tree-sitter-python",
            "fancy-regex",
        ] {
            texts(&lean_ctx_testkit::corpus_crate(krate), 1 << 20, &mut out);
        }
        out
    }

    /// Text a tokenizer finds hard: every script the pattern's classes name, marks,
    /// emoji, digits, CRLF, and long runs (the heap path).
    fn generated() -> Vec<String> {
        let alphabet: Vec<char> = "aZ0 \t\r\n'sT,.;=+-_/\\\"`~éßİıǅ中文日本語한국어ไทยالعربيةहिन्दी\u{301}\u{200d}😀👍🏽\u{feff}"
            .chars()
            .collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut out: Vec<String> = (0..300)
            .map(|_| {
                let len = (next() % 400) as usize;
                (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            })
            .collect();
        for run in ["a", "ab", "x9", " ", "\n", "=", "-=", "é", "😀", "QmFzZTY0"] {
            out.push(run.repeat(5_000));
        }
        let base64: String = (0..20_000)
            .map(|_| {
                let c = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                c[(next() % 64) as usize] as char
            })
            .collect();
        out.push(base64);
        out
    }

    #[test]
    fn counts_are_tiktokens_on_real_and_hard_text() {
        let theirs = tiktoken_rs::o200k_base().unwrap();
        let ours = O200k::load();
        let mut texts_checked = 0;
        let mut tokens = 0;
        let mut sources = crate_sources();
        texts(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            1 << 20,
            &mut sources,
        );
        let generated = generated()
            .into_iter()
            .map(|t| (PathBuf::from("generated"), t));
        for (path, text) in sources.into_iter().chain(generated) {
            let want = theirs.encode_ordinary(&text).len() as u64;
            assert_eq!(
                ours.count(&text),
                want,
                "{}: {:?}",
                path.display(),
                &text[..text.len().min(80)]
            );
            texts_checked += 1;
            tokens += want;
        }
        assert!(
            texts_checked > 500 && tokens > 1_000_000,
            "{texts_checked} texts, {tokens} tokens"
        );
    }

    #[test]
    fn both_merges_agree_on_every_piece_length() {
        let ours = O200k::load();
        for text in generated() {
            for piece in ours.pattern.find_iter(&text).map(|m| m.unwrap().as_str()) {
                let piece = piece.as_bytes();
                if piece.len() > 1 {
                    assert_eq!(ours.merge_short(piece), ours.merge_long(piece), "{piece:?}");
                }
            }
        }
    }
}
