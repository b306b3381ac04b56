//! The hash of every symbol an answer lists (`outline`, `symbols_overview`,
//! `search_symbol`, `read`'s map and signatures): BLAKE3 of the declaration's bytes on
//! disk from its doc comment (`edit::guarded`: everything a replacement may rewrite),
//! exactly what an edit's `expected_hash` is checked against, so an agent's
//! first edit of a symbol it found is guarded. Each hashed text is remembered
//! ([`Reads::hashed`]) so a stale hash's `CONFLICT` can show what changed since.
//!
//! Files are read through the jail, once per file of an answer, and hashed only while
//! they hold exactly the bytes the parse was made of: a symbol whose file changed
//! since its parse gets no hash rather than the hash of other bytes.

use lean_ctx_shared::{Range, protocol::SymbolInfo};

use crate::{
    index::{decl::doc_start, lang::Lang, store::Hash, text::LineIndex},
    jail::{Jailed, Want},
    reads::Reads,
    registry::Project,
};

/// BLAKE3 hex of `text`, remembered with it. A text kept already is not copied
/// again: an overview lists every symbol of a file, whose texts nest, and copying
/// them on each repeat of the same answer was most of its time.
pub fn remember(text: &[u8], reads: &Reads) -> String {
    let hash = blake3::hash(text).to_hex().to_string();
    if !reads.keeps(&hash) {
        reads.hashed(&hash, String::from_utf8_lossy(text).into());
    }
    hash
}

/// One file's bytes as its parse saw them.
#[derive(Debug)]
pub struct Source {
    bytes: Vec<u8>,
    lines: LineIndex,
    /// The file's language, by its name as the index chose it: where doc comments
    /// are.
    lang: Option<Lang>,
}

impl Source {
    /// `file`'s bytes now, if they are still the parsed ones (`parsed`: their BLAKE3).
    pub fn read(file: &Jailed, parsed: &Hash) -> Option<Source> {
        let bytes = file.read().ok()?;
        (blake3::hash(&bytes).as_bytes() == parsed).then(|| Source::new(&file.rel, bytes))
    }

    /// The bytes of the file `rel` (root-relative: its name gives its language).
    pub fn new(rel: &str, bytes: Vec<u8>) -> Source {
        Source {
            lines: LineIndex::new(&bytes),
            lang: Lang::from_path(std::path::Path::new(rel)),
            bytes,
        }
    }

    /// The indexed file `rel` of `project`, jailed, as [`Source::read`].
    pub fn of(project: &Project, rel: &str, parsed: &Hash) -> Option<Source> {
        Source::read(&project.resolve(rel, Want::File).ok()?, parsed)
    }

    /// The hash of the symbol reported at `range`: its bytes from its doc comment.
    pub fn hash(&self, range: Range, reads: &Reads) -> Option<String> {
        let start = self.lines.offset(&self.bytes, range.start)?;
        let end = self.lines.offset(&self.bytes, range.end)?;
        // Offsets in the parsed text, after a byte order mark (as the parse's).
        let bom = crate::bom::len(&self.bytes);
        let start = match self.lang {
            Some(lang) if bom <= start && start <= end && end <= self.bytes.len() => {
                bom + doc_start(lang, &self.bytes[bom..], start - bom)
            }
            _ => start,
        };
        Some(remember(self.bytes.get(start..end)?, reads))
    }

    /// Hashes `info` and its children.
    pub fn fill(&self, info: &mut SymbolInfo, reads: &Reads) {
        info.hash = self.hash(info.range, reads);
        for child in &mut info.children {
            self.fill(child, reads);
        }
    }
}
