//! The hash of every symbol an answer lists (`outline`, `symbols_overview`,
//! `search_symbol`, `read`'s map and signatures): BLAKE3 of the declaration's bytes on
//! disk from its doc comment (`edit::guarded`: everything a replacement may rewrite),
//! exactly what an edit's `expected_hash` is checked against, so an agent's
//! first edit of a symbol it found is guarded. Each hashed text is remembered for its
//! root ([`Texts::hashed`]) so a stale hash's `CONFLICT` can show what changed since.
//!
//! Files are read through the jail, once per file of an answer, and hashed only while
//! they hold exactly the bytes the parse was made of: a symbol whose file changed
//! since its parse gets no hash rather than the hash of other bytes.

use lean_ctx_shared::protocol::SymbolInfo;

use lean_ctx_syntax::Symbol;

use crate::{
    declarations,
    index::ids::Hash,
    jail::{Jailed, Want},
    reads::Texts,
    registry::Project,
};

/// BLAKE3 hex of `text`, remembered with it. A text kept already is not copied
/// again: an overview lists every symbol of a file, whose texts nest, and copying
/// them on each repeat of the same answer was most of its time.
pub fn remember(text: &[u8], texts: Texts<'_>) -> String {
    let hash = blake3::hash(text).to_hex().to_string();
    if !texts.keeps(&hash) {
        texts.hashed(&hash, String::from_utf8_lossy(text).into());
    }
    hash
}

/// One file's bytes as its parse saw them.
#[derive(Debug)]
pub struct Source {
    bytes: Vec<u8>,
}

impl Source {
    /// `file`'s bytes now, if they are still the parsed ones (`parsed`: their BLAKE3).
    pub fn read(file: &Jailed, parsed: &Hash) -> Option<Source> {
        let bytes = file.read().ok()?;
        (blake3::hash(&bytes).as_bytes() == parsed).then(|| Source::new(bytes))
    }

    /// Bytes the caller knows a parse was made of.
    pub fn new(bytes: Vec<u8>) -> Source {
        Source { bytes }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The indexed file `rel` of `project`, jailed, as [`Source::read`].
    pub fn of(project: &Project, rel: &str, parsed: &Hash) -> Option<Source> {
        Source::read(&project.resolve(rel, Want::File).ok()?, parsed)
    }

    /// The hash of `sym`, of the parse of these bytes: the range an edit guards
    /// ([`crate::edit::guarded`]), by the parse's own offsets. Not by the answer's
    /// lines and columns: mapping those back took a line index of the whole file
    /// and a scan of each line, a tenth of an overview's time.
    pub fn hash(&self, sym: Symbol<'_>, texts: Texts<'_>) -> Option<String> {
        Some(remember(self.bytes.get(crate::edit::guarded(sym))?, texts))
    }

    /// Hashes `info` (`sym`'s, from [`Symbol::info`]) and its children.
    fn fill(&self, sym: Symbol<'_>, info: &mut SymbolInfo, texts: Texts<'_>) {
        info.hash = self.hash(sym, texts);
        for (child, info) in sym.children().zip(&mut info.children) {
            self.fill(child, info, texts);
        }
    }
}

/// `sym`'s answer to `depth`, each symbol in it hashed from `source` if there is one
/// (no hashes for a file that changed since its parse).
pub fn info(source: Option<&Source>, sym: Symbol<'_>, depth: u32, texts: Texts<'_>) -> SymbolInfo {
    let mut info = declarations::info(&sym, depth);
    if let Some(source) = source {
        source.fill(sym, &mut info, texts);
    }
    info
}
