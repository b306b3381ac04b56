//! What the index benches share: a connection to the bench's daemon, a first index
//! timed through the socket, and the figures' arithmetic. Included by path
//! (`#[path = "common/mod.rs"] mod common;`): every bench is its own crate.

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use lean_ctx_shared::{
    hello::{ClientHello, Intent},
    protocol::{OpenProjectRequest, OutlineRequest},
    transport::{self, Connection},
};
use lean_ctx_testkit::TestEnv;

pub async fn connect(env: &TestEnv) -> Connection {
    transport::connect(
        &env.paths.socket(),
        &ClientHello::new(Intent::Call, "bench"),
        Duration::from_secs(5),
    )
    .await
    .unwrap()
}

/// Registers `root` and waits (at most `limit`) for its first full index.
pub async fn index(conn: &Connection, root: &Path, limit: Duration) -> Duration {
    let t = Instant::now();
    conn.client
        .open_project(
            tarpc::context::current(),
            OpenProjectRequest {
                root: root.to_path_buf(),
            },
        )
        .await
        .unwrap()
        .unwrap();
    let mut ctx = tarpc::context::current();
    ctx.deadline = Instant::now() + limit;
    let req = OutlineRequest {
        root: root.to_path_buf(),
        path: String::new(),
        depth: 0,
        limit: 1,
        wait_ms: limit.as_millis() as u32,
    };
    conn.client.outline(ctx, req).await.unwrap().unwrap();
    t.elapsed()
}

/// `ctags -R --languages=LANGUAGES -f TAGS DIR`, the alternative a user would pick,
/// timed as a whole process.
pub fn ctags_r(languages: &str, tags: &Path, dir: &Path) -> Duration {
    // A language ctags has no parser for is defined by regexes (`benches/ctags/`).
    let options: Vec<String> = languages
        .split(',')
        .map(|l| {
            format!(
                "{}/benches/ctags/{}.ctags",
                env!("CARGO_MANIFEST_DIR"),
                l.to_lowercase()
            )
        })
        .filter(|f| Path::new(f).exists())
        .map(|f| format!("--options={f}"))
        .collect();
    let t = Instant::now();
    let ok = Command::new("ctags")
        .args(&options)
        .arg("-R")
        .arg(format!("--languages={languages}"))
        .arg("-f")
        .arg(tags)
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "ctags -R failed on {}", dir.display());
    t.elapsed()
}

pub fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
