//! What git already knows about a worktree's files: its index (`.git/index`, or
//! `.git/worktrees/<name>/index`) records for every tracked file the blob it was
//! checked out from and the `stat` data it had then.
//!
//! A second worktree of a repository has new inodes, so the file-hash cache (keyed by
//! file identity) knows none of its files, and hashing them means reading every byte
//! again: most of the second index's time once parsing got fast. But a file whose
//! `stat` still matches its index entry holds exactly that blob (git's own
//! assumption for `git status`), and the first worktree taught the caches which
//! content hash each blob has. So the second worktree resolves those files from
//! `stat` alone.
//!
//! Only what git itself would trust is used: regular files at stage 0, without
//! assume-valid, skip-worktree or intent-to-add flags, whose mtime, ctime, inode and
//! size all match, and that are not racily clean (modified in the same instant the
//! index was written: git re-reads those too). Index versions 2 and 3 with SHA-1
//! object names are read; version 4, split and SHA-256 indexes are not (every file
//! is then read and hashed as before).

use std::{fs, os::unix::fs::MetadataExt, path::Path};

use rustc_hash::FxHashMap;

use crate::index::ids::{FileId, Oid};

/// The entries of one worktree's index that can vouch for a file's content.
#[derive(Debug)]
pub struct GitIndex {
    entries: FxHashMap<Box<str>, Entry>,
    /// When the index was written: entries modified at or after it are racy.
    written: (i64, i64),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    oid: Oid,
    ctime: (u32, u32),
    mtime: (u32, u32),
    ino: u32,
    size: u32,
}

impl GitIndex {
    /// The index of the worktree whose top directory is `root`, if it has one this
    /// reader understands.
    pub fn load(root: &Path) -> Option<GitIndex> {
        let git_dir = crate::worktree::git_dir(root)?;
        let common = crate::worktree::common_dir(&git_dir);
        let config = fs::read_to_string(common.join("config")).unwrap_or_default();
        if config
            .to_ascii_lowercase()
            .contains("objectformat = sha256")
        {
            return None;
        }
        let path = git_dir.join("index");
        let meta = fs::metadata(&path).ok()?;
        let bytes = fs::read(&path).ok()?;
        GitIndex::parse(&bytes, (meta.mtime(), meta.mtime_nsec()))
    }

    fn parse(bytes: &[u8], written: (i64, i64)) -> Option<GitIndex> {
        let be32 = |at: usize| -> Option<u32> {
            Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        if bytes.get(..4)? != b"DIRC" || !matches!(be32(4)?, 2 | 3) {
            return None;
        }
        let count = be32(8)? as usize;
        let mut entries = FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut at = 12;
        for _ in 0..count {
            let field = |i: usize| be32(at + 4 * i);
            let (mode, flags) = (
                field(6)?,
                u16::from_be_bytes(bytes.get(at + 60..at + 62)?.try_into().ok()?),
            );
            let extended = flags & 0x4000 != 0;
            let name_start = at + 62 + if extended { 2 } else { 0 };
            let name_len = bytes.get(name_start..)?.iter().position(|&b| b == 0)?;
            let name = std::str::from_utf8(&bytes[name_start..name_start + name_len]).ok()?;
            let stage = (flags >> 12) & 0x3;
            let assume_valid = flags & 0x8000 != 0;
            let extra = if extended {
                u16::from_be_bytes(bytes.get(at + 62..at + 64)?.try_into().ok()?)
            } else {
                0
            };
            // Regular files (0o100644, 0o100755) only: not symlinks, gitlinks or the
            // directory entries of a sparse index.
            let regular = mode & 0o170000 == 0o100000;
            // skip-worktree (0x4000) and intent-to-add (0x2000) mean the content is
            // not what the entry names.
            if regular && stage == 0 && !assume_valid && extra & 0x6000 == 0 {
                entries.insert(
                    name.into(),
                    Entry {
                        ctime: (field(0)?, field(1)?),
                        mtime: (field(2)?, field(3)?),
                        ino: field(5)?,
                        size: field(9)?,
                        oid: bytes.get(at + 40..at + 60)?.try_into().ok()?,
                    },
                );
            }
            // Entries are padded with NULs to a multiple of eight bytes.
            at += (name_start - at + name_len + 8) & !7;
        }
        // A split index keeps most entries elsewhere: not worth reading.
        let mut ext = at;
        while ext + 8 <= bytes.len().saturating_sub(20) {
            if &bytes[ext..ext + 4] == b"link" {
                return None;
            }
            ext += 8 + be32(ext + 4)? as usize;
        }
        Some(GitIndex { entries, written })
    }

    /// The blob `rel` (slash-separated, relative to the worktree's top) holds, if its
    /// index entry vouches for the file with identity `id`.
    pub fn clean_blob(&self, rel: &str, id: &FileId) -> Option<Oid> {
        let e = self.entries.get(rel)?;
        let low = |(secs, nsecs): (i64, i64)| (secs as u32, nsecs as u32);
        let same = e.mtime == low(id.mtime)
            && e.ctime == low(id.ctime)
            && e.ino == id.ino as u32
            && e.size == id.size as u32;
        let racy = id.mtime >= self.written;
        (same && !racy).then_some(e.oid)
    }

    /// The paths it vouches for, relative to the worktree's top.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(|k| &**k)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use std::{process::Command, time::Duration};

    use lean_ctx_testkit::git;

    use super::*;

    fn blob_of(dir: &Path, rel: &str) -> Oid {
        let out = Command::new("git")
            .args(["rev-parse", &format!(":{rel}")])
            .current_dir(dir)
            .output()
            .unwrap();
        let hex = String::from_utf8(out.stdout).unwrap();
        let mut oid = [0u8; 20];
        for (i, byte) in oid.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        }
        oid
    }

