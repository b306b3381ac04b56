//! The cross-daemon write lock of a worktree root. During an upgrade two builds'
//! daemons run side by side (`upgrade.rs`); both may be asked to write the same root,
//! and each one's per-file locks (`edit::FileLocks`) order only its own writes. An
//! exclusive flock on an owner-only file in the runtime dir orders them all. Its own
//! module, not `upgrade.rs`'s, because every write path takes it and `upgrade.rs`
//! knows the daemon's state.
//!
//! The lock file is `<runtime>/roots/<hash of the root>.lock`
//! (`Paths::root_write_lock`), taken by `edit::apply` and `edit::apply_many` after the
//! per-file locks; a holder that keeps it past [`ROOT_LOCK_WAIT`] makes the write a
//! `CONFLICT`, nothing written.

use std::{
    fs::{File, OpenOptions},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt},
    path::Path,
    time::{Duration, Instant},
};

use lean_ctx_shared::{ErrorCode, LeanError, Paths};
use rustix::fs::{FlockOperation, flock};

/// The cross-daemon write lock of one worktree root: an exclusive flock on an
/// owner-only file in the runtime dir, held while a write reads, checks and replaces
/// files of the root. flock conflicts between open file descriptions, so it orders
/// two daemons as well as two writes of one daemon. Released on drop.
#[derive(Debug)]
pub struct RootWriteLock {
    _file: File,
}

/// Longest a write waits for another daemon's write to the same root. Writes take
/// milliseconds; a wait this long means the other daemon is stuck.
pub const ROOT_LOCK_WAIT: Duration = Duration::from_secs(10);

impl RootWriteLock {
    /// Takes the lock of `root`, waiting at most `wait` ([`ROOT_LOCK_WAIT`]) for
    /// another holder; after that a `CONFLICT`, nothing written.
    pub fn acquire(paths: &Paths, root: &Path, wait: Duration) -> Result<RootWriteLock, LeanError> {
        let path = paths.root_write_lock(root);
        let failed = |e: std::io::Error| {
            LeanError::internal(format!(
                "cannot take the write lock of {} ({}): {e}; no file written",
                root.display(),
                path.display()
            ))
        };
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(failed)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .map_err(failed)?;
        let deadline = Instant::now() + wait;
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(RootWriteLock { _file: file }),
                Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(LeanError::new(
                        ErrorCode::Conflict,
                        format!(
                            "another lean-ctxd has been writing into {} for {wait:?}; no file written",
                            root.display()
                        ),
                    ));
                }
                Err(e) => return Err(failed(e.into())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_write_lock_excludes_a_second_holder_until_released() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = Paths {
            data_dir: tmp.path().join("data"),
            runtime_dir: tmp.path().join("run"),
            state_dir: tmp.path().join("state"),
            config_dir: tmp.path().join("config"),
        };
        paths.ensure_runtime_dir().unwrap();
        let root = Path::new("/some/root");
        let held = RootWriteLock::acquire(&paths, root, Duration::ZERO).unwrap();
        let file = paths.root_write_lock(root);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // A second description (another daemon's) cannot take it meanwhile, and
        // another root's lock is independent.
        let other = File::open(&file).unwrap();
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_err());
        RootWriteLock::acquire(&paths, Path::new("/another/root"), Duration::ZERO).unwrap();
        drop(held);
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_ok());
    }
}
