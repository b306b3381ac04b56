//! References and callers by name alone: what `references` and an incoming
//! `call_hierarchy` answer (`route.rs`) where no language server may (an untrusted
//! root, a language without a server found, a server that failed to start): the
//! identifier's whole-word occurrences in the
//! root's indexed files of the same language family, outside strings and comments
//! (each matching file's tree-sitter parse says what an occurrence is). Not the
//! server's references: a same-named local, field or method elsewhere is listed too,
//! and a use through another name is not; the answer's `backing` says so
//! (`by name, unresolved`), and `fallback` says why no server answered and, for an
//! untrusted root, the command that lets one. A language set to `"jetbrains"` (the IDE
//! or nothing) gets nothing here either.
//!
//! Files are read through the jail, as every read of the index; the files scanned are
//! what the index lists, so its ignore rules and size cap apply.

use lean_ctx_shared::{
    ErrorCode, LeanError, Position, Range,
    protocol::{
        CallDirection, CallHierarchyRequest, CallHierarchyResponse, CallNode, FilePosition,
        LocationHit, NavigateAction, NavigateRequest, NavigateResponse,
    },
};
use lean_ctx_syntax::{Lang, text::LineIndex};
use memchr::memmem;

use super::{Cx, blocking, limit};
use crate::{
    declarations::{self, Spans, Wire, position},
    jail::{Jailed, Want},
    language_servers::pool::Choice,
    registry::Project,
};

/// The backing's name in an answer: never to be read as a semantic one.
pub const BACKING: &str = "by name, unresolved";

/// What a by-name answer starts from: the name at the position asked about, in a
/// language this backing may stand in for, and the `fallback` text (`why` and its
/// remedy); `why` itself where it may not (a file without a grammar, a language set
/// to `"jetbrains"`, no identifier there).
struct Asked {
    lang: Lang,
    name: Vec<u8>,
    fallback: String,
}

async fn asked(
    cx: &Cx<'_>,
    file: &Jailed,
    at: &FilePosition,
    why: LeanError,
) -> Result<Asked, LeanError> {
    let Some(lang) = Lang::from_path(&file.abs).filter(|l| l.is_code()) else {
        return Err(why);
    };
    // `lsp.<lang> = "jetbrains"` is the IDE or nothing, as the user asked.
    if cx.d.lsp.choice(lang) == Choice::JetBrainsOnly {
        return Err(why);
    }
    let bytes = super::read(file).await?;
    let name = word_at(&bytes, at.line, at.column).ok_or_else(|| {
        LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            format!("no name at {}:{}:{}", file.rel, at.line, at.column),
        )
        .with_remedy("point at an identifier (line 1-based, column 0-based), or pass its name_path")
    })?;
    let fallback = match &why.remedy {
        Some(remedy) => format!("{}: {} ({remedy})", why.code, why.message),
        None => format!("{}: {}", why.code, why.message),
    };
    Ok(Asked {
        lang,
        name,
        fallback,
    })
}

/// Each indexed file of `lang`'s family holding `name` outside strings and comments:
/// its root-relative path, its bytes (read now, through the jail), and the
/// occurrences' offsets.
fn scan(project: &Project, lang: Lang, name: &[u8], mut each: impl FnMut(&str, &[u8], Vec<usize>)) {
    for (rel, _, _) in project.index.identified_under("") {
        let of = Lang::from_path(std::path::Path::new(&rel));
        let Some(of) = of.filter(|l| family(*l) == family(lang)) else {
            continue;
        };
        let Ok(src) = project.resolve(&rel, Want::File).and_then(|f| {
            f.read()
                .map_err(|e| LeanError::new(ErrorCode::FileNotFound, e.to_string()))
        }) else {
            continue;
        };
        let found = occurrences(of, &src, name);
        if !found.is_empty() {
            each(&rel, &src, found);
        }
    }
}

/// `req`'s references by name, where every backing answered `why` (no server may
/// run); `why` itself where this cannot stand in (another action, see [`Asked`]).
/// `why` and its remedy become the answer's `fallback`.
pub async fn references(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &NavigateRequest,
    why: LeanError,
) -> Result<NavigateResponse, LeanError> {
    if req.action != NavigateAction::References {
        return Err(why);
    }
    let Asked {
        lang,
        name,
        fallback,
    } = asked(cx, file, &req.at, why).await?;
    let project = cx.project.clone();
    let limit = limit(req.limit);
    blocking(move || {
        let mut locations = Vec::new();
        let mut total = 0u32;
        scan(&project, lang, &name, |rel, src, found| {
            let lines = LineIndex::new(src);
            for at in found {
                total += 1;
                if locations.len() < limit {
                    locations.push(LocationHit {
                        path: rel.to_string(),
                        range: span(&lines, src, at, name.len()),
                        context: String::from_utf8_lossy(line_of(src, at)).trim().to_string(),
                        import: false,
                        symbol: None,
                    });
                }
            }
        });
        Ok(NavigateResponse {
            truncated: (locations.len() as u32) < total,
            locations,
            total,
            backing: BACKING.to_string(),
            fallback: Some(fallback),
        })
    })
    .await
}

