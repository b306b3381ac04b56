//! The languages the crate reads, one module each, and the one table that registers
//! them (`register!` below): a language is its module's `Language`, which says how
//! files are named, which grammar parses them, what each node of its tree is
//! (`classify`), and which fast paths it has (a declaration reader, a skeleton lexer).
//!
//! # Adding a language
//!
//! 1. Add its grammar crate to the workspace's and this crate's `Cargo.toml`.
//! 2. Write `languages/<name>.rs`: a `classify` that says which nodes are symbols
//!    (`classify.rs` has the vocabulary: `Def`, `Visit`, `named`, `one`), its
//!    comment and string rules, keywords, attribute lines and conformance probe, and
//!    a `pub(super) const Language`.
//! 3. Register it: one line at the end of the `register!` list (never in the middle:
//!    a language's place there is its byte in the persisted index).
//! 4. Give it outline snapshots (its module's tests, through `tests::check`), a
//!    pinned corpus in `daemon/benches/fetch-conformance.sh` (the corpus directory
//!    is the language's name) and a row in `daemon/tests/conformance.rs`'s sample.
//! 5. Its language servers: a row in `shared/src/servers.rs` and an `[lsp]` key in
//!    `daemon/src/config.rs`; the files their toolchains read above a root in
//!    `daemon/src/language_servers/ancestry.rs`.
//!
//! Without a declaration reader or a skeleton lexer a language is parsed whole by
//! tree-sitter: correct, several times slower. A reader or lexer, added later, must
//! keep the crate's invariant (`lib.rs`): the same symbols as a whole parse, checked
//! by `fast_check` on real code.

use std::{cell::RefCell, collections::HashMap, ops::Range, path::Path};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::{SymbolKind, classify::Visit, decl::Comments, rust_items::Decl};

mod bash;
mod c;
mod csharp;
mod elixir;
mod go;
mod haskell;
mod java;
mod kotlin;
mod lua;
mod ocaml;
mod php;
mod python;
mod r;
mod ruby;
mod rust;
mod scala;
mod script;
mod swift;
mod text;

/// What the crate knows of one language.
#[derive(Debug)]
pub(crate) struct Language {
    /// Lowercase, as `daemon status` and the configuration name it.
    pub name: &'static str,
    /// The file name extensions, as `Path::extension` finds them.
    pub extensions: &'static [&'static str],
    /// The LSP `languageId` of its documents.
    pub lsp_id: &'static str,
    /// `None` for [`Lang::Text`] alone: a file without a grammar has no symbols.
    pub grammar: Option<fn() -> tree_sitter::Language>,
    /// What a node is, as far as symbols go; `parent` is the kind of the symbol
    /// whose container is being walked.
    pub classify: for<'t> fn(Node<'t>, &[u8], Option<SymbolKind>) -> Vec<Visit<'t>>,
    /// The node kind of an attribute that is an item's sibling, not its child
    /// (Rust's `#[…]`): the item's range starts at the first such sibling above it.
    pub sibling_attribute: Option<&'static str>,
    pub comments: Comments,
    /// The node kinds of an import (`use`, `import`, `from … import`): a reference
    /// inside one names the symbol, it does not use it.
    pub imports: &'static [&'static str],
    /// The words that start a declaration (keywords and modifiers): a range starts
    /// at the first of them or at an attribute before it, never after one.
    pub keywords: &'static [&'static str],
    /// Whether a line right above a declaration (trimmed), or a word of its head
    /// outside brackets, is an attribute or begins one: such a line is in the
    /// declaration's range.
    pub attribute: fn(&[u8]) -> bool,
    /// The smallest declaration that is valid beside a symbol at `site`: what the
    /// conformance harness (`daemon/src/conformance.rs`) inserts before each one.
    pub probe: fn(ProbeSite) -> &'static str,
    /// The declarations read off the tokens, `None` where the reader cannot vouch
    /// for the file.
    pub declarations: Option<Reader>,
    pub skeleton: Option<SkeletonLexer>,
}

