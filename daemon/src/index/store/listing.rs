//! What a root's last full walk found, kept in the store's directory so that a
//! daemon that starts again can answer without walking the root first.
//!
//! A listing holds every directory the walk listed (its identity when listed, which
//! ignore files it held, the files of a supported language it found) and the
//! identity of every ignore file outside those directories that the walk's rules
//! came from (the global excludes file, `info/exclude`, the ignore files above the
//! root). A restart checks the root against it (`RootIndex::warm_start`): one `stat`
//! per directory and per file instead of listing every directory and watching it
//! first, which on small corpora was a third of a first index.
//!
//! Why an unchanged directory identity is enough: creating, removing or renaming an
//! entry changes the directory's mtime and ctime, and replacing the directory
//! changes its inode. A change in the same timestamp tick as the listing would not
//! show, so a directory whose mtime is within [`RACY`] of the walk's start is taken
//! as changed (git's "racily clean" rule). A changed directory is listed again; an
//! ignore file that changed anywhere means the whole walk again.
//!
//! The format is this module's own (a flat list, read once per start, never
//! updated in place), sealed by the store with its key and the root's path
//! (`persist.rs`, [`super::persist::Store::save_listing`]).

use std::{borrow::Cow, path::PathBuf};

use lean_ctx_syntax::{
    Lang,
    symbols::{lang_byte, lang_of},
};

use crate::index::ids::{FileId, IgnoreFiles, RACY, file_id_bytes, file_id_of};

const MAGIC: &[u8; 8] = b"LCTXLST1";

/// Read back, its names borrow from the bytes read ([`Listing::decode`]): a restart
/// of x/tools spent a tenth of its check making a string of each of its 1,806.
#[derive(Debug, Default, PartialEq)]
pub(in crate::index) struct Listing<'a> {
    /// When the walk began, as (seconds, nanoseconds) since the epoch.
    pub started: (i64, i64),
    /// Ignore files outside the listed directories, by path: their identity, or
    /// `None` if there was none.
    pub inputs: Vec<(PathBuf, Option<FileId>)>,
    /// In walk order: a directory before everything under it, each subtree contiguous.
    pub dirs: Vec<Dir<'a>>,
}

#[derive(Debug, PartialEq)]
pub(in crate::index) struct Dir<'a> {
    /// From the root, `/`-separated (`""`: the root).
    pub rel: Cow<'a, str>,
    pub id: FileId,
    pub ignores: IgnoreFiles,
    /// Name and language of each file found.
    pub files: Vec<(Cow<'a, str>, Lang)>,
}

impl<'a> Listing<'a> {
    /// Puts the directories in walk order: each before its subdirectories, and every
    /// subtree contiguous (`a`, `a/b`, `a-b`: path segments compare, not bytes).
    pub fn sort(&mut self) {
        self.dirs
            .sort_unstable_by(|a, b| a.rel.split('/').cmp(b.rel.split('/')));
    }

