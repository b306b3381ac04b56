//! The identities the index's rooms share, at the bottom of them: a file's identity
//! without reading it ([`FileId`]), content and git object names
//! ([`Hash`](type@Hash), [`Oid`]), which ignore files a directory holds
//! ([`IgnoreFiles`]), and the clock rule for trusting an identity ([`RACY`]). The
//! store, the listing, the walk and the git index all name these; none of them names
//! another for them.

use std::{
    io,
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

/// A git object name (SHA-1), as a worktree's git index names a file's blob.
pub type Oid = [u8; 20];

pub type Hash = [u8; 32];

/// What identifies a file's content without reading it: if none of these changed,
/// neither did the bytes (ctime catches writes that restore the mtime).
///
/// Always taken with rustix's `stat` family (by path here, relative to a directory
/// in the walk), so every identity of one file is encoded alike: std's `metadata`
/// goes through `statx`, whose device number is composed differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime: (i64, i64),
    pub(super) ctime: (i64, i64),
}

/// How long after a file's last change its identity is trusted to stand for its
/// bytes. A change in the same timestamp tick as the change before leaves the
/// identity as it was (a coarse clock ticks every few milliseconds; some filesystems
/// keep whole or even two seconds), so an identity taken sooner may already name
/// other bytes: git's "racily clean" entries. Such an identity is not remembered
/// (not cached, not persisted): the next look at the file reads it again, and its
/// parse is still found by content. Directories in a listing follow the same rule.
pub const RACY: std::time::Duration = std::time::Duration::from_secs(2);

impl FileId {
    /// Whether this identity, taken at `seen` (seconds and nanoseconds since the
    /// epoch), stands for the bytes read then for as long as it lasts: the file's
    /// last change was at least [`RACY`] before.
    pub(super) fn settled(&self, seen: (i64, i64)) -> bool {
        self.ctime < (seen.0 - RACY.as_secs() as i64, seen.1)
    }

    /// The identity of the file at `path` (symlinks followed).
    pub fn stat(path: &Path) -> io::Result<FileId> {
        Ok(FileId::from(&rustix::fs::stat(path)?))
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

impl From<&rustix::fs::Stat> for FileId {
    // The field types differ between platforms (and are the target type on some).
    #[allow(clippy::unnecessary_cast)]
    fn from(st: &rustix::fs::Stat) -> FileId {
        FileId {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }
}

/// Now, as a listing's start.
pub(super) fn now() -> (i64, i64) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() as i64, i64::from(d.subsec_nanos()))
}

/// A file identity as the store and the listing write it: seven little-endian words.
pub(super) fn file_id_bytes(id: &FileId) -> [u8; 56] {
    let mut b = [0; 56];
    let fields = [
        id.dev,
        id.ino,
        id.size,
        id.mtime.0 as u64,
        id.mtime.1 as u64,
        id.ctime.0 as u64,
        id.ctime.1 as u64,
    ];
    for (i, f) in fields.iter().enumerate() {
        b[i * 8..i * 8 + 8].copy_from_slice(&f.to_le_bytes());
    }
    b
}

pub(super) fn file_id_of(b: &[u8]) -> FileId {
    let f = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
    FileId {
        dev: f(0),
        ino: f(1),
        size: f(2),
        mtime: (f(3) as i64, f(4) as i64),
        ctime: (f(5) as i64, f(6) as i64),
    }
}

/// Which ignore files a directory holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::index) struct IgnoreFiles {
    pub(in crate::index) gitignore: bool,
    pub(in crate::index) ignore: bool,
}

impl IgnoreFiles {
    /// The names of the files present.
    pub(in crate::index) fn names(self) -> impl Iterator<Item = &'static str> {
        [(self.gitignore, ".gitignore"), (self.ignore, ".ignore")]
            .into_iter()
            .filter_map(|(present, name)| present.then_some(name))
    }

    pub(in crate::index) fn bits(self) -> u8 {
        u8::from(self.gitignore) | u8::from(self.ignore) << 1
    }

    pub(in crate::index) fn from_bits(bits: u8) -> IgnoreFiles {
        IgnoreFiles {
            gitignore: bits & 1 != 0,
            ignore: bits & 2 != 0,
        }
    }

    pub(in crate::index) fn on_disk(dir: &Path) -> IgnoreFiles {
        let regular = |name| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file());
        IgnoreFiles {
            gitignore: regular(".gitignore"),
            ignore: regular(".ignore"),
        }
    }
}
