//! Facts about this process that the platform tells us.

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
