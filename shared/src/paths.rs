//! Where lean-ctx keeps things, resolved once per process.
//!
//! Every directory has an override so tests (and unusual setups) run isolated:
//! `LEAN_CTX_DATA_DIR`, `LEAN_CTX_RUNTIME_DIR`, `LEAN_CTX_CONFIG_DIR`,
//! `LEAN_CTX_STATE_DIR`. Each override names the lean-ctx directory itself, not a parent.
//!
//! The data dir is resolved exactly as the published JetBrains plugin resolves it
//! (docs/ide-wire.md, Data dir; [`resolve_data_dir`]): the plugin writes its port
//! files there and reads `stats.json` from there, so both must land on the same
//! directory. The other dirs are ours alone: `config.toml` stays in the config dir
//! (the plugin never reads it; on Linux that dir is the rule's XDG candidate, so a
//! `config.toml` there counts as a marker for both sides alike).

use std::{
    env,
    ffi::{OsStr, OsString},
    fs, io,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

/// The daemon's socket file name inside the runtime dir for the wire schema whose short
/// form is `schema_short` (`daemons::schema_short`): one daemon per schema, so builds
/// that cannot talk never share a socket (`daemons.rs` says why). The systemd socket
/// unit `lean-ctx@<short>.socket` listens on the same name.
pub fn socket_name(schema_short: &str) -> String {
    format!("lean-ctxd-{schema_short}.sock")
}

/// Longest socket path we accept: `sun_path` is 104 bytes on macOS, 108 on Linux, and
/// needs a terminating NUL.
const MAX_SOCKET_PATH: usize = 103;

#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error("cannot determine the home directory; set LEAN_CTX_DATA_DIR and LEAN_CTX_CONFIG_DIR")]
    NoHome,
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "refusing runtime dir {path}: {reason}; fix its ownership/permissions or set LEAN_CTX_RUNTIME_DIR"
    )]
    InsecureRuntimeDir { path: PathBuf, reason: String },
    #[error(
        "socket path {path} is longer than {MAX_SOCKET_PATH} bytes; set LEAN_CTX_RUNTIME_DIR to a shorter directory"
    )]
    SocketPathTooLong { path: PathBuf },
}

/// The resolved directories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    /// Port files, stats: shared with the JetBrains plugin.
    pub data_dir: PathBuf,
    /// The socket and the lock files; must be private to the user.
    pub runtime_dir: PathBuf,
    /// Logs.
    pub state_dir: PathBuf,
    /// `config.toml`.
    pub config_dir: PathBuf,
}

