//! Two things the daemon compiles in.
//!
//! The extractor fingerprint: one hash of the sources that decide what is stored
//! (the extraction at the top of `src/index/` and in `src/index/symbols/`, the byte
//! order mark rule in `src/bom.rs`, the store's and the listing's encodings in
//! `src/index/store/persist.rs` and `listing.rs`) and of the tree-sitter packages
//! `Cargo.lock` pins. The persisted index stamps it into its header, so a store
//! written by a build whose symbols could differ is rebuilt, never served. Not the
//! walk, the watcher, the caches or the root (`src/index/fs/`, `store/caches.rs`,
//! `root.rs`): a change there keeps every user's parses. Over-approximate otherwise:
//! a change that does not alter any symbol costs one first index, a missed one would
//! serve wrong symbols.
//!
//! The `o200k_base` tables gain accounting counts tokens with (`src/tokens.rs`),
//! taken from tiktoken-rs here, at build time: every token's bytes in rank order, the
//! table that finds a token's rank by its bytes, and the pre-tokenizing pattern. tiktoken-rs builds them at run time from base64 text
//! into maps the daemon does not need (a decoder, a sorted copy, 128 regex clones):
//! 130-400 ms of CPU and about 46 MiB each time gain accounting woke up.

use std::{
    hash::{DefaultHasher, Hasher},
    path::{Path, PathBuf},
};

fn main() {
    println!("cargo:rerun-if-changed=src/o200k_slots.rs");
    extractor_hash();
    o200k_tables();
}

fn extractor_hash() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let index = manifest.join("src/index");
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", index.display());
    println!("cargo:rerun-if-changed={}", lock.display());
    let mut files = vec![
        manifest.join("src/bom.rs"),
        index.join("store/persist.rs"),
        index.join("store/listing.rs"),
    ];
    sources(&index.join("symbols"), &mut files);
    // The extraction: the folder's own files but the root on top and its tests.
    for entry in std::fs::read_dir(&index).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.extension().is_some_and(|e| e == "rs") && name != "root.rs" && name != "tests.rs" {
            files.push(path);
        }
    }
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
/// `o200k.starts` (where each rank's bytes start, and one more: where the last ends),
/// `o200k.slots` (the lookup table `src/o200k_slots.rs` lays out), both little-endian
/// `u32`s, and `o200k.pattern`. With the table built here, a load of the tokenizer
/// is its pattern's compile: building the table took 4-7 ms and 3 MiB of heap each
/// time gain accounting woke up.
fn o200k_tables() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let bpe = tiktoken_rs::o200k_base().expect("tiktoken-rs's o200k_base");
    // Ranks 0..N are the ordinary tokens (the special ones sit above, apart).
    const ORDINARY: u32 = 199_998;
    const { assert!(ORDINARY < RANK_MASK, "o200k_base's ranks fit a slot") };
    let (mut bytes, mut starts) = (Vec::new(), Vec::new());
    for rank in 0..ORDINARY {
        let token = bpe
            .decode_bytes(&[rank])
            .expect("o200k ranks are contiguous");
        starts.push(u32::try_from(bytes.len()).unwrap());
        bytes.extend(token);
    }
    starts.push(u32::try_from(bytes.len()).unwrap());
    assert!(
        bpe.decode_bytes(&[ORDINARY]).is_err(),
        "o200k_base has more ordinary tokens than this table holds"
    );
    // A power of two, three quarters full at most: probes stay short, and most read
    // one cache line.
    let mask = (ORDINARY as usize * 4 / 3).next_power_of_two() - 1;
    let mut slots = vec![0u32; mask + 1];
    for rank in 0..ORDINARY {
        let token = &bytes[starts[rank as usize] as usize..starts[rank as usize + 1] as usize];
        let (mut i, tag) = home(token, mask);
        while slots[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = tag | (rank + 1);
    }
    let le = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    std::fs::write(out.join("o200k.bytes"), bytes).unwrap();
    std::fs::write(out.join("o200k.starts"), le(&starts)).unwrap();
    std::fs::write(out.join("o200k.slots"), le(&slots)).unwrap();
    std::fs::write(out.join("o200k.pattern"), tiktoken_rs::O200K_BASE_PAT_STR).unwrap();
}

include!("src/o200k_slots.rs");

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
