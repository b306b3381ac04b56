//! Facts about this process that the platform tells us.

/// Resident set size of this process in bytes (Linux: `/proc/self/statm`); `None` where
/// the platform has no cheap way to tell.
pub fn rss_bytes() -> Option<u64> {
    rss_bytes_of("self")
}

/// Resident set size of process `pid` (a number or `self`).
pub fn rss_bytes_of(pid: &str) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * rustix::param::page_size() as u64)
}

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
        }
    }
}