impl Paths {
    /// Resolves from the environment (overrides first, then platform defaults).
    pub fn from_env() -> Result<Paths, PathsError> {
        let over = |name: &str| {
            env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let base = directories::BaseDirs::new();
        let home = base.as_ref().map(|b| b.home_dir().to_path_buf());

        let data_dir = resolve_data_dir(
            env::var_os("LEAN_CTX_DATA_DIR").as_deref(),
            home.as_deref(),
            env::var_os("XDG_CONFIG_HOME").as_deref(),
        )?;
        let config_dir = match over("LEAN_CTX_CONFIG_DIR") {
            Some(p) => p,
            None => base
                .as_ref()
                .ok_or(PathsError::NoHome)?
                .config_dir()
                .join("lean-ctx"),
        };
        let state_dir = match over("LEAN_CTX_STATE_DIR") {
            Some(p) => p,
            // Linux has XDG_STATE_HOME; elsewhere logs live under the data dir.
            None => match base.as_ref().and_then(|b| b.state_dir()) {
                Some(state) => state.join("lean-ctx"),
                None => data_dir.join("log"),
            },
        };
        let runtime_dir = match over("LEAN_CTX_RUNTIME_DIR") {
            Some(p) => p,
            None => match base.as_ref().and_then(|b| b.runtime_dir()) {
                Some(run) => run.join("lean-ctx"),
                // No XDG_RUNTIME_DIR (macOS, minimal containers): a per-user dir in the
                // temp dir; `ensure_runtime_dir` verifies it is ours and private.
                None => {
                    env::temp_dir().join(format!("lean-ctx-{}", rustix::process::getuid().as_raw()))
                }
            },
        };
        Ok(Paths {
            data_dir,
            runtime_dir,
            state_dir,
            config_dir,
        })
    }

    /// The same directories as absolute paths (an override may be relative), for a
    /// process that leaves its working directory.
    pub fn absolute(self) -> io::Result<Paths> {
        Ok(Paths {
            data_dir: std::path::absolute(self.data_dir)?,
            runtime_dir: std::path::absolute(self.runtime_dir)?,
            state_dir: std::path::absolute(self.state_dir)?,
            config_dir: std::path::absolute(self.config_dir)?,
        })
    }

    /// The socket of this build's daemon (its wire schema's).
    pub fn socket(&self) -> PathBuf {
        self.socket_of(crate::daemons::schema_short())
    }

    /// The socket of the daemon of the schema `schema_short`.
    pub fn socket_of(&self, schema_short: &str) -> PathBuf {
        self.runtime_dir.join(socket_name(schema_short))
    }

    /// Held (flock) by the running daemon of this build's schema for its whole life:
    /// the single-instance guard, one per schema. The kernel drops it when the process
    /// dies, so a `kill -9` leaves no stale lock.
    pub fn daemon_lock(&self) -> PathBuf {
        self.runtime_dir
            .join(format!("lean-ctxd-{}.lock", crate::daemons::schema_short()))
    }

    /// Held by a shim while it spawns a daemon of its schema, so concurrent shims spawn
    /// exactly one, and a shim of another build never waits on it.
    pub fn spawn_lock(&self) -> PathBuf {
        self.runtime_dir
            .join(format!("spawn-{}.lock", crate::daemons::schema_short()))
    }

    /// The lock every daemon, of any build, holds (flock) while it writes into the
    /// worktree `root`: during an upgrade two daemons may serve one root, and their
    /// writes must never interleave. Named by a hash of the root, so any path fits.
    pub fn root_write_lock(&self, root: &Path) -> PathBuf {
        let hash = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
        self.runtime_dir
            .join("roots")
            .join(format!("{}.lock", &hash[..32]))
    }

    /// The persisted symbol index (the daemon's `index/store/persist.rs`): its own 0700
    /// directory in the state dir, removed whole by `lean-ctx daemon clear-cache`.
    pub fn index_store_dir(&self) -> PathBuf {
        self.state_dir.join("index")
    }

    /// The daemon's tracing log (mode 0600).
    pub fn log_file(&self) -> PathBuf {
        self.state_dir.join("lean-ctxd.log")
    }

    /// stdout/stderr of an auto-spawned daemon: catches what happens before logging is up.
    pub fn spawn_output(&self) -> PathBuf {
        self.state_dir.join("lean-ctxd.out")
    }

    /// The pid recorded in the daemon lock file, if a live daemon holds the lock.
    /// Works when the daemon does not answer on its socket (wedged, or starting).
    /// `None` when the runtime dir is not ours alone: its lock file may name any
    /// process, and the pid is one `daemon stop` would kill.
    pub fn daemon_pid(&self) -> Option<u32> {
        use rustix::fs::{FlockOperation, flock};
        let dir = fs::symlink_metadata(&self.runtime_dir).ok()?;
        if not_private(&dir).is_some() {
            return None;
        }
        let path = self.daemon_lock();
        let file = fs::File::open(&path).ok()?;
        match flock(&file, FlockOperation::NonBlockingLockShared) {
            // We got it, so nobody holds it: whatever pid is recorded is stale.
            Ok(()) => None,
            Err(_) => fs::read_to_string(&path).ok()?.trim().parse().ok(),
        }
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    /// Creates the runtime dir (0700) if needed and verifies it is a real directory owned
    /// by us that nobody else can write to (watchman's rule): a socket in a dir another
    /// user controls could be swapped under us.
    pub fn ensure_runtime_dir(&self) -> Result<(), PathsError> {
        let dir = &self.runtime_dir;
        let io_err = |source| PathsError::Io {
            path: dir.clone(),
            source,
        };
        if let Some(parent) = dir.parent() {
            fs::create_dir_all(parent).map_err(io_err)?;
        }
        match fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_err(e)),
        }
        let meta = fs::symlink_metadata(dir).map_err(io_err)?;
        if let Some(reason) = not_private(&meta) {
            return Err(PathsError::InsecureRuntimeDir {
                path: dir.clone(),
                reason,
            });
        }
        if meta.mode() & 0o077 != 0 {
            // Ours and not writable by others, merely readable: tighten it.
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_err)?;
        }
        let socket = self.socket();
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(PathsError::SocketPathTooLong { path: socket });
        }
        Ok(())
    }

    /// Creates the data dir 0700 if it is missing, and takes group and other bits off
    /// one we own. Why tighten rather than refuse (the runtime dir's rule): the data
    /// dir is shared with the JetBrains plugin, which runs as this same user, so
    /// nobody else ever needs it; refusing would turn IDE discovery and gain off,
    /// while every file read from it is checked on its own anyway (port files: ours,
    /// 0600, no symlink) and every file written into it is 0600. One we do not own is
    /// left alone: it is reported, never changed.
    pub fn ensure_data_dir(&self) -> Result<DataDir, PathsError> {
        let dir = &self.data_dir;
        let io_err = |source| PathsError::Io {
            path: dir.clone(),
            source,
        };
        if let Some(parent) = dir.parent() {
            fs::create_dir_all(parent).map_err(io_err)?;
        }
        match fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => return Ok(DataDir::Created),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_err(e)),
        }
        let meta = fs::metadata(dir).map_err(io_err)?;
        let uid = rustix::process::geteuid().as_raw();
        if meta.uid() != uid {
            return Ok(DataDir::NotOurs { owner: meta.uid() });
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o077 == 0 {
            return Ok(DataDir::Private);
        }
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_err)?;
        Ok(DataDir::Tightened { was: mode })
    }

    /// Creates a directory (and parents) that should exist, e.g. the state dir.
    pub fn ensure_dir(path: &Path) -> Result<(), PathsError> {
        fs::create_dir_all(path).map_err(|source| PathsError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Why a directory, by its `symlink_metadata` (never followed), is not one only we
/// control: not a directory (a symlink or a file), another owner, or group/world
/// writable. `None` when it is ours and nobody else can write it. The runtime dir's
/// rule, checked where it is created and on every connect: a socket in a directory
/// another user controls may be hers.
pub fn not_private(meta: &fs::Metadata) -> Option<String> {
    let uid = rustix::process::getuid().as_raw();
    let mode = meta.mode() & 0o777;
    if !meta.is_dir() {
        Some("not a directory (a symlink or file)".into())
    } else if meta.uid() != uid {
        Some(format!("owned by uid {}, not {uid}", meta.uid()))
    } else if mode & 0o022 != 0 {
        Some(format!("mode {mode:o} is group/world writable"))
    } else {
        None
    }
}

/// The names whose presence in a directory means lean-ctx data lives there (the
/// published plugin's `DATA_MARKERS`): any kind of file counts, a dangling symlink
/// does not.
pub const DATA_MARKERS: [&str; 3] = ["stats.json", "config.toml", "sessions"];

/// The user's home (`HOME`), canonical: what [`counts_as_worktree`] compares with.
pub fn canonical_home() -> Option<PathBuf> {
    env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok())
}

/// Whether `dir`, `start` or one of its ancestors, is the top of a git worktree that
/// makes a project for a call starting at `start`. A repository at `home` itself
/// (dotfiles kept in git) does only for a start at `home`: below it, it would make
/// every project without its own `.git` the whole home directory, and its ignore
/// rules (often `*`) would hide every file. The shim's root rule and the index's
/// ignore rules both judge by this.
pub fn counts_as_worktree(dir: &Path, start: &Path, home: Option<&Path>) -> bool {
    dir.join(".git").exists() && (Some(dir) != home || dir == start)
}

/// Why `file` must not be taken as the user's own choice (a `config.toml` holding the
/// trust list and the language servers to run, a `lean-ctxd` to start); `None` when
/// it is absent or may be used. It, what it links to and its directory must be the
/// user's (or root's) and beyond others' writing, and it must not lie inside a git
/// worktree: an environment a repository set (`XDG_CONFIG_HOME`,
/// `LEAN_CTX_CONFIG_DIR` or `LEAN_CTX_DAEMON_BIN` from a direnv `.envrc`, an editor's
/// terminal settings, a devcontainer) would otherwise let the repository trust itself
/// and choose what runs. A home kept in git is no worktree here (as for roots,
/// [`counts_as_worktree`]).
pub fn not_the_users_own(file: &Path, home: Option<&Path>) -> Option<String> {
    fs::symlink_metadata(file).ok()?;
    if let Some(why) = not_ours_alone(file) {
        return Some(why);
    }
    let dir = fs::canonicalize(file.parent().unwrap_or(Path::new("/"))).ok()?;
    dir.ancestors()
        .find(|a| counts_as_worktree(a, &dir, home))
        .map(|worktree| format!("it lies inside the git worktree {}", worktree.display()))
}

/// Why `file` (as named, what it links to, and its directory) is not the user's
/// alone: another owner than the user or root, or writable by others. `None` when
/// it is, or when it does not exist.
fn not_ours_alone(file: &Path) -> Option<String> {
    let dir = file.parent().unwrap_or(Path::new("/"));
    let metas = [
        fs::symlink_metadata(file),
        fs::metadata(file),
        fs::metadata(dir),
    ];
    ["the file", "what it links to", "its directory"]
        .into_iter()
        .zip(metas)
        .find_map(|(what, meta)| Some(format!("{what}: {}", others_control(&meta.ok()?)?)))
}

/// Why another user controls what `meta` describes: it belongs to someone other
/// than the user or root, or others may write it (a symlink's own mode means
/// nothing); `None` when neither. The rule for everything lean-ctx reads as the
/// user's own: configuration, a binary it runs, a toolchain's files above a root.
pub fn others_control(meta: &fs::Metadata) -> Option<String> {
    let me = rustix::process::getuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        Some(format!("belongs to another user (uid {})", meta.uid()))
    } else if meta.mode() & 0o022 != 0 && !meta.file_type().is_symlink() {
        Some(format!(
            "others may write (mode {:o})",
            meta.mode() & 0o7777
        ))
    } else {
        None
    }
}

