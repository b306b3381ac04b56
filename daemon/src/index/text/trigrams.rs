//! A text's trigrams as the index keys them: three consecutive bytes, ASCII letters
//! folded to lower case ([`fold`]), so that one posting list serves a pattern in any
//! ASCII case (`plan.rs` folds patterns the same way).

use std::cell::RefCell;

/// A byte as the index sees it.
pub fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// Three (folded) bytes as one key.
pub fn trigram(a: u8, b: u8, c: u8) -> u32 {
    u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c)
}

/// [`fold`] of every byte, looked up: one load instead of a compare, a shift and
/// an or in the loop below.
static FOLDED: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    table
};

/// Bits for every possible trigram, as 64-bit words.
const WORDS: usize = 1 << 18;

thread_local! {
    /// One bit per possible trigram (2 MiB): which ones the text being read has
    /// shown already. Cleared bit by bit after each text, so a text costs its own
    /// length, never the table's. An array, so the loop's index (24 bits shifted by
    /// six) needs no bounds check.
    static SEEN: RefCell<Box<[u64; WORDS]>> = RefCell::new(vec![0; WORDS].try_into().unwrap());
}

/// The distinct folded trigrams of `text`, in the order they first occur (the
/// index's counting sort orders a batch by trigram; nothing needs one text's sorted).
pub fn of(text: &[u8]) -> Vec<u32> {
    let [a, b, rest @ ..] = text else {
        return Vec::new();
    };
    SEEN.with_borrow_mut(|seen| {
        let mut out = Vec::new();
        let mut t = trigram(0, fold(*a), fold(*b));
        for &c in rest {
            t = (t << 8 | u32::from(FOLDED[usize::from(c)])) & 0xFF_FFFF;
            let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                out.push(t);
            }
        }
        for t in &out {
            seen[(t >> 6) as usize] = 0;
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigrams_are_folded_distinct_and_ascending() {
        assert_eq!(of(b"ab"), Vec::<u32>::new());
        let sorted = |mut v: Vec<u32>| {
            v.sort_unstable();
            v
        };
        assert_eq!(
            sorted(of(b"AbCabc")),
            vec![
                trigram(b'a', b'b', b'c'),
                trigram(b'b', b'c', b'a'),
                trigram(b'c', b'a', b'b')
            ]
        );
        // Non-ASCII bytes are kept as they are; the table is clean for the next text.
        assert_eq!(of("Éa".as_bytes()), vec![trigram(0xC3, 0x89, b'a')]);
        assert_eq!(of(b"xyz"), vec![trigram(b'x', b'y', b'z')]);
    }
}
