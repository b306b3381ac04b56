//! The text index's own cost, stage by stage, on the contents of real trees: the
//! trigrams of every text (`index/text/trigrams.rs`), taking them in and inverting
//! them in batches (`TextIndex::add`, `flush`), the freeze and the snapshot. One
//! thread, no daemon: what the walk's workers and the snapshot pay per text byte,
//! beside reading the same bytes once (a floor no index goes under).
//!
//! Run: `cargo bench -p lean-ctx-daemon --bench text_index -- DIR...` (the search
//! bench's corpora: `target/bench-corpus/repo`, Kubernetes under
//! `target/scale-corpus`).

use std::{path::Path, time::Instant};

use lean_ctx_daemon::index::text::{TextIndex, trigrams};

fn main() {
    let dirs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    assert!(!dirs.is_empty(), "usage: text_index DIR...");
    for dir in dirs {
        bench(Path::new(&dir));
    }
}

/// The text files under `dir` as the walk reads them: ignore rules honoured, a NUL
/// in the first 8 KiB marks a binary.
fn texts(dir: &Path) -> Vec<Vec<u8>> {
    ignore::WalkBuilder::new(dir)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter(|b| !b[..b.len().min(8192)].contains(&0))
        .collect()
}

fn bench(dir: &Path) {
    let t = Instant::now();
    let texts = texts(dir);
    let bytes: usize = texts.iter().map(Vec::len).sum();
    let mib = bytes as f64 / f64::from(1 << 20);
    println!(
        "== {}: {} texts, {mib:.1} MiB (read in {:.0} ms)",
        dir.display(),
        texts.len(),
        ms(t)
    );
    let per_byte = |ms: f64| ms * 1e6 / bytes as f64;
    let t = Instant::now();
    let hashes: Vec<[u8; 32]> = texts.iter().map(|b| *blake3::hash(b).as_bytes()).collect();
    let hashed = ms(t);
    println!(
        "blake3 (the walk's hash, for scale): {hashed:.0} ms, {:.2} ns/byte",
        per_byte(hashed)
    );
    let t = Instant::now();
    let pairs: usize = texts.iter().map(|b| trigrams::of(b).len()).sum();
    let extracted = ms(t);
    println!(
        "trigrams: {extracted:.0} ms, {:.2} ns/byte; {pairs} pairs ({:.3} per byte)",
        per_byte(extracted),
        pairs as f64 / bytes as f64
    );
    let index = TextIndex::default();
    let t = Instant::now();
    for (hash, text) in hashes.iter().zip(&texts) {
        index.add(*hash, text);
    }
    index.flush();
    let added = ms(t);
    println!(
        "add + invert: {added:.0} ms, {:.2} ns/byte, {:.1} ns/pair (inversion alone about {:.0} ms)",
        per_byte(added),
        added * 1e6 / pairs as f64,
        added - extracted
    );
    let t = Instant::now();
    index.freeze();
    let frozen = ms(t);
    let t = Instant::now();
    let snapshot = index.snapshot(0).map_or(0, |(s, _)| s.len());
    let snap = ms(t);
    let figures = index.figures();
    println!(
        "freeze: {frozen:.0} ms; snapshot: {snap:.0} ms, {:.1} MiB ({:.3} B per text byte); {} trigrams",
        snapshot as f64 / f64::from(1 << 20),
        snapshot as f64 / bytes as f64,
        figures.trigrams
    );
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
