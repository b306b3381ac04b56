//! Document sync: what a language server has of each file. Every request that names
//! a file first syncs it from disk: `didOpen` the
//! first time, `didChange` (full text) when its bytes changed since, nothing otherwise.
//! Files changed on disk while open are re-synced when the watcher reports them, and
//! `didChangeWatchedFiles` goes out for the patterns the server registered. Files we
//! wrote ourselves are synced as open documents before the call answers, so their
//! text is in-band. So no answer is computed from text older than the disk at the
//! time of the call.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, atomic::Ordering},
    time::Instant,
};

use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, FileChangeType, FileEvent, TextDocumentContentChangeEvent,
    TextDocumentIdentifier, TextDocumentItem, VersionedTextDocumentIdentifier,
    notification as note,
};

use lean_ctx_syntax::Lang;

use super::{Server, stop};
use crate::language_servers::positions::{DocText, path_to_uri};

/// Most documents kept open at a server; the least recently used closes first.
const MAX_OPEN_DOCUMENTS: usize = 200;

#[derive(Debug)]
pub(super) struct Doc {
    version: i32,
    hash: blake3::Hash,
    text: Arc<DocText>,
    /// The diagnostics sequence number when we last sent this text.
    synced_seq: u64,
    last_used: Instant,
}

/// A document as the server has it now.
#[derive(Clone, Debug)]
pub struct Synced {
    pub text: Arc<DocText>,
    /// BLAKE3 of the file's bytes that `text` was made from.
    pub hash: blake3::Hash,
    pub seq: u64,
}

impl Server {
    /// Brings the server's copy of `abs` up to `bytes`, the disk's (read through the
    /// jail), and returns the text it now has.
    pub async fn sync(&self, abs: &Path, bytes: &[u8]) -> Synced {
        let mut docs = self.docs.lock().await;
        self.hold_to_ancestry();
        self.sync_locked(&mut docs, abs, bytes)
    }

    /// Stops the server, before it is told of anything that could make its toolchain
    /// run again, if configuration above its root is no longer the user's alone
    /// (`ancestry`): planted after the start check, it would be read next. Every
    /// later call says why (the failure) and a restart is refused the same way.
    fn hold_to_ancestry(&self) {
        if self.is_dead() {
            return;
        }
        let checked = crate::language_servers::ancestry::check(
            &self.root,
            self.spec.rust_analyzer,
            self.spec.language,
            &self.spec.program_name(),
        );
        if let Err(e) = checked {
            tracing::warn!(root = %self.root.display(), why = %e.message, "stopping a language server");
            stop(self.pid, &self.shared, e.message);
        }
    }

