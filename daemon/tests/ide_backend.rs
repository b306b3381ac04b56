//! The IDE backend's side of the wire, asserted directly against the test kit's
//! double of the published plugin (`PluginDouble`): every catalog code the plugin can
//! put in an error envelope arrives as that code, and a 401 re-reads the port file
//! and retries in the same call with the token a restarted window wrote there (and
//! says `UNAUTHORIZED` when the file holds nothing newer).

use std::{fs, path::PathBuf, time::Duration};

use lean_ctx_daemon::{
    config::IdeSection,
    ide_windows::{
        backend::{self, CallError},
        discovery::{Discovery, Ide},
    },
};
use lean_ctx_shared::ErrorCode;
use lean_ctx_testkit::{
    PluginDouble, Reply, TestEnv,
    plugin_double::{Recorded, Token},
};
use serde_json::json;

const DAEMON: &str = env!("CARGO_BIN_EXE_lean-ctxd");
const TIMEOUT: Duration = Duration::from_secs(30);

/// A root with one file, a published-plugin window on it, and the daemon's discovery
/// of that window.
async fn world() -> (
    TestEnv,
    PathBuf,
    PluginDouble,
    std::sync::Arc<Discovery>,
    Ide,
) {
    let env = TestEnv::with_daemon(DAEMON);
    let root = env.dir().join("proj");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("a.py"), "x = 1\n").unwrap();
    let root = fs::canonicalize(root).unwrap();
    let ide = PluginDouble::start(&env, &root);
    let discovery = Discovery::start(&env.paths, &IdeSection::default());
    let window = discovery.lookup(&root).await.expect("the window is found");
    (env, root, ide, discovery, window)
}

fn at() -> serde_json::Value {
    json!({"path": "a.py", "line": 0, "character": 0, "scope": "project"})
}

/// The tokens `route` was sent with, in order.
fn tokens(ide: &PluginDouble, route: &str) -> Vec<Token> {
    ide.requests()
        .into_iter()
        .filter(|r: &Recorded| r.route == route)
        .map(|r| r.token)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_catalog_code_in_an_envelope_arrives_as_that_code() {
    let (_env, _root, ide, discovery, window) = world().await;
    for code in ErrorCode::ALL {
        ide.on("/definition", move |_| {
            Reply::error(code.as_str(), format!("the window says {}", code.as_str()))
        });
        match backend::call(&discovery, &window, "/definition", &at(), TIMEOUT).await {
            Err(CallError::Answered(e)) => {
                assert_eq!(e.code, code, "{e:?}");
                assert!(
                    e.message
                        .contains(&format!("the window says {}", code.as_str())),
                    "{e:?}"
                );
            }
            other => panic!("{code:?}: {other:?}"),
        }
    }
    ide.assert_clean();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_401_rereads_the_port_file_and_retries_in_the_same_call() {
    let (_env, root, ide, discovery, stale) = world().await;
    ide.on("/definition", |_| {
        Reply::Json(json!({"locations": [], "truncated": false, "total": 0}))
    });
    // The window restarts with a new token and writes it into its port file; the
    // call still holds the old one.
    ide.new_token(true);
    let answer = backend::call(&discovery, &stale, "/definition", &at(), TIMEOUT).await;
    assert!(answer.is_ok(), "{answer:?}");
    assert_eq!(tokens(&ide, "/definition"), [Token::Wrong, Token::Right]);

    // A token the port file does not know either: one retry, then UNAUTHORIZED.
    ide.new_token(false);
    let fresh = discovery.lookup(&root).await.expect("still listed");
    match backend::call(&discovery, &fresh, "/definition", &at(), TIMEOUT).await {
        Err(CallError::Answered(e)) => assert_eq!(e.code, ErrorCode::Unauthorized, "{e:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        tokens(&ide, "/definition"),
        [Token::Wrong, Token::Right, Token::Wrong],
        "the re-read found nothing newer: no second try with the same token"
    );
}
