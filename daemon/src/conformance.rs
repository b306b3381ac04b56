//! The conformance harness of the declaration model (`index/decl.rs`): every symbol
//! of every file of a corpus nobody here wrote, through the daemon's own extraction
//! and edit planning (`edit::plan_bytes`, no file system, no daemon), checked for
//!
//! - (a) replacing it with its own text is byte-identical: its reported range, that
//!   text with a heredoc's trailing newline, its core alone (the attributes kept) and,
//!   where it has one, its doc comment with it (the doc comment replaced);
//! - (b) inserting a declaration before it lands above its doc comment and
//!   attributes: the file parses, the item keeps its doc comment and attributes, the
//!   inserted declaration took none of them, and removing the insertion gives the
//!   file back byte for byte;
//! - (c) its range starts at its first attribute or keyword: no keyword or modifier of
//!   the language right before it (unless a declaration of several names shares it),
//!   no attribute or decorator line right above it.
//!
//! Files the grammar itself cannot parse cleanly are counted apart (`unparsed`), not
//! checked. The bench `daemon/benches/conformance.rs` runs it over whole corpora, the test
//! `daemon/tests/conformance.rs` over a fixed sample; CONFORMANCE.md has the figures.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use lean_ctx_shared::protocol::{EditAction, EditTarget, SymbolKind as K};

use crate::{
    edit::{Edit, Source, plan_in},
    index::{
        lang::Lang,
        symbols::{Symbol, extract, syntax_error},
    },
};

/// One language's figures over a corpus.
#[derive(Debug, Default)]
pub struct Tally {
    /// Files the grammar parses with a syntax error: outside what the model can
    /// promise (the symbols of a broken parse), counted, not checked.
    pub unparsed: usize,
    pub files: usize,
    pub symbols: usize,
    /// Symbols with at least one failed check.
    pub failed: usize,
    /// The first failures, described (`path: name_path: what`).
    pub failures: Vec<String>,
}

/// Failures kept per language for the report.
const KEPT: usize = 50;

/// Every file under `dir` the index parses, checked, tallied per language.
pub fn check_dir(dir: &Path, every: usize) -> BTreeMap<Lang, Tally> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.is_file() && Lang::from_path(p).is_some())
        .collect();
    files.sort();
    let mut out: BTreeMap<Lang, Tally> = BTreeMap::new();
    for path in files.iter().step_by(every.max(1)) {
        let Some(lang) = Lang::from_path(path) else {
            continue;
        };
        let Ok(src) = std::fs::read(path) else {
            continue;
        };
        let rel = path.strip_prefix(dir).unwrap_or(path).display().to_string();
        let tally = out.entry(lang).or_default();
        let results = check_file(lang, &src);
        if results.is_empty() && syntax_error(lang, &src).is_some() {
            tally.unparsed += 1;
            continue;
        }
        tally.files += 1;
        for (name_path, failure) in results {
            match failure {
                None => tally.symbols += 1,
                Some(why) => {
                    tally.symbols += 1;
                    tally.failed += 1;
                    if tally.failures.len() < KEPT {
                        tally.failures.push(format!("{rel}: {name_path}: {why}"));
                    }
                }
            }
        }
    }
    out
}

/// Each symbol of `src` by name path, with its first failed check.
pub fn check_file(lang: Lang, src: &[u8]) -> Vec<(String, Option<String>)> {
    let parsed = extract(lang, src);
    let source = Source::new(lang, src.to_vec());
    if parsed.binary || !source.is_clean() {
        return Vec::new();
    }
    let parents = parents(parsed.top(), None);
    parents
        .iter()
        .map(|&(s, _)| {
            let failure = own_text(&source, src, s)
                .and_then(|()| starts_at_first_keyword(lang, src, s, &parents))
                .and_then(|()| insert_before(&source, lang, src, s, &parents))
                .err();
            (s.name_path().to_string(), failure)
        })
        .collect()
}