    fn sync_locked(&self, docs: &mut HashMap<PathBuf, Doc>, abs: &Path, bytes: &[u8]) -> Synced {
        let hash = blake3::hash(bytes);
        let seq = self.shared.seq.load(Ordering::SeqCst);
        let uri = path_to_uri(abs);
        if let Some(doc) = docs.get_mut(abs) {
            doc.last_used = Instant::now();
            if doc.hash == hash {
                return Synced {
                    text: doc.text.clone(),
                    hash,
                    seq: doc.synced_seq,
                };
            }
            let text = Arc::new(DocText::new(bytes));
            doc.version += 1;
            doc.hash = hash;
            doc.text = text.clone();
            doc.synced_seq = seq;
            self.conn
                .notify::<note::DidChangeTextDocument>(DidChangeTextDocumentParams {
                    text_document: VersionedTextDocumentIdentifier::new(uri, doc.version),
                    content_changes: vec![TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text: text.text().to_string(),
                    }],
                });
            return Synced { text, hash, seq };
        }
        if docs.len() >= MAX_OPEN_DOCUMENTS
            && let Some(oldest) = docs
                .iter()
                .min_by_key(|(_, d)| d.last_used)
                .map(|(p, _)| p.clone())
        {
            docs.remove(&oldest);
            self.conn
                .notify::<note::DidCloseTextDocument>(DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier::new(path_to_uri(&oldest)),
                });
        }
        let text = Arc::new(DocText::new(bytes));
        self.shared.update(|live| {
            live.first_open.get_or_insert_with(Instant::now);
        });
        self.conn
            .notify::<note::DidOpenTextDocument>(DidOpenTextDocumentParams {
                text_document: TextDocumentItem::new(
                    uri,
                    Lang::from_path(abs)
                        .filter(|l| l.is_code())
                        .map_or(self.spec.language_id, Lang::lsp_language_id)
                        .into(),
                    0,
                    text.text().to_string(),
                ),
            });
        docs.insert(
            abs.to_path_buf(),
            Doc {
                version: 0,
                hash,
                text: text.clone(),
                synced_seq: seq,
                last_used: Instant::now(),
            },
        );
        self.open_documents
            .store(docs.len() as u64, Ordering::Relaxed);
        Synced { text, hash, seq }
    }

    /// Files under the root changed on disk: open documents are re-synced (closed if
    /// gone) and the server hears of the changes it registered for. With `ours` (we
    /// wrote them) a file of the server's language is synced as an open document even
    /// if it was not one: its text then reaches the server in-band, ahead of the next
    /// request. Told only through `didChangeWatchedFiles`, rust-analyzer loads a file
    /// it has not opened on its VFS thread, and a request right after can still see
    /// the old text (CI once: 2 of 5 references right after a rename across two
    /// files).
    pub async fn files_changed(&self, paths: &[PathBuf], ours: bool) {
        let mut events = Vec::new();
        {
            let mut docs = self.docs.lock().await;
            self.hold_to_ancestry();
            if self.is_dead() {
                return;
            }
            for path in paths {
                let open = docs.contains_key(path) || (ours && self.owns(path));
                let watched = self.shared.watches(path);
                if !open && !watched {
                    continue;
                }
                // Only an open document's bytes are needed; for the rest, existence.
                let typ = if open {
                    match read_beneath(&self.root, path).await {
                        Ok(bytes) => {
                            self.sync_locked(&mut docs, path, &bytes);
                            FileChangeType::CHANGED
                        }
                        Err(_) => {
                            if docs.remove(path).is_some() {
                                self.conn.notify::<note::DidCloseTextDocument>(
                                    DidCloseTextDocumentParams {
                                        text_document: TextDocumentIdentifier::new(path_to_uri(
                                            path,
                                        )),
                                    },
                                );
                            }
                            FileChangeType::DELETED
                        }
                    }
                } else if tokio::fs::try_exists(path).await.unwrap_or(false) {
                    FileChangeType::CREATED
                } else {
                    FileChangeType::DELETED
                };
                if watched {
                    events.push(FileEvent::new(path_to_uri(path), typ));
                }
            }
            self.open_documents
                .store(docs.len() as u64, Ordering::Relaxed);
        }
        if !events.is_empty() {
            self.conn
                .notify::<note::DidChangeWatchedFiles>(DidChangeWatchedFilesParams {
                    changes: events,
                });
        }
    }

    /// A file whose documents this server takes: its language's `languageId`, or
    /// the one of the language whose server it shares (TSX TypeScript's, C C++'s).
    fn owns(&self, path: &Path) -> bool {
        Lang::from_path(path).is_some_and(|l| {
            [l, l.shares_server_with()]
                .iter()
                .any(|l| l.lsp_language_id() == self.spec.language_id)
        })
    }
}

/// An open document's bytes now, read beneath the root following no symlink: the
/// watcher names paths by their text, and one swapped for a symlink since must not
/// feed another file's content to the server.
async fn read_beneath(root: &Path, path: &Path) -> std::io::Result<Vec<u8>> {
    let rel = path
        .strip_prefix(root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| std::io::Error::other("not a path inside the root"))?
        .to_string();
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || crate::jail::read_beneath(&root, &rel)).await?
}
