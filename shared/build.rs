//! Computes the wire schema fingerprint (`SCHEMA`, in `wire/protocol.rs`) with
//! `schema.rs`: BLAKE3 over the files of `src/wire/` and nothing else.
//!
//! Why only those: bincode is not self-describing, so two builds may talk tarpc only if
//! the types in their frames are identical; those types are the `LeanCtx` service's
//! requests and responses and everything they contain (`protocol.rs`, `LeanError` and
//! its details in `error.rs`, `Range`/`Position` in `position.rs`) and the framing they
//! travel in (`frame.rs`). Gain scoring, rendering, remedies, stats, paths, the editor
//! signal and the tool environment never enter a frame, so changing them must not send
//! two builds down the version-skew path (`hello::decide`). Hashing whole files keeps
//! the set explicit and conservative (a comment in `wire/` is a new schema).
//!
//! Why the build fails rather than a test: the set is only right if no wire type embeds
//! a type defined elsewhere. `schema::outside_references` reads every wire file and
//! reports each path out of `wire` (`crate::` other than `crate::wire::`, a `super`
//! above it, `#[path]`, `include!`); any finding stops the build, so the mistake cannot
//! ship silently. (The crate's tests run the same code on altered copies of `src/`.)
//!
//! The hello (`hello.rs`) is not hashed: it is JSON, read before `SCHEMA` is compared,
//! and its shape is frozen by `hello_json_shape_is_frozen` (fields added, never renamed
//! or removed). Nor are tarpc's or bincode's own versions: an upgrade of either that
//! changes their encoding bumps `PROTOCOL_VERSION` by hand.

mod schema;

use std::{env, path::Path};

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let src = Path::new(&manifest).join("src");
    let outside = schema::outside_references(&src).expect("reading src/wire");
    if !outside.is_empty() {
        panic!(
            "the wire files name code outside shared/src/wire, which the schema fingerprint \
             does not cover; move that type into wire/ or stop using it there:\n  {}",
            outside.join("\n  ")
        );
    }
    let schema = schema::fingerprint(&src).expect("reading src/wire");
    // A directory is scanned whole, so an added wire file reruns this too.
    println!("cargo:rerun-if-changed=src/{}", schema::WIRE_DIR);
    println!("cargo:rerun-if-changed=schema.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=LEAN_CTX_SCHEMA={schema}");
}