/// Every symbol in document order with its parent's kind.
fn parents<'a>(
    level: impl Iterator<Item = Symbol<'a>>,
    parent: Option<K>,
) -> Vec<(Symbol<'a>, Option<K>)> {
    let mut out = Vec::new();
    for s in level {
        out.push((s, parent));
        out.extend(parents(s.children(), Some(s.kind())));
    }
    out
}

fn edit<'a>(action: EditAction, target: &'a EditTarget, text: &'a str) -> Edit<'a> {
    Edit {
        action,
        target,
        text,
        expected_hash: None,
        force: false,
    }
}

/// The symbol by the name path an agent would use: its own, or the address
/// `AMBIGUOUS_SYMBOL` lists for it when its own names more than it (`edit::address_of`).
fn by_name(source: &Source, s: Symbol<'_>) -> EditTarget {
    EditTarget::NamePath {
        name_path: crate::edit::address_of(source.parsed(), s),
        path: None,
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())
}

/// (a): replacements by the symbol's own text leave the file as it was.
fn own_text(source: &Source, src: &[u8], s: Symbol<'_>) -> Result<(), String> {
    let end = s.bytes().end;
    let range = utf8(&src[s.bytes()])?;
    let mut texts = vec![
        ("its range", range.to_string()),
        ("its range and a newline", format!("{range}\n")),
        ("its core", utf8(&src[s.core_start()..end])?.to_string()),
    ];
    if s.doc_start() < s.bytes().start {
        texts.push((
            "its doc comment and range",
            utf8(&src[s.doc_start()..end])?.to_string(),
        ));
    }
    let target = by_name(source, s);
    for (what, text) in texts {
        let planned = plan_in(
            source,
            "file",
            &edit(EditAction::ReplaceSymbolBody, &target, &text),
        )
        .map_err(|e| format!("replace by {what}: {}", e.message))?;
        if planned.content != src {
            return Err(format!("replace by {what} changed the file"));
        }
    }
    Ok(())
}

/// Words that start a declaration (keywords and modifiers): none may stand right
/// before a range.
fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => &[
            "pub",
            "fn",
            "struct",
            "enum",
            "union",
            "trait",
            "impl",
            "mod",
            "const",
            "static",
            "type",
            "unsafe",
            "async",
            "extern",
            "macro_rules",
        ],
        Lang::Python => &["def", "class", "async"],
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[
            "export",
            "default",
            "declare",
            "abstract",
            "async",
            "function",
            "class",
            "interface",
            "type",
            "enum",
            "namespace",
            "module",
            "const",
            "let",
            "var",
            "static",
            "public",
            "private",
            "protected",
            "readonly",
            "override",
            "accessor",
        ],
        Lang::Go => &["func", "type", "var", "const"],
        Lang::Java => &[
            "public",
            "private",
            "protected",
            "static",
            "final",
            "abstract",
            "class",
            "interface",
            "enum",
            "record",
            "synchronized",
            "native",
            "transient",
            "volatile",
            "strictfp",
            "sealed",
        ],
        Lang::Kotlin => &[
            "fun",
            "class",
            "object",
            "interface",
            "val",
            "var",
            "data",
            "enum",
            "sealed",
            "open",
            "abstract",
            "override",
            "private",
            "public",
            "internal",
            "protected",
            "companion",
            "inline",
            "suspend",
            "const",
            "lateinit",
            "typealias",
            "inner",
            "value",
            "operator",
            "infix",
            "tailrec",
            "external",
            "actual",
            "expect",
        ],
    }
}

