// The layout of the `o200k_base` lookup table, shared by `build.rs` (which fills it
// at build time) and `tokens.rs` (which reads it compiled in), so both hash a token
// the same way on any host and target: open addressing over the tokens' bytes, one
// little-endian `u32` a slot holding rank + 1 in its low `RANK_BITS` (0: empty) and
// bits of the key's hash above them, so a probe reads the bytes only on a likely
// match (most lookups are a merge's pairs that are no token). The table's size, a
// power of two, is its file's. Included, not a module: a build script cannot use
// the crate it builds.

const RANK_BITS: u32 = 18;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// The first slot (of `mask + 1`) to look in for `key`, and the hash bits a slot
/// keeps of it. In `u64` whatever the pointer width; eight bytes a step, and the
/// last up to eight read as two overlapping words (or three bytes), as most tokens
/// are that short: no loop, no copy for them.
fn home(key: &[u8], mask: usize) -> (usize, u32) {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = (key.len() as u64).wrapping_mul(K);
    let mut rest = key;
    while rest.len() > 8 {
        let (word, after) = rest.split_at(8);
        h = (h ^ u64::from_le_bytes(word.try_into().unwrap()))
            .wrapping_mul(K)
            .rotate_left(26);
        rest = after;
    }
    let n = rest.len();
    let last = match n {
        4.. => {
            let lo = u32::from_le_bytes(rest[..4].try_into().unwrap());
            let hi = u32::from_le_bytes(rest[n - 4..].try_into().unwrap());
            u64::from(lo) | u64::from(hi) << 32
        }
        1.. => u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16,
        0 => 0,
    };
    // The product's high bits are its best: folded into the low ones the slot
    // index takes, and kept for the tag.
    let h = (h ^ last).wrapping_mul(K);
    ((h ^ (h >> 32)) as usize & mask, (h >> 32) as u32 & !RANK_MASK)
}
