/**
 * The error catalog (docs/errors.md) as the plugin emits it, and the exception that
 * carries a catalog code from any layer (IDE adapter, file store, script double) to the
 * router, which turns it into the `{"error":{"code","message"}}` envelope.
 *
 * The spelling of each code is the wire contract shared with the Rust side
 * (`shared/src/wire/error.rs`); `WORKTREE_MISMATCH` is deliberately absent because only the
 * daemon can detect it.
 */
package com.leanctx.core.wire

enum class ErrorCode(val wire: String) {
    UNAUTHORIZED("UNAUTHORIZED"),
    NOT_FOUND("NOT_FOUND"),
    FILE_NOT_FOUND("FILE_NOT_FOUND"),
    POSITION_OUT_OF_RANGE("POSITION_OUT_OF_RANGE"),
    CONFLICT("CONFLICT"),
    AMBIGUOUS_SYMBOL("AMBIGUOUS_SYMBOL"),
    NO_SYMBOL("NO_SYMBOL"),
    NO_SYMBOL_AT_POSITION("NO_SYMBOL_AT_POSITION"),
    INVALID_TARGET("INVALID_TARGET"),
    INDEXING("INDEXING"),
    UNSUPPORTED("UNSUPPORTED"),
    UNSUPPORTED_LANGUAGE("UNSUPPORTED_LANGUAGE"),
    BACKEND_REQUIRED("BACKEND_REQUIRED"),
    INTERNAL("INTERNAL");

    companion object {
        /** The code spelled [wire], or null for a code this build does not know. */
        fun parse(wire: String): ErrorCode? = values().firstOrNull { it.wire == wire }
    }
}

/** A domain negative case: answered as HTTP 200 with the error envelope, never a 500. */
class LeanCtxException(val code: ErrorCode, message: String) : RuntimeException(message)

/**
 * A request body the router cannot turn into a typed request. It is an
 * [IllegalArgumentException] because the published plugin answers those with 200 +
 * `INTERNAL` (docs/ide-wire.md, Status codes and the error envelope).
 */
class MalformedRequestException(message: String) : IllegalArgumentException(message)
