//! Byte scanning the lexers share (`skeleton`, `skeleton_brace`, `skeleton_go`,
//! `skeleton_python`): below all of them, so none reaches into another for these.

/// A byte of an identifier (Rust, Python, Go; any non-ASCII byte counts).
pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The length of the UTF-8 sequence `first` starts.
pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Where `needle` next occurs in `src` from `from` on.
pub(super) fn memchr(needle: u8, src: &[u8], from: usize) -> Option<usize> {
    src[from..]
        .iter()
        .position(|&b| b == needle)
        .map(|i| from + i)
}
