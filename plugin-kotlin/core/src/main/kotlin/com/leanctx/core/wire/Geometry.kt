/**
 * Positions, ranges and locations as they cross the plugin wire.
 *
 * Units (docs/ide-wire.md, Positions and paths): `line` is 0-based and `character` counts
 * UTF-16 code units, the unit of an IntelliJ `Document` and of a Kotlin `String`, so the
 * IDE adapter never converts. (The 1-based `line` fields of type_hierarchy,
 * symbols_overview and inspections answers are plain ints in their own DTOs, not
 * [Position]s.)
 */
package com.leanctx.core.wire

/** A 0-based line and a 0-based column in UTF-16 code units. */
data class Position(val line: Int, val character: Int) : Comparable<Position> {
    override fun compareTo(other: Position): Int =
        compareValuesBy(this, other, Position::line, Position::character)
}

/** A half-open span `[start, end)` between two [Position]s. */
data class Range(val start: Position, val end: Position)

/** A span in a file; [path] is relative to the project root, with `/` separators. */
data class Location(val path: String, val range: Range)
