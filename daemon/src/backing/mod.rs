//! The three backings, as peers behind one seam: [`ide`] (a JetBrains IDE window
//! serving exactly the caller's root), [`lsp`] (the warm language server of the
//! file's language) and [`headless`] (the symbol index and our own writes). None of
//! them knows the others: which one is asked first, what makes the router ask the
//! next one and what is accounted all live in [`crate::route`].
//!
//! The seam: every backing operation takes the call's [`Cx`] (the project, looked up
//! once by the router) and answers an [`Outcome`]: an answer, or a [`Miss`] that says
//! whether the backing is absent, did not answer, or answered with an error. What the
//! backings share (reading an answer's paths against the disk, the refactoring plan
//! hash and apply gate) is in [`answer`].

pub mod answer;
mod grep;
pub mod hashes;
pub mod headless;
pub mod ide;
pub mod lsp;
pub mod read;
pub mod written;

use std::sync::Arc;

use lean_ctx_shared::{ErrorCode, LeanError};

use crate::{
    jail::{Jailed, Want},
    registry::Project,
    state::Daemon,
};

/// One call as a backing sees it.
#[derive(Debug)]
pub struct Cx<'a> {
    pub d: &'a Daemon,
    /// The caller's project, its index started.
    pub project: Arc<Project>,
}

/// Why a backing gave no answer.
#[derive(Debug)]
pub enum Miss {
    /// It is not there for this root (no IDE window serves it): the next backing
    /// answers, and nothing needs saying.
    Absent,
    /// It is there and did not answer (the connection failed, or it hung past its
    /// timeout): the next backing answers, and the answer says why this one did not.
    Unreachable(String),
    /// It answered with an error.
    Failed(LeanError),
}

impl From<LeanError> for Miss {
    fn from(e: LeanError) -> Miss {
        Miss::Failed(e)
    }
}

/// What a backing answers for one call.
pub type Outcome<T> = Result<T, Miss>;

const DEFAULT_LIMIT: u32 = 100;
const MAX_LIMIT: u32 = 5000;

/// How many results an answer lists: the caller's limit, or the default, capped.
pub fn limit(asked: u32) -> usize {
    (if asked == 0 { DEFAULT_LIMIT } else { asked }).min(MAX_LIMIT) as usize
}

/// File work on tokio's blocking pool, never on the threads that serve the socket.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, LeanError> + Send + 'static,
) -> Result<T, LeanError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(LeanError::internal(format!("worker failed: {e}"))))
}

/// `path` jailed to the call's root, on the blocking pool.
pub async fn resolve(cx: &Cx<'_>, path: &str, want: Want) -> Result<Jailed, LeanError> {
    let (project, path) = (cx.project.clone(), path.to_string());
    blocking(move || project.resolve(&path, want)).await
}

/// A jailed file's bytes, read through the jail's descriptors.
pub async fn read(file: &Jailed) -> Result<Vec<u8>, LeanError> {
    let file = file.clone();
    blocking(move || {
        file.read()
            .map_err(|e| LeanError::new(ErrorCode::FileNotFound, format!("{}: {e}", file.rel)))
    })
    .await
}
