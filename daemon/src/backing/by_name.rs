//! References by name alone, the last backing of `references` (`route.rs`): where no
//! language server may answer (an untrusted root, a language without a server found,
//! a server that failed to start), the identifier's whole-word occurrences in the
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
    protocol::{LocationHit, NavigateAction, NavigateRequest, NavigateResponse},
};
use lean_ctx_syntax::{Lang, text::LineIndex};
use memchr::memmem;

use super::{Cx, blocking, limit};
use crate::{
    declarations::position,
    jail::{Jailed, Want},
    language_servers::pool::Choice,
};

/// The backing's name in an answer: never to be read as a semantic one.
pub const BACKING: &str = "by name, unresolved";

/// `req`'s references by name, where every backing answered `why` (no server may
/// run); `why` itself where this cannot stand in (another action, a file without a
/// grammar, a language set to `"jetbrains"`). `why` and its remedy become the
/// answer's `fallback`.
pub async fn references(
    cx: &Cx<'_>,
    file: &Jailed,
    req: &NavigateRequest,
    why: LeanError,
) -> Result<NavigateResponse, LeanError> {
    let lang = Lang::from_path(&file.abs).filter(|l| l.is_code());
    let Some(lang) = lang.filter(|_| req.action == NavigateAction::References) else {
        return Err(why);
    };
    // `lsp.<lang> = "jetbrains"` is the IDE or nothing, as the user asked.
    if cx.d.lsp.choice(lang) == Choice::JetBrainsOnly {
        return Err(why);
    }
    let fallback = match &why.remedy {
        Some(remedy) => format!("{}: {} ({remedy})", why.code, why.message),
        None => format!("{}: {}", why.code, why.message),
    };
    let bytes = super::read(file).await?;
    let name = word_at(&bytes, req.at.line, req.at.column).ok_or_else(|| {
        LeanError::new(
            ErrorCode::NoSymbolAtPosition,
            format!("no name at {}:{}:{}", file.rel, req.at.line, req.at.column),
        )
        .with_remedy("point at an identifier (line 1-based, column 0-based), or pass its name_path")
    })?;
    let project = cx.project.clone();
    let limit = limit(req.limit);
    blocking(move || {
        let files = project.index.identified_under("");
        let mut locations = Vec::new();
        let mut total = 0u32;
        for (rel, _, _) in files {
            let same = Lang::from_path(std::path::Path::new(&rel)).map(family);
            if same != Some(family(lang)) {
                continue;
            }
            let Ok(inside) = project.resolve(&rel, Want::File) else {
                continue;
            };
            let Ok(src) = inside.read() else {
                continue;
            };
            let found = occurrences(lang_of(&rel, lang), &src, &name);
            if found.is_empty() {
                continue;
            }
            let lines = LineIndex::new(&src);
            for at in found {
                total += 1;
                if locations.len() >= limit {
                    continue;
                }
                let start = lines.position(&src, at);
                let end = lines.position(&src, at + name.len());
                let line = line_of(&src, at);
                locations.push(LocationHit {
                    path: rel.clone(),
                    range: Range::new(
                        Position::new(start.line, start.column),
                        Position::new(end.line, end.column),
                    ),
                    context: String::from_utf8_lossy(line).trim().to_string(),
                    import: false,
                    symbol: None,
                });
            }
        }
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
