//! `lean-ctx dashboard [--no-open]`: asks the daemon (starting it if needed) to serve
//! its web dashboard, prints the URL and opens it in the browser. The daemon serves
//! the page; the shim only hands over the URL, so it stays thin (DESIGN invariant 8).

use std::process::{ExitCode, Stdio};

use clap::Args;
use lean_ctx_shared::{LeanError, Paths, protocol::DashboardRequest};
use serde_json::json;

use crate::{
    connect,
    output::{Output, rpc_error},
};

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Print the URL only; do not open a browser.
    #[arg(long)]
    no_open: bool,
}

pub async fn run(args: DashboardArgs, paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let conn = connect::connect_or_spawn(paths, "lean-ctx dashboard").await?;
    let resp = conn
        .client
        .dashboard(tarpc::context::current(), DashboardRequest {})
        .await
        .map_err(rpc_error)??;
    out.emit(&json!({"url": resp.url}), || resp.url.clone());
    if !args.no_open
        && let Err(e) = open_browser(&resp.url)
    {
        // The URL is printed: a machine without a browser is no failure.
        eprintln!("could not open a browser ({e}); open the URL above");
    }
    Ok(ExitCode::SUCCESS)
}

/// Hands the URL to the desktop's opener without waiting for the browser.
fn open_browser(url: &str) -> std::io::Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
}
