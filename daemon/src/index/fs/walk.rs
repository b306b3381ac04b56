//! The index's own directory walk, and the ignore rules it and the watcher share.
//!
//! A second worktree of an indexed repository costs almost nothing but this walk:
//! every content hash is known from the git index (`git_index.rs` beside it), so what is left
//! is listing directories and a `stat` per file. The `ignore` crate's walker
//! `stat`s each file by its absolute path (the kernel resolves every component
//! again: a fifth of the walk), checks each directory for a nested `.git` and its
//! ignore files by path, and builds a `DirEntry` with owned paths for every entry.
//! Here each directory is opened relative to its parent's descriptor, listed once
//! (the listing tells which ignore files it has), and files are `stat`ed relative
//! to it; only files of a supported language are matched against ignore rules or
//! `stat`ed at all.
//!
//! What is left out, as git would (and as the watcher judges events, through the
//! same [`Rules`]): hidden entries, nested repositories and worktrees (a directory
//! with a `.git`), symlinks, names that are not UTF-8 (no request or answer can
//! name them), and whatever `.gitignore`/`.ignore` files from the
//! repository's top down to the entry's directory, `info/exclude` and the global
//! `core.excludesFile` ignore (the latter two only inside a git repository; above
//! the repository's top nothing counts). A deeper file overrides a shallower one,
//! as in git, and within one directory `.ignore` overrides `.gitignore` (ripgrep
//! lets an `.ignore` anywhere override every `.gitignore`: depth decides first here,
//! so a subdirectory's `.gitignore` still means what git says it means).

use std::{
    ffi::{CStr, CString, OsStr},
    os::unix::ffi::OsStrExt,
    path::{Path, PathBuf},
    sync::{Arc, Condvar, Mutex, PoisonError},
};

use ignore::{
    Match,
    gitignore::{Gitignore, GitignoreBuilder},
};
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

use lean_ctx_syntax::Lang;

use crate::index::ids::{FileId, IgnoreFiles};

/// The ignore rules in force inside one directory: its own files' and, through
/// `parent`, those of every directory above it.
#[derive(Clone, Debug, Default)]
pub(in crate::index) struct Rules(Option<Arc<Level>>);

#[derive(Debug)]
struct Level {
    matcher: Gitignore,
    parent: Option<Arc<Level>>,
}

/// Whether a listed ignore file of this type is read (see the listing).
fn ignore_file(kind: FileType) -> bool {
    !matches!(kind, FileType::Directory | FileType::Symlink)
}

impl Rules {
    /// The rules in force just above `root`: the global excludes file and
    /// `info/exclude` of the repository `root` is in, and the ignore files of the
    /// directories from the repository's top down to `root`'s parent. A repository at
    /// `home` itself (dotfiles in git, whose `.gitignore` often ignores everything)
    /// counts only for a root at `home`, as the shim's root rule has it.
    pub(in crate::index) fn above(root: &Path, home: Option<&Path>) -> Rules {
        let Some(above) = IgnoreSourcesAbove::of(root, home) else {
            return Rules::default();
        };
        let (global, _) = GitignoreBuilder::new(&above.top).build_global();
        let mut rules = Rules::default().with(global);
        if let Some(exclude_file) = &above.info_exclude {
            let mut exclude = GitignoreBuilder::new(&above.top);
            let _ = exclude.add(exclude_file);
            rules = rules.with(exclude.build().unwrap_or_else(|_| Gitignore::empty()));
        }
        for dir in &above.dirs {
            rules = rules.inside(dir, IgnoreFiles::on_disk(dir));
        }
        rules
    }

