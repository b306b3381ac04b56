/**
 * The VFS-refresh decision: the daemon writes files behind the IDE's back, and the IDE's
 * VFS does not look at the disk again for a file it already knows
 * (`refreshAndFindFileByPath` only finds; it refreshes nothing it has). Before the IDE
 * reads or edits a file the daemon may have written, the adapter asks [DiskSync] what to
 * do, given whether the IDE holds unsaved changes for it.
 *
 * - saved in the IDE: refresh it, and read or write it only once the refresh is applied
 *   (the Document has reloaded what is on disk); the refresh is asynchronous and waited
 *   for within the request's deadline ([IdeGate]), since a synchronous one off the EDT
 *   waits for the EDT without a bound;
 * - unsaved changes, reading: use the IDE's text and do not refresh (a refresh would
 *   raise the IDE's memory/disk conflict dialog);
 * - unsaved changes, writing: refuse with `CONFLICT`. The daemon's ranges and hashes are
 *   about the disk, not about the user's unsaved text, and saving either would overwrite
 *   the other.
 */
package com.leanctx.core.policy

import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException

object DiskSync {
    enum class Access { READ, WRITE }

    enum class Action {
        /** Refresh the file from disk (not recursively), then use it once the refresh is applied. */
        REFRESH,

        /** Use the IDE's text as it is; do not refresh. */
        USE_IDE_TEXT,
    }

    /**
     * @throws LeanCtxException `CONFLICT` for a write to a file with unsaved IDE changes.
     */
    fun decide(wirePath: String, access: Access, unsavedInIde: Boolean): Action = when {
        !unsavedInIde -> Action.REFRESH
        access == Access.READ -> Action.USE_IDE_TEXT
        else -> throw LeanCtxException(
            ErrorCode.CONFLICT,
            "$wirePath has unsaved changes in the IDE; save or revert them there, then retry",
        )
    }
}