/// Who calls the function at `req.at`, by name, where every backing answered `why`:
/// its name followed by `(`, outside strings and comments, grouped under the
/// declaration each lies in (one level: names make no call graph). A declaration's
/// own name is not a call, nor is a call outside every declaration listed. Outgoing
/// calls are not read by name (`why` is the answer).
pub async fn incoming_calls(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &CallHierarchyRequest,
    why: LeanError,
) -> Result<CallHierarchyResponse, LeanError> {
    if req.direction != CallDirection::Incoming {
        return Err(why);
    }
    let Asked {
        lang,
        name,
        fallback,
    } = asked(cx, file, &req.at, why).await?;
    let (project, at, rel) = (cx.project.clone(), req.at.clone(), file.rel.clone());
    let limit = limit(req.limit);
    blocking(move || {
        let mut calls: Vec<CallNode> = Vec::new();
        let mut truncated = false;
        let mut root_range = None;
        scan(&project, lang, &name, |path, src, found| {
            let lines = LineIndex::new(src);
            let symbols = declarations::extract(lang_of(path, lang), src);
            let spans = Spans::new(&symbols);
            for at_byte in found {
                let site = span(&lines, src, at_byte, name.len());
                if path == rel && site.start.line == at.line && root_range.is_none() {
                    root_range = Some(site);
                }
                let called = src[at_byte + name.len()..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    == Some(&b'(');
                let Some(caller) = spans.innermost(at_byte).filter(|_| called) else {
                    continue;
                };
                if caller.name_range().wire().start == site.start {
                    continue;
                }
                let node_at = caller.name_range().wire();
                match calls
                    .iter()
                    .position(|c| c.path == path && c.range == node_at)
                {
                    Some(i) => calls[i].sites.push(site.start),
                    None if calls.len() < limit => calls.push(CallNode {
                        name: caller.name().to_string(),
                        kind: caller.kind().wire().as_str().to_string(),
                        path: path.to_string(),
                        range: node_at,
                        symbol: None,
                        depth: 1,
                        parent: None,
                        sites: vec![site.start],
                    }),
                    None => truncated = true,
                }
            }
        });
        let asked = Position::new(at.line, at.column);
        let range = root_range.unwrap_or(Range::new(asked, asked));
        Ok(CallHierarchyResponse {
            root_item: CallNode {
                name: String::from_utf8_lossy(&name).into_owned(),
                kind: "function".into(),
                path: rel,
                range,
                symbol: None,
                depth: 0,
                parent: None,
                sites: Vec::new(),
            },
            direction: CallDirection::Incoming,
            calls,
            truncated,
            backing: BACKING.to_string(),
            fallback: Some(fallback),
        })
    })
    .await
}

/// The agent range of `len` bytes at `at`.
fn span(lines: &LineIndex, src: &[u8], at: usize, len: usize) -> Range {
    let (start, end) = (lines.position(src, at), lines.position(src, at + len));
    Range::new(
        Position::new(start.line, start.column),
        Position::new(end.line, end.column),
    )
}

/// Languages whose files name each other's declarations: TypeScript, TSX and
/// JavaScript; C and C++ (headers are C++ here).
fn family(lang: Lang) -> Lang {
    match lang {
        Lang::Tsx | Lang::JavaScript => Lang::TypeScript,
        Lang::C => Lang::Cpp,
        other => other,
    }
}

fn lang_of(rel: &str, asked: Lang) -> Lang {
    Lang::from_path(std::path::Path::new(rel)).unwrap_or(asked)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The identifier at `line` (1-based) and `column` (0-based, characters), or right
/// before it.
fn word_at(src: &[u8], line: u32, column: u32) -> Option<Vec<u8>> {
    let lines = LineIndex::new(src);
    let at = lines.offset(src, position(Position::new(line, column)))?;
    let start = src[..at]
        .iter()
        .rposition(|b| !is_word(*b))
        .map_or(0, |i| i + 1);
    let end = src[at..]
        .iter()
        .position(|b| !is_word(*b))
        .map_or(src.len(), |i| at + i);
    let word = &src[start..end];
    (!word.is_empty() && !word[0].is_ascii_digit()).then(|| word.to_vec())
}

/// The byte offsets of `name`'s whole-word occurrences in `src` that the parse puts
/// outside strings and comments.
fn occurrences(lang: Lang, src: &[u8], name: &[u8]) -> Vec<usize> {
    let words: Vec<usize> = memmem::find_iter(src, name)
        .filter(|&at| {
            let before = at.checked_sub(1).is_none_or(|b| !is_word(src[b]));
            let after = src.get(at + name.len()).is_none_or(|b| !is_word(*b));
            before && after
        })
        .collect();
    if words.is_empty() {
        return words;
    }
    let Some(tree) = lang.parse(src, &[]) else {
        return words;
    };
    words
        .into_iter()
        .filter(|&at| {
            let mut node = tree
                .root_node()
                .descendant_for_byte_range(at, at + name.len());
            while let Some(n) = node {
                let kind = n.kind();
                if kind.contains("comment") || kind.contains("string") || kind.contains("heredoc") {
                    return false;
                }
                node = n.parent();
            }
            true
        })
        .collect()
}

/// The line holding byte `at`, without its ending.
fn line_of(src: &[u8], at: usize) -> &[u8] {
    let start = src[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let end = src[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(src.len(), |i| at + i);
    src[start..end]
        .strip_suffix(b"\r")
        .unwrap_or(&src[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_words_outside_strings_and_comments_are_occurrences() {
        let src = b"fn area() {}\n// area in a comment\nfn f() { area(); areas(); let s = \"area\"; my_area(); }\n";
        let found = occurrences(Lang::Rust, src, b"area");
        let lines: Vec<&[u8]> = found.iter().map(|&at| line_of(src, at)).collect();
        assert_eq!(found.len(), 2, "{lines:?}");
        assert_eq!(found[0], 3);
        assert!(src[found[1]..].starts_with(b"area();"));
        assert_eq!(word_at(src, 3, 11).as_deref(), Some(&b"area"[..]));
        // Right after the name still names it; a number or a blank does not.
        assert_eq!(word_at(src, 1, 7).as_deref(), Some(&b"area"[..]));
        assert_eq!(word_at(b"x = 12\n", 1, 5), None);
        assert_eq!(word_at(b"a  b\n", 1, 2), None);
    }
}
