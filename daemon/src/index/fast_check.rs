//! The fast paths against whole parses on real code: every file of a directory the
//! index parses, its symbols from [`extract`] (skeletons, declarations read off
//! tokens) compared symbol for symbol with those of a whole tree-sitter parse, and
//! both timed. Files the whole parse finds errors in are left out: there the two may
//! recover differently, and neither is more right. TypeScript files the grammar
//! fails on only for their variance annotations (`<in out A>`, newer than the
//! grammar) are compared with those blanked.
//!
//! Run by the unit test below on the conformance sample corpora and by
//! `daemon/benches/fast_paths.rs` on whole bench corpora.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use super::{
    go_items, java_items,
    lang::Lang,
    python_items, rust_items,
    symbols::{FileSymbols, Parse, Symbol, extract_with},
    ts_items,
};

/// What one language's files gave.
#[derive(Debug, Default)]
pub struct Tally {
    /// Files compared (the whole parse found no error).
    pub files: usize,
    /// Files left out: the whole parse found an error.
    pub unparsed: usize,
    pub symbols: usize,
    /// Bytes of the compared files.
    pub bytes: u64,
    /// Extraction time, whole parse and fast path, over the compared files.
    pub whole: Duration,
    pub fast: Duration,
    /// Compared files a declaration reader (Rust, Go, Python, Java, TypeScript, TSX,
    /// JavaScript) declined: their
    /// fast path is the skeleton parse.
    pub declined: usize,
    /// Of the files left out, those a reader declined: the index parses them with
    /// tree-sitter (skeleton, then whole where the skeleton's errors are near what it
    /// skipped), so they are where its time goes on code the grammar cannot parse.
    pub unparsed_declined: usize,
    /// The fast path's time over the files left out (what the index pays for them).
    pub unparsed_fast: Duration,
    /// Every declined file, compared or left out: path, bytes, left out.
    pub declined_files: Vec<(String, u64, bool)>,
    /// Compared files whose whole parse is clean only with their variance
    /// annotations blanked ([`without_variance`]).
    pub blanked: usize,
    /// The files whose outlines differ, with the first differing line of each.
    pub differ: Vec<String>,
}

/// Every `every`th file under `dir` of the languages `langs`, compared.
pub fn compare_dir(dir: &Path, langs: &[Lang], every: usize) -> BTreeMap<Lang, Tally> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.is_file() && Lang::from_path(p).is_some_and(|l| langs.contains(&l)))
        .collect();
    files.sort();
    let mut out: BTreeMap<Lang, Tally> = BTreeMap::new();
    for path in files.iter().step_by(every.max(1)) {
        let (Some(lang), Ok(src)) = (Lang::from_path(path), std::fs::read(path)) else {
            continue;
        };
        let tally = out.entry(lang).or_default();
        let t = Instant::now();
        let mut whole = extract_with(lang, &src, Parse::Whole);
        let whole_took = t.elapsed();
        let t = Instant::now();
        let mut fast = extract_with(lang, &src, Parse::Declarations);
        let fast_took = t.elapsed();
        if whole.syntax_error.is_some() && matches!(lang, Lang::TypeScript | Lang::Tsx) {
            // The TypeScript grammar predates variance annotations (`<in out A>`,
            // TypeScript 4.7: all over effect's sources), so its trees of such files
            // are error recoveries. With the annotations blanked (same offsets) the
            // grammar parses them: both sides compared on that text.
            if let Some(blanked) = without_variance(&src) {
                let clean = extract_with(lang, &blanked, Parse::Whole);
                if clean.syntax_error.is_none() {
                    tally.blanked += 1;
                    whole = clean;
                    fast = extract_with(lang, &blanked, Parse::Declarations);
                }
            }
        }
        let body = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&src);
        let declined = match lang {
            Lang::Rust => rust_items::parse(body).is_none(),
            Lang::Go => go_items::parse(body).is_none(),
            Lang::Python => python_items::parse(body).is_none(),
            Lang::Java => java_items::parse(body).is_none(),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
                ts_items::parse(lang, body).is_none()
            }
            Lang::Kotlin => false,
        };
        let unparsed = whole.syntax_error.is_some();
        if declined {
            let rel = path.strip_prefix(dir).unwrap_or(path);
            let rel = rel.display().to_string();
            tally.declined_files.push((rel, src.len() as u64, unparsed));
        }
        if unparsed {
            tally.unparsed += 1;
            tally.unparsed_declined += usize::from(declined);
            tally.unparsed_fast += fast_took;
            continue;
        }
        tally.fast += fast_took;
        tally.whole += whole_took;
        tally.files += 1;
        tally.bytes += src.len() as u64;
        tally.symbols += whole.count;
        tally.declined += usize::from(declined);
        let (expected, got) = (outline(&whole), outline(&fast));
        if expected != got {
            let first = expected
                .lines()
                .zip(got.lines().chain(std::iter::repeat("(none)")))
                .find(|(e, g)| e != g)
                .map_or_else(
                    || {
                        format!(
                            "(none) ≠ {}",
                            got.lines().nth(expected.lines().count()).unwrap_or("")
                        )
                    },
                    |(e, g)| format!("{e} ≠ {g}"),
                );
            tally.differ.push(format!(
                "{}: {first}",
                path.strip_prefix(dir).unwrap_or(path).display()
            ));
        }
    }
    out
}

