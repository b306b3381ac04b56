//! The extractor fingerprint: one hash of every source file of `src/index/` (the
//! extraction, the grammars' glue and the store's own encoding) and of the
//! tree-sitter packages `Cargo.lock` pins. The persisted index (`src/index/persist.rs`)
//! stamps it into its header, so a store written by a build whose symbols could
//! differ is rebuilt, never served. Over-approximate on purpose: a change that does
//! not alter any symbol costs one first index, a missed one would serve wrong symbols.

use std::{
    hash::{DefaultHasher, Hasher},
    path::{Path, PathBuf},
};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let index = manifest.join("src/index");
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", index.display());
    println!("cargo:rerun-if-changed={}", lock.display());
    let mut files = Vec::new();
    sources(&index, &mut files);
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
        "cargo:rustc-env=LEAN_CTX_EXTRACTOR_HASH={:016x}",
        h.finish()
    );
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