    /// The rules in force inside `dir`, a directory these rules are in force for.
    pub(in crate::index) fn inside(&self, dir: &Path, files: IgnoreFiles) -> Rules {
        if !files.gitignore && !files.ignore {
            return self.clone();
        }
        let mut builder = GitignoreBuilder::new(dir);
        // Added last, `.ignore` wins over `.gitignore` (the last match decides).
        for (present, name) in [(files.gitignore, ".gitignore"), (files.ignore, ".ignore")] {
            if present {
                // A file that cannot be read or has a bad glob ignores what it can.
                let _ = builder.add(dir.join(name));
            }
        }
        self.with(builder.build().unwrap_or_else(|_| Gitignore::empty()))
    }

    fn with(&self, matcher: Gitignore) -> Rules {
        if matcher.is_empty() {
            return self.clone();
        }
        Rules(Some(Arc::new(Level {
            matcher,
            parent: self.0.clone(),
        })))
    }

    pub(in crate::index) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Whether `path`, an entry of a directory these rules are in force for, is
    /// ignored: the deepest file with a matching pattern decides.
    pub(in crate::index) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let mut level = self.0.as_deref();
        while let Some(l) = level {
            match l.matcher.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => level = l.parent.as_deref(),
            }
        }
        false
    }
}

/// Where the rules in force just above a root come from ([`Rules::above`]).
struct IgnoreSourcesAbove {
    /// The repository's top.
    top: PathBuf,
    info_exclude: Option<PathBuf>,
    /// From the top down to the root's parent.
    dirs: Vec<PathBuf>,
}

impl IgnoreSourcesAbove {
    fn of(root: &Path, home: Option<&Path>) -> Option<IgnoreSourcesAbove> {
        let top = root
            .ancestors()
            .find(|d| lean_ctx_shared::paths::counts_as_worktree(d, root, home))?;
        let info_exclude = crate::worktree::git_dir(top)
            .map(|git_dir| crate::worktree::common_dir(&git_dir).join("info/exclude"));
        // A root at its repository's top has no directory of the repository above
        // it: the ignore files further up are another repository's (or none), which
        // git never applies here.
        let mut dirs: Vec<PathBuf> = Vec::new();
        if root != top {
            dirs.extend(
                root.ancestors()
                    .skip(1)
                    .take_while(|d| *d != top)
                    .map(Path::to_path_buf),
            );
            dirs.push(top.to_path_buf());
        }
        dirs.reverse();
        Some(IgnoreSourcesAbove {
            top: top.to_path_buf(),
            info_exclude,
            dirs,
        })
    }
}

/// Every file outside `root` that the rules in force just above it may be read from
/// ([`Rules::above`]), present or not: the git config files that can name a global
/// excludes file, that file, `info/exclude`, and the ignore files of the directories
/// above the root. If none of them changed, neither did those rules.
pub(in crate::index) fn inputs_above(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let Some(above) = IgnoreSourcesAbove::of(root, home) else {
        return Vec::new();
    };
    let config_home = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")));
    let mut inputs: Vec<PathBuf> = config_home
        .map(|c| c.join("git/config"))
        .into_iter()
        .chain(std::env::var_os("HOME").map(|h| Path::new(&h).join(".gitconfig")))
        .chain(ignore::gitignore::gitconfig_excludes_path())
        .chain(above.info_exclude)
        .collect();
    for dir in &above.dirs {
        inputs.extend([".gitignore", ".ignore"].map(|name| dir.join(name)));
    }
    inputs
}

/// Dot files and directories are left out (`.git`, `.idea`, `.venv`, ...).
pub(in crate::index) fn hidden(name: &OsStr) -> bool {
    name.as_bytes().first() == Some(&b'.')
}

/// A file the walk found: a regular file of a supported language, not ignored.
pub(in crate::index) struct Found<'a> {
    /// Relative to the walk's root, `/`-separated.
    pub rel: &'a str,
    pub lang: Lang,
    pub id: FileId,
    /// The directory the walk listed the file in, held, and the file's name there:
    /// the file is read through them (`open`), never by its path, which a directory
    /// swapped for a symlink since the listing would lead outside the root.
    dir: rustix::fd::BorrowedFd<'a>,
    name: &'a CStr,
}

