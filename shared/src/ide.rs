//! What the daemon and the JetBrains plugin agree on outside the HTTP wire: the port
//! file an IDE window writes for its project, where it lives, and the project hash
//! that names it (DESIGN "Formats to keep exactly").
//!
//! The canonical root is the same on both sides (plugin-kotlin's `ProjectHash.kt`):
//! absolute, `.`/`..` and repeated separators folded, symlinks resolved when the path
//! exists, no Windows `\\?\` prefix. Hashing a root differently is how the upstream
//! tool's daemon missed its IDE on Windows.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// `<data dir>/jetbrains-<projecthash>.port`, JSON, written by the IDE (mode 0600).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortFile {
    pub port: u16,
    /// 64 hex characters, sent as `X-LeanCtx-Token`.
    pub token: String,
    pub pid: u32,
    pub project_root: PathBuf,
    pub ide_version: String,
    /// Epoch milliseconds.
    #[serde(default)]
    pub started_at: u64,
}

impl PortFile {
    /// A port file's bytes; the error says what is wrong with it.
    pub fn parse(bytes: &[u8]) -> Result<PortFile, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// The name prefix and suffix of port files in the data dir.
pub const PORT_FILE_PREFIX: &str = "jetbrains-";
pub const PORT_FILE_SUFFIX: &str = ".port";

/// The port file of the IDE window that has `root` open.
pub fn port_file(data_dir: &Path, root: &Path) -> PathBuf {
    data_dir.join(format!(
        "{PORT_FILE_PREFIX}{}{PORT_FILE_SUFFIX}",
        project_hash(root)
    ))
}

/// First 8 bytes of SHA-256 over the canonical root, as 16 lowercase hex characters.
pub fn project_hash(root: &Path) -> String {
    let canonical = canonical_root(root);
    let digest = Sha256::digest(canonical.to_string_lossy().as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The root as both sides hash it.
pub fn canonical_root(root: &Path) -> PathBuf {
    let absolute = if root.is_absolute() {
        root.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(root)
    };
    let mut folded = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                folded.pop();
            }
            other => folded.push(other),
        }
    }
    let real = std::fs::canonicalize(&folded).unwrap_or(folded);
    strip_verbatim(real)
}

/// Windows' `\\?\C:\x` is `C:\x`, `\\?\UNC\srv\share` is `\\srv\share`.
fn strip_verbatim(path: PathBuf) -> PathBuf {
    let s = path.to_string_lossy();
    if let Some(rest) = s.strip_prefix(r"\\?\UNC\") {
        return PathBuf::from(format!(r"\\{rest}"));
    }
    match s.strip_prefix(r"\\?\") {
        Some(rest) => PathBuf::from(rest),
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parity_vector_holds_and_spellings_of_one_root_agree() {
        assert_eq!(project_hash(Path::new("/some/project")), "a0317725f24b01df");
        for same in ["/some/./project", "/some/x/../project", "/some//project/"] {
            assert_eq!(project_hash(Path::new(same)), "a0317725f24b01df", "{same}");
        }
        let tmp = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(tmp.path()).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join("link")).unwrap_or(());
        let link = real.join("link");
        assert_eq!(project_hash(&link), project_hash(&real));
        assert_eq!(
            port_file(Path::new("/d"), Path::new("/some/project")),
            Path::new("/d/jetbrains-a0317725f24b01df.port")
        );
        assert_eq!(
            strip_verbatim(PathBuf::from(r"\\?\C:\p")),
            PathBuf::from(r"C:\p")
        );
        assert_eq!(
            strip_verbatim(PathBuf::from(r"\\?\UNC\srv\share")),
            PathBuf::from(r"\\srv\share")
        );
    }

    #[test]
    fn port_files_parse_or_say_why_not() {
        let good = br#"{"port":43117,"token":"ab","pid":42,"project_root":"/p","ide_version":"IU-2024.2","started_at":1760000000000}"#;
        let p = PortFile::parse(good).unwrap();
        assert_eq!((p.port, p.pid, p.started_at), (43117, 42, 1760000000000));
        for bad in [
            &b"{"[..],
            br#"{"port":1}"#,
            br#"{"port":1,"token":"t","pid":"x","project_root":"/p","ide_version":"v"}"#,
        ] {
            assert!(PortFile::parse(bad).is_err());
        }
    }
}