/// (c): nothing that belongs to the declaration lies before its range.
fn starts_at_first_keyword(
    lang: Lang,
    src: &[u8],
    s: Symbol<'_>,
    all: &[(Symbol<'_>, Option<K>)],
) -> Result<(), String> {
    let start = s.bytes().start;
    let before = src[..start].trim_ascii_end();
    let word_start = before
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map_or(0, |i| i + 1);
    let word = &before[word_start..];
    let shared = src[s.bytes().end..].trim_ascii_start().starts_with(b",");
    let word_line = src[line_start(src, word_start)..].trim_ascii_start();
    let in_comment = [&b"//"[..], b"*", b"/*", b"#"]
        .iter()
        .any(|c| word_line.starts_with(c));
    if !word.is_empty()
        && !shared
        && !in_comment
        && keywords(lang).iter().any(|k| k.as_bytes() == word)
    {
        return Err(format!(
            "range starts after `{}`",
            String::from_utf8_lossy(word)
        ));
    }
    // The nearest line above that is not blank: an attribute there is the
    // declaration's.
    let mut line = line_start(src, start);
    if line == 0 || !src[line..start].trim_ascii().is_empty() {
        return Ok(());
    }
    let (above, above_at) = loop {
        let prev = line_start(src, line - 1);
        let text = src[prev..line].trim_ascii();
        if !text.is_empty() || prev == 0 {
            break (text, prev);
        }
        line = prev;
    };
    // A declaration ending there (`@JvmField val A = 1`) is not an attribute line.
    if all
        .iter()
        .any(|(o, _)| (above_at..line).contains(&o.bytes().end))
    {
        return Ok(());
    }
    let attribute = match lang {
        Lang::Rust => above.starts_with(b"#[") && above.ends_with(b"]"),
        Lang::Go => false,
        _ => above.starts_with(b"@") && !above.starts_with(b"@interface"),
    };
    if attribute {
        return Err(format!(
            "range starts below the attribute `{}`",
            String::from_utf8_lossy(above)
        ));
    }
    Ok(())
}

/// A declaration to insert before `s`, valid where it lands (the container of the
/// outermost symbol on the line it lands on); `None` where only a comment would do.
fn probe(lang: Lang, src: &[u8], s: Symbol<'_>, all: &[(Symbol<'_>, Option<K>)]) -> String {
    let line = line_start(src, s.doc_start());
    let (outer, parent) = all
        .iter()
        .find(|(o, _)| line_start(src, o.doc_start()) == line)
        .copied()
        .unwrap_or((s, None));
    let grouped = !keywords(lang)
        .iter()
        .any(|k| src[outer.core_start()..].starts_with(k.as_bytes()));
    match (lang, outer.kind(), parent) {
        (Lang::Rust, K::Field, _) => "lean_ctx_probe: u8,",
        (Lang::Rust, K::EnumMember, _) => "LeanCtxProbe,",
        (Lang::Rust, ..) => "fn lean_ctx_probe() {}",
        (Lang::Python, ..) => "def lean_ctx_probe(): pass",
        (Lang::TypeScript | Lang::Tsx, _, Some(K::Interface)) => "lean_ctx_probe: number;",
        (_, K::EnumMember, _) if lang != Lang::Go => match lang {
            Lang::Java | Lang::Kotlin => "LEAN_CTX_PROBE,",
            _ => "LeanCtxProbe,",
        },
        (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, _, Some(K::Class)) => {
            "lean_ctx_probe = 0;"
        }
        (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, ..) => "function lean_ctx_probe() {}",
        (Lang::Go, K::Field, _) => "LeanCtxProbe int",
        (Lang::Go, _, Some(K::Interface)) => "LeanCtxProbe()",
        (Lang::Go, K::Constant | K::Variable, _) if grouped => "LeanCtxProbe = 0",
        (Lang::Go, K::Struct | K::Interface | K::TypeAlias, _) if grouped => "LeanCtxProbe int",
        (Lang::Go, ..) => "func lean_ctx_probe() {}",
        (Lang::Java, _, None) => "class LeanCtxProbe {}",
        (Lang::Java, ..) => "int leanCtxProbe();",
        (Lang::Kotlin, ..) => "fun leanCtxProbe() {}",
    }
    .to_string()
}

fn line_start(src: &[u8], at: usize) -> usize {
    src[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)
}

