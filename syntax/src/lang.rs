//! The languages the headless index parses, chosen by file extension, and their
//! tree-sitter grammars.

use std::{cell::RefCell, collections::HashMap, path::Path};

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
    Java,
    Kotlin,
}

impl Lang {
    pub fn from_path(path: &Path) -> Option<Lang> {
        Lang::from_name(path.file_name()?.as_encoded_bytes())
    }

    /// By a file name's extension, as `Path::extension` finds it (`.rs` alone is a
    /// name without one). Bytes, so the walk needs no `Path` per directory entry.
    pub fn from_name(name: &[u8]) -> Option<Lang> {
        let dot = name.iter().rposition(|&b| b == b'.').filter(|&i| i > 0)?;
        Some(match &name[dot + 1..] {
            b"rs" => Lang::Rust,
            b"py" | b"pyi" => Lang::Python,
            b"ts" | b"mts" | b"cts" => Lang::TypeScript,
            b"tsx" => Lang::Tsx,
            b"js" | b"mjs" | b"cjs" | b"jsx" => Lang::JavaScript,
            b"go" => Lang::Go,
            b"java" => Lang::Java,
            b"kt" | b"kts" => Lang::Kotlin,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::Kotlin => "kotlin",
        }
    }

    /// The LSP `languageId` of its documents.
    pub fn lsp_language_id(self) -> &'static str {
        match self {
            Lang::Tsx => "typescriptreact",
            other => other.name(),
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
        }
    }

    /// Parses `src`, only the `included` ranges of it when there are any. Parsers are
    /// per thread (they are not `Sync`) and reused.
    pub fn parse(self, src: &[u8], included: &[tree_sitter::Range]) -> Option<tree_sitter::Tree> {
        thread_local! {
            static PARSERS: RefCell<HashMap<Lang, tree_sitter::Parser>> = RefCell::new(HashMap::new());
        }
        PARSERS.with(|parsers| {
            let mut parsers = parsers.borrow_mut();
            let parser = parsers.entry(self).or_insert_with(|| {
                let mut p = tree_sitter::Parser::new();
                p.set_language(&self.grammar())
                    .expect("grammar ABI matches tree-sitter");
                p
            });
            // An empty list means the whole text; ranges from `skeleton` are ordered
            // and disjoint, so setting them cannot fail.
            parser.set_included_ranges(included).ok()?;
            parser.parse(src, None)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_has_the_extension_path_gives_it() {
        for name in [
            "a.rs", ".rs", "..rs", "a.b.py", "rs", "a.", "a.RS", "x.tsx", ".a.go",
        ] {
            let by_path = Lang::from_path(Path::new(name));
            assert_eq!(Lang::from_name(name.as_bytes()), by_path, "{name}");
        }
        assert_eq!(Lang::from_name(b"a.rs"), Some(Lang::Rust));
        assert_eq!(Lang::from_name(b".rs"), None);
    }
}