/// Directories that are never a project, whoever asks (a shim's working directory,
/// an MCP client's root): indexing, watching and reading them whole would serve
/// `/etc/passwd` as project text and walk the machine.
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/media",
    "/mnt",
    "/proc",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/var",
    "/Applications",
    "/Library",
    "/System",
    "/Users",
    "/Volumes",
    "/private",
];

/// Why the canonical directory `root` may not be a project root, for a user whose
/// home is `home` (canonical); `None` when it may: the filesystem root, a system
/// directory itself (or anything in `/proc`, `/sys` or `/dev`), and the home
/// directory unless it is itself a git worktree.
pub fn too_broad_root(root: &Path, home: Option<&Path>) -> Option<String> {
    if root.parent().is_none() {
        return Some("the filesystem root".into());
    }
    if SYSTEM_DIRS.iter().any(|d| root == Path::new(d))
        || ["/proc", "/sys", "/dev"]
            .iter()
            .any(|d| root.starts_with(d))
    {
        return Some("a system directory".into());
    }
    if Some(root) == home && !root.join(".git").exists() {
        return Some("your home directory (not a git worktree)".into());
    }
    None
}

/// The data dir, as the published plugin resolves it (docs/ide-wire.md, Data dir),
/// from `$LEAN_CTX_DATA_DIR`, the home dir and `$XDG_CONFIG_HOME`:
///
/// 1. `LEAN_CTX_DATA_DIR`, trimmed, if that leaves something: used as it is (a
///    relative one too, as every other override).
/// 2. `~/.lean-ctx` if it holds any of [`DATA_MARKERS`].
/// 3. `$XDG_CONFIG_HOME/lean-ctx` if it holds any of them, `XDG_CONFIG_HOME` trimmed
///    and, when that leaves nothing (unset, empty, blank), `~/.config` instead.
/// 4. `~/.lean-ctx` if it exists, else the directory of step 3.
///
/// Read literally, the way the plugin's code does it (`LeanCtxPaths.resolveDataDir`),
/// where a prose statement of it leaves room: "trimmed" is Kotlin's `String.trim()` (`trim`);
/// a relative `XDG_CONFIG_HOME` is used as it is, relative to the working directory,
/// although the XDG spec says to ignore it (so does `directories`, which is why this
/// does not use it); "exists" in step 4 is any kind of file, not only a directory; and
/// "holds" is that the name exists, following symlinks. Home is `$HOME` when set and
/// non-empty, else the password database (`directories`), and our plugin core takes
/// the same (`DataDir.kt`); the published plugin takes the JVM's `user.home` (the
/// password database), so it differs only in a process whose `$HOME` was changed. A
/// value that is not UTF-8 is used untrimmed: the JVM cannot name it byte for byte
/// anyway. `tests/fixtures/data-dir-cases.json` is the table both sides are tested
/// against.
pub fn resolve_data_dir(
    data_dir: Option<&OsStr>,
    home: Option<&Path>,
    xdg_config_home: Option<&OsStr>,
) -> Result<PathBuf, PathsError> {
    if let Some(dir) = data_dir.map(trim).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let home = home.ok_or(PathsError::NoHome)?;
    let holds_data = |dir: &Path| DATA_MARKERS.iter().any(|m| dir.join(m).exists());
    let legacy = home.join(".lean-ctx");
    if holds_data(&legacy) {
        return Ok(legacy);
    }
    let xdg = xdg_config_home
        .map(trim)
        .filter(|x| !x.is_empty())
        .map_or_else(|| home.join(".config"), PathBuf::from)
        .join("lean-ctx");
    if holds_data(&xdg) {
        return Ok(xdg);
    }
    Ok(if legacy.exists() { legacy } else { xdg })
}

