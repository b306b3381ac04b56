//! PathJail (ARCHITECTURE.md, `daemon/`): every path an agent (or a backing) gives is
//! resolved beneath a descriptor of the caller's root and proven to stay inside it
//! before anything is read or written, and what is read or written afterwards goes
//! through the descriptors the resolution opened, never through the name again.
//!
//! The walk is ours, one component at a time, on every platform: each step is a single
//! name opened `O_NOFOLLOW` relative to the held descriptor of the directory before
//! it. The kernel never follows a symlink or a `..` for us: a symlink's text is read
//! (`readlinkat`) and spliced into the rest of the path, `..` pops our own stack of
//! held directories, an absolute target must lie under the root's own path. So a
//! component swapped for a symlink between two steps is seen as a symlink and judged
//! by the same rules, and nothing outside the root is ever looked up (no existence
//! oracle: everything outside answers one error, whether or not it exists).
//!
//! Why not one `openat2(RESOLVE_BENEATH)`: the jail's rules need every directory on
//! the way anyway (a nested repository or worktree is another project, and is judged
//! by the `.git` inside the directory we hold), and the answer needs the file's
//! canonical root-relative name (the index, the per-file locks and the language
//! servers' URIs are keyed by it), which a single `openat2` does not return without
//! going back to names through `/proc`. The per-component walk gives both, with the
//! same guarantee (nothing is resolved by the kernel across more than one name) and
//! without Linux-only code. Symlinks are allowed where they stay inside the root
//! (real projects have them: `CLAUDE.md -> AGENTS.md`, symlinked packages); a
//! resolved path names the symlink's target, and edits write the target.
//!
//! A path that lands in another worktree of the same repository (beside the root, or
//! nested inside it) is `WORKTREE_MISMATCH`: that is how the upstream tool's edits
//! landed in the wrong checkout (its issue #803).
//!
//! Besides everything outside the root, it refuses `.git` and what is in it, a path
//! with a NUL byte, and anything but a regular file or directory. A [`Jailed`] carries
//! the held directory and the canonical root-relative name, and [`Jailed::open`]
//! re-opens the name `O_NOFOLLOW` beneath that directory. Names the index found itself
//! take the other way in ([`open_beneath`], [`open_dir_beneath`],
//! [`dir_handle_beneath`]): beneath a root descriptor with no symlink at all, since the
//! walk never follows one and a symlink met there was swapped in since.

use std::{
    collections::VecDeque,
    ffi::{OsStr, OsString},
    fs::{self, File},
    io,
    io::Read,
    os::{
        fd::{AsFd, BorrowedFd, OwnedFd},
        unix::ffi::OsStrExt,
    },
    path::{Component, Path, PathBuf},
    sync::Arc,
};

use lean_ctx_shared::{ErrorCode, LeanError};
use rustix::{
    fs::{AtFlags, FileType, Mode, OFlags},
    io::Errno,
};

use crate::worktree;

/// Symlinks followed in one resolution before it is refused (Linux's own limit).
const MAX_HOPS: usize = 40;

/// A path proven to be inside the root, with the descriptors it was proven by.
#[derive(Clone, Debug)]
pub struct Jailed {
    /// For display, URIs and keys: the root joined with `rel`. Never opened by name.
    pub abs: PathBuf,
    /// Root-relative, `/`-separated, canonical (symlinks resolved); empty for the root.
    pub rel: String,
    /// The directory holding the file (the root itself when `rel` is empty).
    dir: Arc<OwnedFd>,
    /// The last component of `rel` (`.` for the root).
    name: OsString,
    is_dir: bool,
}

/// What the path must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    File,
    FileOrDir,
}

impl Jailed {
    pub fn is_dir(&self) -> bool {
        self.is_dir
    }

