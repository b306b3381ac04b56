//! The wire schema fingerprint and the rule that keeps it honest, in one file that
//! `build.rs` compiles (to compute `SCHEMA` and to refuse a build that breaks the rule)
//! and the crate's unit tests compile too (to run both on altered copies of `src/`).
//! Outside `src/` on purpose: a change to how the fingerprint is computed changes
//! `SCHEMA` through its output, not through its text.
//!
//! The fingerprint covers exactly the `.rs` files under `src/wire/`. The rule: a wire
//! file names nothing of this crate outside `wire` (every `crate` path goes on with
//! `::wire`, no `super` chain climbs above `wire`, no `#[path]`, no `include!`), so a
//! type that crosses the socket can only be built from types hashed with it.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

/// The directory under `src/` whose every `.rs` file is hashed.
pub const WIRE_DIR: &str = "wire";

/// The `.rs` files under `src/wire/`, relative to `src`, sorted.
pub fn wire_files(src: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut dirs = vec![src.join(WIRE_DIR)];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path.strip_prefix(src).unwrap_or(&path).to_path_buf());
            }
        }
    }
    files.sort();
    Ok(files)
}

/// BLAKE3 over each wire file's `src`-relative path, a NUL and its bytes, in order; the
/// first 16 hex digits. A comment change is a new schema too: conservative, but a
/// changed type can never slip through.
pub fn fingerprint(src: &Path) -> io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    for rel in wire_files(src)? {
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update(&[0]);
        hasher.update(&fs::read(src.join(&rel))?);
    }
    Ok(hasher.finalize().to_hex()[..16].to_string())
}

/// Every place a wire file under `src` names something outside the wire set, as
/// `path:line: what`.
pub fn outside_references(src: &Path) -> io::Result<Vec<String>> {
    let mut found = Vec::new();
    for rel in wire_files(src)? {
        let text = fs::read_to_string(src.join(&rel))?;
        found.extend(references_outside(&rel, &text));
    }
    Ok(found)
}

/// [`outside_references`] for one file, `rel` being its path relative to `src`
/// (`wire/protocol.rs`): its depth below `wire` is how many `super`s stay inside.
pub fn references_outside(rel: &Path, text: &str) -> Vec<String> {
    let own_dir = if rel.file_name().is_some_and(|n| n == "mod.rs") {
        2
    } else {
        1
    };
    let module_depth = rel.components().count().saturating_sub(own_dir);
    let tokens = tokens(text);
    let at = |i: usize| tokens.get(i).map_or("", |t| t.1.as_str());
    let mut found = Vec::new();
    let mut report = |line: usize, what: String| {
        found.push(format!("{}:{line}: {what}", rel.display()));
    };
    for (i, (line, token)) in tokens.iter().enumerate() {
        let prev = if i == 0 { "" } else { at(i - 1) };
        match token.as_str() {
            // `pub(crate)`, `crate::wire::…`; anything else leaves the set.
            "crate" if prev == "(" && at(i + 1) == ")" => {}
            "crate" if at(i + 1) == "::" && at(i + 2) == "wire" => {}
            "crate" => {
                // The path as written, for the message: `crate::stats::Stats`.
                let mut end = i + 1;
                while at(end) == "::" && !at(end + 1).is_empty() {
                    end += 2;
                }
                let path: String = tokens[i..end.min(tokens.len())]
                    .iter()
                    .map(|t| t.1.as_str())
                    .collect();
                report(*line, format!("`{path}` is outside `crate::wire`"));
            }
            "super" if prev == "::" => {}
            "super" => {
                let mut chain = 1;
                while at(i + 2 * chain - 1) == "::" && at(i + 2 * chain) == "super" {
                    chain += 1;
                }
                let visibility = prev == "(" && at(i + 1) == ")";
                if chain > module_depth && !visibility {
                    report(*line, format!("{chain} × `super` climbs above `wire`"));
                }
            }
            "path" if prev == "[" && at(i + 1) == "=" => {
                report(*line, "`#[path]` names a file outside the set".into())
            }
            "include" | "include_str" | "include_bytes" if at(i + 1) == "!" => {
                report(*line, format!("`{token}!` reads a file outside the set"));
            }
            _ => {}
        }
    }
    found
}

