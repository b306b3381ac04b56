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
        let ext = path.extension()?.to_str()?;
        Some(match ext {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
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
