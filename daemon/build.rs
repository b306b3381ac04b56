//! Two things the daemon compiles in.
//!
//! The extractor fingerprint: one hash of every source file of `src/index/` (the
//! extraction, the grammars' glue and the store's own encoding) and of the
//! tree-sitter packages `Cargo.lock` pins. The persisted index (`src/index/persist.rs`)
//! stamps it into its header, so a store written by a build whose symbols could
//! differ is rebuilt, never served. Over-approximate on purpose: a change that does
//! not alter any symbol costs one first index, a missed one would serve wrong symbols.
//!
//! The `o200k_base` tables gain accounting counts tokens with (`src/tokens.rs`),
//! taken from tiktoken-rs here, at build time: every token's bytes in rank order, and
//! the pre-tokenizing pattern. tiktoken-rs builds them at run time from base64 text
//! into maps the daemon does not need (a decoder, a sorted copy, 128 regex clones):
//! 130-400 ms of CPU and about 46 MiB each time gain accounting woke up.

use std::{
    hash::{DefaultHasher, Hasher},
    path::{Path, PathBuf},
};

fn main() {
    extractor_hash();
    o200k_tables();
}

fn extractor_hash() {
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

/// `OUT_DIR/o200k.bytes` (the tokens' bytes, concatenated in rank order),
/// `o200k.lens` (one length byte a rank) and `o200k.pattern`.
fn o200k_tables() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let bpe = tiktoken_rs::o200k_base().expect("tiktoken-rs's o200k_base");
    // Ranks 0..N are the ordinary tokens (the special ones sit above, apart).
    const ORDINARY: u32 = 199_998;
    let (mut bytes, mut lens) = (Vec::new(), Vec::new());
    for rank in 0..ORDINARY {
        let token = bpe
            .decode_bytes(&[rank])
            .expect("o200k ranks are contiguous");
        lens.push(u8::try_from(token.len()).expect("an o200k token is at most 255 bytes"));
        bytes.extend(token);
    }
    assert!(
        bpe.decode_bytes(&[ORDINARY]).is_err(),
        "o200k_base has more ordinary tokens than this table holds"
    );
    std::fs::write(out.join("o200k.bytes"), bytes).unwrap();
    std::fs::write(out.join("o200k.lens"), lens).unwrap();
    std::fs::write(out.join("o200k.pattern"), tiktoken_rs::O200K_BASE_PAT_STR).unwrap();
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
