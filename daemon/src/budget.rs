//! The answer budget: no answer may outgrow the socket's frame
//! ([`MAX_ANSWER_BYTES`], the frame less room for tarpc's envelope). An answer that
//! grows with its input (a directory outline, search hits, a file's symbols) charges
//! each item to a [`Budget`] while it is assembled and stops (truncated, said so in
//! the answer) or refuses with a typed error before it gets large; [`check`] is the
//! net under every other operation (references, inspections, refactor previews from a
//! language server), applied by `Daemon::call` before tarpc encodes anything. Without
//! it a too-large answer made the frame encoder fail and the connection drop
//! ("daemon went away").
//!
//! [`Inflight`] bounds memory across requests: the bytes of the files reads hold at
//! once, daemon-wide, so eight concurrent reads of a large file take turns instead
//! of holding eight copies.

use std::sync::atomic::{AtomicU64, Ordering};

use lean_ctx_shared::{ErrorCode, LeanError, transport::MAX_ANSWER_BYTES};
use serde::Serialize;

/// The cap of one answer by default (`answers.max_bytes`): about 20,000 o200k tokens
/// of code, under the 25,000 tokens a client such as Claude Code takes from one tool
/// call by default; past it an answer is cut (said so, with how to go on).
pub const DEFAULT_CAP: u64 = 80_000;

/// The daemon's cap ([`set_cap`]), read by every [`Budget`].
static CAP: AtomicU64 = AtomicU64::new(DEFAULT_CAP);

/// Sets the cap of one answer (from the configuration), within what one frame holds.
pub fn set_cap(bytes: u64) {
    CAP.store(bytes.clamp(4096, MAX_ANSWER_BYTES), Ordering::Relaxed);
}

/// The cap of one answer.
pub fn cap() -> u64 {
    CAP.load(Ordering::Relaxed)
}

/// Encoded bytes left for one answer.
#[derive(Debug)]
pub struct Budget {
    left: u64,
}

impl Default for Budget {
    /// The cap, less room for the answer around its items (totals, flags), so an
    /// answer built within it passes [`within_cap`].
    fn default() -> Budget {
        Budget {
            left: cap().saturating_sub(ENVELOPE),
        }
    }
}

/// Room left for what an answer holds besides its charged items.
const ENVELOPE: u64 = 1024;

impl Budget {
    /// The encoded bytes still free.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// Charges `item`'s encoded size; `false` (nothing charged) if it does not fit.
    pub fn take<T: Serialize + ?Sized>(&mut self, item: &T) -> bool {
        match encoded_len(item) {
            Some(n) if n <= self.left => {
                self.left -= n;
                true
            }
            _ => false,
        }
    }
}

/// The encoded size of `value` (bincode's fixed-width integers: an upper bound of
/// what the transport writes); `None` if it does not encode at all.
fn encoded_len<T: Serialize + ?Sized>(value: &T) -> Option<u64> {
    bincode::serialized_size(value).ok()
}

/// The refusal of an answer over the budget: what it was, how large, and how to ask
/// for less.
pub fn too_large(what: &str, bytes: Option<u64>, remedy: &str) -> LeanError {
    let size = bytes.map_or_else(|| "too large".to_string(), |n| format!("{n} bytes"));
    LeanError::new(
        ErrorCode::Unsupported,
        format!("{what}: the answer would be {size}, over the {MAX_ANSWER_BYTES}-byte limit of one answer"),
    )
    .with_remedy(remedy.to_string())
}

/// The net under every operation: `value` if it fits one answer, else the typed
/// refusal (the connection stays usable).
pub fn check<T: Serialize>(op: &str, value: T) -> Result<T, LeanError> {
    match encoded_len(&value) {
        Some(n) if n <= MAX_ANSWER_BYTES => Ok(value),
        n => Err(too_large(
            op,
            n,
            "narrow the request: a single file or a subdirectory as path, a smaller limit or depth",
        )),
    }
}

