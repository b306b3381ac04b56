//! The declaration model's conformance on a fixed sample of real code nobody here
//! wrote (`lean_ctx_daemon::conformance`; the bench `conformance` runs the whole
//! corpora): pinned packages from PyPI, npm, the Go module proxy, Maven Central and
//! Debian's archive (upstream tarballs),
//! fetched once by `benches/fetch-conformance.sh` into `target/conformance-corpus`,
//! the Rust crates `benches/rust-corpus/Cargo.lock` pins among them. Every symbol of
//! every sampled file must pass: 0 failures.

use lean_ctx_daemon::conformance::check_dir;

#[test]
fn every_symbol_of_a_real_sample_conforms_to_the_declaration_model() {
    let corpus = lean_ctx_testkit::corpus();
    // (directory, every how many files): a stride of each corpus, a minute in all.
    let samples = [
        (corpus.join("rust"), 20),
        (corpus.join("python"), 6),
        (corpus.join("typescript"), 3),
        (corpus.join("go"), 3),
        (corpus.join("java"), 8),
        (corpus.join("kotlin"), 16),
        (corpus.join("c"), 2),
        (corpus.join("cpp"), 2),
        (corpus.join("csharp"), 2),
        (corpus.join("ruby"), 2),
        (corpus.join("php"), 2),
        (corpus.join("bash"), 2),
        (corpus.join("lua"), 2),
        (corpus.join("scala"), 2),
        (corpus.join("swift"), 2),
        (corpus.join("haskell"), 2),
        (corpus.join("elixir"), 2),
        (corpus.join("ocaml"), 2),
        (corpus.join("r"), 2),
    ];
    // The mutation run (`benches/mutants.sh`) runs this once per mutant of the
    // edit code: it takes every `LEAN_CTX_CONFORMANCE_THIN`th file of the sample.
    let thin: usize = std::env::var("LEAN_CTX_CONFORMANCE_THIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut report = Vec::new();
    let mut symbols = 0;
    let mut failures = Vec::new();
    for (dir, every) in samples {
        for (lang, t) in check_dir(&dir, every * thin.max(1)) {
            report.push(format!(
                "{}: {} files ({} not parsed cleanly), {} symbols, {} failed",
                lang.name(),
                t.files,
                t.unparsed,
                t.symbols,
                t.failed
            ));
            symbols += t.symbols;
            failures.extend(t.failures);
        }
    }
    assert!(
        symbols > 1000,
        "only {symbols} symbols checked: {report:#?}"
    );
    assert!(failures.is_empty(), "{report:#?}\n{failures:#?}");
}