/// `src` with the variance annotations of type parameters (`in`, `out`, `in out`
/// right after a `<` or `,`, before a parameter's name) blanked, offsets kept;
/// `None` if it has none.
fn without_variance(src: &[u8]) -> Option<Vec<u8>> {
    let word_at = |i: usize| -> usize {
        src[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'$')
            .count()
    };
    let spaces_at = |i: usize| {
        src[i..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
    };
    let mut out = src.to_vec();
    let mut found = false;
    for (at, &b) in src.iter().enumerate() {
        if b != b'<' && b != b',' {
            continue;
        }
        let start = at + 1 + spaces_at(at + 1);
        let mut i = start;
        // `in out T`, `out T`, `in T`: each modifier a word followed by space.
        let mut modifiers = 0;
        loop {
            let n = word_at(i);
            let w = &src[i..i + n];
            if (w == b"in" || w == b"out") && n > 0 && spaces_at(i + n) > 0 {
                let next = i + n + spaces_at(i + n);
                if word_at(next) > 0 {
                    i = next;
                    modifiers += 1;
                    continue;
                }
            }
            break;
        }
        // The parameter's name, then what may follow it in a parameter list.
        let name = word_at(i);
        let after = i + name + spaces_at(i + name);
        let follows = matches!(src.get(after), Some(b',' | b'>' | b'='))
            || src[after..].starts_with(b"extends");
        if modifiers > 0 && name > 0 && follows {
            out[start..i].fill(b' ');
            found = true;
        }
    }
    found.then_some(out)
}

/// Every symbol of a parse, one line each: kind, name path, range, name position,
/// signature.
pub(crate) fn outline(parsed: &FileSymbols) -> String {
    fn render(s: Symbol<'_>, depth: usize, out: &mut String) {
        out.push_str(&format!(
            "{}{} {} {} name@{} | {}\n",
            "  ".repeat(depth),
            s.kind().as_str(),
            s.name_path(),
            s.range(),
            s.name_range().start,
            s.signature()
        ));
        for c in s.children() {
            render(c, depth + 1, out);
        }
    }
    let mut out = String::new();
    for s in parsed.top() {
        render(s, 0, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Python, Go, Java and TypeScript fast paths on every file of the
    /// conformance sample corpora (pinned packages from PyPI, the Go module proxy,
    /// Maven Central and npm, fetched once by `benches/fetch-conformance.sh`): 0
    /// differences.
    #[test]
    fn the_declaration_readers_agree_with_whole_parses_on_real_code() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let corpus = lean_ctx_testkit::fetched(&here.join("benches/fetch-conformance.sh"));
        for (dir, lang, at_least) in [
            ("python", Lang::Python, 20),
            ("go", Lang::Go, 20),
            ("java", Lang::Java, 20),
            ("typescript", Lang::TypeScript, 20),
        ] {
            let tallies = compare_dir(&corpus.join(dir), &[lang], 1);
            let t = &tallies[&lang];
            eprintln!("{dir}: {} files, {} declined", t.files, t.declined);
            assert!(
                t.files >= at_least && t.symbols >= 10 * at_least,
                "only {} {dir} files ({} symbols) compared",
                t.files,
                t.symbols
            );
            assert!(
                t.differ.is_empty(),
                "{dir}: fast and whole parses differ: {:#?}",
                t.differ
            );
        }
    }
}
