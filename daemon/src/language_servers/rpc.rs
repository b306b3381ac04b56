//! JSON-RPC 2.0 with LSP's `Content-Length` framing over a server's stdio.
//!
//! One writer task owns the server's stdin and one reader task its stdout. Requests
//! wait on a oneshot in the pending map; when the stream closes every pending request
//! fails at once with the reason (a crashed server never leaves a call hanging), and a
//! request that times out or that its caller drops is cancelled with
//! `$/cancelRequest`. Requests and
//! notifications from the server go to a [`Handler`]; its answer to a request is
//! written back by the reader task, so the server never waits on our callers.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader},
    sync::{mpsc, oneshot},
};

/// The largest message we accept from a server (rust-analyzer's biggest answers, whole
/// workspace symbol lists, stay well below).
const MAX_MESSAGE: usize = 64 << 20;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    #[error("the language server closed the connection: {0}")]
    Closed(String),
    #[error("the language server did not answer {method} within {timeout:?}")]
    Timeout { method: String, timeout: Duration },
    #[error("the language server answered {method} with error {code}: {message}")]
    Server {
        method: String,
        code: i64,
        message: String,
    },
    #[error("the language server's answer to {method} does not decode: {message}")]
    Decode { method: String, message: String },
}

/// JSON-RPC's "method not found": the server does not implement a request.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// What the server sends us unasked.
pub trait Handler: Send + Sync + 'static {
    /// A request from the server; the result or a JSON-RPC error (code, message).
    fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)>;
    fn notification(&self, method: &str, params: Value);
    /// The stream ended (the server exited or broke the framing).
    fn closed(&self, reason: &str);
}

type Reply = oneshot::Sender<Result<Value, RpcError>>;

#[derive(Default)]
struct Pending {
    waiting: HashMap<i64, Reply>,
    /// Set once the stream closed: later requests fail at once.
    closed: Option<String>,
}

/// A live connection; dropping it closes the server's stdin.
pub struct Connection {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicI64,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("next_id", &self.next_id)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Starts the reader and writer tasks.
    pub fn start(
        stdin: impl AsyncWrite + Unpin + Send + 'static,
        stdout: impl AsyncRead + Unpin + Send + 'static,
        handler: Arc<dyn Handler>,
    ) -> Connection {
        let (outgoing, rx) = mpsc::unbounded_channel();
        let pending = Arc::new(Mutex::new(Pending::default()));
        tokio::spawn(write_loop(stdin, rx));
        tokio::spawn(read_loop(
            stdout,
            outgoing.clone(),
            pending.clone(),
            handler,
        ));
        Connection {
            outgoing,
            pending,
            next_id: AtomicI64::new(1),
        }
    }

    /// A typed request with a deadline.
    pub async fn request<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, RpcError> {
        let value = self
            .request_value(R::METHOD, to_value(params), timeout)
            .await?;
        serde_json::from_value(value).map_err(|e| RpcError::Decode {
            method: R::METHOD.into(),
            message: e.to_string(),
        })
    }

    /// An untyped request (methods lsp-types does not know, e.g. rust-analyzer's).
    pub async fn request_value(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.pending.lock().unwrap();
            if let Some(reason) = &pending.closed {
                return Err(RpcError::Closed(reason.clone()));
            }
            pending.waiting.insert(id, tx);
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        // Cancelled unless answered: past its deadline, and also when the caller drops
        // the call (an `INDEXING` answer while the server loads), so the server does
        // not compute an answer nobody reads, and the pending map forgets it.
        let mut unanswered = Unanswered { conn: self, id };
        let answer = tokio::time::timeout(timeout, rx).await;
        if answer.is_ok() {
            unanswered.id = NO_ID;
        }
        drop(unanswered);
        match answer {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(RpcError::Server { code, message, .. }))) => Err(RpcError::Server {
                method: method.into(),
                code,
                message,
            }),
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => Err(RpcError::Closed("connection dropped".into())),
            Err(_) => Err(RpcError::Timeout {
                method: method.into(),
                timeout,
            }),
        }
    }

    pub fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.notify_value(N::METHOD, to_value(params));
    }

    pub fn notify_value(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn send(&self, message: Value) {
        // A send after the writer ended is lost on purpose: the reader reports the
        // close, and pending requests fail from there.
        let _ = self.outgoing.send(frame(&message));
    }
}

/// Ids start at 1: this one marks a request that was answered.
const NO_ID: i64 = 0;

/// A request sent and not answered yet; dropped unanswered, it is cancelled.
struct Unanswered<'a> {
    conn: &'a Connection,
    id: i64,
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        if self.id == NO_ID {
            return;
        }
        self.conn.pending.lock().unwrap().waiting.remove(&self.id);
        self.conn
            .notify_value("$/cancelRequest", json!({ "id": self.id }));
    }
}

fn to_value(params: impl serde::Serialize) -> Value {
    serde_json::to_value(params).expect("LSP params serialise")
}

fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

