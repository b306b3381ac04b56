//! The on-disk form of a [`FileSymbols`], for the persisted store (`store/persist.rs`): a
//! compact encoding (LEB128 integers, every offset stored as a small delta from one
//! the decoder already has): a record takes about 20 bytes instead of the in-memory
//! 80, and a whole file's symbols (strings included) under 60% of their resident
//! size. A child module of `symbols` so the records stay private to it.
//!
//! [`FileSymbols::decode`] is total: whatever the bytes, it returns a `FileSymbols`
//! whose every span lies inside its arena on character boundaries and whose tree
//! links point forward within the records (the iterators rely on both), or `None`.
//! The store only hands it bytes its keyed checksum vouched for; this is the second
//! line, so a bug in an encoder of another day can never make a reader panic or loop.

use crate::{Position, Range, SymbolKind};

use super::{FileSymbols, Lang, Rec, Span};

/// The byte that stands for `lang` in a stored key: its place in the registration
/// order (`languages/mod.rs`), which is appended to, never reordered.
pub fn lang_byte(lang: Lang) -> u8 {
    lang as u8
}

pub fn lang_of(byte: u8) -> Option<Lang> {
    Lang::ALL.get(byte as usize).copied()
}

impl FileSymbols {
    /// Appends the encoding of these symbols to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let flags = u8::from(self.binary) | (u8::from(self.syntax_error.is_some()) << 1);
        out.push(lang_byte(self.lang));
        out.push(flags);
        if let Some(at) = self.syntax_error {
            put(out, at.line);
            put(out, at.column);
        }
        put(out, self.arena.len() as u32);
        out.extend_from_slice(self.arena.as_bytes());
        put(out, self.recs.len() as u32);
        let mut cursor = 0u32;
        for (index, r) in self.recs.iter().enumerate() {
            out.push(r.kind as u8);
            for span in [r.name, r.name_path, r.signature] {
                put_signed(out, i64::from(span.start) - i64::from(cursor));
                put(out, span.len);
                cursor = span.start + span.len;
            }
            put(out, r.bytes.0);
            put_signed(out, i64::from(r.bytes.1) - i64::from(r.bytes.0));
            put_signed(out, i64::from(r.doc) - i64::from(r.bytes.0));
            put_signed(out, i64::from(r.core) - i64::from(r.bytes.0));
            put_range(out, r.range, 0);
            put_range(out, r.name_range, r.range.start.line);
            put(out, r.end - index as u32 - 1);
        }
    }

    /// The symbols `bytes` encode, if they are a well-formed encoding.
    pub fn decode(bytes: &[u8]) -> Option<FileSymbols> {
        let mut r = Reader { bytes, at: 0 };
        let lang = lang_of(r.byte()?)?;
        let flags = r.byte()?;
        let syntax_error = match flags & 2 != 0 {
            true => Some(Position::new(r.get()?, r.get()?)),
            false => None,
        };
        let arena_len = r.get()? as usize;
        let arena = std::str::from_utf8(r.take(arena_len)?).ok()?;
        let count = r.get()? as usize;
        // Each record takes at least 20 bytes: a count no input could hold is a lie.
        if count > bytes.len() {
            return None;
        }
        let mut recs = Vec::with_capacity(count);
        let mut cursor = 0i64;
        for index in 0..count {
            let kind = *SymbolKind::ALL.get(r.byte()? as usize)?;
            let mut spans = [Span { start: 0, len: 0 }; 3];
            for span in &mut spans {
                let start = cursor + r.get_signed()?;
                let len = r.get()?;
                let end = start.checked_add(i64::from(len))?;
                if start < 0
                    || end > arena_len as i64
                    || !arena.is_char_boundary(start as usize)
                    || !arena.is_char_boundary(end as usize)
                {
                    return None;
                }
                *span = Span {
                    start: start as u32,
                    len,
                };
                cursor = end;
            }
            let start = r.get()?;
            let at = |delta: i64| u32::try_from(i64::from(start) + delta).ok();
            let bytes_end = at(r.get_signed()?)?;
            let doc = at(r.get_signed()?)?;
            let core = at(r.get_signed()?)?;
            let range = r.range(0)?;
            let name_range = r.range(range.start.line)?;
            let end = (index as u32 + 1).checked_add(r.get()?)?;
            if end as usize > count {
                return None;
            }
            recs.push(Rec {
                kind,
                name: spans[0],
                name_path: spans[1],
                signature: spans[2],
                bytes: (start, bytes_end),
                doc,
                core,
                range,
                name_range,
                end,
            });
        }
        // A child must end within its parent, or `siblings` would leave the parent.
        let mut open: Vec<u32> = Vec::new();
        for (index, rec) in recs.iter().enumerate() {
            while open.last().is_some_and(|&end| end as usize <= index) {
                open.pop();
            }
            if open.last().is_some_and(|&end| rec.end > end) {
                return None;
            }
            open.push(rec.end);
        }
        if r.at != bytes.len() || (flags & !3) != 0 {
            return None;
        }
        let weight = 128 + arena.len() + recs.len() * size_of::<Rec>();
        Some(FileSymbols {
            lang,
            binary: flags & 1 != 0,
            syntax_error,
            count: recs.len(),
            weight,
            arena: arena.into(),
            recs: recs.into_boxed_slice(),
        })
    }
}

fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag, so small negative deltas stay one byte.
fn put_signed(out: &mut Vec<u8>, v: i64) {
    put_u64(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// A range, its first line as a delta from `line` (0 for a symbol's own range, its
/// own range's first line for its name's).
fn put_range(out: &mut Vec<u8>, range: Range, line: u32) {
    put_signed(out, i64::from(range.start.line) - i64::from(line));
    put(out, range.start.column);
    put_signed(out, i64::from(range.end.line) - i64::from(range.start.line));
    put(out, range.end.column);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn get_u64(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn get(&mut self) -> Option<u32> {
        u32::try_from(self.get_u64()?).ok()
    }

    fn get_signed(&mut self) -> Option<i64> {
        let v = self.get_u64()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A range stored by [`put_range`] relative to `line`.
    fn range(&mut self, line: u32) -> Option<Range> {
        let start_line = u32::try_from(i64::from(line) + self.get_signed()?).ok()?;
        let start = Position::new(start_line, self.get()?);
        let end_line = u32::try_from(i64::from(start_line) + self.get_signed()?).ok()?;
        Some(Range {
            start,
            end: Position::new(end_line, self.get()?),
        })
    }
}
