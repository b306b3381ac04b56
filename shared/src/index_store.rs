//! The names lean-ctx writes in the persisted index's directory (`<state>/index/`,
//! the daemon's `index/store/persist.rs`), and removing exactly those. The daemon removes
//! the stores of builds no daemon runs any more; `lean-ctx daemon clear-cache` removes
//! them all. Both remove only what lean-ctx wrote there: a state dir pointed at the
//! wrong place (`LEAN_CTX_STATE_DIR` set to a project, say) loses nothing of anyone
//! else's.
//!
//! `<index>/<build>/` holds one build's store: [`KEY`], [`STORE`], [`RECENT`], [`TEXT`] and one
//! [`LISTING_PREFIX`]`<32 hex>` per root, each written through `<name>.tmp`;
//! `<index>/<build>.lock` is held by that build's daemon; `<build>` is 16 lowercase hex
//! digits.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

/// The store's key (32 random bytes).
pub const KEY: &str = "index.key";
/// The append-only store.
pub const STORE: &str = "index.store";
/// The roots a restart prewarms.
pub const RECENT: &str = "recent-roots";
/// The text index's snapshot.
pub const TEXT: &str = "text-index";
/// A root's listing: this prefix and 32 hex digits of the root's hash.
pub const LISTING_PREFIX: &str = "listing-";
/// What a store's directory name has after a `clear-cache` renamed it away (then the
/// clearing shim's pid and the time).
pub const CLEARED: &str = ".cleared-";

fn hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `name` is a build's store directory (16 lowercase hex digits).
pub fn is_build_dir(name: &str) -> bool {
    hex(name, 16)
}

/// Whether `name` is a store directory a `clear-cache` renamed away
/// (`<build>.cleared-<pid>-<nanos>`).
pub fn is_cleared_dir(name: &str) -> bool {
    name.split_once(CLEARED).is_some_and(|(build, rest)| {
        is_build_dir(build)
            && rest.split_once('-').is_some_and(|(a, b)| {
                [a, b]
                    .iter()
                    .all(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            })
    })
}

/// Whether `name` is a file lean-ctx writes in a build's store directory.
pub fn is_store_file(name: &str) -> bool {
    let name = name.strip_suffix(".tmp").unwrap_or(name);
    name == KEY
        || name == STORE
        || name == RECENT
        || name == TEXT
        || name
            .strip_prefix(LISTING_PREFIX)
            .is_some_and(|h| hex(h, 32))
}

/// What removing a store's directory did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// Bytes of the files removed.
    pub freed: u64,
    /// What is still there that lean-ctx did not write (the directory is kept).
    pub kept: Vec<PathBuf>,
}

/// Removes the files lean-ctx writes in the store directory `dir` (regular files
/// only, never through a symlink), then `dir` if that empties it. A writer that still
/// had it open may refill it meanwhile: its files are removed again, a few times.
pub fn remove_build_dir(dir: &Path) -> io::Result<Removed> {
    let mut removed = Removed::default();
    for _ in 0..10 {
        removed.kept.clear();
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            // Gone since the listing (a running writer renamed its temporary file
            // over the snapshot): nothing left to remove.
            let meta = match fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            let ours = entry.file_name().to_str().is_some_and(is_store_file);
            if !(ours && meta.is_file()) {
                removed.kept.push(path);
                continue;
            }
            match fs::remove_file(&path) {
                Ok(()) => removed.freed += meta.len(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        if !removed.kept.is_empty() {
            return Ok(removed);
        }
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(removed),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
            Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
    fs::remove_dir(dir).map(|()| removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_lean_ctx_writes_are_its_own() {
        for name in [
            "index.key",
            "index.store.tmp",
            "recent-roots",
            "listing-0123456789abcdef0123456789abcdef",
            "listing-0123456789abcdef0123456789abcdef.tmp",
        ] {
            assert!(is_store_file(name), "{name}");
        }
        for name in [
            "notes.txt",
            "listing-",
            "listing-xyz",
            "index.key.bak",
            "index",
        ] {
            assert!(!is_store_file(name), "{name}");
        }
        assert!(is_build_dir("0123456789abcdef"));
        for name in ["0123456789ABCDEF", "0123456789abcde", "src", "build"] {
            assert!(!is_build_dir(name), "{name}");
        }
        assert!(is_cleared_dir("0123456789abcdef.cleared-42-1700000000"));
        assert!(!is_cleared_dir("0123456789abcdef.cleared-x"));
        assert!(!is_cleared_dir("mine.cleared-1-2"));
    }

    #[test]
    fn a_store_dir_loses_only_what_lean_ctx_wrote_there() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("0123456789abcdef");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join(KEY), [0; 32]).unwrap();
        fs::write(dir.join(STORE), [1; 100]).unwrap();
        fs::write(dir.join("mine.txt"), "the user's").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.join(RECENT)).unwrap();
        let removed = remove_build_dir(&dir).unwrap();
        assert_eq!(removed.freed, 132);
        let mut kept = removed.kept.clone();
        kept.sort();
        assert_eq!(kept, [dir.join("mine.txt"), dir.join(RECENT)]);
        assert_eq!(
            fs::read_to_string(dir.join("mine.txt")).unwrap(),
            "the user's"
        );
        fs::remove_file(dir.join("mine.txt")).unwrap();
        fs::remove_file(dir.join(RECENT)).unwrap();
        fs::write(dir.join(KEY), [0; 32]).unwrap();
        assert_eq!(remove_build_dir(&dir).unwrap().freed, 32);
        assert!(!dir.exists());
    }
}