/// (b): a declaration inserted before `s` takes none of its doc comment and
/// attributes, and comes out again byte for byte.
fn insert_before(
    source: &Source,
    lang: Lang,
    src: &[u8],
    s: Symbol<'_>,
    all: &[(Symbol<'_>, Option<K>)],
) -> Result<(), String> {
    let text = probe(lang, src, s, all);
    let target = by_name(source, s);
    let planned = plan_in(
        source,
        "file",
        &edit(EditAction::InsertBeforeSymbol, &target, &text),
    )
    .map_err(|e| format!("insert-before: {}", e.message))?;
    let content = &planned.content;
    let added = content.len() - src.len();
    let at = planned.written.start;
    let mut removed = content[..at].to_vec();
    removed.extend_from_slice(&content[at + added..]);
    if removed != src {
        return Err("removing the insertion does not give the file back".into());
    }
    let after = extract(lang, content);
    let moved = after
        .all()
        .find(|n| n.name_path() == s.name_path())
        .ok_or("the item is gone after insert-before")?;
    if content[moved.doc_start()..moved.bytes().end] != src[s.doc_start()..s.bytes().end]
        || content[moved.bytes()] != src[s.bytes()]
    {
        return Err("insert-before changed the item's doc comment or attributes".into());
    }
    let written = planned.written.clone();
    let took = after.all().any(|p| {
        p.bytes().start >= written.start
            && p.bytes().start < written.end
            && (p.doc_start() < written.start || p.bytes().end > written.end)
    });
    if took {
        return Err("the inserted declaration took the item's doc comment or attributes".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression cases from real code (each names its source), and the harness's
    /// own findings on them.
    #[test]
    fn real_excerpts_conform() {
        let cases: &[(Lang, &str, &str)] = &[
            (
                Lang::Rust,
                "serde 1.0 (src/lib.rs, shortened)",
                "/// Doc.\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    /// One.\n    #[test]\n    fn one() {}\n\n    #[test]\n    #[should_panic]\n    fn two() {}\n}\n",
            ),
            (
                Lang::Python,
                "attrs 25.3.0 (src/attr/_make.py, shortened)",
                "@dataclass\nclass Point:\n    x: int = 0\n\n    @property\n    def norm(self):\n        return 1\n\n    @staticmethod\n    @cache\n    def make():  # Instance variables\n        pass\n",
            ),
            (
                Lang::TypeScript,
                "zod 3.23.8 (src/types.ts, shortened)",
                "/** The type. */\nexport type Id = string;\nexport const MAX = 10;\nexport default class Base {\n  @dec() static run(): void {}\n}\nexport const a = 1, b = 2;\ndeclare function f(): void;\n",
            ),
            (
                Lang::Go,
                "google/uuid v1.6.0 (uuid.go, shortened)",
                "package uuid\n\n// A UUID is a 128 bit.\ntype UUID [16]byte\n\n// Nil is empty.\nvar Nil UUID\n\nvar (\n\trander = rand.Reader\n\tpoolMu sync.Mutex\n)\n\nconst X int = 5\n",
            ),
            (
                Lang::Java,
                "gson 2.11.0 (Gson.java, shortened)",
                "public final class Gson {\n  /** Doc. */\n  @Override\n  public String toString() { return \"\"; }\n\n  @Deprecated\n  static final int A = 1, B = 2;\n}\n",
            ),
            (
                Lang::Kotlin,
                "kotlinx-coroutines 1.8.1 (Job.kt, shortened)",
                "/** A job. */\n@Suppress(\"x\")\npublic interface Job {\n    @Deprecated(\"y\")\n    public fun cancel(): Unit\n}\n",
            ),
        ];
        for (lang, source, src) in cases {
            let results = check_file(*lang, src.as_bytes());
            assert!(!results.is_empty(), "{source}: no symbols");
            let failed: Vec<_> = results.iter().filter(|(_, f)| f.is_some()).collect();
            assert!(failed.is_empty(), "{source}: {failed:#?}");
        }
    }
}
