//! The UTF-8 byte order mark. A file keeps it on disk (an edit never splits it off);
//! grammars, language servers and answers see the text after it. Whether an offset
//! counts it is each caller's to say: offsets on disk do, offsets into parsed text
//! do not.

/// The mark's bytes.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many bytes of a byte order mark `bytes` starts with: 3 or 0.
pub fn len(bytes: &[u8]) -> usize {
    if bytes.starts_with(BOM) { BOM.len() } else { 0 }
}

/// `bytes` after the byte order mark it starts with, if any.
pub fn strip(bytes: &[u8]) -> &[u8] {
    &bytes[len(bytes)..]
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_leading_mark_counts() {
        assert_eq!(super::len(b"\xEF\xBB\xBFfn a() {}"), 3);
        assert_eq!(super::strip(b"\xEF\xBB\xBFfn a() {}"), b"fn a() {}");
        assert_eq!(super::len(b"fn a() {} \xEF\xBB\xBF"), 0);
        assert_eq!(super::len(b"\xEF\xBB"), 0);
        assert_eq!(super::strip(b""), b"");
    }
}