impl Found<'_> {
    /// The file, opened `O_NOFOLLOW` in the directory it was listed in.
    pub fn open(&self) -> std::io::Result<std::fs::File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        Ok(rustix::fs::openat(self.dir, self.name, flags, Mode::empty())?.into())
    }
}

/// A directory the walk listed, for whoever keeps listings (`store/listing.rs`).
pub(in crate::index) struct Listed<'a> {
    /// Relative to the walk's root (`""`: the root).
    pub rel: &'a str,
    /// The directory's identity, taken before it was read: as long as it is
    /// unchanged, so is what the listing found.
    pub id: FileId,
    pub ignores: IgnoreFiles,
    /// The files found (not yet `stat`ed): name, language.
    pub files: Vec<(&'a str, Lang)>,
}

/// One walk: `enter` is called for each directory before it is listed (so a watch
/// added there misses nothing the listing does not show), `file` for each file
/// found, from `threads` threads; `listed` (if any) for each directory listed, and
/// `descend` (if any) decides which subdirectories (by path from the root) are
/// walked at all.
pub(in crate::index) struct Walker<'a> {
    pub threads: usize,
    pub enter: &'a (dyn Fn(&Path) + Sync),
    pub file: &'a (dyn Fn(Found<'_>) + Sync),
    pub listed: Option<&'a (dyn Fn(Listed<'_>) + Sync)>,
    pub descend: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
}

/// Work still to be done: a directory to list, or files listed in one to take.
enum Job {
    Dir(DirJob),
    Files(FilesJob),
}

/// A directory still to be listed.
struct DirJob {
    at: At,
    abs: PathBuf,
    rel: String,
    /// The rules in force in its parent.
    rules: Rules,
}

/// Where a directory to list is opened from.
enum At {
    /// The walk's start, opened by its caller beneath the root.
    Start(rustix::fd::OwnedFd),
    /// Its name in its parent, listed already.
    In(Arc<Dir>, CString),
}

/// Files of a supported language found in one listed directory, not ignored, not
/// yet `stat`ed or taken.
struct FilesJob {
    dir: Arc<Dir>,
    /// Each file's name in `dir`, its path from the walk's root, its language.
    files: Vec<(CString, String, Lang)>,
}

/// Files taken per job. A directory's files are split into jobs so that one big
/// flat directory (an npm package's root: lodash has 600 files in one) spreads
/// over every thread instead of keeping one busy while the others wait; a few
/// files per job keep the queue's lock out of the profile.
const FILES_PER_JOB: usize = 16;

#[derive(Default)]
struct Queue {
    jobs: Vec<Job>,
    /// Threads doing a job (a listing may add more).
    busy: usize,
    /// Threads waiting for one: only then is a wake-up worth its syscall.
    idle: usize,
}

/// Held while a thread does a job; dropped only if the job panicked (a bug in
/// whoever takes the files): the walk stops and the other threads return instead
/// of waiting forever for a job that is never finished, so the panic reaches the
/// walk's caller.
struct Doing<'q>(&'q Mutex<Queue>, &'q Condvar);

impl Drop for Doing<'_> {
    fn drop(&mut self) {
        let mut q = lock(self.0);
        q.busy -= 1;
        q.jobs.clear();
        self.1.notify_all();
    }
}

