//! Facts about this process that the platform tells us.
//!
//! What is here: the resident size (`rss_bytes`), `lower_priority` (nice 10 for a
//! thread whose remaining work nobody waits for: gain accounting, the walk behind a
//! restart's answer), and glibc malloc's tuning (heaps grown 1 MiB at a time) and trim
//! after a burst (`release_free_memory`).

/// Resident set size of this process in bytes (Linux: `/proc/self/statm`); `None` where
/// the platform has no cheap way to tell.
pub fn rss_bytes() -> Option<u64> {
    rss_bytes_of("self")
}

/// Hands back to the system the memory the allocator keeps after a burst of
/// allocations is freed: glibc's malloc keeps free pages in each thread's arena, and
/// after a full walk of a 105,000-file root that was about 190 MiB of a 698 MiB RSS
/// (measured with `malloc_trim(0)` called from gdb: 698 → 506 MiB). Called by the
/// store's writer once it has caught up after writing a walk's parses, never on the
/// request path (`tests/trim.rs`). A no-op where the allocator is not glibc's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn release_free_memory() {
    unsafe extern "C" {
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: malloc_trim(3) takes no pointers and only walks and shrinks glibc's own
    // heaps under its arena locks; it may be called from any thread at any time.
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_free_memory() {}

/// Has glibc's malloc grow and shrink each arena's heap by at least 1 MiB at a time
/// (`M_TOP_PAD`; the default is 128 KiB). A fresh daemon's first index allocates on
/// every index thread at once, and grew each arena's heap a little at a time
/// (`sysmalloc` and `mprotect` were part of the sixth of lodash's first walk that
/// perf put in malloc). A/B, two release builds, 10-16 fresh first indexes a side,
/// alternating, the daemon's own walk time (medians): lodash 14.3 -> 13.4 and 14.8 ->
/// 14.2 ms, guava 35.3 -> 32.9, Django 125.0 -> 121.6, x/tools 43.0 -> 43.9 (noise);
/// RSS after a first index unchanged (lodash 20.5 / 20.4 MiB, Django 34.5 / 32.8,
/// set by the tunable). The idle trim (`release_free_memory`) still hands back every
/// free page. Called once, before the daemon starts any thread. A no-op where the
/// allocator is not glibc's. (No test: glibc's mallopt answers success even to a
/// parameter it does not know, so only the measurement shows it took.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn tune_allocator() {
    /// `M_TOP_PAD` of glibc's `<malloc.h>` (printed by a C program including it: -2).
    const M_TOP_PAD: std::ffi::c_int = -2;
    unsafe extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: mallopt(3) takes no pointers and only sets a parameter of glibc's
    // allocator under its lock.
    unsafe {
        mallopt(M_TOP_PAD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}

/// Resident set size of process `pid` (a number or `self`).
pub fn rss_bytes_of(pid: &str) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * rustix::param::page_size() as u64)
}

/// Resident set size of every process in process group `pgid` (a language server and
/// its helpers), summed.
pub fn rss_of_group(pgid: u32) -> Option<u64> {
    let mut total = None;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name may hold spaces and parentheses: fields resume after the
        // last `)`: state, ppid, pgrp.
        let group = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2))
            .and_then(|g| g.parse::<u32>().ok());
        if group == Some(pgid) {
            *total.get_or_insert(0) += rss_bytes_of(pid).unwrap_or(0);
        }
    }
    total
}

/// Lowers the calling thread's scheduling priority to nice 10 for the rest
/// of its life, and of the threads it spawns (Linux threads inherit it). Work that
/// follows an answer ran at the priority of the process it had answered: after an
/// auto-spawned restart the shim, still writing its answer and exiting, waited up to
/// 4-7 ms for a core held by the walk behind the answer and gain accounting's count
/// (perf sched: both cores theirs for one time slice). Unprivileged, a thread cannot
/// raise its priority again, so only threads whose remaining work is all background
/// call this; a thread already at a lower priority keeps it. Linux only: elsewhere
/// `setpriority(PRIO_PROCESS, 0)` names the whole process.
#[cfg(target_os = "linux")]
pub fn lower_priority() {
    use rustix::process::{getpriority_process, setpriority_process};
    const BACKGROUND_NICE: i32 = 10;
    if getpriority_process(None).is_ok_and(|nice| nice < BACKGROUND_NICE) {
        // Failure leaves the thread as it was: slower callers, nothing wrong.
        let _ = setpriority_process(None, BACKGROUND_NICE);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn lower_priority() {}

/// Milliseconds since the Unix epoch.
pub fn unix_ms(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn rss_is_plausible_on_linux() {
        if cfg!(target_os = "linux") {
            let rss = super::rss_bytes().unwrap();
            assert!(rss > 100_000 && rss < 10_000_000_000, "{rss}");
            let group = rustix::process::getpgrp().as_raw_nonzero().get() as u32;
            assert!(super::rss_of_group(group).unwrap() >= rss);
            assert_eq!(super::rss_of_group(u32::MAX - 1), None);
        }
    }
}
