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
pub mod by_name;
mod grep;
pub mod hashes;
pub mod headless;
pub mod ide;
pub mod lsp;
pub mod read;
pub mod written;

use std::sync::Arc;

use lean_ctx_shared::{ErrorCode, LeanError, protocol::FilePosition};

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

/// The file a navigation or refactoring points at, and the position in it: `at` as
/// given (a declaration's start taken as its name, [`answer::snapped`]), or with a
/// `name_path` its name's position in `at.path` (a file; a directory or empty: the
/// one file there holding it, once the index is ready, waiting up to `wait_ms`).
pub async fn pointed(
    cx: &Cx<'_>,
    at: &FilePosition,
    name_path: Option<&str>,
    wait_ms: u32,
) -> Result<(Jailed, FilePosition), LeanError> {
    let project = cx.project.clone();
    let Some(name_path) = name_path else {
        let file = resolve(cx, &at.path, Want::File).await?;
        let at = at.clone();
        return blocking(move || {
            let at = answer::snapped(&project, &file, &at);
            Ok((file, at))
        })
        .await;
    };
    let path = if at.path.is_empty() { "." } else { &at.path };
    let mut file = resolve(cx, path, Want::FileOrDir).await?;
    let name_path = name_path.to_string();
    if file.is_dir() {
        let wait = std::time::Duration::from_millis(wait_ms.into());
        project.index.wait_ready(wait).await?;
        let (project, dir, name_path) = (project.clone(), file.rel.clone(), name_path.clone());
        file = blocking(move || answer::find_unique(&project, &dir, &name_path)).await?;
    }
    blocking(move || {
        let name = answer::name_position(&project, &file, &name_path)?;
        let at = FilePosition {
            path: file.rel.clone(),
            line: name.line,
            column: name.column,
        };
        Ok((file, at))
    })
    .await
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
