//! The error catalog (docs/errors.md): exactly the upstream plugin's codes plus
//! `WORKTREE_MISMATCH`. Every error that leaves the daemon or the shim is a
//! [`LeanError`] carrying one of these codes. Each code's remedy text is in
//! `crate::remedy`, outside the wire set: it is rendered where the error is shown and
//! never enters a frame.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A catalog code. The wire spelling (`SCREAMING_SNAKE_CASE`) is what agents and the
/// plugin see; it never changes once published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    Unauthorized,
    NotFound,
    FileNotFound,
    PositionOutOfRange,
    Conflict,
    AmbiguousSymbol,
    NoSymbol,
    NoSymbolAtPosition,
    InvalidTarget,
    Indexing,
    Unsupported,
    UnsupportedLanguage,
    BackendRequired,
    Internal,
    /// Ours, not upstream's: a path or symbol resolved into a different worktree than
    /// the caller's root (the upstream tool's issue #803 wrote into the wrong one).
    WorktreeMismatch,
}

impl ErrorCode {
    /// Every code, in catalog order.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::Unauthorized,
        ErrorCode::NotFound,
        ErrorCode::FileNotFound,
        ErrorCode::PositionOutOfRange,
        ErrorCode::Conflict,
        ErrorCode::AmbiguousSymbol,
        ErrorCode::NoSymbol,
        ErrorCode::NoSymbolAtPosition,
        ErrorCode::InvalidTarget,
        ErrorCode::Indexing,
        ErrorCode::Unsupported,
        ErrorCode::UnsupportedLanguage,
        ErrorCode::BackendRequired,
        ErrorCode::Internal,
        ErrorCode::WorktreeMismatch,
    ];

    /// The wire spelling, e.g. `FILE_NOT_FOUND`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::FileNotFound => "FILE_NOT_FOUND",
            ErrorCode::PositionOutOfRange => "POSITION_OUT_OF_RANGE",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::AmbiguousSymbol => "AMBIGUOUS_SYMBOL",
            ErrorCode::NoSymbol => "NO_SYMBOL",
            ErrorCode::NoSymbolAtPosition => "NO_SYMBOL_AT_POSITION",
            ErrorCode::InvalidTarget => "INVALID_TARGET",
            ErrorCode::Indexing => "INDEXING",
            ErrorCode::Unsupported => "UNSUPPORTED",
            ErrorCode::UnsupportedLanguage => "UNSUPPORTED_LANGUAGE",
            ErrorCode::BackendRequired => "BACKEND_REQUIRED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::WorktreeMismatch => "WORKTREE_MISMATCH",
        }
    }

    /// Parses the wire spelling; `None` for a code this build does not know.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as it crosses the socket: a catalog code, a message about this case, an
/// optional override of the code's generic remedy and structured details.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct LeanError {
    pub code: ErrorCode,
    pub message: String,
    /// A remedy specific to this case; `None` means the code's catalog remedy.
    pub remedy: Option<String>,
    pub details: Option<ErrorDetails>,
}

/// What an agent needs to act on an error without another round trip.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorDetails {
    /// `AMBIGUOUS_SYMBOL`: every match.
    Candidates(Vec<Candidate>),
    /// `INDEXING`: how far the index is.
    Progress(Progress),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub name_path: String,
    pub path: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub percent: u8,
    pub message: String,
}

impl LeanError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> LeanError {
        LeanError {
            code,
            message: message.into(),
            remedy: None,
            details: None,
        }
    }

    pub fn internal(message: impl Into<String>) -> LeanError {
        LeanError::new(ErrorCode::Internal, message)
    }

    /// An agent position (1-based line, 0-based character column) outside `path`.
    pub fn position_out_of_range(path: &str, line: u32, column: u32) -> LeanError {
        LeanError::new(
            ErrorCode::PositionOutOfRange,
            format!(
                "{path}:{line}:{column} is not inside the file (line is 1-based, column 0-based in characters)"
            ),
        )
    }

    /// Replaces the catalog remedy with one specific to this case.
    pub fn with_remedy(mut self, remedy: impl Into<String>) -> LeanError {
        self.remedy = Some(remedy.into());
        self
    }

    pub fn with_details(mut self, details: ErrorDetails) -> LeanError {
        self.details = Some(details);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_spelling_round_trips_through_serde_and_parse() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("NOPE"), None);
    }

    #[test]
    fn catalog_is_exactly_docs_errors_md() {
        let spec = [
            "UNAUTHORIZED",
            "NOT_FOUND",
            "FILE_NOT_FOUND",
            "POSITION_OUT_OF_RANGE",
            "CONFLICT",
            "AMBIGUOUS_SYMBOL",
            "NO_SYMBOL",
            "NO_SYMBOL_AT_POSITION",
            "INVALID_TARGET",
            "INDEXING",
            "UNSUPPORTED",
            "UNSUPPORTED_LANGUAGE",
            "BACKEND_REQUIRED",
            "INTERNAL",
            "WORKTREE_MISMATCH",
        ];
        let ours: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(ours, spec);
    }
}
