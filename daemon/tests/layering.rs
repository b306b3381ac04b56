//! The daemon's modules form no import circle (ARCHITECTURE, "Architecture
//! Invariant: no import circle in daemon/src"): each top-level module of
//! `daemon/src` (a file, or a directory with everything in it) may use only modules
//! that do not use it back, directly or through others. A circle is how the router
//! got lost once (the backings, the service, the state and the dashboard all reaching
//! into each other); this test names the circle if one comes back.
//!
//! Read from the sources: `crate::x` paths (in `use` lines, braced groups included,
//! and in code), comments and `#[cfg(test)]` modules left out (tests may reach
//! anywhere). `super::` stays inside a directory module, so it never leaves one.

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

/// The source without comments and without its `#[cfg(test)]` module (always last).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
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

/// The top-level modules a source names through `crate::`.
fn uses(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::{c, d}, e}`: the first name of each item at depth 0.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        found.insert(ident(&group[i..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest).to_string());
        }
    }
    found
}

/// The module graph of `daemon/src`, top-level module → the ones it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let used = uses(&code(&fs::read_to_string(&file).unwrap()));
        graph
            .entry(module.clone())
            .or_default()
            .extend(used.into_iter().filter(|m| *m != module && m != "self"));
    }
    graph
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

#[test]
fn the_daemons_modules_form_no_import_circle() {
    let graph = graph();
    // The reader sees the modules it is checking: a parser that finds nothing
    // proves nothing.
    assert!(graph["route"].contains("backing"), "{graph:#?}");
    assert!(graph["service"].contains("route"), "{graph:#?}");
    if let Some(found) = circle(&graph) {
        panic!("import circle in daemon/src: {}", found.join(" → "));
    }
}

#[test]
fn the_reader_sees_braced_groups_and_a_circle_when_there_is_one() {
    let used = uses(&code(
        "use crate::{\n    a::{self, B},\n    c, // crate::commented\n    d::e::{F, G},\n};\nfn f() { crate::h::go(); }\n",
    ));
    assert_eq!(used.into_iter().collect::<Vec<_>>(), ["a", "c", "d", "h"]);
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
