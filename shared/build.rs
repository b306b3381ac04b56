//! Computes the protocol schema fingerprint: BLAKE3 over every source file of this
//! crate. bincode is not self-describing, so two builds may only talk tarpc if their
//! wire types are identical; hashing the sources that define them is conservative
//! (a comment change also changes it) but never lets a changed type slip through.

use std::{env, fs, path::Path};

fn main() {
    let src = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files.sort();
    let mut hasher = blake3::Hasher::new();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let rel = file.strip_prefix(&src).unwrap();
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update(&[0]);
        hasher.update(&fs::read(file).unwrap());
    }
    println!("cargo:rerun-if-changed={}", src.display());
    let hex = hasher.finalize().to_hex();
    println!("cargo:rustc-env=LEAN_CTX_SCHEMA={}", &hex[..16]);
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
