//! The declaration model's conformance over whole corpora nobody here wrote: every
//! symbol of every file (`lean_ctx_daemon::conformance`), per language files,
//! symbols and failures, and the first failures named: the pinned corpora
//! `fetch-conformance.sh` fetches from crates.io (`rust-corpus/Cargo.lock`), PyPI,
//! npm, the Go module proxy and Maven Central. `LEAN_CTX_CONFORMANCE_RUST=DIR` checks
//! another tree of Rust instead (cargo's registry, `~/.cargo/registry/src`, for the
//! whole-registry runs CONFORMANCE.md reports).
//!
//! Run: `cargo bench -p lean-ctx-daemon --bench conformance` (fetches on first run),
//! every file of every corpus; `-- rust kotlin` for some of them (a corpus is named
//! by its directory: `rust`, `python`, `c`, `ruby`, …). `LEAN_CTX_CONFORMANCE_RUST_EVERY=N` checks
//! every Nth Rust file only. Exits non-zero when any symbol fails.

use std::{path::PathBuf, time::Instant};

use lean_ctx_daemon::conformance::{Tally, check_dir};

fn main() {
    let corpus = lean_ctx_testkit::corpus();
    let rust = std::env::var_os("LEAN_CTX_CONFORMANCE_RUST")
        .map_or_else(|| corpus.join("rust"), PathBuf::from);
    let rust_every = std::env::var("LEAN_CTX_CONFORMANCE_RUST_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    // `cargo bench` passes `--bench`; corpora are the other arguments.
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    // Every corpus the fetch script made (a directory each), or those asked for.
    let mut names: Vec<String> = std::fs::read_dir(&corpus)
        .expect("the corpus directory")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names.retain(|n| asked.is_empty() || asked.contains(n));
    let dirs = names.into_iter().map(|name| match name.as_str() {
        "rust" => (rust.clone(), rust_every),
        _ => (corpus.join(&name), 1),
    });
    let mut failed = 0;
    println!("| language | files | not parsed cleanly | symbols | failures | seconds |");
    println!("|---|---|---|---|---|---|");
    let mut named = Vec::new();
    for (dir, every) in dirs {
        let started = Instant::now();
        let tallies = check_dir(&dir, every);
        let secs = started.elapsed().as_secs_f64();
        for (lang, t) in tallies {
            let Tally {
                unparsed,
                files,
                symbols,
                failed: f,
                failures,
            } = t;
            println!(
                "| {} | {files} | {unparsed} | {symbols} | {f} | {secs:.1} |",
                lang.name()
            );
            failed += f;
            named.extend(failures);
        }
    }
    for f in named.iter().take(100) {
        println!("FAIL {f}");
    }
    std::process::exit(i32::from(failed > 0));
}
