//! Two things the daemon compiles in.
//!
//! The store's encoding hash: one hash of the files that lay out what the persisted
//! index writes (`src/index/store/persist.rs` and `listing.rs`). The store stamps it
//! into its header beside the syntax crate's fingerprint (what the parses hold,
//! `syntax/build.rs`), so a store written by a build that encodes or extracts
//! differently is rebuilt, never served. Not the walk, the watcher, the caches or the
//! root: a change there keeps every user's parses.
//!
//! The `o200k_base` tables gain accounting counts tokens with (`src/tokens.rs`),
//! taken from tiktoken-rs here, at build time: every token's bytes in rank order, the
//! table that finds a token's rank by its bytes, and the pre-tokenizing pattern. tiktoken-rs builds them at run time from base64 text
//! into maps the daemon does not need (a decoder, a sorted copy, 128 regex clones):
//! 130-400 ms of CPU and about 46 MiB each time gain accounting woke up.

use std::{
    hash::{DefaultHasher, Hasher},
    path::PathBuf,
};

fn main() {
    println!("cargo:rerun-if-changed=src/o200k_slots.rs");
    store_encoding_hash();
    o200k_tables();
}

fn store_encoding_hash() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let mut h = DefaultHasher::new();
    for name in ["store/persist.rs", "store/listing.rs"] {
        let file = manifest.join("src/index").join(name);
        println!("cargo:rerun-if-changed={}", file.display());
        h.write(name.as_bytes());
        h.write(&std::fs::read(file).unwrap());
    }
    println!(
        "cargo:rustc-env=LEAN_CTX_STORE_ENCODING_HASH={:016x}",
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
