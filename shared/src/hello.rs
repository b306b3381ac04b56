//! The hello: the first frame each way on every connection, before any tarpc frame.
//!
//! bincode is not self-describing, so a shim and a daemon of different builds would
//! otherwise meet as decode garbage (sccache's failure mode after upgrades). The hello
//! is `LCTX` + u32 big-endian length + JSON, and its JSON shape is frozen: fields may
//! be added, never renamed or removed, so any two builds can always read each other's
//! hello and decide what to do.
//!
//! The daemon's side is [`decide`], a pure function of the shim's hello: builds of
//! equal protocol and schema talk whatever their versions, a shutdown is obeyed across
//! all builds, and anything else is refused with a reason the shim reports
//! (`BACKEND_REQUIRED`, naming both builds).

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::protocol::{PROTOCOL_VERSION, SCHEMA, VERSION, build_id};

pub const HELLO_MAGIC: [u8; 4] = *b"LCTX";

/// A hello is small; anything longer is garbage or an attack.
pub const MAX_HELLO_LEN: u32 = 16 * 1024;

/// What the connecting side wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Make calls; if the builds are incompatible, just say so.
    Call,
    /// Make calls; if incompatible and the daemon is the older build and idle, it
    /// exits so the caller can start its own build. Sent by shims from before the
    /// socket per wire schema (`daemons.rs`), which all met at one socket; ours send
    /// `Call`, and daemons still honour it so such a shim is never left hanging.
    CallOrReplace,
    /// Stop now (graceful), whatever the versions: `daemon stop` must work across builds.
    Shutdown,
    /// An intent from a newer build that this one does not know.
    #[serde(other)]
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientHello {
    pub protocol: u32,
    pub schema: String,
    pub version: String,
    pub build: String,
    pub intent: Intent,
    /// Free text for logs, e.g. `lean-ctx cli` or `lean-ctx mcp`.
    pub client: String,
    /// What the client speaks after the hello; absent from hellos of builds that
    /// predate the field.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// The one transport after the hello so far: tarpc frames, bincode-encoded.
pub const TARPC_BINCODE: &str = "tarpc-bincode";

impl ClientHello {
    /// The hello of this build.
    pub fn new(intent: Intent, client: impl Into<String>) -> ClientHello {
        ClientHello {
            protocol: PROTOCOL_VERSION,
            schema: SCHEMA.to_string(),
            version: VERSION.to_string(),
            build: build_id(),
            intent,
            client: client.into(),
            capabilities: vec![TARPC_BINCODE.to_string()],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerHello {
    pub protocol: u32,
    pub schema: String,
    pub version: String,
    pub build: String,
    pub pid: u32,
    /// Operations this daemon serves.
    pub capabilities: Vec<String>,
    pub outcome: Outcome,
}

/// The daemon's answer to a hello.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// tarpc frames follow.
    Accepted,
    /// The connection closes; the daemon keeps serving others.
    Refused {
        reason: RefuseReason,
        message: String,
    },
    /// The daemon is stopping (asked to, or replaced by a newer build); the connection
    /// closes.
    ShuttingDown { message: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefuseReason {
    /// Different protocol or schema and the caller did not ask to replace.
    Incompatible,
    /// Incompatible, and the daemon is the newer build: upgrade the shim.
    DaemonNewer,
    /// Incompatible and older, but other sessions are using it.
    Busy,
    /// An intent this build does not know.
    UnknownIntent,
    /// The daemon serves its most connections already (`daemon.max_connections`);
    /// older builds read this as `Other`.
    TooManyConnections,
    #[serde(other)]
    Other,
}

/// The daemon's side of the decision, as a pure function so every rule is testable.
/// `idle` means no other connection and no call in flight.
pub fn decide(client: &ClientHello, idle: bool) -> Outcome {
    // A client that lists capabilities must speak our transport; an empty list is a
    // build from before the field, which did.
    let speaks_ours =
        client.capabilities.is_empty() || client.capabilities.iter().any(|c| c == TARPC_BINCODE);
    let compatible = client.protocol == PROTOCOL_VERSION && client.schema == SCHEMA && speaks_ours;
    let ours = format!("protocol {PROTOCOL_VERSION}, build {}", build_id());
    let theirs = format!("protocol {}, build {}", client.protocol, client.build);
    match client.intent {
        Intent::Shutdown => Outcome::ShuttingDown {
            message: format!("stopping on request of {}", client.client),
        },
        Intent::Unknown => Outcome::Refused {
            reason: RefuseReason::UnknownIntent,
            message: format!("unknown intent from {theirs}; this daemon is {ours}"),
        },
        Intent::Call | Intent::CallOrReplace if compatible => Outcome::Accepted,
        Intent::Call => Outcome::Refused {
            reason: RefuseReason::Incompatible,
            message: format!("incompatible builds: daemon {ours}, client {theirs}"),
        },
        Intent::CallOrReplace => {
            if daemon_is_newer(client.protocol, &client.version) {
                Outcome::Refused {
                    reason: RefuseReason::DaemonNewer,
                    message: format!(
                        "the running daemon ({ours}) is newer than this client ({theirs}); upgrade lean-ctx or run `lean-ctx daemon restart`"
                    ),
                }
            } else if !idle {
                Outcome::Refused {
                    reason: RefuseReason::Busy,
                    message: format!(
                        "the running daemon ({ours}) is an older build than this client ({theirs}) and other sessions are using it; finish them, or run `lean-ctx daemon restart`"
                    ),
                }
            } else {
                Outcome::ShuttingDown {
                    message: format!("replaced by {theirs}"),
                }
            }
        }
    }
}

/// `true` if this daemon's build is strictly newer than the client's. Equal versions
/// with different schemas (two dev builds) are not newer, so the build being run now
/// replaces the idle one.
fn daemon_is_newer(client_protocol: u32, client_version: &str) -> bool {
    let parse = |v: &str| -> Vec<u64> {
        v.split(['.', '-', '+'])
            .map_while(|p| p.parse().ok())
            .collect()
    };
    (PROTOCOL_VERSION, parse(VERSION)) > (client_protocol, parse(client_version))
}

#[derive(Debug, thiserror::Error)]
pub enum HelloError {
    #[error("connection closed or failed during hello: {0}")]
    Io(#[from] std::io::Error),
    #[error("the peer is not a lean-ctx endpoint (bad magic {0:02x?})")]
    BadMagic([u8; 4]),
    #[error("hello of {0} bytes exceeds the {MAX_HELLO_LEN}-byte limit")]
    TooLong(u32),
    #[error("malformed hello: {0}")]
    Json(#[from] serde_json::Error),
}

/// Writes one hello frame.
pub async fn write_hello<W, T>(w: &mut W, hello: &T) -> Result<(), HelloError>
where
    W: AsyncWrite + Unpin,
    T: Serialize,
{
    let json = serde_json::to_vec(hello)?;
    let mut frame = Vec::with_capacity(8 + json.len());
    frame.extend_from_slice(&HELLO_MAGIC);
    frame.extend_from_slice(&(json.len() as u32).to_be_bytes());
    frame.extend_from_slice(&json);
    w.write_all(&frame).await?;
    w.flush().await?;
    Ok(())
}

/// Reads one hello frame, refusing bad magic and oversized lengths before reading more.
pub async fn read_hello<R, T>(r: &mut R) -> Result<T, HelloError>
where
    R: AsyncRead + Unpin,
    T: DeserializeOwned,
{
    let mut head = [0u8; 8];
    r.read_exact(&mut head).await?;
    let magic: [u8; 4] = head[..4].try_into().unwrap();
    if magic != HELLO_MAGIC {
        return Err(HelloError::BadMagic(magic));
    }
    let len = u32::from_be_bytes(head[4..].try_into().unwrap());
    if len > MAX_HELLO_LEN {
        return Err(HelloError::TooLong(len));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body).await?;
    Ok(serde_json::from_slice(&body)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(protocol: u32, schema: &str, version: &str, intent: Intent) -> ClientHello {
        ClientHello {
            protocol,
            schema: schema.into(),
            version: version.into(),
            build: "test".into(),
            intent,
            client: "test".into(),
            capabilities: vec![],
        }
    }

    #[test]
    fn same_build_is_accepted() {
        let h = ClientHello::new(Intent::Call, "t");
        assert_eq!(decide(&h, false), Outcome::Accepted);
        let h = ClientHello::new(Intent::CallOrReplace, "t");
        assert_eq!(decide(&h, false), Outcome::Accepted);
    }

    #[test]
    fn newer_client_replaces_idle_daemon_but_not_busy_one() {
        let h = hello(PROTOCOL_VERSION + 1, "x", "99.0.0", Intent::CallOrReplace);
        assert!(matches!(decide(&h, true), Outcome::ShuttingDown { .. }));
        let Outcome::Refused { reason, .. } = decide(&h, false) else {
            panic!()
        };
        assert_eq!(reason, RefuseReason::Busy);
        let h = hello(PROTOCOL_VERSION + 1, "x", "99.0.0", Intent::Call);
        let Outcome::Refused { reason, .. } = decide(&h, true) else {
            panic!()
        };
        assert_eq!(reason, RefuseReason::Incompatible);
    }

    #[test]
    fn a_client_that_does_not_speak_our_transport_is_refused() {
        let mut h = ClientHello::new(Intent::Call, "t");
        h.capabilities = vec!["json-rpc".into()];
        let Outcome::Refused { reason, .. } = decide(&h, true) else {
            panic!()
        };
        assert_eq!(reason, RefuseReason::Incompatible);
        h.capabilities.clear();
        assert_eq!(decide(&h, true), Outcome::Accepted);
    }

    #[test]
    fn older_client_never_replaces_newer_daemon() {
        let h = hello(0, "x", "0.0.1", Intent::CallOrReplace);
        let Outcome::Refused { reason, message } = decide(&h, true) else {
            panic!()
        };
        assert_eq!(reason, RefuseReason::DaemonNewer);
        assert!(message.contains("upgrade"), "{message}");
    }

    #[test]
    fn same_version_other_schema_replaces_when_idle() {
        // Two dev builds of one version: the one being run now wins.
        let h = hello(
            PROTOCOL_VERSION,
            "0000000000000000",
            VERSION,
            Intent::CallOrReplace,
        );
        assert!(matches!(decide(&h, true), Outcome::ShuttingDown { .. }));
    }

    #[test]
    fn shutdown_works_across_builds_and_unknown_intent_is_refused() {
        let h = hello(7, "x", "9.9.9", Intent::Shutdown);
        assert!(matches!(decide(&h, false), Outcome::ShuttingDown { .. }));
        let json = r#"{"protocol":1,"schema":"x","version":"1","build":"b","intent":"teleport","client":"future"}"#;
        let h: ClientHello = serde_json::from_str(json).unwrap();
        assert_eq!(h.intent, Intent::Unknown);
        let Outcome::Refused { reason, .. } = decide(&h, true) else {
            panic!()
        };
        assert_eq!(reason, RefuseReason::UnknownIntent);
    }

    #[test]
    fn hello_json_shape_is_frozen() {
        let reply = ServerHello {
            protocol: 1,
            schema: "s".into(),
            version: "0.1.0".into(),
            build: "b".into(),
            pid: 7,
            capabilities: vec!["ping".into()],
            outcome: Outcome::Refused {
                reason: RefuseReason::Busy,
                message: "m".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&reply).unwrap(),
            r#"{"protocol":1,"schema":"s","version":"0.1.0","build":"b","pid":7,"capabilities":["ping"],"outcome":{"status":"refused","reason":"busy","message":"m"}}"#
        );
        let h = hello(1, "s", "0.1.0", Intent::CallOrReplace);
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            r#"{"protocol":1,"schema":"s","version":"0.1.0","build":"test","intent":"call_or_replace","client":"test","capabilities":[]}"#
        );
    }

    #[tokio::test]
    async fn frames_round_trip_and_garbage_is_refused() {
        let mut buf = Vec::new();
        let h = ClientHello::new(Intent::Call, "t");
        write_hello(&mut buf, &h).await.unwrap();
        let back: ClientHello = read_hello(&mut buf.as_slice()).await.unwrap();
        assert_eq!(back, h);

        let garbage = b"GET / HTTP/1.1\r\n\r\n".to_vec();
        let err = read_hello::<_, ClientHello>(&mut garbage.as_slice())
            .await
            .unwrap_err();
        assert!(matches!(err, HelloError::BadMagic(_)), "{err}");

        let mut huge = HELLO_MAGIC.to_vec();
        huge.extend_from_slice(&u32::MAX.to_be_bytes());
        let err = read_hello::<_, ClientHello>(&mut huge.as_slice())
            .await
            .unwrap_err();
        assert!(matches!(err, HelloError::TooLong(_)), "{err}");
    }
}
