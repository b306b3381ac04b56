//! The answer budget: no answer may outgrow the socket's frame
//! ([`MAX_ANSWER_BYTES`], the frame less room for tarpc's envelope). An answer that
//! grows with its input (a directory outline, search hits, a file's symbols) charges
//! each item to a [`Budget`] while it is assembled and stops (truncated, said so in
//! the answer) or refuses with a typed error before it gets large; [`check`] is the
//! net under every other operation (references, inspections, refactor previews from a
//! language server), applied by `Daemon::call` before tarpc encodes anything. Without
//! it a too-large answer made the frame encoder fail and the connection drop
//! ("daemon went away").

use lean_ctx_shared::{ErrorCode, LeanError, transport::MAX_ANSWER_BYTES};
use serde::Serialize;

/// Encoded bytes left for one answer.
#[derive(Debug)]
pub struct Budget {
    left: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            left: MAX_ANSWER_BYTES,
        }
    }
}

impl Budget {
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

#[cfg(test)]
mod tests {
    use super::*;

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