/// The queue, even after a panicking job left it poisoned (its state is
/// consistent: nothing panics while holding it).
fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Walker<'_> {
    /// Walks `dir` (`rel` from the root), whose parent's rules are `rules`, listing
    /// `start`: `dir` opened by the caller beneath the root without following a
    /// symlink (`jail::open_dir_beneath`), so a directory on the way to it swapped
    /// for one cannot lead the walk outside; below it, each directory is opened by
    /// name in its listed parent, `O_NOFOLLOW`. The start is not checked for being
    /// hidden, ignored or a nested repository: the caller chose it.
    pub(in crate::index) fn run(
        &self,
        start: rustix::fd::OwnedFd,
        dir: &Path,
        rel: &str,
        rules: Rules,
    ) {
        let queue = (Mutex::new(Queue::default()), Condvar::new());
        queue.0.lock().unwrap().jobs.push(Job::Dir(DirJob {
            at: At::Start(start),
            abs: dir.to_path_buf(),
            rel: rel.to_string(),
            rules,
        }));
        let threads = self.threads.max(1);
        if threads == 1 {
            self.work(&queue);
            return;
        }
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| self.work(&queue));
            }
        });
    }

    /// Takes jobs off the shared stack (depth first, so the descriptors of listed
    /// directories held for their pending jobs stay few) until none is left and no
    /// thread is doing one that may add more. A listing's jobs are queued before
    /// its lister takes any of its files, so idle threads start on them at once.
    fn work(&self, (queue, wake): &(Mutex<Queue>, Condvar)) {
        let mut added = Vec::new();
        let mut q = lock(queue);
        loop {
            let Some(mut job) = q.jobs.pop() else {
                if q.busy == 0 {
                    if q.idle > 0 {
                        wake.notify_all();
                    }
                    return;
                }
                q.idle += 1;
                q = wake.wait(q).unwrap_or_else(PoisonError::into_inner);
                q.idle -= 1;
                continue;
            };
            q.busy += 1;
            drop(q);
            let doing = Doing(queue, wake);
            loop {
                match job {
                    Job::Files(files) => break self.take(files),
                    Job::Dir(dir) => {
                        self.list(dir, &mut added);
                        // This thread goes on with the last job found (the first
                        // files, if any); the rest go to whoever is idle.
                        let Some(last) = added.pop() else { break };
                        job = last;
                        if !added.is_empty() {
                            let mut q = lock(queue);
                            q.jobs.append(&mut added);
                            if q.idle > 0 {
                                wake.notify_all();
                            }
                        }
                    }
                }
            }
            std::mem::forget(doing);
            q = lock(queue);
            q.busy -= 1;
            if q.idle > 0 && (!q.jobs.is_empty() || q.busy == 0) {
                wake.notify_all();
            }
        }
    }

    /// Lists one directory: its subdirectories and then its files, in jobs, to `jobs`.
    fn list(&self, job: DirJob, jobs: &mut Vec<Job>) {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let DirJob {
            at,
            abs,
            rel,
            rules,
        } = job;
        let start = matches!(at, At::Start(_));
        let fd = match at {
            At::In(parent, name) => parent
                .fd()
                .and_then(|p| rustix::fs::openat(p, name.as_c_str(), flags, Mode::empty())),
            At::Start(fd) => Ok(fd),
        };
        // Unreadable directories are left out, as any walker would.
        let Ok(fd) = fd else { return };
        (self.enter)(&abs);
        // Taken before the listing is read: a change after it changes the identity.
        let id = match self.listed {
            Some(_) => match rustix::fs::fstat(&fd) {
                Ok(st) => Some(FileId::from(&st)),
                Err(_) => return,
            },
            None => None,
        };
        let Ok(mut dir) = Dir::new(fd) else { return };
        let mut entries = Vec::new();
        let mut own = IgnoreFiles::default();
        while let Some(Ok(entry)) = dir.read() {
            let name = entry.file_name();
            match name.to_bytes() {
                // A nested repository or worktree: another project. Found by listing
                // rather than a `stat` of every directory; its own watch stays (the
                // watcher drops events under it, `is_ignored`), its contents unseen.
                b".git" if !start => return,
                // A symlinked ignore file counts as absent, as git (2.32 on) treats
                // one in the working tree: it must not pull another file's lines in.
                b".gitignore" => own.gitignore = ignore_file(entry.file_type()),
                b".ignore" => own.ignore = ignore_file(entry.file_type()),
                _ => {}
            }
            if !hidden(OsStr::from_bytes(name.to_bytes())) {
                entries.push((name.to_owned(), entry.file_type()));
            }
        }
        let rules = rules.inside(&abs, own);
        let dir = Arc::new(dir);
        let Ok(fd) = dir.fd() else { return };
        let mut files = Vec::new();
        for (name, kind) in entries {
            let kind = match kind {
                FileType::Unknown => match rustix::fs::statat(fd, &name, AtFlags::SYMLINK_NOFOLLOW)
                {
                    Ok(st) => FileType::from_raw_mode(st.st_mode as _),
                    Err(_) => continue,
                },
                kind => kind,
            };
            // A name that is not UTF-8 cannot be named in an answer or a request
            // (paths are JSON strings): such a file or directory is left out.
            let Ok(utf8) = std::str::from_utf8(name.to_bytes()) else {
                continue;
            };
            let os_name = OsStr::new(utf8);
            match kind {
                FileType::Directory => {
                    let abs = abs.join(os_name);
                    if rules.ignores(&abs, true) {
                        continue;
                    }
                    let rel = join(&rel, utf8);
                    if self.descend.is_some_and(|descend| !descend(&rel)) {
                        continue;
                    }
                    jobs.push(Job::Dir(DirJob {
                        at: At::In(dir.clone(), name),
                        abs,
                        rel,
                        rules: rules.clone(),
                    }));
                }
                FileType::RegularFile => {
                    let Some(lang) = Lang::from_name(name.to_bytes()) else {
                        continue;
                    };
                    // Most directories have no rules in force: no path to build.
                    if !rules.is_empty() && rules.ignores(&abs.join(os_name), false) {
                        continue;
                    }
                    let rel = join(&rel, utf8);
                    files.push((name, rel, lang));
                }
                _ => {}
            }
        }
        if let (Some(listed), Some(id)) = (self.listed, id) {
            let skip = if rel.is_empty() { 0 } else { rel.len() + 1 };
            listed(Listed {
                rel: &rel,
                id,
                ignores: own,
                files: files
                    .iter()
                    .map(|(_, rel, lang)| (&rel[skip..], *lang))
                    .collect(),
            });
        }
        while !files.is_empty() {
            let files = files.split_off(files.len().saturating_sub(FILES_PER_JOB));
            jobs.push(Job::Files(FilesJob {
                dir: dir.clone(),
                files,
            }));
        }
    }

    /// `stat`s the files of one job, in the directory they were listed in, and hands
    /// each that is still a regular file to `self.file`.
    fn take(&self, job: FilesJob) {
        let Ok(dir) = job.dir.fd() else { return };
        for (name, rel, lang) in &job.files {
            let Ok(st) = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            // Replaced by something else since it was listed.
            if FileType::from_raw_mode(st.st_mode as _) != FileType::RegularFile {
                continue;
            }
            (self.file)(Found {
                rel,
                lang: *lang,
                id: FileId::from(&st),
                dir,
                name,
            });
        }
    }
}