    /// The file's bytes now, through [`Jailed::open`].
    pub fn read(&self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open()?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// The file under its name now, opened beneath its held directory with
    /// `O_NOFOLLOW` (a symlink swapped in since is refused, never followed) and proven
    /// a regular file: every read of a jailed file, an edit's under its lock too.
    pub fn open(&self) -> io::Result<File> {
        let fd = rustix::fs::openat(
            &*self.dir,
            &*self.name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        regular(fd)
    }

    /// The held directory the file lies in.
    pub fn dir(&self) -> &OwnedFd {
        &self.dir
    }

    /// The file's name in [`Jailed::dir`].
    pub fn name(&self) -> &OsStr {
        &self.name
    }
}

/// Why a walk stopped.
enum Stop {
    /// It climbed above the root or reached an absolute path outside it.
    Outside,
    /// Inside the root, with this reason.
    Refused(ErrorCode, String),
}

/// Resolves `path` (relative to `root`, or absolute) beneath `root` (canonical).
pub fn resolve(root: &Path, group: &Path, path: &str, want: Want) -> Result<Jailed, LeanError> {
    let refuse = |code: ErrorCode, why: String| {
        LeanError::new(code, format!("{path:?}: {why}")).with_remedy(format!(
            "give a path inside the project root {} (relative to it, or absolute inside it)",
            root.display()
        ))
    };
    if path.contains('\0') {
        return Err(refuse(
            ErrorCode::FileNotFound,
            "contains a NUL byte".into(),
        ));
    }
    let root_fd = open_root(root)
        .map(Arc::new)
        .map_err(|e| refuse(ErrorCode::FileNotFound, format!("the root: {e}")))?;
    let given = Path::new(path);
    let walked = match given.strip_prefix(root) {
        Ok(rel) => walk(root, &root_fd, rel, want),
        Err(_) if given.is_absolute() => Err(Stop::Outside),
        Err(_) => walk(root, &root_fd, given, want),
    };
    // Spelled through a way out and back in (`../root/x`, `/var/..` for
    // `/private/var/..`, a symlink climbing out and back): the name's canonical form,
    // when it lies inside the root, is walked again beneath the root. Only a path that
    // comes out inside is ever answered, so this asks nothing about the outside.
    let walked = match walked {
        Err(Stop::Outside) => fs::canonicalize(root.join(given))
            .ok()
            .as_deref()
            .and_then(|c| c.strip_prefix(root).ok())
            .map_or(Err(Stop::Outside), |rel| walk(root, &root_fd, rel, want)),
        other => other,
    };
    match walked {
        Ok(found) => judge(root, &root_fd, group, found, want).map_err(|(c, w)| refuse(c, w)),
        Err(Stop::Refused(code, why)) => Err(refuse(code, why)),
        Err(Stop::Outside) => Err(outside(root, group, given, refuse)),
    }
}

/// Where a file is to be created ([`resolve_new`]): beneath the deepest directory of
/// its path that exists (jailed), the directories still to make, and its name.
#[derive(Debug)]
pub struct NewFile {
    root: PathBuf,
    /// The deepest existing directory of the path, proven inside the root.
    parent: Jailed,
    /// Directories to make beneath `parent`, outermost first.
    missing: Vec<OsString>,
    name: OsString,
}

/// Directories [`NewFile::make_dirs`] made: each name with the directory holding it,
/// outermost first.
pub type Made = Vec<(Arc<OwnedFd>, OsString)>;

/// What a path to create names now.
#[derive(Debug)]
pub enum Creation {
    /// Nothing yet.
    New(NewFile),
    /// A regular file already (replaced only under its hash).
    Exists(Jailed),
}

/// Resolves `path` for a file to create: the file itself if it exists (as
/// [`resolve`] does), else its deepest existing directory (jailed by the same walk and
/// rules) and the names beneath it, each a plain name (no `..` or `.git`).
pub fn resolve_new(root: &Path, group: &Path, path: &str) -> Result<Creation, LeanError> {
    match resolve(root, group, path, Want::FileOrDir) {
        Ok(found) if found.is_dir => {
            return Err(LeanError::new(
                ErrorCode::InvalidTarget,
                format!("{path:?} is a directory"),
            )
            .with_remedy("give the path of the file to create, directory and file name"));
        }
        Ok(found) => return Ok(Creation::Exists(found)),
        Err(e) if e.code != ErrorCode::FileNotFound => return Err(e),
        Err(_) => {}
    }
    let given = Path::new(path);
    let rel = given.strip_prefix(root).unwrap_or(given);
    let bad = |why: &str| {
        LeanError::new(ErrorCode::InvalidTarget, format!("{path:?}: {why}"))
            .with_remedy("give a path inside the project root, relative to it, without `..`")
    };
    if rel.is_absolute() {
        return Err(bad("is outside the project root"));
    }
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if n != ".git" && !n.as_bytes().contains(&0) => {
                names.push(n.to_os_string())
            }
            Component::Normal(_) => return Err(bad("names .git or holds a NUL byte")),
            // `./docs/new.md` is `docs/new.md`, as a read takes it.
            Component::CurDir => {}
            _ => return Err(bad("holds `..`")),
        }
    }
    let name = names.pop().ok_or_else(|| bad("names no file"))?;
    // The deepest existing ancestor: a missing one is made, an existing one is
    // walked and judged like any path (symlinks that stay inside, nested worktrees).
    for depth in (0..=names.len()).rev() {
        let dir: PathBuf = names[..depth].iter().collect();
        match resolve(root, group, &dir.to_string_lossy(), Want::FileOrDir) {
            Ok(parent) if parent.is_dir => {
                return Ok(Creation::New(NewFile {
                    root: root.to_path_buf(),
                    parent,
                    missing: names[depth..].to_vec(),
                    name,
                }));
            }
            Ok(_) => {
                return Err(bad(&format!(
                    "{} is a file, not a directory",
                    dir.display()
                )));
            }
            Err(e) if e.code != ErrorCode::FileNotFound || depth == 0 => return Err(e),
            Err(_) => {}
        }
    }
    unreachable!("the root itself resolves or fails above")
}

impl NewFile {
    /// Root-relative, `/`-separated.
    pub fn rel(&self) -> String {
        let mut rel = PathBuf::from(&self.parent.rel);
        rel.extend(&self.missing);
        rel.push(&self.name);
        rel.to_string_lossy().into_owned()
    }