/// Where a declaration is to be inserted: before a symbol of `kind`, inside one of
/// `parent` (`None` at the top), `grouped` where that symbol's declaration does not
/// start with a keyword of its own (a spec in Go's `const (…)` group).
#[derive(Clone, Copy, Debug)]
pub struct ProbeSite {
    pub kind: SymbolKind,
    pub parent: Option<SymbolKind>,
    pub grouped: bool,
}

/// `@Name` and `@a.b(…)` (not Java's `@interface`): the attribute of the languages
/// that write them so.
pub(crate) fn at_attribute(text: &[u8]) -> bool {
    text.starts_with(b"@") && !text.starts_with(b"@interface")
}

/// A declaration reader (`<language>_items.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader {
    /// The declarations of a file read off its tokens, `None` where it cannot vouch
    /// for the file.
    pub read: fn(&[u8]) -> Option<Vec<Decl>>,
    pub name: Option<DeclName>,
    /// Where the text of one of several names (a [`Decl`] with a `head`) starts,
    /// from its name's start, where it starts before its name (C's declarators:
    /// `*b` of `int a, *b;`); `None`: at its name.
    pub own_start: Option<fn(&[u8], usize) -> usize>,
}

/// A declaration's name where the walker's is not its name's bytes as they stand
/// (C#'s `operator +`, R's backticked names): from the source, the declaration's
/// kind and its name's bytes; `None` for the bytes as they stand.
pub(crate) type DeclName = fn(&[u8], SymbolKind, Range<usize>) -> Option<String>;

impl Reader {
    /// A reader whose names are their bytes.
    pub(crate) const fn new(read: fn(&[u8]) -> Option<Vec<Decl>>) -> Reader {
        Reader {
            read,
            name: None,
            own_start: None,
        }
    }
}

/// What fills in the text around a blanked range.
pub(crate) type Mark = fn(&mut [u8], &Range<usize>);

/// A lexer that finds what the symbol walker never enters (`skeleton.rs`).
#[derive(Debug)]
pub(crate) struct SkeletonLexer {
    /// The ranges to skip, in order, disjoint; empty where the lexer cannot follow
    /// the text.
    pub skippable: fn(&[u8]) -> Vec<Range<usize>>,
    /// Fills in what the grammar needs around a blanked range (Python: the body
    /// becomes a string), if anything.
    pub mark: Option<Mark>,
    /// Any syntax error in the skeleton, not only one next to a skipped range,
    /// sends the file to a whole parse (Python: a misread string moves every
    /// indentation after it).
    pub any_error: bool,
}

/// Declares [`Lang`] with one variant per registered language, in order, and the
/// table of their [`Language`]s.
macro_rules! register {
    ($($variant:ident => $language:path,)*) => {
        /// A language the crate reads.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Lang {
            $($variant,)*
        }

        impl Lang {
            /// Every language, in registration order: a language's index here is its
            /// byte in the persisted index (`symbols/codec.rs`).
            pub const ALL: &[Lang] = &[$(Lang::$variant,)*];
        }

        const LANGUAGES: &[&Language] = &[$(&$language,)*];
    };
}

register! {
    Rust => rust::RUST,
    Python => python::PYTHON,
    TypeScript => script::TYPESCRIPT,
    Tsx => script::TSX,
    JavaScript => script::JAVASCRIPT,
    Go => go::GO,
    Java => java::JAVA,
    Kotlin => kotlin::KOTLIN,
    Text => text::TEXT,
    C => c::C,
    Cpp => c::CPP,
    CSharp => csharp::CSHARP,
    Ruby => ruby::RUBY,
    Php => php::PHP,
    Bash => bash::BASH,
    Lua => lua::LUA,
    Scala => scala::SCALA,
    Swift => swift::SWIFT,
    Haskell => haskell::HASKELL,
    Elixir => elixir::ELIXIR,
    OCaml => ocaml::OCAML,
    R => r::R,
}