    /// Whether `id`, a directory's identity now, still vouches for its listing: a
    /// directory changed within [`RACY`] before the walk started may have changed
    /// again in the same timestamp tick, after it was listed.
    pub fn unchanged(&self, listed: &FileId, now: &FileId) -> bool {
        let racy_from = (self.started.0 - RACY.as_secs() as i64, self.started.1);
        listed == now && now.mtime < racy_from
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let str = |out: &mut Vec<u8>, s: &[u8]| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        };
        out.extend_from_slice(&self.started.0.to_le_bytes());
        out.extend_from_slice(&self.started.1.to_le_bytes());
        out.extend_from_slice(&(self.inputs.len() as u32).to_le_bytes());
        for (path, id) in &self.inputs {
            str(&mut out, path.as_os_str().as_encoded_bytes());
            match id {
                Some(id) => {
                    out.push(1);
                    out.extend_from_slice(&file_id_bytes(id));
                }
                None => out.push(0),
            }
        }
        out.extend_from_slice(&(self.dirs.len() as u32).to_le_bytes());
        for dir in &self.dirs {
            str(&mut out, dir.rel.as_bytes());
            out.extend_from_slice(&file_id_bytes(&dir.id));
            out.push(dir.ignores.bits());
            out.extend_from_slice(&(dir.files.len() as u32).to_le_bytes());
            for (name, lang) in &dir.files {
                str(&mut out, name.as_bytes());
                out.push(lang_byte(*lang));
            }
        }
        out
    }

    /// `None` for anything but what [`Listing::encode`] wrote.
    pub fn decode(bytes: &'a [u8]) -> Option<Listing<'a>> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let started = (r.u64()? as i64, r.u64()? as i64);
        let mut inputs = Vec::new();
        for _ in 0..r.u32()? {
            let path = PathBuf::from(std::str::from_utf8(r.str()?).ok()?);
            let id = match r.byte()? {
                0 => None,
                1 => Some(file_id_of(r.take(56)?)),
                _ => return None,
            };
            inputs.push((path, id));
        }
        let mut dirs = Vec::new();
        for _ in 0..r.u32()? {
            let rel = Cow::Borrowed(std::str::from_utf8(r.str()?).ok()?);
            let id = file_id_of(r.take(56)?);
            let ignores = IgnoreFiles::from_bits(r.byte()?);
            let n = r.u32()? as usize;
            let mut files = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                let name = Cow::Borrowed(std::str::from_utf8(r.str()?).ok()?);
                files.push((name, lang_of(r.byte()?)?));
            }
            dirs.push(Dir {
                rel,
                id,
                ignores,
                files,
            });
        }
        r.0.is_empty().then_some(Listing {
            started,
            inputs,
            dirs,
        })
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn str(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(ino: u64, mtime: i64) -> FileId {
        FileId {
            dev: 1,
            ino,
            size: 4096,
            mtime: (mtime, 5),
            ctime: (mtime, 5),
        }
    }

    #[test]
    fn a_listing_reads_back_as_written_and_nothing_else_reads() {
        let mut listing = Listing {
            started: (1_000_000, 7),
            inputs: vec![
                ("/home/u/.config/git/ignore".into(), None),
                ("/r/.git/info/exclude".into(), Some(id(9, 3))),
            ],
            dirs: vec![
                Dir {
                    rel: "a-b".into(),
                    id: id(3, 10),
                    ignores: IgnoreFiles::from_bits(0),
                    files: vec![],
                },
                Dir {
                    rel: "a/c".into(),
                    id: id(4, 10),
                    ignores: IgnoreFiles::from_bits(3),
                    files: vec![("x.py".into(), Lang::Python), ("ü.rs".into(), Lang::Rust)],
                },
                Dir {
                    rel: "".into(),
                    id: id(1, 10),
                    ignores: IgnoreFiles::from_bits(1),
                    files: vec![("m.go".into(), Lang::Go)],
                },
                Dir {
                    rel: "a".into(),
                    id: id(2, 10),
                    ignores: IgnoreFiles::from_bits(2),
                    files: vec![],
                },
            ],
        };
        listing.sort();
        let order: Vec<&str> = listing.dirs.iter().map(|d| &*d.rel).collect();
        assert_eq!(order, ["", "a", "a/c", "a-b"]);
        let bytes = listing.encode();
        assert_eq!(Listing::decode(&bytes), Some(listing));
        for cut in 0..bytes.len() {
            assert_eq!(Listing::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Listing::decode(&longer), None);
    }

    #[test]
    fn a_directory_changed_close_to_the_walk_is_not_trusted() {
        let listing = Listing {
            started: (1_000, 0),
            ..Listing::default()
        };
        assert!(listing.unchanged(&id(1, 900), &id(1, 900)));
        assert!(!listing.unchanged(&id(1, 900), &id(1, 901)), "changed");
        assert!(!listing.unchanged(&id(1, 900), &id(2, 900)), "replaced");
        assert!(!listing.unchanged(&id(1, 999), &id(1, 999)), "racy");
    }
}