/// `name` inside the directory at `rel` (`""`: the walk's root), `/`-separated.
pub(in crate::index) fn join(rel: &str, name: &str) -> String {
    let mut joined = String::with_capacity(rel.len() + 1 + name.len());
    if !rel.is_empty() {
        joined.push_str(rel);
        joined.push('/');
    }
    joined.push_str(name);
    joined
}

#[cfg(test)]
mod tests {
    use std::{collections::BTreeSet, fs, os::unix::fs::symlink};

    use lean_ctx_testkit::git;

    use super::*;

    fn open_dir(dir: &Path) -> rustix::fd::OwnedFd {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::open(dir, flags, Mode::empty()).unwrap()
    }

    /// The files this walk finds under `root`, from `threads` threads.
    fn walk(root: &Path, threads: usize) -> BTreeSet<String> {
        let found = Mutex::new(BTreeSet::new());
        let entered = Mutex::new(Vec::new());
        Walker {
            threads,
            enter: &|dir| entered.lock().unwrap().push(dir.to_path_buf()),
            file: &|f| {
                assert_eq!(f.id, FileId::stat(&root.join(f.rel)).unwrap());
                assert!(found.lock().unwrap().insert(f.rel.to_string()), "{}", f.rel);
            },
            listed: None,
            descend: None,
        }
        .run(open_dir(root), root, "", Rules::above(root, None));
        let entered = entered.into_inner().unwrap();
        assert!(entered.contains(&root.to_path_buf()));
        found.into_inner().unwrap()
    }

