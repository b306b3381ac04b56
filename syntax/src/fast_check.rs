//! The fast paths against whole parses on real code: every file of a directory the
//! index parses, its symbols from [`extract`] (skeletons, declarations read off
//! tokens) compared symbol for symbol with those of a whole tree-sitter parse (kind,
//! name path, ranges, where its doc comment and first keyword start, signature:
//! [`compared`]), and both timed. Where the whole parse finds errors, the two may recover differently
//! and neither is more right: there the top-level statements the grammar fails on
//! are blanked until the rest parses clean ([`blank_errors`]), and the fast path's
//! top-level symbols (with all they contain) that touch none of them must be that
//! clean parse's; the blanked statements are left out, and so is what either side
//! reads as one top-level statement with one of them ([`outside_failures`]).
//! TypeScript files the grammar fails on only for their variance annotations (`<in
//! out A>`, newer than the grammar) are compared whole with those blanked.
//!
//! Run by the unit test below on the conformance sample corpora and by
//! `syntax/benches/fast_paths.rs` on whole bench corpora.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use super::{
    Lang,
    symbols::{FileSymbols, Parse, Symbol, extract_with},
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
    /// Of the files with whole-parse errors, the fast path's symbols compared
    /// (top-level symbols touching no failing statement, with their children) and
    /// those left out.
    pub errored_symbols: usize,
    pub errored_left_out: usize,
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
        let body = crate::bom::strip(&src);
        let declined = lang
            .language()
            .declarations
            .is_some_and(|r| (r.read)(body).is_none());
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
            // A fast path that fell back to the whole parse (reader and skeleton
            // both declined) is its reading: nothing to compare. The blanked text's
            // parse may recover otherwise (OCaml's testsuite file of unbalanced
            // brackets, `tool-toplevel/error_highlighting.ml`), which is no fault of it.
            if compared(&fast) == compared(&whole) {
                tally.errored_symbols += fast.count;
                continue;
            }
            // Kotlin has no declaration reader (its fast path is tree-sitter on a
            // skeleton), and its grammar's error recovery ends error nodes inside
            // what a clean parse reads as a comment (`Regex.kt`), so a blanked
            // text reads on as something else without an error: no clean parse
            // to compare with. What the whole parse recovers is checked instead.
            if lang == Lang::Kotlin {
                let (kept, lost) = recovered(&whole, &fast);
                tally.errored_symbols += kept;
                tally.errored_left_out += fast.count - kept;
                if let Some(lost) = lost {
                    tally.differ.push(format!(
                        "{} (recovered by the whole parse, not by the fast path): {lost}",
                        path.strip_prefix(dir).unwrap_or(path).display()
                    ));
                }
                continue;
            }
            // Variance annotations blanked first where the grammar fails on them
            // (both sides read that text, as for the files it makes clean), so
            // the statements blanked next are only those it fails on otherwise.
            let text = match lang {
                Lang::TypeScript | Lang::Tsx => without_variance(&src),
                _ => None,
            };
            if let Some(text) = &text {
                fast = extract_with(lang, text, Parse::Declarations);
            }
            let text = text.as_deref().unwrap_or(&src);
            // The whole parse of the text with its failing statements blanked is
            // the oracle for everything else: the fast path's symbols of the real
            // text that touch no blanked statement must be its symbols.
            let Some(outside) = outside_failures(lang, text, &fast) else {
                tally.errored_left_out += fast.count;
                continue;
            };
            tally.errored_symbols += outside.compared;
            tally.errored_left_out += fast.count - outside.compared;
            if let Some(first) = outside.difference {
                tally.differ.push(format!(
                    "{} (outside failing statements): {first}",
                    path.strip_prefix(dir).unwrap_or(path).display()
                ));
            }
            continue;
        }
        tally.fast += fast_took;
        tally.whole += whole_took;
        tally.files += 1;
        tally.bytes += src.len() as u64;
        tally.symbols += whole.count;
        tally.declined += usize::from(declined);
        let (expected, got) = (compared(&whole), compared(&fast));
        if let Some(first) = first_difference(&expected, &got) {
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

/// The first line where two outlines differ, `expected ≠ got`.
fn first_difference(expected: &str, got: &str) -> Option<String> {
    if expected == got {
        return None;
    }
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
    Some(first)
}

/// How a fast path's symbols of a file the grammar fails on compare with the
/// oracle outside the failing statements ([`blank_errors`]).
pub(crate) struct Outside {
    /// The fast path's symbols compared (top-level ones touching no blanked line,
    /// with their children).
    pub compared: usize,
    /// The first differing line, `expected ≠ got`.
    pub difference: Option<String>,
}

/// `fast` (symbols of `text`, which the grammar fails on) against a whole parse of
/// `text` with its failing statements blanked, outside them; `None` where no clean
/// text is reached.
///
/// What either side reads as one top-level statement with a failing one is left
/// out as well, on both sides ([`with_touching`]): a skeleton parse skips the body
/// an error is in, and where the whole parse's recovery splits the namespace around
/// it (grpc's `metadata_batch.cc`: a macro in a body leaves `namespace grpc_core {`
/// and its `}` failing, and the members between them at the top), the skeleton
/// reads the namespace whole, its members in it.
pub(crate) fn outside_failures(lang: Lang, text: &[u8], fast: &FileSymbols) -> Option<Outside> {
    let (blanked, spans) = blank_errors(lang, text)?;
    let oracle = extract_with(lang, &blanked, Parse::Whole);
    let spans = with_touching(spans, &[&oracle, fast]);
    let (expected, _) = outline_outside(&oracle, &spans);
    let (got, compared) = outline_outside(fast, &spans);
    Some(Outside {
        compared,
        difference: first_difference(&expected, &got),
    })
}

/// `spans` with the range of every top-level symbol of `parses` that touches one of
/// them (an end counts, as in [`outline_outside`]), again until none is added.
fn with_touching(
    mut spans: Vec<std::ops::Range<usize>>,
    parses: &[&FileSymbols],
) -> Vec<std::ops::Range<usize>> {
    loop {
        let grown: Vec<_> = parses
            .iter()
            .flat_map(|p| p.top())
            .map(|s| s.bytes())
            .filter(|b| {
                spans.iter().any(|e| b.start <= e.end && e.start <= b.end)
                    && !spans.iter().any(|e| e.start <= b.start && b.end <= e.end)
            })
            .collect();
        if grown.is_empty() {
            return spans;
        }
        spans.extend(grown);
    }
}

/// `src` with the lines of the top-level statements a whole parse finds errors in,
/// and every statement sharing one of them, blanked (spaces, line breaks kept), again until the rest parses clean, and the
/// blanked byte spans; `None` if it does not within a few rounds. A statement is blanked
/// whole because error recovery is not local: effect's files with one error read
/// `<A>(a: A) => …` far below it as a type assertion, which the same file without
/// the failing statement reads as the generic arrow function it is.
fn blank_errors(lang: Lang, src: &[u8]) -> Option<(Vec<u8>, Vec<std::ops::Range<usize>>)> {
    let base = crate::bom::len(src);
    let mut text = src.to_vec();
    let mut spans = Vec::new();
    for _ in 0..8 {
        let tree = lang.parse(&text[base..], &[])?;
        let root = tree.root_node();
        if !root.has_error() {
            return Some((text, spans));
        }
        let mut cursor = root.walk();
        let children: Vec<_> = root.children(&mut cursor).collect();
        // Every top-level statement's bytes: a blanked line takes each one that
        // shares it whole, or what is left of it reads as something else (ra_ap_parser's
        // `default unsafe impl T for Foo {`: with the line blanked, the impl's methods
        // read as free functions).
        let statements: Vec<_> = children
            .iter()
            .map(|c| base + c.start_byte()..base + c.end_byte())
            .collect();
        let failing: Vec<_> = children
            .iter()
            .filter(|c| c.has_error() || c.is_error() || c.is_missing())
            .map(|&c| {
                // Whole lines: an error node can end inside a line whose rest (a
                // string's closing quote, say) would read on as something else.
                // With the attributes before it: they are its siblings (Rust's outer
                // attributes), and left alone they would go to the next item.
                let mut first = c;
                let mut prev = c.prev_sibling();
                while let Some(p) = prev {
                    match p.kind() {
                        "attribute_item" => first = p,
                        "line_comment" | "block_comment" => {}
                        _ => break,
                    }
                    prev = p.prev_sibling();
                }
                let mut span = base + first.start_byte()..base + c.end_byte();
                loop {
                    let lines = whole_lines(&text, base, span.clone());
                    let grown = statements
                        .iter()
                        .filter(|s| s.start < lines.end && lines.start < s.end)
                        .fold(lines.clone(), |a, s| a.start.min(s.start)..a.end.max(s.end));
                    if grown == lines {
                        break lines;
                    }
                    span = grown;
                }
            })
            .collect();
        if failing.is_empty() {
            return None;
        }
        for span in failing {
            for b in &mut text[span.clone()] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            spans.push(span);
        }
    }
    None
}

/// `span` grown to the whole lines it touches (the last line without its line
/// break), never before `base` (a byte-order mark).
fn whole_lines(text: &[u8], base: usize, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let start = text[..span.start]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(base, |nl| nl + 1);
    let end = text[span.end..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(text.len(), |nl| span.end + nl);
    start..end
}

/// [`outline`] of the top-level symbols whose bytes touch none of `spans` (an end
/// counts as touching: an error right at a symbol's edge can move that edge), and
/// how many symbols that is, children included. Name paths lose their `[n]`
/// ordinals: a blanked statement of the same name shifts them on one side only.
fn outline_outside(parsed: &FileSymbols, spans: &[std::ops::Range<usize>]) -> (String, usize) {
    let mut out = String::new();
    let mut count = 0;
    for s in parsed.top() {
        let b = s.bytes();
        if spans.iter().any(|e| b.start <= e.end && e.start <= b.end) {
            continue;
        }
        count += render_with(s, 0, true, &mut out);
    }
    (without_ordinals(&out), count)
}

/// `text` without the `[n]` that tells apart symbols of one name.
fn without_ordinals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        let digits = rest[at + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let ordinal = digits > 0 && rest[at + 1 + digits..].starts_with(']');
        out.push_str(&rest[..at]);
        if ordinal {
            rest = &rest[at + digits + 2..];
        } else {
            out.push('[');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Every symbol of a parse, one line each: kind, name path, range, name position,
/// signature.
#[cfg(test)]
pub(crate) fn outline(parsed: &FileSymbols) -> String {
    let mut out = String::new();
    for s in parsed.top() {
        render(s, 0, &mut out);
    }
    out
}

/// For a file the grammar fails on with no clean text to compare against (Kotlin):
/// every symbol the whole parse recovers must be one of the fast path's, by name,
/// ranges and signature; how many were, and the first that is not. Kind and name
/// path are left out: the skeleton, which skips the body a failure sits in, keeps
/// containers the whole parse loses (kotlin-stdlib's `Base64.kt`: the class around
/// its members), and a member of a kept class is a method where the whole parse
/// has a function. The fast path's symbols beyond these are not checked.
fn recovered(whole: &FileSymbols, fast: &FileSymbols) -> (usize, Option<String>) {
    let key = |s: Symbol<'_>| {
        let (name, range, at) = (s.name(), s.range(), s.name_range().start);
        format!("{name} {range} name@{at} | {}", s.signature())
    };
    let found: std::collections::HashSet<String> = fast.all().map(key).collect();
    let mut kept = 0;
    for s in whole.all() {
        let key = key(s);
        if !found.contains(&key) {
            return (kept, Some(key));
        }
        kept += 1;
    }
    (kept, None)
}

/// One symbol and its children into `out`; how many lines that was.
#[cfg(test)]
fn render(s: Symbol<'_>, depth: usize, out: &mut String) -> usize {
    render_with(s, depth, false, out)
}

/// [`render`], with the byte offsets where the symbol's doc comment and its first
/// keyword start when `starts` (what an edit's range is built from, and the
/// snapshots leave out).
fn render_with(s: Symbol<'_>, depth: usize, starts: bool, out: &mut String) -> usize {
    let starts = match starts {
        true => format!(" doc@{} core@{}", s.doc_start(), s.core_start()),
        false => String::new(),
    };
    out.push_str(&format!(
        "{}{} {} {} name@{}{starts} | {}\n",
        "  ".repeat(depth),
        s.kind().as_str(),
        s.name_path(),
        s.range(),
        s.name_range().start,
        s.signature()
    ));
    1 + s
        .children()
        .map(|c| render_with(c, depth + 1, !starts.is_empty(), out))
        .sum::<usize>()
}

/// [`outline`] with where each symbol's doc comment and first keyword start: what
/// a fast path is compared with a whole parse by.
pub(crate) fn compared(parsed: &FileSymbols) -> String {
    let mut out = String::new();
    for s in parsed.top() {
        render_with(s, 0, true, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of unbalanced brackets neither the reader nor the skeleton follows
    /// gets the whole parse, which reads `let x = 1` below them as a binding; with
    /// the failing statements blanked the grammar reads it as the `let … in`
    /// expression it is. The fast path is the whole parse there: no difference.
    #[test]
    fn a_fast_path_that_is_the_whole_parse_differs_from_nothing() {
        let src = "let x = (1 + 2 in ();;\n\nlet x = (1 + 2;;\n\nlet x = 1 in\nlet y = 1 +. 2. in\n();;\n";
        let dir = std::env::temp_dir().join(format!("lean-ctx-fast-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.ml"), src).unwrap();
        let tally = compare_dir(&dir, &[Lang::OCaml], 1).remove(&Lang::OCaml);
        std::fs::remove_dir_all(&dir).unwrap();
        let tally = tally.expect("one file");
        assert_eq!(
            (tally.unparsed, tally.differ.len()),
            (1, 0),
            "{:?}",
            tally.differ
        );
        assert!(tally.errored_symbols > 0);
    }

    /// The Python, Go, Java and TypeScript fast paths, and the C, C++, C#, PHP,
    /// Swift, Scala, Ruby, Bash, Lua, R, Haskell, OCaml and Elixir skeletons, on
    /// every file of the
    /// conformance sample corpora (pinned packages from PyPI, the Go module proxy,
    /// Maven Central, npm and Debian's upstream tarballs, fetched once by
    /// `daemon/benches/fetch-conformance.sh`): 0 differences.
    #[test]
    fn the_declaration_readers_agree_with_whole_parses_on_real_code() {
        let corpus = lean_ctx_testkit::corpus();
        for (dir, lang, at_least) in [
            ("python", Lang::Python, 20),
            ("go", Lang::Go, 20),
            ("java", Lang::Java, 20),
            ("typescript", Lang::TypeScript, 20),
            ("c", Lang::C, 20),
            // libuv's headers, which the C++ grammar reads (`languages/c.rs`).
            ("c", Lang::Cpp, 20),
            ("cpp", Lang::Cpp, 20),
            ("csharp", Lang::CSharp, 20),
            ("php", Lang::Php, 20),
            ("swift", Lang::Swift, 20),
            ("scala", Lang::Scala, 20),
            ("ruby", Lang::Ruby, 20),
            ("bash", Lang::Bash, 20),
            ("lua", Lang::Lua, 20),
            ("r", Lang::R, 20),
            ("haskell", Lang::Haskell, 20),
            ("ocaml", Lang::OCaml, 20),
            ("elixir", Lang::Elixir, 20),
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

    /// The oracle for a file the grammar fails on: its failing statements blanked,
    /// offsets and lines kept, the rest parsed clean.
    #[test]
    fn failing_statements_are_blanked_until_the_rest_parses() {
        let src = b"const a = 1;\nconst b = ;\nexport const f = <A>(a: A): A => a\n";
        let (text, spans) = blank_errors(Lang::TypeScript, src).expect("blanked");
        assert_eq!(text.len(), src.len());
        assert_eq!(spans, vec![13..24]);
        assert_eq!(&text[..13], &src[..13]);
        assert!(text[13..24].iter().all(|b| *b == b' '));
        let oracle = outline(&extract_with(Lang::TypeScript, &text, Parse::Whole));
        assert!(oracle.contains("function f "), "{oracle}");
        assert_eq!(
            without_ordinals("module A[1].b[12] | x[i] y[]"),
            "module A.b | x[i] y[]"
        );
    }

    /// What the fast path reads as one statement with a failing one is left out on
    /// both sides: a namespace the skeleton reads whole, whose head and `}` the
    /// whole parse's recovery left failing and whose members it left at the top.
    #[test]
    fn what_either_side_reads_with_a_failing_statement_is_left_out() {
        let fast = extract_with(
            Lang::Cpp,
            b"namespace n {\nint f();\n}\nint g();\n",
            Parse::Whole,
        );
        let oracle = extract_with(
            Lang::Cpp,
            b"             \nint f();\n \nint g();\n",
            Parse::Whole,
        );
        let failing = vec![0..13, 23..24];
        let (expected, _) = outline_outside(&oracle, &failing);
        let (got, _) = outline_outside(&fast, &failing);
        assert_ne!(
            expected, got,
            "the namespace's member is the oracle's at the top"
        );
        let spans = with_touching(failing, &[&oracle, &fast]);
        assert_eq!(spans, vec![0..13, 23..24, 0..24]);
        let (expected, _) = outline_outside(&oracle, &spans);
        let (got, compared) = outline_outside(&fast, &spans);
        assert_eq!(
            (expected.as_str(), compared),
            ("function g 4:0-4:8 name@4:4 doc@25 core@25 | int g()\n", 1)
        );
        assert_eq!(got, expected);
    }

    /// A name error recovery made up is no symbol: kotlin-stdlib's `Regex.kt`
    /// (a constructor on the line after its class, which the grammar fails on),
    /// reduced, listed `fun Matcher.matchEntire` as `function ` with no name.
    #[test]
    fn error_recovery_never_lists_a_nameless_symbol() {
        let src = r#"public actual class Regex
@PublishedApi
internal constructor(private val nativePattern: Pattern) : Serializable {
    public actual fun replace(input: CharSequence, transform: (MatchResult) -> CharSequence): String {
        do {
        }
    }
    private class Serialized(val pattern: String, val flags: Int) : Serializable {
        companion object {
        }
        private fun readResolve(): Any = Regex(Pattern.compile(pattern, flags))
        /**
         */
        public actual fun escape(literal: String): String = Pattern.quote(literal)
        /**
         * Returns a literal replacement expression for the specified [literal] string.
         * No characters of that string will have special meaning when it is used as a replacement string in [Regex.replace] function.
         */
        public actual fun escapeReplacement(literal: String): String = Matcher.quoteReplacement(literal)
        private fun ensureUnicodeCase(flags: Int) = if (flags and Pattern.CASE_INSENSITIVE != 0) flags or Pattern.UNICODE_CASE else flags
    }

}

private fun Matcher.matchEntire(input: CharSequence): MatchResult? {
    return if (!matches()) null else MatcherMatchResult(this, input)
}

"#;
        for how in [Parse::Whole, Parse::Declarations] {
            let parsed = extract_with(Lang::Kotlin, src.as_bytes(), how);
            assert!(parsed.syntax_error.is_some());
            assert!(parsed.count > 0, "{how:?}");
            for s in parsed.all() {
                assert!(!s.name().is_empty(), "{how:?}: {}", outline(&parsed));
            }
        }
        // What the whole parse recovers the skeleton's parse has too; a parse
        // without it fails the check.
        let whole = extract_with(Lang::Kotlin, src.as_bytes(), Parse::Whole);
        let fast = extract_with(Lang::Kotlin, src.as_bytes(), Parse::Declarations);
        assert_eq!(recovered(&whole, &fast), (whole.count, None));
        let other = extract_with(Lang::Kotlin, b"class Regex(val p: String)", Parse::Whole);
        let (kept, lost) = recovered(&whole, &other);
        assert_eq!(kept, 0);
        assert!(lost.is_some_and(|s| s.starts_with("Regex 1:0-1:25 ")));
    }
}
