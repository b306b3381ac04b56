//! A declaration reader's lookahead: the few tokens it has looked at and not taken.

/// Tokens looked at but not taken yet, in order, in front of a lexer: the declaration
/// readers' lookahead of up to `N` tokens (`rust_items`, `java_items`).
pub(super) struct Lookahead<T: Copy, const N: usize>([Option<T>; N]);

impl<T: Copy, const N: usize> Lookahead<T, N> {
    pub(super) fn new() -> Self {
        Lookahead([None; N])
    }

    /// The `n`th token ahead, pulling what is missing; `None` at the end of the text
    /// or where it does not lex.
    pub(super) fn peek(&mut self, n: usize, mut pull: impl FnMut() -> Option<T>) -> Option<T> {
        for i in 0..=n {
            if self.0[i].is_none() {
                self.0[i] = Some(pull()?);
            }
        }
        self.0[n]
    }

    /// Whether no token is looked at and not taken.
    pub(super) fn is_empty(&self) -> bool {
        self.0[0].is_none()
    }

    /// The next token, taken.
    pub(super) fn take(&mut self, pull: impl FnOnce() -> Option<T>) -> Option<T> {
        match self.0[0] {
            Some(t) => {
                self.0.rotate_left(1);
                self.0[N - 1] = None;
                Some(t)
            }
            None => pull(),
        }
    }
}
