//! `lean-ctx dashboard [--no-open]`: asks the daemon (starting it if needed) to serve
//! its web dashboard and hands the browser a session without any credential in a
//! command line: the opener gets the path of the daemon's one-time 0600 page (others
//! can read the path in `/proc/PID/cmdline`, not the page), and `--no-open` prints a
//! one-time link for the user to paste. The daemon serves the page; the shim only
//! hands over, so it stays thin (ARCHITECTURE.md, `client/`).

use std::process::{ExitCode, Stdio};

use clap::Args;
use lean_ctx_shared::{
    LeanError, Paths,
    protocol::{DashboardRequest, Handover},
};
use serde_json::json;

use crate::{
    connect,
    output::{Output, rpc_error},
};

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Print a one-time link (valid for two minutes, once) to paste into a browser;
    /// do not open one.
    #[arg(long)]
    no_open: bool,
}

pub async fn run(args: DashboardArgs, paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let conn = connect::connect_or_spawn(paths, "lean-ctx dashboard", None).await?;
    let handover = if args.no_open {
        Handover::Link
    } else {
        Handover::File
    };
    let resp = conn
        .client
        .dashboard(tarpc::context::current(), DashboardRequest { handover })
        .await
        .map_err(rpc_error)??;
    if args.no_open {
        out.emit(&json!({"url": resp.url, "login": resp.handover}), || {
            format!(
                "{}\n(a one-time link: it opens the dashboard once, within two minutes)",
                resp.handover
            )
        });
        return Ok(ExitCode::SUCCESS);
    }
    out.emit(&json!({"url": resp.url, "page": resp.handover}), || {
        format!("opening {} in your browser", resp.url)
    });
    if let Err(e) = open_browser(&format!("file://{}", resp.handover)) {
        // A machine without a browser is no failure: the link form works anywhere.
        eprintln!(
            "could not open a browser ({e}); run `lean-ctx dashboard --no-open` and paste its link"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Hands the one-time page to the desktop's opener without waiting for the browser.
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
