//! The LSP boundary's units (ARCHITECTURE.md, Positions): agent positions (1-based line,
//! 0-based column in characters) ↔ LSP positions (0-based line, column in the
//! negotiated encoding's code units), and paths ↔ `file://` URIs. Every conversion for
//! language servers happens here, once.
//!
//! A document's text is what we sent the server: the file's bytes as UTF-8 (lossy),
//! without a byte order mark, which is not a character anyone sees (the headless index
//! agrees). Lines end at `\n`; a `\r` before it belongs to the line ending.

use std::{
    path::{Path, PathBuf},
    str::FromStr,
};

use lean_ctx_shared::{Position, Range};
use lsp_types::{PositionEncodingKind, Uri};

/// The unit of an LSP column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The server's choice; LSP's default when it says nothing is UTF-16, except for
    /// servers known to count otherwise: python-lsp-server (1.15 seen) declares nothing
    /// and hands jedi's columns through unchanged, which count code points
    /// (`pylsp/plugins/references.py`: `"character": d.column`), so with a character
    /// beyond the BMP before a name every column it gave was one off.
    pub fn negotiated(kind: Option<&PositionEncodingKind>, server: Option<&str>) -> Encoding {
        match (kind.map(|k| k.as_str()), server) {
            (Some("utf-8"), _) => Encoding::Utf8,
            (Some("utf-32"), _) => Encoding::Utf32,
            (None, Some("pylsp")) => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }

    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// A document's text with its line starts.
#[derive(Clone, Debug)]
pub struct DocText {
    text: String,
    starts: Vec<usize>,
    /// Bytes of a BOM the file on disk starts with (not part of `text`).
    bom: usize,
}

impl DocText {
    pub fn new(bytes: &[u8]) -> DocText {
        let bom = lean_ctx_syntax::bom::len(bytes);
        let text = String::from_utf8_lossy(&bytes[bom..]).into_owned();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        DocText { text, starts, bom }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The content of 0-based line `line`, without its line ending.
    fn line(&self, line: usize) -> Option<&str> {
        let start = *self.starts.get(line)?;
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let l = &self.text[start..end];
        let l = l.strip_suffix('\n').unwrap_or(l);
        Some(l.strip_suffix('\r').unwrap_or(l))
    }

    /// The LSP position of a disk offset (the inverse of [`DocText::disk_offset`]).
    pub fn lsp_position(&self, disk_offset: usize, enc: Encoding) -> lsp_types::Position {
        let offset = disk_offset.saturating_sub(self.bom).min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let character = self.text[self.starts[line]..offset]
            .chars()
            .map(|c| enc.units(c))
            .sum();
        lsp_types::Position::new(line as u32, character)
    }

    /// The text between two disk offsets (as [`DocText::disk_offset`] gives them).
    pub fn text_at(&self, start: usize, end: usize) -> String {
        let (start, end) = (start.saturating_sub(self.bom), end.saturating_sub(self.bom));
        self.text
            .get(start..end.max(start))
            .unwrap_or("")
            .to_string()
    }

    /// The trimmed content of a 1-based line (a result's context).
    pub fn line_text(&self, line: u32) -> &str {
        self.line((line as usize).wrapping_sub(1))
            .unwrap_or("")
            .trim()
    }

    /// An agent position as the server counts it; `None` when it is not in the text.
    pub fn to_lsp(&self, pos: Position, enc: Encoding) -> Option<lsp_types::Position> {
        let line = self.line((pos.line as usize).checked_sub(1)?)?;
        let mut units = 0;
        let mut chars = line.chars();
        for _ in 0..pos.column {
            units += enc.units(chars.next()?);
        }
        Some(lsp_types::Position::new(pos.line - 1, units))
    }

    /// A server position as an agent reads it. Past the end of a line or of the text,
    /// clamped (servers point one past the last line for "end of file").
    pub fn agent_position(&self, pos: lsp_types::Position, enc: Encoding) -> Position {
        let last = self.starts.len() - 1;
        let index = (pos.line as usize).min(last);
        let line = self.line(index).unwrap_or("");
        if pos.line as usize > last {
            return Position::new(index as u32 + 1, line.chars().count() as u32);
        }
        let mut units = 0;
        let mut column = 0;
        for c in line.chars() {
            if units >= pos.character {
                break;
            }
            units += enc.units(c);
            column += 1;
        }
        Position::new(pos.line + 1, column)
    }

    pub fn range_from_lsp(&self, range: lsp_types::Range, enc: Encoding) -> Range {
        Range::new(
            self.agent_position(range.start, enc),
            self.agent_position(range.end, enc),
        )
    }

    /// Byte offset in [`Self::text`] (after a BOM) of a server position.
    pub fn text_offset(&self, pos: lsp_types::Position, enc: Encoding) -> usize {
        self.disk_offset(pos, enc) - self.bom
    }

    /// Byte offset in the file on disk (BOM included) of a server position.
    pub fn disk_offset(&self, pos: lsp_types::Position, enc: Encoding) -> usize {
        let p = self.agent_position(pos, enc);
        let start = self.starts[(p.line - 1) as usize];
        let line = self.line((p.line - 1) as usize).unwrap_or("");
        let within: usize = line
            .chars()
            .take(p.column as usize)
            .map(char::len_utf8)
            .sum();
        self.bom + start + within
    }
}

/// The `file://` URI of an absolute path: bytes outside RFC 3986's unreserved set and
/// `/` are percent-encoded, as VS Code does.
pub fn path_to_uri(path: &Path) -> Uri {
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).expect("a percent-encoded file URI parses")
}

/// The path of a `file://` URI; `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` are the same file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = raw
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) if raw[i] == b'%' => {
                bytes.push(b);
                i += 3;
            }
            _ => {
                bytes.push(raw[i]);
                i += 1;
            }
        }
    }
    let path = PathBuf::from(String::from_utf8(bytes).ok()?);
    path.is_absolute().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lsp(line: u32, character: u32) -> lsp_types::Position {
        lsp_types::Position::new(line, character)
    }

    #[test]
    fn the_encoding_is_the_servers_and_pylsp_counts_code_points() {
        let utf8 = PositionEncodingKind::UTF8;
        assert_eq!(
            Encoding::negotiated(Some(&utf8), Some("pylsp")),
            Encoding::Utf8
        );
        assert_eq!(Encoding::negotiated(None, Some("pylsp")), Encoding::Utf32);
        assert_eq!(
            Encoding::negotiated(None, Some("rust-analyzer")),
            Encoding::Utf16
        );
        assert_eq!(Encoding::negotiated(None, None), Encoding::Utf16);
    }

    #[test]
    fn columns_convert_in_each_encoding_on_non_ascii_lines() {
        // "ä" is 2 UTF-8 bytes and 1 UTF-16 unit; "𝔘" is 4 bytes and 2 units.
        let doc = DocText::new("fn größe() {}\r\nlet 𝔘x = 1;\n".as_bytes());
        let x = Position::new(2, 5); // the `x` after 𝔘
        assert_eq!(doc.to_lsp(x, Encoding::Utf8), Some(lsp(1, 8)));
        assert_eq!(doc.to_lsp(x, Encoding::Utf16), Some(lsp(1, 6)));
        assert_eq!(doc.to_lsp(x, Encoding::Utf32), Some(lsp(1, 5)));
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let there = doc.to_lsp(x, enc).unwrap();
            assert_eq!(doc.agent_position(there, enc), x, "{enc:?}");
        }
        // `(` after "größe": column 8 in characters, 10 in UTF-8 bytes.
        assert_eq!(
            doc.agent_position(lsp(0, 10), Encoding::Utf8),
            Position::new(1, 8)
        );
        // The line ending is not a column; past the end clamps.
        assert_eq!(doc.to_lsp(Position::new(1, 14), Encoding::Utf8), None);
        assert_eq!(
            doc.agent_position(lsp(0, 99), Encoding::Utf16),
            Position::new(1, 13)
        );
        assert_eq!(
            doc.agent_position(lsp(7, 0), Encoding::Utf16),
            Position::new(3, 0)
        );
        assert_eq!(doc.to_lsp(Position::new(0, 0), Encoding::Utf8), None);
        assert_eq!(doc.line_text(2), "let 𝔘x = 1;");
    }

    #[test]
    fn disk_offsets_count_the_bom_and_multi_byte_characters() {
        let bytes = "\u{FEFF}ä = 1\nb = ä\n".as_bytes();
        let doc = DocText::new(bytes);
        assert_eq!(doc.text(), "ä = 1\nb = ä\n");
        let at = doc.disk_offset(lsp(1, 4), Encoding::Utf16);
        assert_eq!(&bytes[at..at + 2], "ä".as_bytes());
        assert_eq!(doc.disk_offset(lsp(0, 0), Encoding::Utf8), 3);
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            assert_eq!(doc.lsp_position(at, enc), lsp(1, 4));
        }
        // Past the `ä` of line 1: 2 UTF-8 bytes, 1 UTF-16 unit.
        assert_eq!(doc.lsp_position(3 + 2, Encoding::Utf8), lsp(0, 2));
        assert_eq!(doc.lsp_position(3 + 2, Encoding::Utf16), lsp(0, 1));
    }

    #[test]
    fn uris_round_trip_paths_with_spaces_and_non_ascii() {
        let path = Path::new("/tmp/a dir/größe#1.rs");
        let uri = path_to_uri(path);
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/gr%C3%B6%C3%9Fe%231.rs");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(path));
        let other = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(uri_to_path(&other), None);
        let local = Uri::from_str("file://localhost/x/y.rs").unwrap();
        assert_eq!(uri_to_path(&local), Some(PathBuf::from("/x/y.rs")));
    }
}