    /// Makes the missing directories beneath the held parent, one name at a time,
    /// each opened `O_NOFOLLOW` (a symlink raced in is refused, never followed), and
    /// answers the file to write, with the directories made (innermost last) for
    /// [`NewFile::unmake`] should the write fail.
    pub fn make_dirs(&self) -> io::Result<(Jailed, Made)> {
        let mut dir = if self.parent.rel.is_empty() {
            self.parent.dir.clone()
        } else {
            Arc::new(rustix::fs::openat(
                &*self.parent.dir,
                &*self.parent.name,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?)
        };
        let mut made = Vec::new();
        for name in &self.missing {
            match rustix::fs::mkdirat(&*dir, &**name, Mode::from_raw_mode(0o777)) {
                Ok(()) => made.push((dir.clone(), name.clone())),
                Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            dir = Arc::new(rustix::fs::openat(
                &*dir,
                &**name,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?);
        }
        let rel = self.rel();
        Ok((
            Jailed {
                abs: self.root.join(&rel),
                rel,
                dir,
                name: self.name.clone(),
                is_dir: false,
            },
            made,
        ))
    }

    /// Removes the directories [`NewFile::make_dirs`] made, innermost first, where
    /// still empty: a failed create leaves the tree as it found it.
    pub fn unmake(made: &Made) {
        for (dir, name) in made.iter().rev() {
            let _ = rustix::fs::unlinkat(&**dir, &**name, AtFlags::REMOVEDIR);
        }
    }
}

/// The one answer for everything outside the root: the same text whether it exists
/// or not. Only another worktree of this very repository is named as such, judged on
/// the path's text (the worktree's `.git`, never the file).
fn outside(
    root: &Path,
    group: &Path,
    given: &Path,
    refuse: impl Fn(ErrorCode, String) -> LeanError,
) -> LeanError {
    let lexical = normalize(&root.join(given));
    if !lexical.starts_with(root) {
        if let Some(wt) = lexical
            .ancestors()
            .skip(1)
            .find(|d| d.join(".git").exists())
        {
            if worktree::detect(wt).group == group {
                return refuse(
                    ErrorCode::WorktreeMismatch,
                    format!(
                        "is in another worktree of this repository ({}), not in {}",
                        wt.display(),
                        root.display()
                    ),
                );
            }
        }
    }
    refuse(
        ErrorCode::FileNotFound,
        "is outside the project root".into(),
    )
}

/// `..` and `.` removed on the text alone.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What a walk found.
struct Found {
    /// The directories from the root down (names and descriptors), the last one holding
    /// the target.
    dirs: Vec<(OsString, Arc<OwnedFd>)>,
    /// The target's name and descriptor; `None` for the root itself.
    target: Option<(OsString, Arc<OwnedFd>, FileType)>,
}

/// Walks `rel` beneath `root_fd`, one `O_NOFOLLOW` name at a time.
fn walk(root: &Path, root_fd: &Arc<OwnedFd>, rel: &Path, want: Want) -> Result<Found, Stop> {
    let mut queue: VecDeque<OsString> = VecDeque::new();
    push_front(&mut queue, rel);
    let mut dirs: Vec<(OsString, Arc<OwnedFd>)> = Vec::new();
    let mut hops = 0;
    let not_found = |why: String| Stop::Refused(ErrorCode::FileNotFound, why);
    while let Some(name) = queue.pop_front() {
        if name == ".." {
            dirs.pop().ok_or(Stop::Outside)?;
            continue;
        }
        let at = dirs.last().map_or(root_fd, |(_, fd)| fd);
        let last = queue.is_empty();
        let flags = OFlags::RDONLY
            | OFlags::NOFOLLOW
            | OFlags::CLOEXEC
            | if last {
                OFlags::NONBLOCK
            } else {
                OFlags::DIRECTORY
            };
        match rustix::fs::openat(&**at, &*name, flags, Mode::empty()) {
            Ok(fd) => {
                let kind = rustix::fs::fstat(&fd)
                    .map(|st| FileType::from_raw_mode(st.st_mode))
                    .map_err(|e| not_found(format!("not found in the project ({e})")))?;
                if kind == FileType::Directory {
                    dirs.push((name, Arc::new(fd)));
                    if last {
                        let (name, fd) = dirs.pop().expect("just pushed");
                        return Ok(Found {
                            dirs,
                            target: Some((name, fd, kind)),
                        });
                    }
                } else if last {
                    return Ok(Found {
                        dirs,
                        target: Some((name, Arc::new(fd), kind)),
                    });
                } else {
                    return Err(not_found(
                        "not found in the project (not a directory)".into(),
                    ));
                }
            }
            // A symlink (refused by `O_NOFOLLOW`), or something that is not a
            // directory where one was wanted: only a symlink is followed, by us.
            Err(refused @ (Errno::LOOP | Errno::MLINK | Errno::NOTDIR)) => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(not_found("too many levels of symbolic links".into()));
                }
                match rustix::fs::readlinkat(&**at, &*name, Vec::new()) {
                    Ok(target) => {
                        let target = PathBuf::from(OsStr::from_bytes(target.to_bytes()));
                        if target.is_absolute() {
                            let rel = target.strip_prefix(root).map_err(|_| Stop::Outside)?;
                            dirs.clear();
                            push_front(&mut queue, rel);
                        } else {
                            push_front(&mut queue, &target);
                        }
                    }
                    // Not a symlink (now): a file where a directory was wanted, or
                    // swapped back since the open (then look again; `hops` bounds it).
                    Err(Errno::INVAL) => {
                        let now = rustix::fs::statat(&**at, &*name, AtFlags::SYMLINK_NOFOLLOW)
                            .map(|st| FileType::from_raw_mode(st.st_mode));
                        if refused == Errno::NOTDIR
                            && !matches!(now, Ok(FileType::Directory | FileType::Symlink))
                        {
                            return Err(not_found(
                                "not found in the project (not a directory)".into(),
                            ));
                        }
                        queue.push_front(name);
                    }
                    Err(e) => return Err(not_found(format!("not found in the project ({e})"))),
                }
            }
            Err(e) => return Err(not_found(format!("not found in the project ({e})"))),
        }
    }
    // Nothing left to open: the path ended at a directory already held (`src/..`, ``).
    match dirs.pop() {
        Some((name, fd)) => Ok(Found {
            dirs,
            target: Some((name, fd, FileType::Directory)),
        }),
        None if want == Want::File => Err(not_found("is not a regular file".into())),
        None => Ok(Found { dirs, target: None }),
    }
}

/// Puts `path`'s components before the rest of the walk (`.` dropped).
fn push_front(queue: &mut VecDeque<OsString>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(n) => queue.push_front(n.to_os_string()),
            Component::ParentDir => queue.push_front("..".into()),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
}

/// The jail's rules over what the walk found: `.git`, nested repositories and
/// worktrees, regular file or directory.
fn judge(
    root: &Path,
    root_fd: &Arc<OwnedFd>,
    group: &Path,
    found: Found,
    want: Want,
) -> Result<Jailed, (ErrorCode, String)> {
    let Found { dirs, target } = found;
    let mut rel = PathBuf::new();
    for (name, _) in &dirs {
        rel.push(name);
    }
    if let Some((name, _, _)) = &target {
        rel.push(name);
    }
    if rel
        .components()
        .next()
        .is_some_and(|c| c.as_os_str() == ".git")
    {
        return Err((ErrorCode::FileNotFound, "is inside .git".into()));
    }
    // Nested repositories and worktrees inside the root are other projects. Only the
    // directories strictly between the root and the path count (the path itself too
    // when it is a directory): whatever lies above the root is not ours to judge.
    let is_dir = target
        .as_ref()
        .is_none_or(|(_, _, kind)| *kind == FileType::Directory);
    let mut checked: Vec<(&OsString, &Arc<OwnedFd>)> = dirs.iter().map(|(n, f)| (n, f)).collect();
    if let Some((name, fd, _)) = target.as_ref().filter(|_| is_dir) {
        checked.push((name, fd));
    }
    let mut at = root.to_path_buf();
    for (name, fd) in checked {
        at.push(name);
        if rustix::fs::statat(&**fd, ".git", AtFlags::SYMLINK_NOFOLLOW).is_ok() {
            let code = if worktree::detect(&at).group == group {
                ErrorCode::WorktreeMismatch
            } else {
                ErrorCode::FileNotFound
            };
            return Err((
                code,
                format!(
                    "is inside {}, a nested repository or worktree",
                    at.display()
                ),
            ));
        }
    }
    let kind = target.as_ref().map_or(FileType::Directory, |(_, _, k)| *k);
    match want {
        Want::File if kind != FileType::RegularFile => {
            return Err((ErrorCode::FileNotFound, "is not a regular file".into()));
        }
        Want::FileOrDir if kind != FileType::RegularFile && kind != FileType::Directory => {
            return Err((
                ErrorCode::FileNotFound,
                "is not a regular file or directory".into(),
            ));
        }
        _ => {}
    }
    let rel = rel.to_string_lossy().replace('\\', "/");
    let abs = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(&rel)
    };
    let dir = match dirs.last() {
        Some((_, d)) => d.clone(),
        None => root_fd.clone(),
    };
    let name = target.map_or_else(|| OsString::from("."), |(name, _, _)| name);
    Ok(Jailed {
        abs,
        rel,
        dir,
        name,
        is_dir,
    })
}

