//! A server's text edits as byte spans of the file on disk, applied in one splice,
//! and narrowed to what really changes.
//!
//! Some servers answer a rename with one edit replacing the whole file (python-lsp-
//! server does). Shown as is, a preview would list one "usage" holding the file; so a
//! multi-line or long replacement is diffed token by token (identifiers and single
//! other characters, Myers) and split into the spans that differ. Applying the narrow
//! spans writes exactly the bytes the wide edit would have.

use lsp_types::TextEdit;

use super::positions::{DocText, Encoding};

/// Replace disk bytes `start..end` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// `edits` (LSP positions in `doc`, the text of the file's bytes) as byte spans.
pub fn spans(doc: &DocText, edits: &[TextEdit], enc: Encoding) -> Vec<Span> {
    edits
        .iter()
        .map(|e| {
            let start = doc.disk_offset(e.range.start, enc);
            Span {
                start,
                end: doc.disk_offset(e.range.end, enc).max(start),
                text: e.new_text.clone(),
            }
        })
        .collect()
}

/// Non-overlapping spans applied to `bytes`.
pub fn splice(bytes: &[u8], spans: &[Span]) -> Vec<u8> {
    let mut order: Vec<&Span> = spans.iter().collect();
    // Later spans first, so earlier offsets stay valid.
    order.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = bytes.to_vec();
    for s in order {
        out.splice(s.start..s.end, s.text.bytes());
    }
    out
}

/// Replacements shorter than this on one line are already as narrow as a usage.
const NARROW: usize = 256;

/// `span` split into the parts of it that change.
pub fn narrow(bytes: &[u8], span: Span) -> Vec<Span> {
    let Ok(old) = std::str::from_utf8(&bytes[span.start..span.end]) else {
        return vec![span];
    };
    if old.len() < NARROW && !old.contains('\n') {
        return vec![span];
    }
    let (a, b) = (tokens(old), tokens(&span.text));
    let mut offsets = Vec::with_capacity(a.len() + 1);
    let mut at = span.start;
    for t in &a {
        offsets.push(at);
        at += t.len();
    }
    offsets.push(at);
    let mut out: Vec<Span> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        if let similar::DiffOp::Equal { .. } = op {
            continue;
        }
        let (old_range, new_range) = (op.old_range(), op.new_range());
        let (start, end) = (offsets[old_range.start], offsets[old_range.end]);
        let text: String = b[new_range].concat();
        match out.last_mut() {
            // A delete and an insert at the same place are one replacement.
            Some(last) if last.end == start => {
                last.end = end;
                last.text.push_str(&text);
            }
            _ => out.push(Span { start, end, text }),
        }
    }
    out
}

/// Identifiers (runs of alphanumerics and `_`) and every other character alone.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut word_start = None;
    for (i, c) in s.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, word_start) {
            (true, None) => word_start = Some(i),
            (true, Some(_)) => {}
            (false, start) => {
                if let Some(w) = start {
                    out.push(&s[w..i]);
                    word_start = None;
                }
                out.push(&s[i..i + c.len_utf8()]);
            }
        }
    }
    if let Some(w) = word_start {
        out.push(&s[w..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_file_replacement_narrows_to_the_renamed_identifiers() {
        let old = "from geo import fläche\nprint(\"ü\", fläche(2, 3), fläche_x(4))\n";
        let new = old
            .replace("fläche(", "area(")
            .replace("import fläche", "import area");
        let whole = Span {
            start: 0,
            end: old.len(),
            text: new.clone(),
        };
        let narrow = narrow(old.as_bytes(), whole.clone());
        let changed: Vec<(&str, &str)> = narrow
            .iter()
            .map(|s| (&old[s.start..s.end], s.text.as_str()))
            .collect();
        assert_eq!(changed, [("fläche", "area"), ("fläche", "area")]);
        // `fläche_x` is another identifier: untouched by the diff, not split.
        assert_eq!(narrow.len(), 2);
        assert_eq!(splice(old.as_bytes(), &narrow), new.as_bytes());
        assert_eq!(splice(old.as_bytes(), &[whole]), new.as_bytes());
    }

    #[test]
    fn short_edits_and_non_utf8_stay_as_they_are() {
        let short = Span {
            start: 0,
            end: 3,
            text: "xyz".into(),
        };
        assert_eq!(narrow(b"abc def", short.clone()), [short]);
        let bytes = b"\xff\xfe\n\n";
        let odd = Span {
            start: 0,
            end: 4,
            text: "ok".into(),
        };
        assert_eq!(narrow(bytes, odd.clone()), [odd]);
    }
}
