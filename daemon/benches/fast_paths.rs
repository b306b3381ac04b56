//! The index's fast paths against whole tree-sitter parses on whole bench corpora
//! (`client/benches/fetch-lang-corpora.sh`: one pinned real corpus per language):
//! per language the files compared, symbols, single-threaded extraction time of the
//! whole parse and of the fast path, and every file whose symbols differ (the
//! first difference of each). Exits non-zero when any file differs.
//!
//! Run: `bash client/benches/fetch-lang-corpora.sh && cargo bench -p lean-ctx-daemon --bench fast_paths [-- python go ...]`
//! An argument that is a path (has a `/`) compares the TypeScript, TSX and
//! JavaScript files under it, every `LEAN_CTX_FAST_PATHS_EVERY`th (default 1): a
//! sample of other code, e.g. the scale corpus's npm packages.

use std::path::PathBuf;

use lean_ctx_daemon::index::{fast_check::compare_dir, lang::Lang};

const LANGS: [(&str, &[Lang]); 6] = [
    // The web framework's JavaScript is indexed too.
    ("python", &[Lang::Python, Lang::JavaScript]),
    ("typescript", &[Lang::TypeScript, Lang::Tsx]),
    ("javascript", &[Lang::JavaScript]),
    ("go", &[Lang::Go]),
    ("java", &[Lang::Java]),
    ("kotlin", &[Lang::Kotlin]),
];

fn main() {
    let corpora = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpus-langs");
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!(
        "| corpus | files compared | whole parse errors | symbols | MiB | whole parse | fast path | ratio | reader declined | files differing |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut differ = Vec::new();
    let every: usize = std::env::var("LEAN_CTX_FAST_PATHS_EVERY")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(1);
    let scripts: &[Lang] = &[Lang::TypeScript, Lang::Tsx, Lang::JavaScript];
    let named = LANGS.into_iter().filter_map(|(dir, langs)| {
        let wanted = picked.is_empty() || picked.iter().any(|p| p == dir);
        wanted.then(|| {
            let root = corpora.join(dir);
            assert!(
                root.join(".done").exists(),
                "no {dir} corpus: run `bash client/benches/fetch-lang-corpora.sh` first"
            );
            (dir.to_string(), root, langs, 1)
        })
    });
    let paths = picked
        .iter()
        .filter(|p| p.contains('/'))
        .map(|p| (p.clone(), PathBuf::from(p), scripts, every));
    for (dir, root, langs, every) in named.chain(paths).collect::<Vec<_>>() {
        for (lang, t) in compare_dir(&root, langs, every) {
            println!(
                "| {dir} ({}) | {} | {} | {} | {:.1} | {:.0} ms | {:.0} ms | {:.2}x | {} | {} |",
                lang.name(),
                t.files,
                t.unparsed,
                t.symbols,
                t.bytes as f64 / 1048576.0,
                t.whole.as_secs_f64() * 1e3,
                t.fast.as_secs_f64() * 1e3,
                t.fast.as_secs_f64() / t.whole.as_secs_f64(),
                t.declined,
                t.differ.len()
            );
            differ.extend(t.differ);
        }
    }
    for d in differ.iter().take(50) {
        println!("DIFFER {d}");
    }
    std::process::exit(i32::from(!differ.is_empty()));
}
