//! The crate's fingerprint (`FINGERPRINT` in `src/lib.rs`): one hash of its sources
//! and of the tree-sitter packages `Cargo.lock` pins, the way the wire's schema hash
//! covers `shared/src/wire/`. Over-approximate: a change that alters no symbol costs
//! every user one first index, a missed one would serve wrong symbols. Only the
//! harness (`src/fast_check.rs`), which extracts nothing, is left out.

use std::{
    hash::{DefaultHasher, Hasher},
    path::{Path, PathBuf},
};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let src = manifest.join("src");
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed={}", lock.display());
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.retain(|f| !f.ends_with("src/fast_check.rs"));
    files.sort();
    let mut h = DefaultHasher::new();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        h.write(
            file.strip_prefix(&manifest)
                .unwrap()
                .to_string_lossy()
                .as_bytes(),
        );
        h.write(&std::fs::read(file).unwrap());
    }
    // The grammars' versions: each `[[package]]` block naming a tree-sitter crate.
    let lock = std::fs::read_to_string(lock).unwrap_or_default();
    for block in lock.split("[[package]]") {
        if block.contains("name = \"tree-sitter") {
            h.write(block.as_bytes());
        }
    }
    println!(
        "cargo:rustc-env=LEAN_CTX_SYNTAX_FINGERPRINT={:016x}",
        h.finish()
    );
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