/// Kotlin's `String.trim()` on the JVM, which the plugin applies: it strips
/// `Char.isWhitespace`, i.e. `Character.isWhitespace || Character.isSpaceChar`: the
/// Unicode separators (Zs, Zl, Zp, no-break spaces included), `\t`–`\r` and
/// U+001C–U+001F. That is Rust's `char::is_whitespace` without U+0085 (NEL, a control
/// character to Java) and with U+001C–U+001F.
fn trim(value: &OsStr) -> OsString {
    let jvm_whitespace =
        |c: char| matches!(c, '\u{1c}'..='\u{1f}') || (c.is_whitespace() && c != '\u{85}');
    match value.to_str() {
        Some(text) => text.trim_matches(jvm_whitespace).into(),
        None => value.to_os_string(),
    }
}

/// What [`Paths::ensure_data_dir`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataDir {
    Created,
    /// Ours, no group or other bits.
    Private,
    /// Ours with group/other bits (`was`), now 0700.
    Tightened {
        was: u32,
    },
    /// Owned by another uid: left as it is.
    NotOurs {
        owner: u32,
    },
}

/// Writes `bytes` to `path` through a temp file in the same directory and a rename,
/// creating the directory if needed: a reader sees the old file or the new one, never
/// half of one. (Files the user's other programs read: agent configs, service units.
/// Source edits have their own, stricter path in the daemon.) The umask decides the
/// mode, as for any file the user's tools write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, 0o666, 0o777)
}

