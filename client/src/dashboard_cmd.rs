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
    let ask = |handover| {
        let client = conn.client.clone();
        async move {
            client
                .dashboard(tarpc::context::current(), DashboardRequest { handover })
                .await
                .map_err(rpc_error)?
        }
    };
    let opened = if args.no_open {
        Err("--no-open".to_string())
    } else {
        let resp = ask(Handover::File).await?;
        open_browser(&format!("file://{}", resp.handover))
            .await
            .map(|()| resp)
    };
    match opened {
        Ok(resp) => out.emit(&json!({"url": resp.url, "page": resp.handover}), || {
            format!("opened {} in your browser", resp.url)
        }),
        // No browser (a server, an SSH session) is no failure: the link works anywhere.
        Err(why) => {
            let resp = ask(Handover::Link).await?;
            out.emit(
                &json!({"url": resp.url, "login": resp.handover, "opened": false}),
                || {
                    let said = if args.no_open {
                        String::new()
                    } else {
                        format!("no browser opened ({why}); ")
                    };
                    format!(
                        "{said}open this one-time link in a browser (once, within two minutes):\n{}",
                        resp.handover
                    )
                },
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How long the desktop's opener may take to say whether a browser took the page.
const OPENER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Hands the one-time page to the desktop's opener: done when it exits cleanly (or
/// is still running after [`OPENER_WAIT`], a browser in its foreground); why not when
/// it cannot start or exits with a failure (`xdg-open` finding no browser).
async fn open_browser(url: &str) -> Result<(), String> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut child = tokio::process::Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(false)
        .spawn()
        .map_err(|e| format!("{opener}: {e}"))?;
    match tokio::time::timeout(OPENER_WAIT, child.wait()).await {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(format!("{opener} {status}")),
        Ok(Err(e)) => Err(format!("{opener}: {e}")),
        Err(_) => Ok(()),
    }
}