    #[test]
    fn clean_files_name_their_blob_changed_and_untracked_ones_do_not() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        fs::create_dir_all(main.join("src")).unwrap();
        git(&main, &["init", "-q"]);
        for name in ["src/a.rs", "src/b.rs", "src/c.rs"] {
            fs::write(main.join(name), format!("fn {}() {{}}\n", &name[4..5])).unwrap();
        }
        git(&main, &["add", "."]);
        git(&main, &["commit", "-qm", "init"]);
        // Written after the files: none of them is racy any more.
        std::thread::sleep(Duration::from_millis(20));
        git(&main, &["update-index", "--really-refresh"]);
        git(&main, &["worktree", "add", "-q", "../second"]);
        let second = tmp.path().join("second");
        // The checkout writes its files and its index within one tick of the
        // filesystem's clock (CI, under load): refreshed after, none of them is racy.
        std::thread::sleep(Duration::from_millis(20));
        git(&second, &["update-index", "--really-refresh"]);
        std::thread::sleep(Duration::from_millis(20));
        fs::write(second.join("src/b.rs"), "fn changed() {}\n").unwrap();
        fs::write(second.join("src/new.rs"), "fn new() {}\n").unwrap();

        for (root, changed) in [(&main, false), (&second, true)] {
            let index = GitIndex::load(root).expect("a readable index");
            assert_eq!(index.len(), 3);
            let meta = |rel: &str| FileId::stat(&root.join(rel)).unwrap();
            assert_eq!(
                index.clean_blob("src/a.rs", &meta("src/a.rs")),
                Some(blob_of(&main, "src/a.rs"))
            );
            let b = index.clean_blob("src/b.rs", &meta("src/b.rs"));
            if changed {
                assert_eq!(b, None, "a modified file's stat no longer matches");
            } else {
                assert_eq!(b, Some(blob_of(&main, "src/b.rs")));
            }
        }
        let mut index = GitIndex::load(&second).unwrap();
        let new = FileId::stat(&second.join("src/new.rs")).unwrap();
        assert_eq!(index.clean_blob("src/new.rs", &new), None);
        // Modified in the instant the index was written: git itself re-reads those.
        index.written = (0, 0);
        let a = FileId::stat(&second.join("src/a.rs")).unwrap();
        assert_eq!(index.clean_blob("src/a.rs", &a), None, "racily clean");
        assert!(GitIndex::load(tmp.path()).is_none(), "not a worktree");
    }

    #[test]
    fn garbage_and_unknown_versions_are_not_read() {
        assert!(GitIndex::parse(b"DIRC\0\0\0\x04\0\0\0\0", (0, 0)).is_none());
        assert!(GitIndex::parse(b"not an index at all", (0, 0)).is_none());
        assert!(GitIndex::parse(b"DIRC\0\0\0\x02\0\0\0\x05short", (0, 0)).is_none());
    }
}
