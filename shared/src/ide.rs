//! What the daemon and the JetBrains plugin agree on outside the HTTP wire: the port
//! file an IDE window writes for its project, where it lives, and the project hash
//! that names it (docs/ide-wire.md, Port file, Project hash); and how a port file and the
//! listener behind it prove they are the user's own IDE before its token is sent
//! anywhere ([`read_port_file`], [`verify_listener`]): the daemon and `lean-ctx
//! doctor` both go through these.
//!
//! The canonical root is the same on both sides (plugin-kotlin's `ProjectHash.kt`):
//! absolute, `.`/`..` and repeated separators folded, symlinks resolved when the path
//! exists, no Windows `\\?\` prefix. Hashing a root differently is how the upstream
//! tool's daemon missed its IDE on Windows.

use std::{
    io::Read,
    path::{Component, Path, PathBuf},
};

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

/// Why a port file is not read or not believed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortFileError {
    /// No such file (any more).
    Gone,
    /// Ours and private, but not a port file.
    Bad(String),
    /// Someone else could have written it: never used. `claimed` is what it says,
    /// for `daemon status` and `doctor` only.
    Untrusted {
        reason: String,
        claimed: Option<PortFile>,
    },
}

/// Port files are a few hundred bytes; more is not a port file.
const MAX_PORT_FILE: u64 = 64 * 1024;

/// Reads a port file only if it is a regular file (a symlink is not followed: the
/// open uses `O_NOFOLLOW`), owned by our effective uid and mode 0600 or narrower,
/// judged by `fstat` of the very descriptor its bytes are read from. Another user
/// who can write into the data dir (or did before it was 0700) can plant a port file
/// naming their own listener; its token and every request body would go to them.
pub fn read_port_file(path: &Path) -> Result<PortFile, PortFileError> {
    use rustix::{fs::OFlags, io::Errno};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let untrusted = |reason: String, claimed| PortFileError::Untrusted { reason, claimed };
    let fd = match rustix::fs::open(path, flags, rustix::fs::Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Err(PortFileError::Gone),
        Err(Errno::LOOP) => return Err(untrusted("it is a symlink".into(), None)),
        Err(e) => return Err(untrusted(format!("cannot open it: {e}"), None)),
    };
    let mut file = std::fs::File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| untrusted(format!("cannot stat it: {e}"), None))?;
    if !meta.file_type().is_file() {
        return Err(untrusted("not a regular file".into(), None));
    }
    let mut bytes = Vec::new();
    let read = (&mut file)
        .take(MAX_PORT_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string());
    let parsed = read.and_then(|n| {
        if n as u64 > MAX_PORT_FILE {
            return Err(format!("longer than {MAX_PORT_FILE} bytes"));
        }
        PortFile::parse(&bytes)
    });
    use std::os::unix::fs::MetadataExt;
    let ours = rustix::process::geteuid().as_raw();
    let mode = meta.mode() & 0o777;
    if meta.uid() != ours {
        return Err(untrusted(
            format!("owned by uid {}, not by us (uid {ours})", meta.uid()),
            parsed.ok(),
        ));
    }
    if mode & 0o077 != 0 {
        return Err(untrusted(
            format!("mode {mode:o} lets others read or write it (the plugin writes 0600)"),
            parsed.ok(),
        ));
    }
    parsed.map_err(PortFileError::Bad)
}

/// Proves that a connection to `127.0.0.1:port` is accepted by a socket of process
/// `pid` that belongs to our effective uid, before a token is sent to it: a port
/// file can be ours and right while its IDE died and another user took the port.
/// Answers the inodes of the listening sockets. `known` are the inodes proven last
/// time for the same port file: if the listeners are still exactly those, the walk
/// over `/proc/<pid>/fd` is skipped (one read of `/proc/net/tcp{,6}` remains).
///
/// Linux: every `LISTEN` row of `/proc/net/tcp` and `/proc/net/tcp6` on `port` that
/// could accept a connection to 127.0.0.1 (bound to 127.0.0.1, 0.0.0.0, `::`,
/// `::ffff:127.0.0.1` or `::ffff:0.0.0.0`) must carry our uid, and its inode must
/// be one of `/proc/<pid>/fd/*` (`socket:[inode]`).
#[cfg(target_os = "linux")]
pub fn verify_listener(port: u16, pid: u32, known: &[u64]) -> Result<Vec<u64>, String> {
    let ours = rustix::process::geteuid().as_raw();
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // No tcp6 table: IPv6 is off, nothing listens there.
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for row in text.lines().skip(1).filter_map(ListenRow::parse) {
            if row.port != port || !row.reaches_loopback {
                continue;
            }
            if row.uid != ours {
                return Err(format!(
                    "port {port} is held by uid {}, not by us (uid {ours})",
                    row.uid
                ));
            }
            inodes.push(row.inode);
        }
    }
    if inodes.is_empty() {
        return Err(format!("nothing listens on 127.0.0.1:{port}"));
    }
    inodes.sort_unstable();
    inodes.dedup();
    if inodes == known {
        return Ok(inodes);
    }
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map_err(|e| format!("cannot list the sockets of pid {pid}: {e}"))?;
    let mut held = std::collections::HashSet::new();
    for fd in fds.flatten() {
        let Ok(target) = std::fs::read_link(fd.path()) else {
            continue;
        };
        let inode = target
            .to_str()
            .and_then(|t| t.strip_prefix("socket:["))
            .and_then(|t| t.strip_suffix(']'))
            .and_then(|t| t.parse::<u64>().ok());
        held.extend(inode);
    }
    match inodes.iter().find(|i| !held.contains(i)) {
        Some(stranger) => Err(format!(
            "the listener on port {port} (socket {stranger}) is not a socket of pid {pid}"
        )),
        None => Ok(inodes),
    }
}