/// Identifiers, `::` and single punctuation characters with their 1-based line;
/// comments, string, byte-string and char literals skipped (what they say names
/// nothing), lifetimes kept as bare `'`.
fn tokens(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident = |c: char| c == '_' || c.is_alphanumeric();
    // Skips a string whose opening quote is at `i` to just past its closing quote (and
    // the `#`s of a raw string).
    let skip_string = |mut i: usize, raw: bool, hashes: usize, line: &mut usize| {
        i += 1;
        while i < chars.len() {
            match chars[i] {
                '\\' if !raw => i += 1,
                '"' if chars
                    .get(i + 1..i + 1 + hashes)
                    .is_some_and(|h| h.iter().all(|&c| c == '#')) =>
                {
                    return i + 1 + hashes;
                }
                '\n' => *line += 1,
                _ => {}
            }
            i += 1;
        }
        i
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(i, false, 0, &mut line);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'); else a lifetime or label.
            let close = if next == '\\' {
                chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|&c| c == '\''))
                    .map(|p| i + 3 + p)
            } else {
                (chars.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match close {
                Some(end) => i = end + 1,
                None => {
                    out.push((line, "'".to_string()));
                    i += 1;
                }
            }
        } else if ident(c) {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
            let raw = word.ends_with('r');
            if matches!(word.as_str(), "r" | "br" | "b" | "c" | "cr")
                && chars.get(i + hashes) == Some(&'"')
                && (hashes == 0 || raw)
            {
                i = skip_string(i + hashes, raw, hashes, &mut line);
            } else {
                out.push((line, word));
            }
        } else if c == ':' && next == ':' {
            out.push((line, "::".to_string()));
            i += 2;
        } else {
            out.push((line, c.to_string()));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Compiled only into the crate's unit tests (never into `build.rs`), where `crate`
    //! is `lean_ctx_shared`.
    use super::*;

    fn src() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
    }

    fn copy_tree(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let dest = to.join(path.file_name().unwrap());
            if path.is_dir() {
                copy_tree(&path, &dest);
            } else {
                fs::copy(&path, &dest).unwrap();
            }
        }
    }

    fn append(path: &Path, text: &str) {
        let mut bytes = fs::read(path).unwrap();
        bytes.extend_from_slice(text.as_bytes());
        fs::write(path, bytes).unwrap();
    }

    #[test]
    fn schema_is_the_fingerprint_of_exactly_the_wire_files() {
        let files: Vec<String> = wire_files(&src())
            .unwrap()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(
            files,
            [
                "wire/error.rs",
                "wire/frame.rs",
                "wire/mod.rs",
                "wire/position.rs",
                "wire/protocol.rs"
            ]
        );
        assert_eq!(fingerprint(&src()).unwrap(), crate::protocol::SCHEMA);
    }

    #[test]
    fn a_change_outside_wire_keeps_the_schema_and_one_inside_changes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("src");
        copy_tree(&src(), &copy);
        let schema = fingerprint(&copy).unwrap();
        assert_eq!(schema, crate::protocol::SCHEMA);

        for outside in [
            "render.rs",
            "remedy.rs",
            "gain.rs",
            "paths.rs",
            "hello.rs",
            "lib.rs",
        ] {
            append(
                &copy.join(outside),
                "\n// a change that is not the wire's\n",
            );
        }
        fs::write(copy.join("new_module.rs"), "pub struct Elsewhere;\n").unwrap();
        assert_eq!(fingerprint(&copy).unwrap(), schema, "non-wire changes");

        let protocol = copy.join("wire/protocol.rs");
        let original = fs::read(&protocol).unwrap();
        append(&protocol, "\n// even a comment\n");
        assert_ne!(fingerprint(&copy).unwrap(), schema, "a wire file changed");
        fs::write(&protocol, &original).unwrap();
        assert_eq!(fingerprint(&copy).unwrap(), schema);

        fs::write(copy.join("wire/extra.rs"), "pub struct More;\n").unwrap();
        assert_ne!(fingerprint(&copy).unwrap(), schema, "a wire file added");
    }

    #[test]
    fn the_wire_files_name_nothing_outside_the_wire_set() {
        assert_eq!(outside_references(&src()).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn every_way_out_of_the_wire_set_is_reported() {
        let protocol = Path::new("wire/protocol.rs");
        let mod_rs = Path::new("wire/mod.rs");
        let refused = [
            (protocol, "use crate::render::Text;"),
            (protocol, "use crate::{LeanError, Range};"),
            (protocol, "pub struct S { p: crate::paths::Paths }"),
            (protocol, "pub struct S { p: crate :: gain :: Report }"),
            (protocol, "use super::super::stats::Stats;"),
            (protocol, "pub struct S(super :: super :: X);"),
            (mod_rs, "pub use super::render;"),
            (protocol, "#[path = \"../render.rs\"] mod render;"),
            (protocol, "const T: &str = include_str!(\"../gain.rs\");"),
            (protocol, "extern crate self as shared;"),
            (
                protocol,
                "macro_rules! m { () => { $crate::stats::Stats } }",
            ),
            (Path::new("wire/deep/mod.rs"), "use super::super::gain;"),
        ];
        for (file, code) in refused {
            assert_eq!(references_outside(file, code).len(), 1, "{file:?}: {code}");
        }
        let allowed = [
            (protocol, "use super::{error::LeanError, position::Range};"),
            (
                protocol,
                "pub(crate) fn f() -> crate::wire::error::LeanError { todo() }",
            ),
            (
                protocol,
                "pub(super) struct S; pub(in crate::wire) struct T;",
            ),
            (mod_rs, "pub(super) mod x; pub mod protocol;"),
            (
                Path::new("wire/deep/leaf.rs"),
                "use super::super::error::LeanError;",
            ),
            (
                protocol,
                "// crate::render in a comment\n/* crate::gain /* nested */ */",
            ),
            (
                protocol,
                "/// see [`crate::render`]\nconst A: &str = \"crate::render\";",
            ),
            (
                protocol,
                "const B: &str = r#\"crate::\"gain\"#; const C: char = '\"';",
            ),
            (
                protocol,
                "fn f<'a>(x: &'a str) -> char { 'c' } const D: u8 = b'\\'';",
            ),
        ];
        for (file, code) in allowed {
            assert_eq!(
                references_outside(file, code),
                Vec::<String>::new(),
                "{file:?}: {code}"
            );
        }
    }

    #[test]
    fn a_reference_is_reported_with_its_file_and_line() {
        let found = references_outside(
            Path::new("wire/error.rs"),
            "//! doc\n\nuse serde::Serialize;\nuse crate::render::Text;\n",
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("wire/error.rs:4: "), "{found:?}");
    }
}