async fn write_loop(mut stdin: impl AsyncWrite + Unpin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(bytes) = rx.recv().await {
        if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
    // Every sender dropped: closing stdin tells the server we are gone.
    let _ = stdin.shutdown().await;
}

async fn read_loop(
    stdout: impl AsyncRead + Unpin,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<Pending>>,
    handler: Arc<dyn Handler>,
) {
    let mut reader = BufReader::new(stdout);
    let reason = loop {
        let message = match read_message(&mut reader).await {
            Ok(Some(m)) => m,
            Ok(None) => break "end of stream".to_string(),
            Err(e) => break e,
        };
        dispatch(message, &outgoing, &pending, &*handler);
    };
    let waiting = {
        let mut p = pending.lock().unwrap();
        p.closed = Some(reason.clone());
        std::mem::take(&mut p.waiting)
    };
    for (_, reply) in waiting {
        let _ = reply.send(Err(RpcError::Closed(reason.clone())));
    }
    handler.closed(&reason);
}

fn dispatch(
    message: Value,
    outgoing: &mpsc::UnboundedSender<Vec<u8>>,
    pending: &Mutex<Pending>,
    handler: &dyn Handler,
) {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").cloned();
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let reply = match handler.request(method, params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, msg)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": msg}})
                }
            };
            let _ = outgoing.send(frame(&reply));
        }
        (Some(method), None) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            handler.notification(method, params);
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else { return };
            let Some(reply) = pending.lock().unwrap().waiting.remove(&id) else {
                return; // Timed out and forgotten.
            };
            let result = match message.get("error") {
                Some(err) => Err(RpcError::Server {
                    method: String::new(),
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                }),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = reply.send(result);
        }
        (None, None) => tracing::debug!(%message, "LSP message without method or id"),
    }
}

/// One framed message; `None` at a clean end of stream.
async fn read_message(
    reader: &mut (impl AsyncBufReadExt + Unpin),
) -> Result<Option<Value>, String> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .await
            .map_err(|e| format!("reading from the server: {e}"))?;
        if n == 0 {
            return if length.is_none() {
                Ok(None)
            } else {
                Err("end of stream inside a header".into())
            };
        }
        let header = line.trim_end();
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("bad Content-Length {value:?}"))?,
            );
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_MESSAGE {
        return Err(format!("message of {length} bytes exceeds {MAX_MESSAGE}"));
    }
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .await
        .map_err(|e| format!("reading a message body: {e}"))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| format!("a message that is not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl Handler for Echo {
        fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)> {
            Ok(json!({ "method": method, "params": params }))
        }
        fn notification(&self, _: &str, _: Value) {}
        fn closed(&self, _: &str) {}
    }

    #[tokio::test]
    async fn pending_requests_fail_when_the_stream_closes_and_later_ones_fail_at_once() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        let conn = Connection::start(client_write, client_read, Arc::new(Echo));
        let call = conn.request_value("slow", Value::Null, Duration::from_secs(10));
        let close = async {
            // Read the request, then hang up without answering.
            let mut reader = BufReader::new(server_read);
            let got = read_message(&mut reader).await.unwrap().unwrap();
            assert_eq!(got["method"], "slow");
            drop(reader);
            drop(server_write);
        };
        let (result, ()) = tokio::join!(call, close);
        assert!(matches!(result, Err(RpcError::Closed(_))), "{result:?}");
        let again = conn
            .request_value("next", Value::Null, Duration::from_secs(10))
            .await;
        assert!(matches!(again, Err(RpcError::Closed(_))), "{again:?}");
    }

    #[tokio::test]
    async fn server_requests_are_answered_and_responses_reach_their_caller() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, mut server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        let conn = Connection::start(client_write, client_read, Arc::new(Echo));
        let server = async move {
            let mut reader = BufReader::new(server_read);
            let ours = read_message(&mut reader).await.unwrap().unwrap();
            // Ask the client something first, with a non-ASCII payload.
            let ask = json!({"jsonrpc": "2.0", "id": "x", "method": "workspace/configuration", "params": {"k": "größe"}});
            server_write.write_all(&frame(&ask)).await.unwrap();
            let answer = read_message(&mut reader).await.unwrap().unwrap();
            assert_eq!(answer["id"], "x");
            assert_eq!(answer["result"]["params"]["k"], "größe");
            let reply = json!({"jsonrpc": "2.0", "id": ours["id"], "result": 42});
            server_write.write_all(&frame(&reply)).await.unwrap();
            (reader, server_write)
        };
        let (result, _keep) = tokio::join!(
            conn.request_value("ours", Value::Null, Duration::from_secs(10)),
            server
        );
        assert_eq!(result, Ok(json!(42)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_past_its_deadline_times_out_and_is_cancelled() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, _server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        let conn = Connection::start(client_write, client_read, Arc::new(Echo));
        let result = conn
            .request_value("never", Value::Null, Duration::from_secs(5))
            .await;
        assert!(
            matches!(result, Err(RpcError::Timeout { .. })),
            "{result:?}"
        );
        let mut reader = BufReader::new(server_read);
        let first = read_message(&mut reader).await.unwrap().unwrap();
        let cancel = read_message(&mut reader).await.unwrap().unwrap();
        assert_eq!(cancel["method"], "$/cancelRequest");
        assert_eq!(cancel["params"]["id"], first["id"]);
    }

    /// Issue 16: a call its caller gave up on (an `INDEXING` answer while the server
    /// loads) is cancelled at the server and forgotten here, not left computing.
    #[tokio::test]
    async fn a_request_its_caller_drops_is_cancelled_and_forgotten() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, _server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        let conn = Connection::start(client_write, client_read, Arc::new(Echo));
        let mut reader = BufReader::new(server_read);
        {
            let mut call =
                Box::pin(conn.request_value("slow", Value::Null, Duration::from_secs(60)));
            // Poll it until the request is out, then drop it unanswered.
            let sent = tokio::select! {
                _ = &mut call => unreachable!("nobody answers"),
                sent = read_message(&mut reader) => sent.unwrap().unwrap(),
            };
            assert_eq!(sent["method"], "slow");
            let cancel = async {
                drop(call);
                read_message(&mut reader).await.unwrap().unwrap()
            };
            let cancel = tokio::time::timeout(Duration::from_secs(10), cancel)
                .await
                .expect("a cancel follows the drop");
            assert_eq!(cancel["method"], "$/cancelRequest");
            assert_eq!(cancel["params"]["id"], sent["id"]);
        }
        assert!(conn.pending.lock().unwrap().waiting.is_empty());
    }
}
