//! What to do next, per catalog code (docs/errors.md, Remedy style).
//!
//! The text is shown wherever an error is rendered (CLI, MCP, dashboard, `doctor`) by
//! the build that renders it; only a case's own override (`LeanError::remedy`, the
//! field) travels in a frame. So it lives outside `wire/`: rewording a remedy is not a
//! new wire schema.

use crate::wire::error::{ErrorCode, LeanError};

impl ErrorCode {
    /// What the caller should do next: one step, naming the tool that takes it.
    pub fn remedy(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => {
                "send a valid X-LeanCtx-Token (the IDE rotates it on restart; re-read the port file)"
            }
            ErrorCode::NotFound => "check the endpoint path",
            ErrorCode::FileNotFound => {
                "verify the path (relative to the project root) with ctx_tree"
            }
            ErrorCode::PositionOutOfRange => {
                "re-resolve the range (ctx_read); line is 1-based, column 0-based in characters"
            }
            ErrorCode::Conflict => {
                "the file changed since you read it: read it fresh, refresh the hash; use force only if you mean it"
            }
            ErrorCode::AmbiguousSymbol => {
                "qualify the name (Class/method) or add the path; see the candidate list"
            }
            ErrorCode::NoSymbol => {
                "correct the name or path; ctx_outline lists the symbols of a file"
            }
            ErrorCode::NoSymbolAtPosition => {
                "re-resolve the position (ctx_read): point at the symbol's name"
            }
            ErrorCode::InvalidTarget => "fix the target or scope kind, or the destination path",
            ErrorCode::Indexing => "indexing is in progress: wait a moment and retry",
            ErrorCode::Unsupported => "pick a different symbol or operation",
            ErrorCode::UnsupportedLanguage => {
                "this language is not supported for this action; use ctx_outline or ctx_search"
            }
            ErrorCode::BackendRequired => {
                "open the project in a JetBrains IDE with the lean-ctx plugin, or configure a language server"
            }
            ErrorCode::Internal => {
                "check the message; `lean-ctx daemon logs` shows details; report a bug if it persists"
            }
            ErrorCode::WorktreeMismatch => {
                "run lean-ctx from inside the worktree you mean to change (or pass --root)"
            }
        }
    }
}

impl LeanError {
    /// The remedy to show: the specific one if set, else the catalog's.
    pub fn remedy(&self) -> &str {
        self.remedy.as_deref().unwrap_or(self.code.remedy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_remedy() {
        for code in ErrorCode::ALL {
            assert!(!code.remedy().is_empty(), "{code}");
        }
    }

    #[test]
    fn specific_remedy_overrides_catalog_remedy() {
        let e = LeanError::internal("boom");
        assert_eq!(e.remedy(), ErrorCode::Internal.remedy());
        let e = e.with_remedy("do this");
        assert_eq!(e.remedy(), "do this");
        assert_eq!(e.to_string(), "INTERNAL: boom");
    }
}