/// An agent operation's answer within the answer cap ([`cap`]); over it, refused
/// saying how to ask for less (a smaller limit or depth, a narrower path).
pub fn within_cap<T: Serialize>(op: &str, value: T) -> Result<T, LeanError> {
    match encoded_len(&value) {
        Some(n) if n <= cap() => Ok(value),
        n => Err(too_large_for_cap(op, n)),
    }
}

/// The refusal of an answer over the cap (`answers.max_bytes`).
fn too_large_for_cap(op: &str, bytes: Option<u64>) -> LeanError {
    let size = bytes.map_or_else(|| "too large".to_string(), |n| format!("{n} bytes"));
    LeanError::new(
        ErrorCode::Unsupported,
        format!(
            "{op}: the answer would be {size}, over the {}-byte cap of one answer (answers.max_bytes)",
            cap()
        ),
    )
    .with_remedy("ask for less: a smaller limit or depth, a narrower path; or raise answers.max_bytes in config.toml")
}

/// Bytes of file content held by requests in flight, daemon-wide, up to a cap: a
/// request takes its file's size before reading it and gives it back when its answer
/// is built ([`Held`], on drop). One file of any allowed size fits alone; beyond the
/// cap, requests wait their turn, and past `wait` are refused with a remedy.
#[derive(Debug)]
pub struct Inflight {
    cap: u64,
    held: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

/// Bytes taken from an [`Inflight`], given back on drop.
#[derive(Debug)]
pub struct Held<'a> {
    from: &'a Inflight,
    bytes: u64,
}

impl Inflight {
    pub const fn new(cap: u64) -> Inflight {
        Inflight {
            cap,
            held: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Takes `bytes` (at most the cap), waiting at most `wait` for room; `None` if
    /// there was none by then.
    pub fn take(&self, bytes: u64, wait: std::time::Duration) -> Option<Held<'_>> {
        let bytes = bytes.min(self.cap);
        let held = self.held.lock().unwrap();
        let (mut held, timeout) = self
            .freed
            .wait_timeout_while(held, wait, |held| *held + bytes > self.cap)
            .unwrap();
        if timeout.timed_out() && *held + bytes > self.cap {
            return None;
        }
        *held += bytes;
        Some(Held { from: self, bytes })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        *self.from.held.lock().unwrap() -= self.bytes;
        self.from.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_over_the_cap_wait_their_turn_and_past_the_wait_are_refused() {
        use std::time::Duration;
        let inflight = Inflight::new(100);
        let a = inflight.take(80, Duration::ZERO).unwrap();
        assert!(inflight.take(30, Duration::from_millis(20)).is_none());
        let small = inflight.take(20, Duration::ZERO).unwrap();
        drop(a);
        let big = inflight.take(500, Duration::ZERO);
        assert!(big.is_none(), "capped to 100, with 20 held");
        drop(small);
        let big = inflight.take(500, Duration::ZERO).unwrap();
        std::thread::scope(|s| {
            let waiter = s.spawn(|| inflight.take(10, Duration::from_secs(10)).is_some());
            std::thread::sleep(Duration::from_millis(50));
            drop(big);
            assert!(waiter.join().unwrap());
        });
    }

    #[test]
    fn items_are_charged_until_the_next_one_does_not_fit() {
        let mut budget = Budget {
            left: 3 * encoded_len("abc").unwrap(),
        };
        assert!(budget.take("abc") && budget.take("abc") && budget.take("abc"));
        assert!(!budget.take("abc"));
        assert!(!budget.take(""), "{budget:?}");
    }

    #[test]
    fn the_net_refuses_an_answer_over_the_frame_with_a_remedy() {
        let big = vec![0u8; MAX_ANSWER_BYTES as usize];
        let err = check("outline", big).unwrap_err();
        assert_eq!(err.code, ErrorCode::Unsupported);
        assert!(
            err.message.starts_with("outline: the answer would be"),
            "{}",
            err.message
        );
        assert!(err.remedy().contains("narrow"), "{}", err.remedy());
        assert_eq!(check("ping", 7u32), Ok(7));
    }
}