/// Opens `rel`, a root-relative path the index's walk or watcher found, beneath
/// `root` (a held descriptor of the root directory) without following a symlink or
/// `..` anywhere on the way, and proves it a regular file. The walk never enters a
/// symlink, so a file it indexed is never behind one: a symlink met here was swapped
/// in since, and is refused rather than judged (the jail's own walk, which follows
/// symlinks that stay inside, is for paths agents give). Linux does it in one
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`; elsewhere, or where `openat2`
/// is missing (kernels before 5.6, seccomp filters), one `O_NOFOLLOW` name at a time.
pub fn open_beneath(root: BorrowedFd<'_>, rel: &str) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    regular(beneath(root, rel, flags)?)
}

/// A directory `rel` beneath `root` (`""`: the root itself) as [`open_beneath`]
/// reaches a file, no symlink or `..` on the way: to list it or `stat` its entries
/// by name (the index's walks, a restart's check of a directory's files), which a
/// directory on the way swapped for a symlink then cannot lead outside the root.
pub fn open_dir_beneath(root: BorrowedFd<'_>, rel: &str) -> io::Result<OwnedFd> {
    dir_beneath(root, rel, OFlags::RDONLY)
}

/// A handle on directory `rel` beneath `root`, reached as [`open_dir_beneath`] does,
/// only to `fstat` it and to `stat` or open its entries by name (a restart's check of
/// a directory it listed before): on Linux an `O_PATH` descriptor, which skips the
/// open's own work (about a third less than a readable one with its `stat` by path,
/// measured on Go and Django trees); it cannot be listed.
pub fn dir_handle_beneath(root: BorrowedFd<'_>, rel: &str) -> io::Result<OwnedFd> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let access = OFlags::PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let access = OFlags::RDONLY;
    dir_beneath(root, rel, access)
}

fn dir_beneath(root: BorrowedFd<'_>, rel: &str, access: OFlags) -> io::Result<OwnedFd> {
    let flags = access | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rel {
        "" => Ok(rustix::fs::openat(root, ".", flags, Mode::empty())?),
        rel => beneath(root, rel, flags),
    }
}

/// `rel` opened with `flags` beneath `root`, following no symlink and no `..`.
fn beneath(root: BorrowedFd<'_>, rel: &str, flags: OFlags) -> io::Result<OwnedFd> {
    // `openat2` lets a `..` that stays beneath through; the paths the index opens
    // never hold one, so none is taken, either way.
    if rel.split('/').any(|n| n == "..") {
        return Err(Errno::XDEV.into());
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        let how = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(root, rel, flags, Mode::empty(), how) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOSYS | Errno::PERM) => {}
            Err(e) => return Err(e.into()),
        }
    }
    by_names(root, rel, flags)
}

/// [`beneath`] without `openat2`: one `O_NOFOLLOW` name at a time, `..` refused.
fn by_names(root: BorrowedFd<'_>, rel: &str, flags: OFlags) -> io::Result<OwnedFd> {
    let mut names = rel.split('/').filter(|n| !n.is_empty() && *n != ".");
    let last = names
        .next_back()
        .ok_or_else(|| io::Error::other("no file name"))?;
    let mut dir: Option<OwnedFd> = None;
    for name in names {
        if name == ".." {
            return Err(Errno::XDEV.into());
        }
        let at = dir.as_ref().map_or(root, |d| d.as_fd());
        let dirflags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::DIRECTORY | OFlags::CLOEXEC;
        dir = Some(rustix::fs::openat(at, name, dirflags, Mode::empty())?);
    }
    if last == ".." {
        return Err(Errno::XDEV.into());
    }
    let at = dir.as_ref().map_or(root, |d| d.as_fd());
    Ok(rustix::fs::openat(at, last, flags, Mode::empty())?)
}

/// `fd` as a file if it is a regular one (not a FIFO that would block a read, not a
/// device).
fn regular(fd: OwnedFd) -> io::Result<File> {
    if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::RegularFile {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(File::from(fd))
}

/// The bytes of `rel` beneath `root`, by [`open_beneath`]: for readers that hold no
/// root descriptor (a language server's re-sync of a file the watcher named).
pub fn read_beneath(root: &Path, rel: &str) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_beneath(open_root(root)?.as_fd(), rel)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A descriptor of `root` to hold for [`open_beneath`].
pub fn open_root(root: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_root_inside_another_repository_is_its_own_world() {
        // Regression: a root nested in an outer repository refused its own files.
        let tmp = tempfile::tempdir().unwrap();
        let outer = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(outer.join(".git")).unwrap();
        let root = outer.join("inner");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        let group = root.join(".git");
        for (path, rel) in [(".", ""), ("src", "src"), ("src/a.rs", "src/a.rs")] {
            let j = resolve(&root, &group, path, Want::FileOrDir).unwrap();
            assert_eq!(j.rel, rel, "{path}");
            assert_eq!(j.is_dir(), path != "src/a.rs", "{path}");
        }
        assert!(resolve(&root, &group, "../inner/src/a.rs", Want::File).is_ok());
        assert!(resolve(&root, &group, "..", Want::FileOrDir).is_err());
    }

    /// A root `proj` (a repository) with `src/a.rs`, and `outside/secret.rs` beside it.
    fn world() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
        fs::write(root.join("src/deep/b.rs"), "fn b() {}\n").unwrap();
        fs::create_dir_all(base.join("outside/dir")).unwrap();
        fs::write(base.join("outside/secret.rs"), "fn secret() {}\n").unwrap();
        let group = root.join(".git");
        (tmp, base, root, group)
    }

    fn refused(root: &Path, group: &Path, path: &str) -> (ErrorCode, String) {
        let e = resolve(root, group, path, Want::FileOrDir).expect_err(path);
        (e.code, e.message.replace(&format!("{path:?}"), "<path>"))
    }

    const OUTSIDE: &str = "<path>: is outside the project root";

    /// Whether `fd` is closed on exec.
    pub(crate) fn cloexec(fd: BorrowedFd<'_>) -> bool {
        rustix::io::fcntl_getfd(fd)
            .unwrap()
            .contains(rustix::io::FdFlags::CLOEXEC)
    }

    /// A FIFO made at `path`.
    fn fifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    #[test]
    fn every_way_out_answers_the_same_error_whether_or_not_the_target_exists() {
        let (_tmp, base, root, group) = world();
        symlink(base.join("outside"), root.join("src/out-abs")).unwrap();
        symlink("../../outside", root.join("src/out-rel")).unwrap();
        symlink(base.join("outside/gone.rs"), root.join("src/dangling.rs")).unwrap();
        symlink("/proc/self/root/etc", root.join("src/magic")).unwrap();
        let b = base.display();
        for path in [
            "../outside/secret.rs".to_string(),
            "../outside/gone.rs".into(),
            "src/../../outside/secret.rs".into(),
            "..".into(),
            format!("{b}/outside/secret.rs"),
            format!("{b}/outside/gone.rs"),
            format!("{b}/nowhere/at/all.rs"),
            "/etc/passwd".into(),
            "/proc/self/root/etc/passwd".into(),
            "/proc/self/cwd/x.rs".into(),
            "src/out-abs/secret.rs".into(),
            "src/out-abs/gone.rs".into(),
            "src/out-abs/dir".into(),
            "src/out-rel/secret.rs".into(),
            "src/out-rel/gone/deeper.rs".into(),
            "src/dangling.rs".into(),
            "src/magic/passwd".into(),
            "src/magic/nothing-here".into(),
        ] {
            assert_eq!(
                refused(&root, &group, &path),
                (ErrorCode::FileNotFound, OUTSIDE.to_string()),
                "{path}"
            );
        }
    }

    #[test]
    fn symlinks_that_stay_inside_resolve_to_their_target() {
        let (_tmp, _base, root, group) = world();
        symlink("a.rs", root.join("src/link.rs")).unwrap();
        symlink(root.join("src/deep"), root.join("src/abs-dir")).unwrap();
        symlink("../src/deep", root.join("src/rel-dir")).unwrap();
        symlink("src/link.rs", root.join("chain.rs")).unwrap();
        for (path, rel) in [
            ("src/link.rs", "src/a.rs"),
            ("chain.rs", "src/a.rs"),
            ("src/abs-dir/b.rs", "src/deep/b.rs"),
            ("src/rel-dir/b.rs", "src/deep/b.rs"),
            ("src/rel-dir/../a.rs", "src/a.rs"),
            ("src/deep/../a.rs", "src/a.rs"),
        ] {
            let j = resolve(&root, &group, path, Want::File).expect(path);
            assert_eq!(j.rel, rel, "{path}");
            assert_eq!(j.abs, root.join(rel));
            assert_eq!(j.read().unwrap(), fs::read(root.join(rel)).unwrap());
            assert_eq!(j.name(), Path::new(rel).file_name().unwrap());
        }
        symlink("loop-b", root.join("loop-a")).unwrap();
        symlink("loop-a", root.join("loop-b")).unwrap();
        let (code, why) = refused(&root, &group, "loop-a/x.rs");
        assert_eq!(code, ErrorCode::FileNotFound);
        assert!(why.contains("symbolic links"), "{why}");
    }

    #[test]
    fn git_nested_repositories_and_non_files_keep_their_rules() {
        let (_tmp, _base, root, group) = world();
        fs::create_dir_all(root.join("vendor/dep/.git")).unwrap();
        fs::write(root.join("vendor/dep/x.rs"), "fn x() {}\n").unwrap();
        for path in [".git/HEAD", ".git", "src/../.git/HEAD"] {
            let (code, why) = refused(&root, &group, path);
            assert_eq!(code, ErrorCode::FileNotFound, "{path}");
            assert!(why.contains(".git"), "{path}: {why}");
        }
        for path in ["vendor/dep/x.rs", "vendor/dep"] {
            let (code, why) = refused(&root, &group, path);
            assert_eq!(code, ErrorCode::FileNotFound, "{path}");
            assert!(why.contains("nested repository"), "{path}: {why}");
        }
        // Through a nested repository and back out is inside the root again.
        assert!(resolve(&root, &group, "vendor/dep/../../src/a.rs", Want::File).is_ok());
        let e = resolve(&root, &group, "src", Want::File).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{}", e.message);
        assert!(
            resolve(&root, &group, "src", Want::FileOrDir)
                .unwrap()
                .is_dir()
        );
        let e = resolve(&root, &group, "src/nothing.rs", Want::File).unwrap_err();
        assert!(
            e.message.contains("not found in the project"),
            "{}",
            e.message
        );
        let e = resolve(&root, &group, "src/a.rs/x", Want::File).unwrap_err();
        assert_eq!(e.code, ErrorCode::FileNotFound);
        let e = resolve(&root, &group, "src/a.rs\0", Want::File).unwrap_err();
        assert!(e.message.contains("NUL"), "{}", e.message);
    }

    #[test]
    fn an_edit_reopens_the_name_without_following_a_swapped_in_symlink() {
        let (_tmp, base, root, group) = world();
        let j = resolve(&root, &group, "src/a.rs", Want::File).unwrap();
        fs::rename(root.join("src/a.rs"), root.join("src/a.old")).unwrap();
        symlink(base.join("outside/secret.rs"), root.join("src/a.rs")).unwrap();
        assert!(j.open().is_err(), "the symlink was followed");
        assert!(j.read().is_err(), "the symlink was followed");
        // A directory moved away keeps its descriptor: the name inside it still works.
        let d = resolve(&root, &group, "src/deep/b.rs", Want::File).unwrap();
        fs::rename(root.join("src/deep"), root.join("src/moved")).unwrap();
        symlink(base.join("outside/dir"), root.join("src/deep")).unwrap();
        fs::write(base.join("outside/dir/b.rs"), "fn outside() {}\n").unwrap();
        assert_eq!(d.read().unwrap(), b"fn b() {}\n");
    }

    /// A restart `stat`s a directory's files by name in it (through a handle, an `O_PATH`
    /// descriptor on Linux, or a readable one): the directory is reached
    /// beneath the root without a symlink anywhere on the way, where a `stat` by path
    /// from the root would follow one swapped in for a directory on the way.
    #[test]
    fn a_directory_beneath_is_reached_without_following_a_symlink_on_the_way() {
        let (_tmp, base, root, _group) = world();
        let root_fd = open_root(&root).unwrap();
        let dir = open_dir_beneath(root_fd.as_fd(), "src/deep").unwrap();
        let handle = dir_handle_beneath(root_fd.as_fd(), "src/deep").unwrap();
        let nofollow = AtFlags::SYMLINK_NOFOLLOW;
        assert!(rustix::fs::statat(&dir, "b.rs", nofollow).is_ok());
        // A handle is enough to `stat` the directory and its entries and open them.
        let same = |a: &OwnedFd| rustix::fs::fstat(a).unwrap().st_ino;
        assert_eq!(same(&handle), same(&dir));
        assert!(rustix::fs::statat(&handle, "b.rs", nofollow).is_ok());
        assert!(open_beneath(handle.as_fd(), "b.rs").is_ok());
        assert!(open_dir_beneath(root_fd.as_fd(), "../proj/src/deep").is_err());
        assert!(dir_handle_beneath(root_fd.as_fd(), "../proj/src/deep").is_err());
        // `src` swapped for a symlink to a tree outside with the same shape.
        fs::create_dir_all(base.join("outside/src/deep")).unwrap();
        fs::write(base.join("outside/src/deep/b.rs"), "fn outside() {}\n").unwrap();
        fs::rename(root.join("src"), root.join("src.old")).unwrap();
        symlink(base.join("outside/src"), root.join("src")).unwrap();
        assert!(
            rustix::fs::statat(&root_fd, "src/deep/b.rs", nofollow).is_ok(),
            "a stat by path follows the symlink on the way"
        );
        assert!(open_dir_beneath(root_fd.as_fd(), "src/deep").is_err());
        assert!(open_dir_beneath(root_fd.as_fd(), "src").is_err());
        assert!(dir_handle_beneath(root_fd.as_fd(), "src/deep").is_err());
        assert!(dir_handle_beneath(root_fd.as_fd(), "src").is_err());
        // The descriptor opened before the swap still names the directory it was.
        let st = rustix::fs::statat(&dir, "b.rs", nofollow).unwrap();
        assert_eq!(st.st_size as usize, "fn b() {}\n".len());
    }

    /// Only another worktree of the root's own repository is named as one: a path into
    /// an unrelated repository beside it is just outside, as anything else is.
    #[test]
    fn another_worktree_of_the_repository_is_named_and_an_unrelated_repository_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let (main, other) = (base.join("main"), base.join("other"));
        for repo in [&main, &other] {
            fs::create_dir_all(repo).unwrap();
            fs::write(repo.join("a.rs"), "fn a() {}\n").unwrap();
            lean_ctx_testkit::git(repo, &["init", "-q"]);
            lean_ctx_testkit::git(repo, &["add", "."]);
            lean_ctx_testkit::git(repo, &["commit", "-qm", "a"]);
        }
        lean_ctx_testkit::git(&main, &["worktree", "add", "-q", "../second"]);
        let group = worktree::detect(&main).group;
        let e = resolve(&main, &group, "../second/a.rs", Want::File).unwrap_err();
        assert_eq!(e.code, ErrorCode::WorktreeMismatch, "{}", e.message);
        assert!(e.message.contains("another worktree of this repository"));
        let e = resolve_new(&main, &group, "../second/new.rs")
            .map(|_| ())
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WorktreeMismatch, "{}", e.message);
        assert_eq!(
            refused(&main, &group, "../other/a.rs"),
            (ErrorCode::FileNotFound, OUTSIDE.to_string())
        );
        // A file to create under a missing directory of a worktree nested in the
        // root: the deepest existing ancestor is that worktree, named as such (not
        // passed over for the root above it).
        lean_ctx_testkit::git(&main, &["worktree", "add", "-q", "nested"]);
        let e = resolve_new(&main, &group, "nested/missing/new.rs")
            .map(|_| ())
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WorktreeMismatch, "{}", e.message);
    }

    /// What the jail opens is never inherited by a process the daemon starts, and a
    /// name swapped for a FIFO is refused at once rather than waiting for a writer.
    #[test]
    fn jailed_opens_close_on_exec_and_never_block_on_a_fifo() {
        let (_tmp, _base, root, group) = world();
        let j = resolve(&root, &group, "src/a.rs", Want::File).unwrap();
        assert!(cloexec(j.dir().as_fd()), "the held directory");
        assert!(cloexec(j.open().unwrap().as_fd()), "the file");
        fs::remove_file(root.join("src/a.rs")).unwrap();
        fifo(&root.join("src/a.rs"));
        let (tx, rx) = std::sync::mpsc::channel();
        let opening = std::thread::spawn(move || tx.send(j.open().is_err()).unwrap());
        let refused = rx.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(refused, Ok(true), "a FIFO was waited on or opened");
        opening.join().unwrap();
        let e = resolve(&root, &group, "src/a.rs", Want::File).unwrap_err();
        assert_eq!(e.code, ErrorCode::FileNotFound, "{}", e.message);
    }

    /// A file to create: its deepest existing directory and the names to make beneath
    /// it, each judged like any path; what exists already, a directory, `.git`, NUL,
    /// `..` or a way out is answered as such and nothing is made.
    /// The edges the mutation run found no test at (BENCHMARKS.md, Mutation testing):
    /// a chain of symlinks is followed up to its limit and refused past it; a file
    /// where a directory was wanted is named as such (not retried as a swapped link);
    /// a FIFO is neither a file nor a directory.
    #[test]
    fn the_walk_holds_at_its_edges() {
        let (_tmp, _base, root, group) = world();
        // `src/l0 -> l1 -> … -> a.rs`: `n` links, each followed once.
        let chain = |n: usize, prefix: &str| {
            for i in 0..n {
                let next = if i + 1 == n {
                    "a.rs".to_string()
                } else {
                    format!("{prefix}{}", i + 1)
                };
                symlink(next, root.join(format!("src/{prefix}{i}"))).unwrap();
            }
            format!("src/{prefix}0")
        };
        let longest = chain(MAX_HOPS, "l");
        assert_eq!(
            resolve(&root, &group, &longest, Want::File).unwrap().rel,
            "src/a.rs"
        );
        let too_long = chain(MAX_HOPS + 1, "m");
        let e = resolve(&root, &group, &too_long, Want::File).unwrap_err();
        assert!(
            e.message.contains("too many levels of symbolic links"),
            "{}",
            e.message
        );

        let e = resolve(&root, &group, "src/a.rs/x", Want::File).unwrap_err();
        assert!(e.message.contains("not a directory"), "{}", e.message);

        fifo(&root.join("src/pipe"));
        let (code, why) = refused(&root, &group, "src/pipe");
        assert_eq!(code, ErrorCode::FileNotFound);
        assert!(why.contains("not a regular file or directory"), "{why}");
    }

    #[test]
    fn a_path_to_create_is_judged_like_any_path_and_its_directories_made_beneath_the_root() {
        let (_tmp, base, root, group) = world();
        symlink(base.join("outside"), root.join("src/out")).unwrap();
        let new = |path: &str| match resolve_new(&root, &group, path).unwrap() {
            Creation::New(new) => new,
            Creation::Exists(j) => panic!("{path}: exists as {}", j.rel),
        };
        let refused = |path: &str| resolve_new(&root, &group, path).map(|_| ()).unwrap_err();

        let made = new("src/deep/one/two/c.rs");
        assert_eq!(made.parent.rel, "src/deep");
        assert_eq!(made.missing, ["one", "two"]);
        assert_eq!(made.rel(), "src/deep/one/two/c.rs");
        assert_eq!(new("top.rs").rel(), "top.rs");
        assert!(matches!(
            resolve_new(&root, &group, "src/a.rs").unwrap(),
            Creation::Exists(j) if j.rel == "src/a.rs"
        ));

        let e = refused("src/deep");
        assert_eq!(e.code, ErrorCode::InvalidTarget);
        assert!(e.message.contains("is a directory"), "{}", e.message);
        let e = refused("src/a.rs/x.rs");
        assert_eq!(e.code, ErrorCode::InvalidTarget);
        assert!(
            e.message.contains("is a file, not a directory"),
            "{}",
            e.message
        );
        for path in ["src/.git/x.rs", ".git/hooks/pre-commit", "src/a\0.rs"] {
            let e = refused(path);
            assert_eq!(e.code, ErrorCode::InvalidTarget, "{path}: {}", e.message);
            assert!(
                e.message.contains(".git or holds a NUL"),
                "{path}: {}",
                e.message
            );
        }
        let e = refused("src/../x.rs");
        assert!(e.message.contains("holds `..`"), "{}", e.message);
        assert_eq!(new("./src/x.rs").rel(), "src/x.rs");
        // A way out is refused: by its name, or when its directories are made (a
        // symlink on the way is never followed); nothing is made outside.
        assert!(refused("../outside/new.rs").message.contains("holds `..`"));
        let creates = |path: &str| match resolve_new(&root, &group, path) {
            Ok(Creation::New(new)) => new.make_dirs().is_ok(),
            Ok(Creation::Exists(_)) => panic!("{path} exists"),
            Err(_) => false,
        };
        for path in ["src/out/new.rs", "src/out/dir/deeper/new.rs"] {
            assert!(!creates(path), "{path}");
        }
        assert!(!base.join("outside/new.rs").exists() && !base.join("outside/dir/deeper").exists());
        // Not a directory on the way (a FIFO): refused, not made over.
        fifo(&root.join("src/fifo"));
        assert!(!creates("src/fifo/x.rs"));

        // The directories are made beneath the held parent, close-on-exec, and a
        // parent swapped for a symlink since is refused, never followed.
        let (file, dirs) = made.make_dirs().unwrap();
        assert_eq!(file.rel, "src/deep/one/two/c.rs");
        assert_eq!(dirs.len(), 2);
        assert!(root.join("src/deep/one/two").is_dir());
        assert!(cloexec(file.dir().as_fd()));
        NewFile::unmake(&dirs);
        assert!(!root.join("src/deep/one").exists());
        let raced = new("src/deep/three/d.rs");
        fs::rename(root.join("src/deep"), root.join("src/deep.old")).unwrap();
        symlink(base.join("outside/dir"), root.join("src/deep")).unwrap();
        assert!(raced.make_dirs().is_err());
        assert!(!base.join("outside/dir/three").exists());
    }

    /// What the index opens by a root-relative path (`open_beneath`,
    /// `open_dir_beneath`, `dir_handle_beneath`, `read_beneath`): beneath the root
    /// only, no symlink or `..` followed anywhere on the way, close-on-exec, a FIFO
    /// refused at once; through `openat2` and, where it is missing, one name at a time.
    #[test]
    fn the_index_opens_beneath_the_root_only_without_symlinks_and_close_on_exec() {
        let (_tmp, base, root, _group) = world();
        symlink(base.join("outside"), root.join("src/out")).unwrap();
        symlink("a.rs", root.join("src/alias.rs")).unwrap();
        symlink("deep", root.join("src/deeper")).unwrap();
        fifo(&root.join("src/fifo"));
        let held = open_root(&root).unwrap();
        assert!(cloexec(held.as_fd()), "the root");
        let r = held.as_fd();
        let mut text = String::new();
        let mut file = open_beneath(r, "src/deep/b.rs").unwrap();
        assert!(cloexec(file.as_fd()), "a file");
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "fn b() {}\n");
        assert_eq!(read_beneath(&root, "src/a.rs").unwrap(), b"fn a() {}\n");
        let file_flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for (way, open) in [
            (
                "openat2",
                beneath as fn(BorrowedFd<'_>, &str, OFlags) -> io::Result<OwnedFd>,
            ),
            ("by names", by_names),
        ] {
            let fd = open(r, "src/deep/b.rs", file_flags).unwrap();
            assert!(cloexec(fd.as_fd()), "{way}");
            let fd = open(r, "src/deep", dir_flags).unwrap();
            assert!(cloexec(fd.as_fd()), "{way}");
            for bad in [
                "src/out/secret.rs",
                "src/alias.rs",
                "src/deeper/b.rs",
                "../outside/secret.rs",
                "src/../src/a.rs",
                "src/deep/..",
            ] {
                assert!(open(r, bad, file_flags).is_err(), "{way} {bad}");
            }
            assert!(
                open(r, "src/a.rs", dir_flags).is_err(),
                "{way}: a file as a directory"
            );
            assert!(
                open(r, "src/out", dir_flags).is_err(),
                "{way}: a symlink as a directory"
            );
            // A FIFO is opened without waiting for a writer (and refused as no file).
            let (tx, rx) = std::sync::mpsc::channel();
            let fifo = root.join("src");
            std::thread::spawn(move || {
                let dir = open_root(&fifo).unwrap();
                tx.send(open(dir.as_fd(), "fifo", file_flags).is_ok())
                    .unwrap();
            });
            let opened = rx.recv_timeout(std::time::Duration::from_secs(5));
            assert_eq!(opened, Ok(true), "{way}: waited on a FIFO");
        }
        assert!(open_beneath(r, "src/fifo").is_err(), "a FIFO is no file");
        assert!(open_beneath(r, "src").is_err(), "a directory is no file");
        let dir = open_dir_beneath(r, "src/deep").unwrap();
        assert!(cloexec(dir.as_fd()));
        assert!(open_dir_beneath(r, "").is_ok());
        assert!(open_dir_beneath(r, "src/out").is_err());
        assert!(open_dir_beneath(r, "src/a.rs").is_err());
        let handle = dir_handle_beneath(r, "src").unwrap();
        assert!(cloexec(handle.as_fd()));
        assert!(dir_handle_beneath(r, "src/deeper").is_err());
    }
}
