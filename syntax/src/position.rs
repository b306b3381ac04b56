//! Where a declaration is and what it is, in the units agents read: `line` 1-based,
//! `column` 0-based and counted in characters (Unicode scalar values), a range
//! half-open. The wire has the same shapes (`shared/src/wire/position.rs`,
//! `SymbolKind` in `shared/src/wire/protocol.rs`), defined twice on purpose: the
//! wire's schema hash covers only `shared/src/wire/`, and the shim must not link
//! tree-sitter. The daemon converts at its edge (`daemon/src/declarations.rs`, whose
//! test holds the two kind lists to one order).

use std::fmt;

/// A point in a file as agents see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

impl Range {
    pub fn new(start: Position, end: Position) -> Range {
        Range { start, end }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start, self.end)
    }
}

/// What a declaration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolKind {
    Module,
    Class,
    Struct,
    Union,
    Enum,
    EnumMember,
    Interface,
    Trait,
    /// A Rust `impl` block; its members' name paths start with the implemented type.
    Impl,
    Object,
    Function,
    Method,
    Constructor,
    Field,
    Property,
    Constant,
    Static,
    Variable,
    TypeAlias,
    Macro,
}

impl SymbolKind {
    /// Every kind in declaration order: a kind's index here is its discriminant, and
    /// the byte the persisted encoding stores (`symbols/codec.rs`), so it is appended
    /// to, never reordered.
    pub const ALL: [SymbolKind; 20] = [
        SymbolKind::Module,
        SymbolKind::Class,
        SymbolKind::Struct,
        SymbolKind::Union,
        SymbolKind::Enum,
        SymbolKind::EnumMember,
        SymbolKind::Interface,
        SymbolKind::Trait,
        SymbolKind::Impl,
        SymbolKind::Object,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Constructor,
        SymbolKind::Field,
        SymbolKind::Property,
        SymbolKind::Constant,
        SymbolKind::Static,
        SymbolKind::Variable,
        SymbolKind::TypeAlias,
        SymbolKind::Macro,
    ];

    /// The snake_case name (`type_alias`), as outlines and the wire spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Union => "union",
            SymbolKind::Enum => "enum",
            SymbolKind::EnumMember => "enum_member",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Impl => "impl",
            SymbolKind::Object => "object",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Field => "field",
            SymbolKind::Property => "property",
            SymbolKind::Constant => "constant",
            SymbolKind::Static => "static",
            SymbolKind::Variable => "variable",
            SymbolKind::TypeAlias => "type_alias",
            SymbolKind::Macro => "macro",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kinds_index_in_all_is_its_discriminant() {
        for (i, k) in SymbolKind::ALL.into_iter().enumerate() {
            assert_eq!(k as usize, i, "{}", k.as_str());
        }
    }

    #[test]
    fn display_is_line_colon_column() {
        let r = Range::new(Position::new(3, 0), Position::new(4, 12));
        assert_eq!(r.to_string(), "3:0-4:12");
    }
}
