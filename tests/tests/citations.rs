//! The repository explains itself (docs/design.md #16): what the code obeys is written
//! in the repository (`docs/`, `ARCHITECTURE.md`), and no source or doc file cites a
//! document a clone does not have. Someone who reads "see the spec" and cannot open it
//! has been told nothing, and a rule kept outside drifts from the code unseen.
//!
//! The walk reads every source and doc file of the checkout (tracked or not, so a new
//! file is held to it before its first commit) and names each offending line as
//! `path:line`. What counts as a citation of an outside document:
//! - `§` not right after a `docs/….md` file name (the outside spec's sections);
//! - `DESIGN` as a word (the outside design brief: "DESIGN invariant 3", `DESIGN.md`),
//!   and a numbered "invariant N" on a line that does not name `docs/design.md`;
//! - `WIRE.md` or `STYLE.md` not as `docs/…` (the outside wire and style notes);
//! - `seeds/` (where the outside spec is kept).
//!
//! The error catalogue and the wire are also held to the code: `docs/errors.md` has a
//! section for exactly the codes of `ErrorCode`, and `docs/ide-wire.md` names every
//! route the daemon may send.

use std::{
    fs,
    path::{Path, PathBuf},
};

use lean_ctx_shared::ErrorCode;
use lean_ctx_testkit::plugin_double::routes;

/// This file names the patterns it looks for.
const SELF: &str = "tests/tests/citations.rs";

/// Build output, dependencies and tool state: nothing the repository says.
const SKIP_DIRS: &[&str] = &[
    "target",
    "build",
    "node_modules",
    ".git",
    ".gradle",
    ".kotlin",
    ".idea",
];

/// Source and doc files (data files too: a fixture's `about` is documentation).
const EXTENSIONS: &[&str] = &[
    "rs",
    "kt",
    "kts",
    "java",
    "md",
    "sh",
    "py",
    "toml",
    "xml",
    "json",
    "js",
    "mjs",
    "ts",
    "html",
    "css",
    "txt",
    "yml",
    "yaml",
    "service",
    "socket",
    "plist",
    "properties",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the test kit lives one level below the repository root")
        .to_path_buf()
}

/// Every file [`EXTENSIONS`] names below `root`, outside [`SKIP_DIRS`], as
/// `/`-separated paths relative to `root`, sorted.
fn source_files(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Not followed: a symlink leads out of the checkout or to a file seen anyway.
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                if !SKIP_DIRS.contains(&name.as_str()) {
                    dirs.push(path);
                }
            } else if kind.is_file()
                && name
                    .rsplit_once('.')
                    .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
            {
                let rel = path.strip_prefix(root).unwrap();
                found.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

/// Whether `text` ends with a file of `docs/` (`docs/name.md`, `../docs/name.md`),
/// give or take a comma and spaces: what a `§` right after it is a section of.
fn ends_with_a_doc(text: &str) -> bool {
    let text = text.trim_end_matches([' ', ',']);
    let in_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let start = (text.char_indices().rev())
        .find(|&(_, c)| !in_name(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name = &text[start..];
    name.ends_with(".md") && name.split('/').rev().nth(1) == Some("docs")
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Why `line` cites a document outside the repository, if it does.
fn outside_citation(line: &str) -> Option<&'static str> {
    if line
        .match_indices('§')
        .any(|(i, _)| !ends_with_a_doc(&line[..i]))
    {
        return Some("a `§` section of a document outside the repository");
    }
    let design_word = line.match_indices("DESIGN").any(|(i, m)| {
        let before = line[..i].chars().next_back();
        let after = line[i + m.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    });
    if design_word {
        return Some("the design brief outside the repository (docs/design.md, ARCHITECTURE.md)");
    }
    for outside in ["WIRE.md", "STYLE.md"] {
        if line
            .match_indices(outside)
            .any(|(i, _)| !line[..i].ends_with("docs/"))
        {
            return Some("a note outside the repository (docs/ide-wire.md, ARCHITECTURE.md)");
        }
    }
    if line.contains("seeds/") {
        return Some("the spec outside the repository (docs/ide-wire.md, docs/errors.md)");
    }
    let lower = line.to_lowercase();
    let numbered = lower.match_indices("invariant").any(|(i, m)| {
        let rest = lower[i + m.len()..].trim_start_matches([' ', '#']);
        rest.starts_with(|c: char| c.is_ascii_digit())
    });
    if numbered && !line.contains("docs/design.md") {
        return Some(
            "a numbered invariant not in docs/design.md (cite ARCHITECTURE.md by what it says)",
        );
    }
    None
}

/// `path:line: why: text` for every outside citation under `root`.
fn outside_citations(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for rel in source_files(root) {
        if rel == SELF {
            continue;
        }
        let bytes = fs::read(root.join(&rel)).unwrap();
        for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            if let Some(why) = outside_citation(line) {
                found.push(format!("{rel}:{}: {why}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn nothing_cites_a_document_outside_the_repository() {
    let found = outside_citations(&repo_root());
    assert!(
        found.is_empty(),
        "{} line(s) cite a document a clone of the repository does not have; cite \
         docs/ide-wire.md, docs/errors.md, docs/design.md or ARCHITECTURE.md instead, \
         or drop the citation where the comment stands on its own:\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

#[test]
fn the_rules_tell_outside_citations_from_the_repositorys_own() {
    for outside in [
        "//! Positions (spec §2.1): 0-based",
        "// see docs/ide-wire.md; the rest is spec §9",
        "//! Writes that never lose data (DESIGN invariant 3).",
        "/// the port file (DESIGN \"Formats to keep exactly\")",
        "See DESIGN.md.",
        "//! PathJail (invariant 2): every path",
        "/// Never a lock across a slow step (Invariant #7).",
        "/// request bodies exactly WIRE.md's",
        "(`shared/WIRE.md`)",
        "the IdeaVim split, STYLE.md",
        "spec `../../shared/seeds/000_0faabed185420fc8.txt`",
    ] {
        assert!(outside_citation(outside).is_some(), "passed: {outside}");
    }
    for own in [
        "//! Positions (docs/ide-wire.md, Positions and paths): 0-based",
        "// docs/ide-wire.md § Routes",
        "<!-- ../docs/errors.md, §INDEXING -->",
        "→docs/design.md §16",
        "//! keyed by worktree root (docs/design.md #5)",
        "/// as the 16th invariant of docs/design.md says: invariant 16",
        "//! Writes (ARCHITECTURE.md: a write is all or nothing).",
        "const DESIGN_LIMIT: usize = 3; // DESIGNER, REDESIGNED",
        "an invariant holds; invariants hold",
        "the XDG spec says to ignore it",
        "(docs/WIRE.md)",
    ] {
        assert_eq!(outside_citation(own), None, "{own}");
    }
}

#[test]
fn the_error_catalogue_has_a_section_for_exactly_every_code() {
    let doc = fs::read_to_string(repo_root().join("docs/errors.md")).unwrap();
    let mut sections: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter(|h| h.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    sections.sort_unstable();
    let mut codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    codes.sort_unstable();
    assert_eq!(sections, codes, "docs/errors.md against shared's ErrorCode");
}

#[test]
fn the_wire_document_names_every_route_the_daemon_may_send() {
    let doc = fs::read_to_string(repo_root().join("docs/ide-wire.md")).unwrap();
    let missing: Vec<&str> = routes()
        .chain(["/health"])
        .filter(|r| !doc.contains(&format!("`{r}`")) && !doc.contains(&format!("GET {r}")))
        .collect();
    assert!(missing.is_empty(), "docs/ide-wire.md lacks {missing:?}");
}