/// macOS and the BSDs have no `/proc`: which process holds a port would take libproc
/// (`proc_pidinfo(PROC_PIDLISTFDS)` and `proc_pidfdinfo(PROC_PIDFDSOCKETINFO)`, what
/// `lsof` does), which is not done here. There a port file that is ours and 0600 is
/// all the proof: another user who takes the port of a dead IDE before its port file
/// is removed would receive the token (README, Security).
#[cfg(not(target_os = "linux"))]
pub fn verify_listener(_port: u16, _pid: u32, _known: &[u64]) -> Result<Vec<u64>, String> {
    Ok(Vec::new())
}

/// One `LISTEN` row of `/proc/net/tcp{,6}`.
#[cfg(target_os = "linux")]
#[derive(Debug, PartialEq, Eq)]
struct ListenRow {
    port: u16,
    /// Bound where a connection to 127.0.0.1 lands.
    reaches_loopback: bool,
    uid: u32,
    inode: u64,
}

#[cfg(target_os = "linux")]
impl ListenRow {
    /// `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...`;
    /// the address is the kernel's 32-bit words in host order as hex, the port hex.
    fn parse(line: &str) -> Option<ListenRow> {
        const LISTEN: &str = "0A";
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(3) != Some(&LISTEN) {
            return None;
        }
        let (ip, port) = proc_net_addr(fields.get(1)?)?;
        let v4 = match ip {
            std::net::IpAddr::V4(v4) => Some(v4),
            std::net::IpAddr::V6(v6) if v6.is_unspecified() => {
                Some(std::net::Ipv4Addr::UNSPECIFIED)
            }
            std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped(),
        };
        Some(ListenRow {
            port,
            reaches_loopback: v4
                .is_some_and(|a| a.is_unspecified() || a == std::net::Ipv4Addr::LOCALHOST),
            uid: fields.get(7)?.parse().ok()?,
            inode: fields.get(9)?.parse().ok()?,
        })
    }
}

/// An address of `/proc/net/tcp{,6}`: the kernel's 32-bit words in host order as
/// hex, a colon, the port as hex.
#[cfg(target_os = "linux")]
fn proc_net_addr(field: &str) -> Option<(std::net::IpAddr, u16)> {
    let (addr, port) = field.split_once(':')?;
    let mut bytes = Vec::with_capacity(16);
    for word in addr.as_bytes().chunks(8) {
        let word = u32::from_str_radix(std::str::from_utf8(word).ok()?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match bytes.len() {
        4 => std::net::IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?),
        16 => std::net::IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?),
        _ => return None,
    };
    Some((ip, u16::from_str_radix(port, 16).ok()?))
}

/// The uid owning the other end of an IPv4 loopback connection we accepted: the row
/// of `/proc/net/tcp` whose local address is the peer's and whose remote address is
/// ours. `None` when it is not found (the peer closed already) or off Linux. The
/// dashboard closes connections from any other uid, so a session cookie or one-time
/// code that leaked (cookies are per host, not per port) is worth nothing to another
/// local user.
#[cfg(target_os = "linux")]
pub fn loopback_peer_uid(ours: std::net::SocketAddr, peer: std::net::SocketAddr) -> Option<u32> {
    let text = std::fs::read_to_string("/proc/net/tcp").ok()?;
    text.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = proc_net_addr(fields.get(1)?)?;
        let remote = proc_net_addr(fields.get(2)?)?;
        (local == (peer.ip(), peer.port()) && remote == (ours.ip(), ours.port()))
            .then(|| fields.get(7)?.parse().ok())
            .flatten()
    })
}

