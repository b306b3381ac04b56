//! The daemon's door to the declaration model (the `lean-ctx-syntax` crate): parses
//! taken under a memory budget, and symbols, positions and kinds in the wire's types.
//! Daemon code parses through [`extract`] and [`syntax_error`] here, never the
//! crate's own, so no parse escapes the budget.

use lean_ctx_shared::{
    Position, Range,
    protocol::{SymbolInfo, SymbolKind},
};
use lean_ctx_syntax::{FileSymbols, Lang, Symbol};

use crate::budget::Inflight;

/// What parses hold at once, daemon-wide, counted as [`PARSE_BYTES_PER_BYTE`] times
/// their source: with `index.max_file_bytes` raised, concurrent parses of large
/// files take turns (one 100 MB file's parse peaked at 2.9 GB) instead of adding up.
/// Parses of files within the default limit (1 MiB) are not counted: thirty-two of
/// them would fit at once, more than the indexer runs.
static PARSES: Inflight = Inflight::new(1 << 30);
/// A parse's memory per byte of source, rounded up from that peak (syntax tree,
/// skeleton and symbols together).
const PARSE_BYTES_PER_BYTE: u64 = 32;
/// Longest a parse waits for its turn; past it, it runs anyway (a slow answer, not
/// a refusal: the limit it paces was already the user's choice).
const PARSE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);
/// A parse's charge up to which it skips the budget: a file of the default
/// `index.max_file_bytes` (1 MiB).
const SMALL_PARSE: u64 = (1 << 20) * PARSE_BYTES_PER_BYTE;

/// Runs `parse` over `src` in its turn. A file within the default limit never waits
/// (thirty-two of them fit): the indexer's thousands of small parses skip the
/// budget's lock.
fn in_turn<T>(src: &[u8], parse: impl FnOnce() -> T) -> T {
    let charge = src.len() as u64 * PARSE_BYTES_PER_BYTE;
    let _turn = (charge > SMALL_PARSE).then(|| PARSES.take(charge, PARSE_WAIT));
    parse()
}

/// A file's declarations ordered by start, to find the one a byte lies in.
#[derive(Debug)]
pub struct Spans<'a>(Vec<(usize, usize, Symbol<'a>)>);

impl<'a> Spans<'a> {
    pub fn new(symbols: &'a FileSymbols) -> Spans<'a> {
        let mut spans: Vec<_> = symbols
            .all()
            .map(|s| (s.bytes().start, s.bytes().end, s))
            .collect();
        spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        Spans(spans)
    }

    /// The innermost declaration holding byte `at`: of those starting at or before
    /// it, the last that still holds it (ranges nest).
    pub fn innermost(&self, at: usize) -> Option<Symbol<'a>> {
        let before = self.0.partition_point(|s| s.0 <= at);
        let (.., sym) = self.0[..before].iter().rev().find(|s| at < s.1)?;
        Some(*sym)
    }
}

/// [`lean_ctx_syntax::extract`], in its turn.
pub fn extract(lang: Lang, src: &[u8]) -> FileSymbols {
    in_turn(src, || lean_ctx_syntax::extract(lang, src))
}

/// [`lean_ctx_syntax::syntax_error`], in its turn, at a wire position.
pub fn syntax_error(lang: Lang, src: &[u8]) -> Option<Position> {
    in_turn(src, || lean_ctx_syntax::syntax_error(lang, src)).map(Wire::wire)
}

/// The declaration model's values as the wire spells them.
pub trait Wire {
    type Wire;
    fn wire(self) -> Self::Wire;
}

impl Wire for lean_ctx_syntax::Position {
    type Wire = Position;
    fn wire(self) -> Position {
        Position::new(self.line, self.column)
    }
}

impl Wire for lean_ctx_syntax::Range {
    type Wire = Range;
    fn wire(self) -> Range {
        Range::new(self.start.wire(), self.end.wire())
    }
}

impl Wire for lean_ctx_syntax::SymbolKind {
    type Wire = SymbolKind;
    fn wire(self) -> SymbolKind {
        // Both lists are in one order, checked by the test below.
        SymbolKind::ALL[self as usize]
    }
}

/// A wire position in the declaration model's type (the same units).
pub fn position(at: Position) -> lean_ctx_syntax::Position {
    lean_ctx_syntax::Position::new(at.line, at.column)
}

/// `sym` in the wire form, keeping `depth` levels of children.
pub fn info(sym: &Symbol<'_>, depth: u32) -> SymbolInfo {
    SymbolInfo {
        name: sym.name().to_string(),
        kind: sym.kind().wire(),
        name_path: sym.name_path().to_string(),
        range: sym.range().wire(),
        name_range: sym.name_range().wire(),
        signature: sym.signature().to_string(),
        // The index keeps no bytes; answers that read them hash (backing::hashes).
        hash: None,
        children: if depth == 0 {
            Vec::new()
        } else {
            sym.children().map(|c| info(&c, depth - 1)).collect()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_the_wire_kind_of_its_name() {
        for kind in lean_ctx_syntax::SymbolKind::ALL {
            assert_eq!(kind.wire().as_str(), kind.as_str());
        }
        assert_eq!(
            lean_ctx_syntax::SymbolKind::ALL.len(),
            SymbolKind::ALL.len()
        );
    }
}
