//! The daemon's and the syntax crate's modules form no import circle (ARCHITECTURE,
//! "Architecture Invariant: no import circle in daemon/src"), at any level: the
//! top-level modules of `daemon/src` (a file, or a directory with everything in it),
//! and inside each
//! directory module its files and subdirectories, may each use only modules that do
//! not use it back, directly or through others. A circle is how the router got lost
//! once (the backings, the service, the state and the dashboard all reaching into
//! each other); this test names the circle if one comes back.
//!
//! Read from the sources: `crate::` and `super::` paths (in `use` lines, braced
//! groups included, and in code), comments, `#[cfg(test)]` modules and test-only
//! files (`tests.rs`) left out (tests may reach anywhere).

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments and without its inline `#[cfg(test)]` module (always
/// last; a `mod tests;` declaration elsewhere is kept).
fn code(text: &str) -> String {
    let inline = text.match_indices("#[cfg(test)]\n").find(|(at, m)| {
        let rest = &text[at + m.len()..];
        let line = rest.lines().next().unwrap_or("");
        line.trim_start_matches("pub(crate) ").starts_with("mod ") && line.ends_with('{')
    });
    let text = match inline {
        Some((at, _)) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The paths after `prefix` at `at` in `code`: `a::b::c`, and for a braced group
/// `a::{b, c::{d, e}}` each item in full (`a::b`, `a::c::d`, `a::c::e`).
fn paths_at(code: &str, mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        let rest = &code[at..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth > 0 => depth -= 1,
                    ',' | '}' if depth == 0 => {
                        let item = group[start..i].trim_start();
                        if !item.is_empty() {
                            let skip = group[start..i].len() - item.len();
                            paths_at(code, at + 1 + start + skip, path.clone(), out);
                        }
                        if c == '}' {
                            return;
                        }
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let name = ident(rest);
        if name.is_empty() {
            out.push(path);
            return;
        }
        path.push(name.to_string());
        at += name.len();
        match code[at..].strip_prefix("::") {
            Some(_) => at += 2,
            None => {
                out.push(path);
                return;
            }
        }
    }
}

/// Every module path a file at module `me` names, made absolute: `crate::a::b`, and
/// `super::` (repeated) from `me`'s parent up; `self` segments dropped.
fn named(code: &str, me: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        paths_at(code, at + "crate::".len(), Vec::new(), &mut out);
    }
    for (at, _) in code.match_indices("super::") {
        if at >= 2 && &code[at - 2..at] == "::" {
            continue;
        }
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let (mut up, mut end) = (1, at + "super::".len());
        while code[end..].starts_with("super::") {
            up += 1;
            end += "super::".len();
        }
        let base = me[..me.len().saturating_sub(up)].to_vec();
        paths_at(code, end, base, &mut out);
    }
    for path in &mut out {
        path.retain(|s| s != "self");
    }
    out
}

/// The module path of a source file (`index/root.rs` → `[index, root]`,
/// `index/mod.rs` → `[index]`), `None` for the crate roots and test-only files.
fn module_of(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = parts.pop()?;
    let stem = file.trim_end_matches(".rs");
    if parts.is_empty() && (stem == "lib" || stem == "main") || stem == "tests" {
        return None;
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// Module graphs of a crate's `src` by directory module: `[]` holds the top-level
/// modules, `[index]` the files and folders inside `index/`, and so on. A file's
/// use of a path counts at the level where the two part: `index/root.rs` naming
/// `crate::index::store::Caches` is `root → store` inside `[index]`, naming
/// `crate::language_servers::Server` is `index → language_servers` at the top.
fn graphs(crate_dir: &str) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(crate_dir)
        .join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut modules = BTreeSet::new();
    let mut read = Vec::new();
    let mut aliases = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let text = code(&fs::read_to_string(&file).unwrap());
        // The crate root's and every directory module's re-exports, read first: a
        // path through one (`crate::Lang` for `crate::languages::Lang`) names the
        // module it comes from.
        let here = match rel.to_str() {
            Some("lib.rs") => Some(Vec::new()),
            _ if rel.ends_with("mod.rs") => module_of(rel),
            _ => None,
        };
        if let Some(here) = here {
            reexports(&text, &here, &mut aliases);
        }
        let Some(me) = module_of(rel) else {
            continue;
        };
        for level in 1..=me.len() {
            modules.insert(me[..level].to_vec());
        }
        read.push((me, text));
    }
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (me, code) in &read {
        for level in 0..me.len() {
            graphs
                .entry(me[..level].to_vec())
                .or_default()
                .entry(me[level].clone())
                .or_default();
        }
        for target in named(code, me) {
            let target = through_reexports(target, &aliases);
            let shared = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            let (Some(from), Some(to)) = (me.get(shared), target.get(shared)) else {
                continue;
            };
            // An item of the shared parent (a re-export in its `mod.rs`) is no module.
            let mut module = target[..shared].to_vec();
            module.push(to.clone());
            if !modules.contains(&module) {
                continue;
            }
            graphs
                .entry(me[..shared].to_vec())
                .or_default()
                .entry(from.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    graphs
}

/// The `pub use` lines of the module at `here`: each re-exported name's path (in
/// `here`) to the path it names, made absolute.
fn reexports(code: &str, here: &[String], out: &mut BTreeMap<Vec<String>, Vec<String>>) {
    for (at, _) in code.match_indices("pub use ") {
        let mut paths = Vec::new();
        paths_at(code, at + "pub use ".len(), Vec::new(), &mut paths);
        for path in paths {
            let (Some(name), Some(first)) = (path.last(), path.first()) else {
                continue;
            };
            let target = match first.as_str() {
                "crate" => path[1..].to_vec(),
                "self" => here.iter().chain(&path[1..]).cloned().collect(),
                "super" => here[..here.len().saturating_sub(1)]
                    .iter()
                    .chain(&path[1..])
                    .cloned()
                    .collect(),
                _ => here.iter().chain(&path).cloned().collect(),
            };
            let mut alias = here.to_vec();
            alias.push(name.clone());
            if alias != target {
                out.insert(alias, target);
            }
        }
    }
}

/// `path` with a re-exported prefix replaced by what it re-exports, as often as one
/// leads to another.
fn through_reexports(
    mut path: Vec<String>,
    aliases: &BTreeMap<Vec<String>, Vec<String>>,
) -> Vec<String> {
    for _ in 0..8 {
        let Some(k) = (1..=path.len())
            .rev()
            .find(|&k| aliases.contains_key(&path[..k]))
        else {
            break;
        };
        let mut resolved = aliases[&path[..k]].clone();
        resolved.extend_from_slice(&path[k..]);
        path = resolved;
    }
    path
}

/// A circle through the graph, if there is one, as the modules along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = path.iter().position(|n| n == node).unwrap();
                let mut found = path[from..].to_vec();
                found.push(node.to_string());
                return Some(found);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, marks, path) {
                return Some(found);
            }
        }
        path.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

/// Every circle in `graphs`, one line each, named from the workspace's root.
fn circles(
    name: &str,
    graphs: &BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>,
) -> Vec<String> {
    graphs
        .iter()
        .filter_map(|(at, graph)| {
            let found = circle(graph)?;
            let mut at_dir = format!("{name}/src");
            for part in at {
                at_dir = format!("{at_dir}/{part}");
            }
            Some(format!("{at_dir}: {}", found.join(" → ")))
        })
        .collect()
}

#[test]
fn the_daemons_modules_form_no_import_circle_at_any_level() {
    let graphs = graphs(".");
    // The reader sees the modules it is checking: a parser that finds nothing
    // proves nothing.
    let top = &graphs[&vec![]];
    assert!(top["route"].contains("backing"), "{top:#?}");
    assert!(top["service"].contains("route"), "{top:#?}");
    let index = &graphs[&vec!["index".to_string()]];
    assert!(index["root"].contains("store"), "{index:#?}");
    let found = circles("daemon", &graphs);
    assert!(
        found.is_empty(),
        "import circles:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_syntax_crates_modules_form_no_import_circle_at_any_level() {
    let graphs = graphs("../syntax");
    let top = &graphs[&vec![]];
    assert!(top["symbols"].contains("languages"), "{top:#?}");
    assert!(top["languages"].contains("classify"), "{top:#?}");
    let found = circles("syntax", &graphs);
    assert!(
        found.is_empty(),
        "import circles:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_reader_resolves_paths_at_every_level_and_finds_a_circle() {
    let me = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    let code_of = |s: &str| code(s);
    let code = code(
        "use crate::{\n    a::{self, B},\n    c, // crate::commented\n    d::e::{F, G},\n};\nuse super::{x, y::{z, W}};\nuse super::super::up::V;\nfn f() { crate::h::go(); }\n",
    );
    let mut named: Vec<String> = named(&code, &me("p/q/r"))
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            "a",
            "a::B",
            "c",
            "d::e::F",
            "d::e::G",
            "h::go",
            "p::q::x",
            "p::q::y::W",
            "p::q::y::z",
            "p::up::V"
        ]
    );
    // A path through a re-export names the module it comes from.
    let mut aliases = BTreeMap::new();
    reexports(
        &code_of("pub use languages::Lang;\npub use position::{Position, Range};\n"),
        &[],
        &mut aliases,
    );
    reexports(
        &code_of("pub use codec::lang_byte;\n"),
        &me("symbols"),
        &mut aliases,
    );
    let through = |p: &str| through_reexports(me(p), &aliases).join("::");
    assert_eq!(through("Lang"), "languages::Lang");
    assert_eq!(through("Range/new"), "position::Range::new");
    assert_eq!(through("symbols/lang_byte"), "symbols::codec::lang_byte");
    assert_eq!(through("symbols/extract"), "symbols::extract");
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
}

/// Every parse the daemon takes is charged to its memory budget: the syntax crate's
/// parsing entry points are named only by `declarations.rs`, the door that charges
/// them (test modules left out).
#[test]
fn the_daemon_parses_only_through_its_budgeted_door() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut seen = 0;
    let mut outside = Vec::new();
    for file in files {
        let code = code(&fs::read_to_string(&file).unwrap());
        for (at, _) in code.match_indices("lean_ctx_syntax::") {
            let mut paths = Vec::new();
            paths_at(
                &code,
                at + "lean_ctx_syntax::".len(),
                Vec::new(),
                &mut paths,
            );
            for path in paths {
                seen += 1;
                let parses = matches!(
                    path.iter().map(String::as_str).collect::<Vec<_>>()[..],
                    ["extract" | "syntax_error"] | ["symbols", "extract" | "syntax_error"]
                );
                if parses && !file.ends_with("src/declarations.rs") {
                    outside.push(format!("{}: {}", file.display(), path.join("::")));
                }
            }
        }
    }
    assert!(
        seen > 20,
        "the reader found only {seen} paths into the syntax crate"
    );
    assert!(
        outside.is_empty(),
        "parses outside the budget:\n  {}",
        outside.join("\n  ")
    );
}

/// No arrow up: the index's rooms each use only those below them (the store and the
/// file system know nothing of each other, the text index only the ids, the ids
/// nothing at all), and the index
/// itself uses only the plumbing under it, never a backing, the router or the state
/// above it (ARCHITECTURE.md, `index/`).
#[test]
fn the_index_rooms_use_only_what_lies_below_them() {
    let graphs = graphs(".");
    let index = &graphs[&vec!["index".to_string()]];
    let uses = |room: &str| index[room].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(uses("ids"), Vec::<&str>::new(), "{index:#?}");
    assert_eq!(uses("fs"), ["ids"], "{index:#?}");
    assert_eq!(uses("text"), ["ids"], "{index:#?}");
    assert_eq!(uses("store"), ["ids", "text"], "{index:#?}");
    assert_eq!(uses("root"), ["fs", "ids", "store", "text"], "{index:#?}");
    let top = &graphs[&vec![]];
    let below: BTreeSet<&str> = ["config", "declarations", "jail", "sys", "worktree"].into();
    let above: Vec<&String> = top["index"]
        .iter()
        .filter(|m| !below.contains(m.as_str()))
        .collect();
    assert!(above.is_empty(), "the index uses {above:?}, above it");
}