/// [`write_atomic`] for files only this user may read (everything in the data dir:
/// stats, editor signal): mode 0600 from the moment the temp file exists, and any
/// directory it has to create 0700.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, 0o600, 0o700)
}

fn replace(path: &Path, bytes: &[u8], mode: u32, dir_mode: u32) -> io::Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::DirBuilder::new()
        .recursive(true)
        .mode(dir_mode)
        .create(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    // A temp file a killed writer left behind is ours to replace; `create_new` then
    // makes sure we never write through something planted at that name.
    let _ = fs::remove_file(&tmp);
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes));
    written
        .and_then(|()| fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths_in(dir: &Path) -> Paths {
        Paths {
            data_dir: dir.join("data"),
            runtime_dir: dir.join("run"),
            state_dir: dir.join("state"),
            config_dir: dir.join("config"),
        }
    }

    #[test]
    fn runtime_dir_is_created_private() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = paths_in(tmp.path());
        paths.ensure_runtime_dir().unwrap();
        let mode = fs::metadata(&paths.runtime_dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn world_writable_runtime_dir_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = paths_in(tmp.path());
        fs::create_dir(&paths.runtime_dir).unwrap();
        fs::set_permissions(&paths.runtime_dir, fs::Permissions::from_mode(0o777)).unwrap();
        let err = paths.ensure_runtime_dir().unwrap_err();
        assert!(
            matches!(err, PathsError::InsecureRuntimeDir { .. }),
            "{err}"
        );
    }

    #[test]
    fn readable_runtime_dir_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = paths_in(tmp.path());
        fs::create_dir(&paths.runtime_dir).unwrap();
        fs::set_permissions(&paths.runtime_dir, fs::Permissions::from_mode(0o755)).unwrap();
        paths.ensure_runtime_dir().unwrap();
        let mode = fs::metadata(&paths.runtime_dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn symlinked_runtime_dir_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = paths_in(tmp.path());
        fs::create_dir(tmp.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), &paths.runtime_dir).unwrap();
        assert!(paths.ensure_runtime_dir().is_err());
    }

    #[test]
    fn the_data_dir_is_created_private_and_a_loose_one_of_ours_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = paths_in(tmp.path());
        assert_eq!(paths.ensure_data_dir().unwrap(), DataDir::Created);
        let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&paths.data_dir), 0o700);
        assert_eq!(paths.ensure_data_dir().unwrap(), DataDir::Private);
        fs::set_permissions(&paths.data_dir, fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(
            paths.ensure_data_dir().unwrap(),
            DataDir::Tightened { was: 0o777 }
        );
        assert_eq!(mode(&paths.data_dir), 0o700);
    }

    #[test]
    fn private_files_are_0600_in_a_0700_dir_whatever_the_umask() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("new/dir/stats.json");
        write_private(&file, b"{}").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        // An existing world-readable file is replaced by a private one.
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&file, b"{\"a\":1}").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"{\"a\":1}");
    }

    /// Every case of the table the plugin core is tested against too
    /// (`DataDirTest.kt`), so both resolve the same directory.
    #[test]
    fn the_data_dir_rule_gives_every_case_of_the_shared_table() {
        let table =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/data-dir-cases.json");
        let table: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(table).unwrap()).unwrap();
        let cases = table["cases"].as_array().unwrap();
        assert!(cases.len() > 20, "the table lost its cases");
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let tmp_text = tmp.path().to_str().unwrap();
            let sub = |v: &serde_json::Value| v.as_str().unwrap().replace("{tmp}", tmp_text);
            for file in case["files"].as_array().into_iter().flatten() {
                let file = sub(file);
                let path = tmp.path().join(&file);
                if file.ends_with('/') {
                    fs::create_dir_all(&path).unwrap();
                } else {
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    fs::write(&path, "").unwrap();
                }
            }
            for (link, target) in case["links"].as_object().into_iter().flatten() {
                let link = tmp.path().join(link);
                fs::create_dir_all(link.parent().unwrap()).unwrap();
                std::os::unix::fs::symlink(sub(target), &link).unwrap();
            }
            let var = |name: &str| case["env"].get(name).map(|v| OsString::from(sub(v)));
            let got = resolve_data_dir(
                var("LEAN_CTX_DATA_DIR").as_deref(),
                Some(&tmp.path().join("home")),
                var("XDG_CONFIG_HOME").as_deref(),
            )
            .unwrap();
            assert_eq!(got, PathBuf::from(sub(&case["expect"])), "{name}");
        }
    }

    #[test]
    fn the_data_dir_needs_a_home_only_without_an_override() {
        let dir = resolve_data_dir(Some(OsStr::new("/x/data")), None, None).unwrap();
        assert_eq!(dir, Path::new("/x/data"));
        let err = resolve_data_dir(Some(OsStr::new(" ")), None, None).unwrap_err();
        assert!(matches!(err, PathsError::NoHome), "{err}");
    }

    #[test]
    fn the_filesystem_root_system_directories_and_a_plain_home_are_no_project() {
        let tmp = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(tmp.path()).unwrap();
        for dir in [
            "/",
            "/etc",
            "/usr",
            "/tmp",
            "/home",
            "/proc/self",
            "/sys/kernel",
        ] {
            assert!(
                too_broad_root(Path::new(dir), Some(&home)).is_some(),
                "{dir}"
            );
        }
        assert!(too_broad_root(&home, Some(&home)).is_some(), "a plain home");
        for dir in ["/usr/src/linux", "/etc/nginx", "/tmp/proj", "/home/a/proj"] {
            assert_eq!(too_broad_root(Path::new(dir), Some(&home)), None, "{dir}");
        }
        fs::create_dir(home.join(".git")).unwrap();
        assert_eq!(
            too_broad_root(&home, Some(&home)),
            None,
            "a home kept in git"
        );
    }

    #[test]
    fn a_config_inside_a_repository_or_others_could_write_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(tmp.path()).unwrap();
        let mine = home.join(".config/lean-ctx");
        fs::create_dir_all(&mine).unwrap();
        let file = mine.join("config.toml");
        assert_eq!(not_the_users_own(&file, Some(&home)), None, "absent");
        fs::write(&file, "").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&mine, fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(not_the_users_own(&file, Some(&home)), None);
        // A home kept in git is no repository here.
        fs::create_dir(home.join(".git")).unwrap();
        assert_eq!(not_the_users_own(&file, Some(&home)), None);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o620)).unwrap();
        assert!(
            not_the_users_own(&file, Some(&home))
                .unwrap()
                .contains("others may write")
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        // Inside a repository (its `.envrc` set XDG_CONFIG_HOME there).
        let repo = home.join("src/repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join(".config/lean-ctx")).unwrap();
        let planted = repo.join(".config/lean-ctx/config.toml");
        fs::write(&planted, "").unwrap();
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(
            not_the_users_own(&planted, Some(&home))
                .unwrap()
                .contains("inside the git worktree")
        );
    }

    #[test]
    fn overlong_socket_path_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let mut paths = paths_in(tmp.path());
        paths.runtime_dir = tmp.path().join("x".repeat(120));
        let err = paths.ensure_runtime_dir().unwrap_err();
        assert!(matches!(err, PathsError::SocketPathTooLong { .. }), "{err}");
    }
}