    /// What the `ignore` crate's walker finds with the same filters (its hidden,
    /// `.gitignore`, `.ignore` and exclude rules; nested repositories left out by
    /// hand, as the index did with it).
    fn reference(root: &Path) -> BTreeSet<String> {
        ignore::WalkBuilder::new(root)
            .require_git(false)
            .filter_entry(|e| !(e.depth() > 0 && e.path().join(".git").exists()))
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter(|e| Lang::from_path(e.path()).is_some() && e.path().to_str().is_some())
            .map(|e| {
                let rel = e.path().strip_prefix(root).unwrap();
                rel.to_string_lossy().into_owned()
            })
            .collect()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn the_walk_leaves_out_what_git_and_the_ignore_crate_leave_out() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        git(&root, &["init", "-q"]);
        for rel in [
            "src/main.rs",
            "src/a/b/c/deep.rs",
            "src/gen/x.gen.rs",
            "src/gen/keep.gen.rs",
            "target/debug/build.rs",
            "sub/local.rs",
            "sub/other.rs",
            "sub/inner/local.rs",
            "sub/inner/back.rs",
            "excluded.rs",
            "notes.txt",
            ".hidden/a.rs",
            ".hidden.rs",
            "nested/.git/HEAD",
            "nested/inside.rs",
            "linked/.git",
            "linked/inside.rs",
            "web/app.ts",
            "web/node_modules/lib/index.js",
            "dir.rs/in.rs",
            "ünïcode/файл.rs",
        ] {
            write(&root, rel, "fn f() {}\n");
        }
        write(
            &root,
            ".gitignore",
            "target/\n*.gen.rs\n!keep.gen.rs\nnode_modules\n",
        );
        write(&root, "sub/.gitignore", "local.rs\nback.rs\nother.rs\n");
        // A deeper file overrides a shallower one; `.ignore` overrides `.gitignore`.
        write(&root, "sub/inner/.gitignore", "!local.rs\n");
        write(&root, "sub/.ignore", "!other.rs\n");
        write(&root, ".git/info/exclude", "excluded.rs\n");
        symlink(root.join("src/main.rs"), root.join("link.rs")).unwrap();
        fs::write(
            root.join(OsStr::from_bytes(b"latin1-\xe9.rs")),
            "fn f() {}\n",
        )
        .unwrap();
        symlink(root.join("src"), root.join("src-link")).unwrap();

        let expected: BTreeSet<String> = [
            "src/main.rs",
            "src/a/b/c/deep.rs",
            "src/gen/keep.gen.rs",
            "sub/other.rs",
            "sub/inner/local.rs",
            "web/app.ts",
            "dir.rs/in.rs",
            "ünïcode/файл.rs",
            // Text files are the worktree's too.
            "notes.txt",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(reference(&root), expected, "the reference itself");
        for threads in [1, 2, 4] {
            assert_eq!(walk(&root, threads), expected, "{threads} threads");
        }
    }

    #[test]
    fn a_panic_while_taking_a_file_ends_the_walk_instead_of_hanging_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        for i in 0..50 {
            write(&root, &format!("d{i}/e/f.rs"), "fn f() {}\n");
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let walk = std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| {
                Walker {
                    threads: 2,
                    enter: &|_| {},
                    // One file only: the other thread walks on, then must not wait
                    // for the directory the panicking one never finishes.
                    file: &|f| assert_ne!(f.rel, "d7/e/f.rs"),
                    listed: None,
                    descend: None,
                }
                .run(open_dir(&root), &root, "", Rules::default())
            });
            tx.send(outcome.is_err()).unwrap();
        });
        let panicked = rx.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(panicked, Ok(true), "the walk hung or swallowed the panic");
        walk.join().unwrap();
    }

    #[test]
    fn a_checkout_walks_the_same_as_with_the_ignore_crate() {
        // This workspace's own checkout: real ignore files, a real `target/`.
        let root = fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).unwrap();
        let found = walk(&root, 2);
        assert!(found.len() > 50, "{}", found.len());
        assert_eq!(found, reference(&root));
    }

    #[test]
    fn rules_above_a_root_come_from_its_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let main = fs::canonicalize(tmp.path()).unwrap().join("main");
        write(&main, "pkg/src/lib.rs", "fn f() {}\n");
        write(&main, "pkg/src/skip.rs", "fn f() {}\n");
        write(&main, "pkg/src/private.rs", "fn f() {}\n");
        write(&main, ".gitignore", "skip.rs\n");
        git(&main, &["init", "-q"]);
        git(&main, &["add", "."]);
        git(&main, &["commit", "-qm", "init"]);
        write(&main, ".git/info/exclude", "private.rs\n");
        // A root below the repository's top obeys the top's ignore files.
        assert_eq!(
            walk(&main.join("pkg"), 2),
            BTreeSet::from(["src/lib.rs".to_string()])
        );
        // A linked worktree obeys the repository's `info/exclude` (its `.git` is a
        // file naming a directory whose `commondir` leads back).
        git(&main, &["worktree", "add", "-q", "../second"]);
        let second = main.parent().unwrap().join("second");
        assert_eq!(
            walk(&second, 2),
            BTreeSet::from(["pkg/src/lib.rs".to_string()])
        );
        // A repository inside an ignored directory of another one (a corpus under
        // `target/`) obeys its own rules only: the outer `.gitignore`'s `target/`
        // does not hide its `a/target/`.
        let inner = main.join("target/inner");
        write(&main, ".gitignore", "skip.rs\ntarget/\n");
        write(&inner, "a/target/x.rs", "fn f() {}\n");
        write(&inner, "a/y.rs", "fn f() {}\n");
        git(&inner, &["init", "-q"]);
        assert_eq!(
            walk(&inner, 3),
            BTreeSet::from(["a/target/x.rs".to_string(), "a/y.rs".to_string()])
        );
        assert_eq!(
            inputs_above(&inner, None)
                .iter()
                .filter(|p| p.ends_with(".gitignore"))
                .count(),
            0
        );
        // Outside any repository only the root's own ignore files count.
        let plain = main.parent().unwrap().join("plain");
        write(&plain, "a.rs", "fn f() {}\n");
        write(&plain, "b.rs", "fn f() {}\n");
        write(&plain, ".gitignore", "b.rs\n");
        assert_eq!(walk(&plain, 1), BTreeSet::from(["a.rs".to_string()]));
    }

    #[test]
    fn a_home_kept_in_git_lends_its_ignore_rules_only_to_a_root_at_home() {
        let tmp = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(tmp.path()).unwrap();
        // Dotfiles repositories commonly ignore everything and add files by force.
        write(&home, ".gitignore", "*\n");
        write(&home, "proj/a.rs", "fn f() {}\n");
        git(&home, &["init", "-q"]);
        let (proj, file) = (home.join("proj"), home.join("proj/a.rs"));
        assert!(Rules::above(&proj, None).ignores(&file, false));
        assert!(!Rules::above(&proj, Some(&home)).ignores(&file, false));
        assert!(
            Rules::above(&home, Some(&home))
                .inside(&home, IgnoreFiles::on_disk(&home))
                .ignores(&proj, true)
        );
    }
}
