//! Agent-facing positions (ARCHITECTURE.md, Positions): `line` is 1-based, `column` is 0-based
//! and counted in characters (Unicode scalar values). Inside the daemon, positions are
//! byte offsets; each boundary (LSP, plugin wire) converts exactly once.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A point in a file as agents see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 0-based column, in characters.
    pub column: u32,
}

impl Position {
    pub fn new(line: u32, column: u32) -> Position {
        Position { line, column }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A half-open span `[start, end)` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

impl Range {
    pub fn new(start: Position, end: Position) -> Range {
        Range { start, end }
    }

    /// `end` does not precede `start`.
    pub fn is_ordered(&self) -> bool {
        self.start <= self.end
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start, self.end)
    }
}

/// A range in a file, the path relative to the caller's project root with `/`
/// separators on every platform.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    pub path: String,
    pub range: Range,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_line_colon_column() {
        let r = Range::new(Position::new(3, 0), Position::new(4, 12));
        assert_eq!(r.to_string(), "3:0-4:12");
        assert!(r.is_ordered());
        assert!(!Range::new(Position::new(4, 0), Position::new(3, 9)).is_ordered());
    }
}