/// Off Linux there is no `/proc/net/tcp` to ask; the session cookie alone guards the
/// dashboard there (README, Security).
#[cfg(not(target_os = "linux"))]
pub fn loopback_peer_uid(_ours: std::net::SocketAddr, _peer: std::net::SocketAddr) -> Option<u32> {
    None
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
    fn only_our_own_private_regular_port_files_are_read() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let good = br#"{"port":1,"token":"t","pid":2,"project_root":"/p","ide_version":"v"}"#;
        let file = tmp.path().join("jetbrains-0.port");
        std::fs::write(&file, good).unwrap();
        let chmod = |m| std::fs::set_permissions(&file, std::fs::Permissions::from_mode(m));
        chmod(0o600).unwrap();
        assert_eq!(read_port_file(&file).unwrap().port, 1);
        for loose in [0o644, 0o660, 0o666, 0o604] {
            chmod(loose).unwrap();
            let Err(PortFileError::Untrusted { reason, claimed }) = read_port_file(&file) else {
                panic!("mode {loose:o} was believed");
            };
            assert!(reason.contains("mode"), "{reason}");
            assert_eq!(claimed.unwrap().port, 1);
        }
        chmod(0o600).unwrap();
        // A symlink to a good file of ours is not followed.
        let link = tmp.path().join("jetbrains-1.port");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(
            matches!(read_port_file(&link), Err(PortFileError::Untrusted { reason, .. }) if reason.contains("symlink"))
        );
        // A directory or a FIFO is no port file, and opening a FIFO does not block.
        let fifo = tmp.path().join("jetbrains-2.port");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert!(matches!(
            read_port_file(&fifo),
            Err(PortFileError::Untrusted { .. })
        ));
        assert_eq!(
            read_port_file(&tmp.path().join("none.port")),
            Err(PortFileError::Gone)
        );
        std::fs::write(&file, b"{").unwrap();
        assert!(matches!(read_port_file(&file), Err(PortFileError::Bad(_))));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_net_rows_are_read_as_the_kernel_writes_them() {
        let v4 = "   0: 0100007F:A8AD 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0";
        assert_eq!(
            ListenRow::parse(v4),
            Some(ListenRow {
                port: 0xA8AD,
                reaches_loopback: true,
                uid: 1000,
                inode: 4242
            })
        );
        let any4 = v4.replace("0100007F", "00000000");
        assert!(ListenRow::parse(&any4).unwrap().reaches_loopback);
        let other = v4.replace("0100007F", "0200007F");
        assert!(!ListenRow::parse(&other).unwrap().reaches_loopback);
        let established = v4.replace(" 0A ", " 01 ");
        assert_eq!(ListenRow::parse(&established), None);
        let v6 = |addr: &str| {
            format!(
                "   1: {addr}:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1"
            )
        };
        let any6 = ListenRow::parse(&v6("00000000000000000000000000000000")).unwrap();
        assert!(any6.reaches_loopback);
        assert_eq!((any6.port, any6.inode), (0x1F90, 77));
        let mapped = ListenRow::parse(&v6("0000000000000000FFFF00000100007F")).unwrap();
        assert!(mapped.reaches_loopback);
        // ::1 does not accept connections to 127.0.0.1.
        let v6_loopback = ListenRow::parse(&v6("00000000000000000000000001000000")).unwrap();
        assert!(!v6_loopback.reaches_loopback);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_listener_is_ours_only_when_the_pid_holds_its_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = std::process::id();
        let inodes = verify_listener(port, me, &[]).unwrap();
        assert_eq!(inodes.len(), 1);
        assert_eq!(verify_listener(port, me, &inodes).unwrap(), inodes);
        // Another live process of ours does not hold it.
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let err = verify_listener(port, other.id(), &[]).unwrap_err();
        other.kill().unwrap();
        other.wait().unwrap();
        assert!(err.contains("not a socket of pid"), "{err}");
        drop(listener);
        // Nothing listens now, unless another test of this process took the freed
        // port meanwhile: then it is another socket, never the one dropped.
        match verify_listener(port, me, &inodes) {
            Err(err) => assert!(err.contains("nothing listens"), "{err}"),
            Ok(now) => assert!(now.iter().all(|i| !inodes.contains(i)), "{now:?}"),
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_peer_of_a_loopback_connection_is_known_by_its_uid() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (accepted, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert_eq!(
            loopback_peer_uid(accepted.local_addr().unwrap(), peer),
            Some(rustix::process::geteuid().as_raw())
        );
        let nobody: std::net::SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(
            loopback_peer_uid(accepted.local_addr().unwrap(), nobody),
            None
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
