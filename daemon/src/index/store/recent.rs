//! The roots the daemon was last asked about, kept beside the persisted index so
//! that a daemon that starts again (a reboot, an upgrade, the idle exit) checks them
//! against their last walk's listing before the first call instead of during it
//! (`Daemon::prewarm`).
//!
//! One small file, `<state dir>/index/recent-roots`, beside the builds' store
//! directories rather than in one: which roots an agent worked in does not depend
//! on the build, so an upgrade keeps the order (a new build's store has no listings
//! yet, and a root without one is not prewarmed: its first call indexes it).
//! `lean-ctx daemon clear-cache` removes it with the rest.
//!
//! The format is this module's own: a magic, then each root as (last call in unix
//! ms, path length, path bytes), most recent first, then an unkeyed BLAKE3 of all of
//! that. The checksum only has to tell a torn or damaged file (which is then taken
//! as empty): the file names directories the daemon may index, never content it
//! serves, and the directory holding it is ours alone (`persist.rs` refuses one
//! others can write).

use std::{
    ffi::OsString,
    os::unix::ffi::OsStringExt,
    path::{Path, PathBuf},
};

const MAGIC: &[u8; 8] = b"LCTXRCT1";
const SUM: usize = 32;

/// The file's name in the index directory.
pub(in crate::index) const FILE: &str = lean_ctx_shared::index_store::RECENT;

/// Roots remembered: far more than a daemon prewarms, few enough that the file
/// stays a few KiB.
const MAX_ROOTS: usize = 32;

/// Roots by their last call (unix ms), most recent first.
#[derive(Debug, Default, PartialEq)]
pub(in crate::index) struct Recent(pub Vec<(PathBuf, u64)>);

impl Recent {
    /// Notes a call for `root` at `at`: it moves to the front (or keeps its place
    /// if the time it already has is later), the oldest beyond [`MAX_ROOTS`] go.
    pub fn used(&mut self, root: &Path, at: u64) {
        let at = match self.0.iter().position(|(r, _)| r == root) {
            Some(i) => self.0.remove(i).1.max(at),
            None => at,
        };
        self.0.push((root.to_path_buf(), at));
        // Stable: roots used in the same millisecond keep the order they had.
        self.0.sort_by_key(|r| std::cmp::Reverse(r.1));
        self.0.truncate(MAX_ROOTS);
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for (root, at) in &self.0 {
            let path = root.as_os_str().as_encoded_bytes();
            out.extend_from_slice(&at.to_le_bytes());
            out.extend_from_slice(&(path.len() as u32).to_le_bytes());
            out.extend_from_slice(path);
        }
        let sum = *blake3::hash(&out).as_bytes();
        out.extend_from_slice(&sum);
        out
    }

    /// `None` unless `bytes` is a whole file this module wrote: any other length,
    /// magic or checksum, or a path that is not absolute.
    pub fn decode(bytes: &[u8]) -> Option<Recent> {
        let body = bytes.len().checked_sub(SUM)?;
        let (body, sum) = bytes.split_at(body);
        if blake3::hash(body).as_bytes() != sum {
            return None;
        }
        let mut rest = body.strip_prefix(MAGIC)?;
        let mut roots = Vec::new();
        while !rest.is_empty() {
            let at = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
            let len = u32::from_le_bytes(rest.get(8..12)?.try_into().ok()?) as usize;
            let path = PathBuf::from(OsString::from_vec(rest.get(12..12 + len)?.to_vec()));
            if !path.is_absolute() {
                return None;
            }
            roots.push((path, at));
            rest = &rest[12 + len..];
        }
        Some(Recent(roots))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_moves_its_root_to_the_front_and_the_oldest_go() {
        let mut recent = Recent::default();
        recent.used(Path::new("/a"), 10);
        recent.used(Path::new("/b"), 20);
        recent.used(Path::new("/a"), 30);
        assert_eq!(
            recent.0,
            [(PathBuf::from("/a"), 30), (PathBuf::from("/b"), 20)]
        );
        // A clock that went back does not make a root older than it was.
        recent.used(Path::new("/b"), 5);
        assert_eq!(recent.0[1], (PathBuf::from("/b"), 20));
        for i in 0..100 {
            recent.used(&PathBuf::from(format!("/many/{i}")), 100 + i);
        }
        assert_eq!(recent.0.len(), MAX_ROOTS);
        assert_eq!(recent.0[0], (PathBuf::from("/many/99"), 199));
        assert!(!recent.0.iter().any(|(r, _)| r == Path::new("/a")));
    }

    #[test]
    fn what_is_written_reads_back_and_anything_damaged_reads_as_nothing() {
        let mut recent = Recent::default();
        recent.used(Path::new("/home/u/project"), 1_700_000_000_000);
        // Any bytes a path may hold, a newline and invalid UTF-8 included.
        let odd = PathBuf::from(OsString::from_vec(b"/tmp/a\nb\xff c".to_vec()));
        recent.used(&odd, 1_700_000_000_001);
        let bytes = recent.encode();
        assert_eq!(Recent::decode(&bytes), Some(recent));
        assert_eq!(
            Recent::decode(&Recent::default().encode()),
            Some(Recent::default())
        );
        for cut in 0..bytes.len() {
            assert_eq!(Recent::decode(&bytes[..cut]), None, "torn at {cut}");
        }
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x20;
            assert_eq!(Recent::decode(&flipped), None, "byte {i} flipped");
        }
        // Well sealed but relative: never a root.
        let mut body = MAGIC.to_vec();
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(b"rel");
        let sum = *blake3::hash(&body).as_bytes();
        body.extend_from_slice(&sum);
        assert_eq!(Recent::decode(&body), None);
    }
}
