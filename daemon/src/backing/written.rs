//! What follows a symbol edit, whichever backing wrote it: the answer's hash handed
//! out (so a stale edit with it is answered with what changed since), the session's
//! read of what it wrote (a re-read of it is one line), and the index told of the new
//! bytes. The router picks the backing and hands the write over here
//! ([`settle`], or [`what_changed`] for a refusal); it never works out a write's
//! consequences itself.

use lean_ctx_shared::{
    ErrorCode, LeanError,
    protocol::{EditRequest, EditTarget},
};

use lean_ctx_syntax::Lang;

use super::{Cx, blocking, read};
use crate::{
    edit::{self, Written},
    jail::Jailed,
    reads::{Key, View},
};

/// The line windows (first, last) of `file` that `req`'s session holds: an
/// `expected_hash` of one of them guards a line edit inside it (`edit::Edit::held`).
pub fn held(cx: &Cx<'_>, file: &Jailed, req: &EditRequest) -> Vec<(u32, u32)> {
    let Some(session) = &req.session else {
        return Vec::new();
    };
    let key = Key {
        root: cx.project.root.clone(),
        path: file.rel.clone(),
        view: View::File,
    };
    cx.d.reads
        .windows(&session.id, &key)
        .into_iter()
        .filter_map(|(k, ..)| match k.view {
            View::Lines(first, last) => Some((first, last)),
            _ => None,
        })
        .collect()
}

/// Hands `written` (the bytes a backing put in `file` for `req`) to the reads and
/// the index.
pub async fn settle(
    cx: &Cx<'_>,
    req: &EditRequest,
    file: &Jailed,
    lang: Lang,
    written: Written,
) -> Result<(), LeanError> {
    let reads = cx.d.reads.clone();
    // The answer hands its hash out: a stale edit with it is answered with what
    // changed since ([`what_changed`]), as for a read's.
    if let Some(text) = written.content.get(written.hashed.clone()) {
        reads
            .of(&cx.project.root)
            .hashed(&written.hash, String::from_utf8_lossy(text).into());
    }
    let (project, target, session) = (cx.project.clone(), file.clone(), req.session.clone());
    blocking(move || {
        if let Some(session) = &session {
            read::edited(&reads, &project, &target, lang, session, &written);
        }
        project
            .index
            .wrote(&target, &written.content, written.parsed);
        Ok(())
    })
    .await
}

/// A stale `expected_hash`'s `CONFLICT` with what changed since: the diff from the
/// text an answer handed that hash out for (while the daemon keeps it) to the
/// target's text now, from this root's answers only. Any other error as it is.
pub async fn what_changed(
    cx: &Cx<'_>,
    file: &Jailed,
    lang: Lang,
    req: &EditRequest,
    mut e: LeanError,
) -> LeanError {
    let (Some(expected), ErrorCode::Conflict) = (&req.expected_hash, e.code) else {
        return e;
    };
    let Some((then, first)) = cx.d.reads.of(&cx.project.root).view_of(expected) else {
        return e;
    };
    // A hash of a read view holding the target (the whole file, a window): the
    // view's lines now, not the target's alone.
    let span = first
        .filter(|_| {
            matches!(
                req.target,
                EditTarget::Lines { .. } | EditTarget::File { .. }
            )
        })
        .map(|first| (first, first + then.split('\n').count() as u32 - 1));
    let (file, target) = (file.clone(), req.target.clone());
    let now = blocking(move || {
        Ok(match span {
            Some((first, last)) => read::current_lines(&file, first, last),
            None => edit::current_target(&file, lang, &target),
        })
    })
    .await;
    let Ok(Some((line, now))) = now else {
        return e;
    };
    // A conflict of another kind (a syntax error) over text the hash still names.
    if *then == now || edit::hash_matches(blake3::hash(now.as_bytes()).to_hex().as_str(), expected)
    {
        return e;
    }
    let diff = read::unified(&then, line, &now, line);
    e.message = format!(
        "{}\nwhat changed since that hash was taken (lines of the file now):\n{diff}",
        e.message
    );
    e.with_remedy(if span.is_some() {
        "redo the edit on the lines as they are now (ctx_read mode=diff shows the rest, with the hashes)"
    } else {
        "redo the edit on the text as it is now (ctx_read mode=symbol shows it whole, with its hash)"
    })
}
