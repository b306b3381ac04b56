//! The index's fast paths against whole tree-sitter parses on whole bench corpora
//! (`client/benches/fetch-lang-corpora.sh`: one pinned real corpus per language):
//! per language the files compared, symbols, single-threaded extraction time of the
//! whole parse and of the fast path, and every file whose symbols differ (the
//! first difference of each). Exits non-zero when any file differs.
//!
//! Run: `bash client/benches/fetch-lang-corpora.sh && cargo bench -p lean-ctx-syntax --bench fast_paths [-- python go ...]`;
//! `java=/some/dir` compares that directory as the `java` corpus (several may be
//! given: other real code than the pinned corpus, such as the scale corpus' jars),
//! every `LEAN_CTX_FAST_PATHS_EVERY`th file of it (default 1: a sample of a large
//! tree, e.g. `typescript=… javascript=…` on the scale corpus's npm packages).
//! `LEAN_CTX_FAST_PATHS_DECLINED=1` lists every file a declaration reader declined
//! (these are where the index still pays tree-sitter).

use std::path::PathBuf;

use lean_ctx_syntax::{Lang, fast_check::compare_dir};

const LANGS: [(&str, &[Lang]); 19] = [
    // The web framework's JavaScript is indexed too.
    ("python", &[Lang::Python, Lang::JavaScript]),
    ("typescript", &[Lang::TypeScript, Lang::Tsx]),
    ("javascript", &[Lang::JavaScript]),
    ("go", &[Lang::Go]),
    ("java", &[Lang::Java]),
    ("kotlin", &[Lang::Kotlin]),
    // C's headers are C++ (`languages/c.rs`).
    ("c", &[Lang::C, Lang::Cpp]),
    ("cpp", &[Lang::Cpp, Lang::C]),
    ("csharp", &[Lang::CSharp]),
    ("ruby", &[Lang::Ruby]),
    ("php", &[Lang::Php]),
    ("bash", &[Lang::Bash]),
    ("lua", &[Lang::Lua]),
    ("scala", &[Lang::Scala]),
    ("swift", &[Lang::Swift]),
    ("haskell", &[Lang::Haskell]),
    ("elixir", &[Lang::Elixir]),
    ("ocaml", &[Lang::OCaml]),
    ("r", &[Lang::R]),
];

fn main() {
    // Cargo runs a bench in its package's directory: a relative `lang=DIR` is the
    // workspace's, as the command is typed there.
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpora = workspace.join("target/bench-corpus-langs");
    let picked: Vec<(String, Option<PathBuf>)> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| match a.split_once('=') {
            Some((name, dir)) => (name.to_string(), Some(workspace.join(dir))),
            None => (a, None),
        })
        .collect();
    let runs: Vec<(&str, &[Lang], Option<PathBuf>)> = if picked.is_empty() {
        LANGS.iter().map(|(d, l)| (*d, *l, None)).collect()
    } else {
        picked
            .iter()
            .filter_map(|(name, dir)| {
                let (d, l) = LANGS.iter().find(|(d, _)| d == name)?;
                Some((*d, *l, dir.clone()))
            })
            .collect()
    };
    println!(
        "| corpus | files compared | whole parse errors | symbols | MiB | whole parse | fast path | ratio | reader declined | files differing | errored: declined, fast path | compared with variance blanked | errored: symbols compared (outside failing statements; Kotlin: those its whole parse recovers), left out |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let list_declined = std::env::var_os("LEAN_CTX_FAST_PATHS_DECLINED").is_some();
    let mut declined = Vec::new();
    let mut differ = Vec::new();
    let every: usize = std::env::var("LEAN_CTX_FAST_PATHS_EVERY")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(1);
    for (dir, langs, given) in runs {
        let root = given.clone().unwrap_or_else(|| corpora.join(dir));
        assert!(
            given.is_some() || root.join(".done").exists(),
            "no {dir} corpus: run `bash client/benches/fetch-lang-corpora.sh` first"
        );
        assert!(root.is_dir(), "{}: no such directory", root.display());
        let label = match &given {
            Some(g) => g.display().to_string(),
            None => dir.to_string(),
        };
        let stride = if given.is_some() { every } else { 1 };
        for (lang, t) in compare_dir(&root, langs, stride) {
            println!(
                "| {label} ({}) | {} | {} | {} | {:.1} | {:.0} ms | {:.0} ms | {:.2}x | {} | {} | {}, {:.0} ms | {} | {}, {} |",
                lang.name(),
                t.files,
                t.unparsed,
                t.symbols,
                t.bytes as f64 / 1048576.0,
                t.whole.as_secs_f64() * 1e3,
                t.fast.as_secs_f64() * 1e3,
                t.fast.as_secs_f64() / t.whole.as_secs_f64(),
                t.declined,
                t.differ.len(),
                t.unparsed_declined,
                t.unparsed_fast.as_secs_f64() * 1e3,
                t.blanked,
                t.errored_symbols,
                t.errored_left_out,
            );
            differ.extend(t.differ);
            declined.extend(t.declined_files);
        }
    }
    if list_declined {
        for (path, bytes, unparsed) in &declined {
            let errored = if *unparsed {
                " (whole parse errors)"
            } else {
                ""
            };
            println!("DECLINED {path} {bytes} B{errored}");
        }
    }
    for d in differ.iter().take(50) {
        println!("DIFFER {d}");
    }
    std::process::exit(i32::from(!differ.is_empty()));
}
