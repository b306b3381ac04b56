//! The editor signal (docs/ide-wire.md, editor focus): which file the user's editor has focused, so symbol
//! search ranks it first. Editors (the JetBrains plugin, the VS Code extension) run
//! `lean-ctx editor-signal --file <abs path>` on focus changes; the shim writes
//! `editor_signal.json` in the data dir; the daemon reads it when it ranks.
//!
//! Path only, never content. One file for all editor windows: the last focus wins.

use std::{
    fs, io,
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

/// A signal older than this no longer ranks anything.
pub const FRESH_FOR: Duration = Duration::from_secs(120);

/// Recent files kept, newest first.
pub const RECENT: usize = 10;

pub const FILE_NAME: &str = "editor_signal.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentFile {
    pub path: PathBuf,
    /// Unix milliseconds of the focus.
    pub at: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditorSignal {
    pub active_file: Option<PathBuf>,
    /// Newest first, the active file included, at most [`RECENT`].
    pub recent_files: Vec<RecentFile>,
    /// Unix milliseconds of the last focus.
    pub updated_at: u64,
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl EditorSignal {
    /// Reads the signal in `data_dir`; a missing or unreadable file is no signal.
    pub fn read(data_dir: &Path) -> EditorSignal {
        fs::read(data_dir.join(FILE_NAME))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Records a focus on `file` (absolute) at `at`: it becomes active and moves to
    /// the front of the recent files.
    pub fn focus(&mut self, file: PathBuf, at: u64) {
        self.recent_files.retain(|r| r.path != file);
        self.recent_files.insert(
            0,
            RecentFile {
                path: file.clone(),
                at,
            },
        );
        self.recent_files.truncate(RECENT);
        self.active_file = Some(file);
        self.updated_at = at;
    }

    /// Writes atomically (temp file + rename), so a reader never sees half a file.
    pub fn write(&self, data_dir: &Path) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        crate::paths::write_private(&data_dir.join(FILE_NAME), &bytes)
    }

    /// The files to rank first, best first, as of `now`: the active file, then the
    /// other recent files, as long as each focus is fresh.
    pub fn ranked(&self, now: u64) -> Vec<&Path> {
        let fresh = |at: u64| now.saturating_sub(at) <= FRESH_FOR.as_millis() as u64;
        let mut out: Vec<&Path> = Vec::new();
        if let Some(active) = &self.active_file
            && fresh(self.updated_at)
        {
            out.push(active);
        }
        for r in &self.recent_files {
            if fresh(r.at) && !out.contains(&r.path.as_path()) {
                out.push(&r.path);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_moves_a_file_to_the_front_and_keeps_ten() {
        let mut s = EditorSignal::default();
        for i in 0..12 {
            s.focus(PathBuf::from(format!("/p/f{i}.rs")), 1000 + i);
        }
        s.focus(PathBuf::from("/p/f5.rs"), 2000);
        assert_eq!(s.active_file.as_deref(), Some(Path::new("/p/f5.rs")));
        assert_eq!(s.recent_files.len(), RECENT);
        assert_eq!(s.recent_files[0].path, Path::new("/p/f5.rs"));
        assert_eq!(s.recent_files[1].path, Path::new("/p/f11.rs"));
        assert_eq!(
            s.recent_files
                .iter()
                .filter(|r| r.path == Path::new("/p/f5.rs"))
                .count(),
            1
        );
    }

    #[test]
    fn only_fresh_focus_ranks_and_the_file_round_trips() {
        let mut s = EditorSignal::default();
        s.focus(PathBuf::from("/p/old.rs"), 0);
        s.focus(PathBuf::from("/p/a.rs"), 200_000);
        s.focus(PathBuf::from("/p/b.rs"), 250_000);
        assert_eq!(
            s.ranked(260_000),
            [Path::new("/p/b.rs"), Path::new("/p/a.rs")]
        );
        assert_eq!(
            s.ranked(250_000 + FRESH_FOR.as_millis() as u64 + 1),
            Vec::<&Path>::new()
        );
        let tmp = tempfile::tempdir().unwrap();
        s.write(tmp.path()).unwrap();
        assert_eq!(EditorSignal::read(tmp.path()), s);
        assert_eq!(
            EditorSignal::read(&tmp.path().join("none")),
            EditorSignal::default()
        );
    }
}
