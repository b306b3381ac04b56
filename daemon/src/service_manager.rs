//! Running under a service manager: the listening socket systemd hands over
//! (`LISTEN_FDS`, socket activation) and readiness through `sd_notify`.
//!
//! Both follow the documented protocols (sd_listen_fds(3), sd_notify(3)) without
//! linking libsystemd: passed sockets start at fd 3 and are ours only if `LISTEN_PID`
//! is our pid; notifications are datagrams to `$NOTIFY_SOCKET` (an `@` prefix means the
//! abstract namespace).

use std::{
    io,
    os::{
        fd::{FromRawFd, OwnedFd},
        unix::net::{UnixDatagram, UnixListener},
    },
};

/// The first fd systemd passes.
const SD_LISTEN_FDS_START: i32 = 3;

/// The listening socket systemd passed us, if any. Fails if one was passed but is not
/// a listening Unix socket.
pub fn listen_socket() -> io::Result<Option<UnixListener>> {
    let ours = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.parse::<u32>().ok())
        == Some(std::process::id());
    let count: i32 = std::env::var("LISTEN_FDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if !ours || count < 1 {
        return Ok(None);
    }
    if count > 1 {
        tracing::warn!(count, "systemd passed several sockets; using the first");
    }
    let fd = adopt_first_fd();
    // Passed fds are inherited without close-on-exec; language servers we spawn must
    // not hold the listening socket.
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC)?;
    let listener = UnixListener::from(fd);
    // Anything but a Unix socket fails here instead of as garbage later.
    listener.local_addr()?;
    listener.set_nonblocking(true)?;
    Ok(Some(listener))
}

#[allow(unsafe_code)]
fn adopt_first_fd() -> OwnedFd {
    // SAFETY: sd_listen_fds(3): with LISTEN_PID equal to our pid and LISTEN_FDS >= 1,
    // fd 3 is an open socket passed to this process, and nothing else in the process
    // owns it; `listen_socket` is called once, at start, so it is adopted exactly once.
    unsafe { OwnedFd::from_raw_fd(SD_LISTEN_FDS_START) }
}

/// Sends `state` (e.g. `READY=1\nSTATUS=...`) to the service manager, if there is one.
/// Best effort: a lost notification is logged, never fatal.
pub fn notify(state: &str) {
    let Some(target) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    let sent = (|| -> io::Result<()> {
        let socket = UnixDatagram::unbound()?;
        let bytes = target.as_encoded_bytes();
        if let Some(name) = bytes.strip_prefix(b"@") {
            #[cfg(target_os = "linux")]
            {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                socket.send_to_addr(state.as_bytes(), &addr)?;
            }
            #[cfg(not(target_os = "linux"))]
            {
                let _ = name;
                return Err(io::Error::other("abstract sockets exist only on Linux"));
            }
        } else {
            socket.send_to(state.as_bytes(), &target)?;
        }
        Ok(())
    })();
    if let Err(e) = sent {
        tracing::warn!(error = %e, "sd_notify failed");
    }
}