impl Lang {
    pub(crate) fn language(self) -> &'static Language {
        LANGUAGES[self as usize]
    }

    /// The language of the file `path` names; `None` only for a path without a file
    /// name (`/`, `..`).
    pub fn from_path(path: &Path) -> Option<Lang> {
        Lang::from_name(path.file_name()?.as_encoded_bytes())
    }

    /// By a file name's extension, as `Path::extension` finds it (`.rs` alone is a
    /// name without one): a code language's, else [`Lang::Text`]; `None` only for an
    /// empty name. Bytes, so the walk needs no `Path` per directory entry.
    pub fn from_name(name: &[u8]) -> Option<Lang> {
        if name.is_empty() {
            return None;
        }
        let code = name
            .iter()
            .rposition(|&b| b == b'.')
            .filter(|&i| i > 0)
            .and_then(|dot| {
                let ext = &name[dot + 1..];
                LANGUAGES
                    .iter()
                    .position(|l| l.extensions.iter().any(|e| e.as_bytes() == ext))
            });
        Some(code.map_or(Lang::Text, |at| Lang::ALL[at]))
    }

    /// What the file `name` (a file name, not a path) is, for listings: the
    /// language's name, or for [`Lang::Text`] a kind its name or extension says
    /// (`toml`, `markdown`, `shell`, …; `text` when neither does).
    pub fn kind(self, name: &str) -> &'static str {
        match self {
            Lang::Text => text::kind(name),
            code => code.name(),
        }
    }

    /// Whether the language has a grammar, and so symbols: every one but
    /// [`Lang::Text`].
    pub fn is_code(self) -> bool {
        self.language().grammar.is_some()
    }

    pub fn name(self) -> &'static str {
        self.language().name
    }

    /// The extension its files usually have (`rs`); `txt` for [`Lang::Text`].
    pub fn extension(self) -> &'static str {
        self.language().extensions.first().copied().unwrap_or("txt")
    }

    /// The words that start a declaration (keywords and modifiers).
    pub fn keywords(self) -> &'static [&'static str] {
        self.language().keywords
    }

    /// Whether `text`, a trimmed line above a declaration or a word of its head, is
    /// an attribute (`#[inline]`, `@Override`) or begins one.
    pub fn is_attribute(self, text: &[u8]) -> bool {
        (self.language().attribute)(text)
    }

    /// The smallest declaration valid at `site` (the conformance harness's probe).
    pub fn probe(self, site: ProbeSite) -> &'static str {
        (self.language().probe)(site)
    }

    /// The LSP `languageId` of its documents.
    pub fn lsp_language_id(self) -> &'static str {
        self.language().lsp_id
    }

    /// The language whose language server this one's files go to by default: TSX
    /// TypeScript's, C C++'s (clangd serves both); itself otherwise.
    pub fn shares_server_with(self) -> Lang {
        match self {
            Lang::Tsx => Lang::TypeScript,
            Lang::C => Lang::Cpp,
            other => other,
        }
    }

    /// How comments and strings are written (`decl.rs` reads them with these).
    pub fn comments(self) -> &'static Comments {
        &self.language().comments
    }

    /// The byte ranges of `src`'s imports (`use`, `import`, `from … import`), in
    /// order; empty where it does not parse at all.
    pub fn imports(self, src: &[u8]) -> Vec<Range<usize>> {
        let kinds = self.language().imports;
        let Some(tree) = self.parse(src, &[]) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        // Depth first, not into an import: a `use` may sit in a module or a body.
        'walk: loop {
            let node = cursor.node();
            if kinds.contains(&node.kind()) {
                out.push(node.byte_range());
            } else if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        out
    }

    /// Parses `src`, only the `included` ranges of it when there are any; `None` for
    /// [`Lang::Text`]. Parsers are per thread (they are not `Sync`) and reused.
    pub fn parse(self, src: &[u8], included: &[tree_sitter::Range]) -> Option<tree_sitter::Tree> {
        let grammar = self.language().grammar?;
        thread_local! {
            static PARSERS: RefCell<HashMap<Lang, tree_sitter::Parser>> = RefCell::new(HashMap::new());
        }
        PARSERS.with(|parsers| {
            let mut parsers = parsers.borrow_mut();
            let parser = parsers.entry(self).or_insert_with(|| {
                let mut p = tree_sitter::Parser::new();
                p.set_language(&grammar())
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
        assert_eq!(Lang::from_name(b".rs"), Some(Lang::Text));
        assert_eq!(Lang::from_name(b"Makefile"), Some(Lang::Text));
        assert_eq!(Lang::from_name(b"Cargo.toml"), Some(Lang::Text));
        assert_eq!(Lang::from_name(b""), None);
        for (name, kind) in [
            ("Cargo.toml", "toml"),
            ("a.YML", "yaml"),
            ("README.md", "markdown"),
            ("Makefile", "make"),
            ("run.sh", "bash"),
            ("run.zsh", "shell"),
            (".env", "text"),
            ("LICENSE", "text"),
            ("main.rs", "rust"),
        ] {
            let lang = Lang::from_name(name.as_bytes()).unwrap();
            assert_eq!(lang.kind(name), kind, "{name}");
        }
    }

    #[test]
    fn imports_are_found_in_every_language_and_uses_are_not() {
        for (lang, src, import, used) in [
            (
                Lang::Rust,
                "use crate::a::foo;\nmod m { use super::foo as f; }\nfn g() { foo(); }\n",
                "foo as",
                "foo()",
            ),
            (
                Lang::Python,
                "from a import foo\nimport b\nfoo()\n",
                "foo\n",
                "foo()",
            ),
            (
                Lang::TypeScript,
                "import {\n  foo,\n} from './a';\nfoo();\n",
                "foo,",
                "foo()",
            ),
            (
                Lang::Tsx,
                "import { foo } from './a';\nconst x = <div>{foo()}</div>;\n",
                "foo }",
                "foo()",
            ),
            (
                Lang::JavaScript,
                "import foo from './a';\nfoo();\n",
                "foo from",
                "foo()",
            ),
            (
                Lang::Go,
                "package p\nimport (\n  \"fmt\"\n)\nfunc f() { fmt.Println() }\n",
                "\"fmt\"",
                "fmt.P",
            ),
            (
                Lang::Java,
                "import a.b.Foo;\nclass C { Foo f; }\n",
                "Foo;",
                "Foo f",
            ),
            (
                Lang::Kotlin,
                "import a.b.Foo\nclass C { val f: Foo? = null }\n",
                "Foo\n",
                "Foo?",
            ),
        ] {
            let imports = lang.imports(src.as_bytes());
            let inside = |at: &str| {
                let at = src.find(at).unwrap();
                imports.iter().any(|r| r.contains(&at))
            };
            assert!(inside(import), "{lang:?}: {imports:?}");
            assert!(!inside(used), "{lang:?}: {imports:?}");
        }
    }

    #[test]
    fn every_registered_language_is_found_by_its_extensions_and_its_place() {
        assert_eq!(Lang::ALL.len(), LANGUAGES.len());
        for (at, &lang) in Lang::ALL.iter().enumerate() {
            assert_eq!(lang as usize, at, "{lang:?}");
            assert!(!lang.name().is_empty(), "{lang:?}");
            for ext in lang.language().extensions {
                assert_eq!(
                    Lang::from_name(format!("a.{ext}").as_bytes()),
                    Some(lang),
                    "{ext} is claimed by another language too"
                );
            }
            // The grammar loads and parses; only text has none.
            assert_eq!(
                lang.parse(b"", &[]).is_some(),
                lang != Lang::Text,
                "{lang:?}"
            );
            assert_eq!(lang.is_code(), lang != Lang::Text, "{lang:?}");
        }
    }
}
