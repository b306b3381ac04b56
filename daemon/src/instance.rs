//! One daemon per user and wire schema: an exclusive `flock` on
//! `lean-ctxd-<schema>.lock` held for the daemon's whole life, and the socket file it
//! owns.
//!
//! The kernel releases a flock when its process dies, so after a `kill -9` the lock is
//! free again and the next daemon simply takes it; a stale socket file is removed by
//! whoever holds the lock, because nobody else of its schema can be serving on it,
//! unless something accepts on it: then it is a service manager's activation socket,
//! never replaced.

use std::{
    fs::{self, File, OpenOptions},
    io::{self, Read},
    os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use lean_ctx_shared::Paths;
use rustix::fs::{FlockOperation, flock};
use tokio::net::UnixListener;

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("another lean-ctxd is running (pid {pid}); stop it with `lean-ctx daemon stop`")]
    AlreadyRunning { pid: String },
    #[error(
        "{} accepts connections already (a service manager's activation socket?); not replacing it",
        path.display()
    )]
    SocketInUse { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> InstanceError + '_ {
    move |source| InstanceError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The held single-instance lock. Dropping it releases the lock.
#[derive(Debug)]
pub struct InstanceLock {
    _file: File,
}

impl InstanceLock {
    /// Takes the lock, retrying for up to `wait`: a daemon that is still draining after
    /// a stop holds it for a moment, and its successor should wait, not fail.
    pub fn acquire(paths: &Paths, wait: Duration) -> Result<InstanceLock, InstanceError> {
        let path = paths.daemon_lock();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(io_err(&path))?;
        let deadline = Instant::now() + wait;
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    let mut pid = String::new();
                    let _ = file.read_to_string(&mut pid);
                    return Err(InstanceError::AlreadyRunning {
                        pid: pid.trim().to_string(),
                    });
                }
                Err(e) => return Err(io_err(&path)(e.into())),
            }
        }
        // Ours now: record the pid for `daemon status` when the socket is unresponsive.
        // Written over the last daemon's and cut only where that was longer: cutting
        // the file to nothing first freed its block and cost 0.4 ms of an auto-spawned
        // daemon's 3 ms from exec to ready (ext4, perf tracepoints).
        let line = format!("{}\n", std::process::id());
        file.write_all_at(line.as_bytes(), 0)
            .map_err(io_err(&path))?;
        let len = line.len() as u64;
        if file.metadata().map_err(io_err(&path))?.len() > len {
            file.set_len(len).map_err(io_err(&path))?;
        }
        Ok(InstanceLock { _file: file })
    }
}

/// The daemon's listening socket file; removed on drop if it is still the one we bound.
#[derive(Debug)]
pub struct SocketFile {
    path: PathBuf,
    /// Identity of the file we bound; `None` for an adopted socket.
    dev_ino: Option<(u64, u64)>,
}

impl SocketFile {
    /// Binds the socket (mode 0600), replacing a stale file. Call only while holding the
    /// [`InstanceLock`].
    pub fn bind(paths: &Paths) -> Result<(UnixListener, SocketFile), InstanceError> {
        let path = paths.socket();
        // A socket something accepts on is never ours to replace: it is a service
        // manager's activation socket for this schema (lean-ctx@<schema>.socket), and
        // the daemon it starts serves there. An auto-spawned daemon racing it yields.
        if std::os::unix::net::UnixStream::connect(&path).is_ok() {
            return Err(InstanceError::SocketInUse { path });
        }
        match fs::remove_file(&path) {
            Ok(()) => tracing::info!(path = %path.display(), "removed stale socket"),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&path)(e)),
        }
        let listener = UnixListener::bind(&path).map_err(io_err(&path))?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).map_err(io_err(&path))?;
        let meta = fs::symlink_metadata(&path).map_err(io_err(&path))?;
        Ok((
            listener,
            SocketFile {
                path,
                dev_ino: Some((meta.dev(), meta.ino())),
            },
        ))
    }

    /// A socket handed over by a service manager: it owns the file, we never remove it.
    pub fn adopted(path: PathBuf) -> SocketFile {
        SocketFile {
            path,
            dev_ino: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        // Only remove the file we bound: a successor may already have bound a new one.
        if let Ok(meta) = fs::symlink_metadata(&self.path)
            && Some((meta.dev(), meta.ino())) == self.dev_ino
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(dir: &Path) -> Paths {
        let p = Paths {
            data_dir: dir.join("data"),
            runtime_dir: dir.join("run"),
            state_dir: dir.join("state"),
            config_dir: dir.join("config"),
        };
        p.ensure_runtime_dir().unwrap();
        p
    }

    #[test]
    fn second_lock_fails_naming_the_holder_and_succeeds_after_release() {
        let tmp = tempfile::tempdir().unwrap();
        let p = paths(tmp.path());
        // A dead daemon's longer line is written over and cut, not appended to.
        fs::create_dir_all(p.daemon_lock().parent().unwrap()).unwrap();
        fs::write(p.daemon_lock(), "4194304999999\n").unwrap();
        let held = InstanceLock::acquire(&p, Duration::ZERO).unwrap();
        assert_eq!(p.daemon_pid(), Some(std::process::id()));
        assert_eq!(
            fs::read_to_string(p.daemon_lock()).unwrap(),
            format!("{}\n", std::process::id())
        );
        let err = InstanceLock::acquire(&p, Duration::from_millis(50)).unwrap_err();
        assert!(
            matches!(&err, InstanceError::AlreadyRunning { pid } if *pid == std::process::id().to_string()),
            "{err}"
        );
        drop(held);
        assert_eq!(p.daemon_pid(), None);
        InstanceLock::acquire(&p, Duration::ZERO).unwrap();
    }

    /// A socket something accepts on (a service manager's activation socket for this
    /// schema) is never replaced by a daemon that would bind its own.
    #[tokio::test]
    async fn a_listening_socket_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let p = paths(tmp.path());
        let held = std::os::unix::net::UnixListener::bind(p.socket()).unwrap();
        let err = SocketFile::bind(&p).unwrap_err();
        assert!(matches!(err, InstanceError::SocketInUse { .. }), "{err}");
        std::os::unix::net::UnixStream::connect(p.socket()).unwrap();
        held.accept().unwrap();
    }

    #[tokio::test]
    async fn stale_socket_is_replaced_and_only_our_own_file_is_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let p = paths(tmp.path());
        fs::write(p.socket(), "stale").unwrap();
        let (_listener, file) = SocketFile::bind(&p).unwrap();
        let mode = fs::metadata(p.socket()).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);

        // A successor replaced the file: dropping ours must leave theirs alone.
        fs::remove_file(p.socket()).unwrap();
        let (_l2, file2) = SocketFile::bind(&p).unwrap();
        drop(file);
        assert!(p.socket().exists());
        drop(file2);
        assert!(!p.socket().exists());
    }
}
