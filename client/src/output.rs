//! Rendering answers: compact text for people, JSON with `--json`, and errors as
//! `ERROR: CODE: message` plus the remedy (JSON: `{"error":{code,message,remedy}}`).

use std::{io::Write, process::ExitCode, time::Duration};

use lean_ctx_shared::{
    LeanError,
    daemons::Record,
    protocol::{IndexState, ProjectStatus, StatusResponse},
};
use serde::Serialize;

#[derive(Debug)]
pub struct Output {
    pub json: bool,
    /// Print nothing on success (a step inside another command).
    pub quiet: bool,
}

impl Output {
    /// Prints `value` as JSON, or `human` as text.
    pub fn emit<T: Serialize>(&self, value: &T, human: impl FnOnce() -> String) {
        if self.quiet {
            return;
        }
        let text = if self.json {
            serde_json::to_string_pretty(value).expect("answers serialize")
        } else {
            human()
        };
        print(&text);
    }

    /// Prints an error and returns the exit code for it.
    pub fn error(&self, e: &LeanError) -> ExitCode {
        if self.json {
            let mut value = serde_json::json!({"error": {
                "code": e.code.as_str(), "message": e.message, "remedy": e.remedy()
            }});
            if let Some(details) = &e.details {
                value["error"]["details"] =
                    serde_json::to_value(details).expect("details serialize");
            }
            print(&serde_json::to_string_pretty(&value).expect("json"));
        } else {
            eprintln!("{}", lean_ctx_shared::render::error(e));
        }
        self.exit_code(e)
    }

    /// The exit code of an error: 2, as grep's and ripgrep's (1 is "nothing
    /// found"), or 75 (EX_TEMPFAIL) for `INDEXING`, which tells scripts that
    /// retrying later will work.
    pub fn exit_code(&self, e: &LeanError) -> ExitCode {
        if e.code == lean_ctx_shared::ErrorCode::Indexing {
            return ExitCode::from(75);
        }
        ExitCode::from(2)
    }

    pub fn project(&self, p: &ProjectStatus) {
        self.emit(p, || {
            let mut s = format!(
                "root    {}\ngroup   {}",
                p.root.display(),
                p.worktree_group.display()
            );
            if let Some(branch) = &p.branch {
                s.push_str(&format!("\nbranch  {branch}"));
            }
            s.push_str(&format!("\ncalls   {}", p.calls));
            s
        });
    }

    /// `lean-ctx servers`: the servers; after an eviction or a restart, how many it
    /// touched first.
    pub fn servers(
        &self,
        resp: &lean_ctx_shared::protocol::LanguageServersResponse,
        listing: bool,
    ) {
        self.emit(resp, || {
            let touched = match (listing, resp.affected) {
                (true, _) => String::new(),
                (false, 1) => "1 server\n".to_string(),
                (false, n) => format!("{n} servers\n"),
            };
            let listed = servers(&resp.servers);
            let listed = if resp.servers.is_empty() {
                "no language server runs\n"
            } else {
                listed.as_str()
            };
            format!("{touched}{listed}{}", languages(&resp.languages))
                .trim_end()
                .to_string()
        });
    }

    /// `daemon status` of a daemon that answered, with the other builds' daemons
    /// (`other_builds`, from their records in the runtime dir).
    pub fn status(&self, st: &StatusResponse, others: &[Record]) {
        let mut value = serde_json::to_value(st).expect("status serializes");
        value["running"] = true.into();
        value["responsive"] = true.into();
        value["other_builds"] = serde_json::to_value(others).expect("records serialize");
        self.emit(&value, || {
            format!("{}{}", render_status(st), render_other_builds(others))
        });
    }
}

/// `text` and a newline on stdout. A closed pipe (`| head`) is not an error worth a
/// panic, as `println!` would make it: what was not read is dropped.
pub fn print(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Maps a tarpc transport failure to a catalog error.
pub fn rpc_error(e: tarpc::client::RpcError) -> LeanError {
    let timeout = matches!(e, tarpc::client::RpcError::DeadlineExceeded);
    LeanError::internal(format!("the call to lean-ctxd failed: {e}")).with_remedy(if timeout {
        "the daemon is busy or wedged: `lean-ctx daemon status`, then `lean-ctx daemon restart`"
    } else {
        "the daemon went away mid-call; retry (it is restarted on demand), and see `lean-ctx daemon logs`"
    })
}

/// The other builds' daemons, one line each; nothing when there are none.
pub fn render_other_builds(others: &[Record]) -> String {
    if others.is_empty() {
        return String::new();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut s = String::from(
        "\nother builds' daemons (each serves the sessions of its own build; an older one exits once its sessions end):",
    );
    for r in others {
        s.push_str(&format!(
            "\n  pid {}, lean-ctx {} build {}, started by {}, up {}, socket {}",
            r.pid,
            r.version,
            r.build,
            r.started_by,
            humantime::format_duration(Duration::from_secs(
                now.saturating_sub(r.started_at_unix_ms) / 1000
            )),
            r.socket.display()
        ));
    }
    s
}

fn render_status(st: &StatusResponse) -> String {
    let idle = match st.idle_exit_after_ms {
        Some(ms) => format!(
            " (exits after {} idle)",
            humantime::format_duration(Duration::from_secs(ms / 1000))
        ),
        None => String::new(),
    };
    let rss = st
        .rss_bytes
        .map(|b| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)))
        .unwrap_or_else(|| "unknown".into());
    let mut s = format!(
        "lean-ctxd {} running, pid {}, protocol {} (build {})\n\
         started by   {}{idle}\n\
         uptime       {}\n\
         socket       {}\n\
         log          {}\n\
         rss          {rss}\n\
         clients      {} connected, {} calls in flight, {} served\n",
        st.version,
        st.pid,
        st.protocol,
        st.build,
        st.started_by.as_str(),
        humantime::format_duration(Duration::from_secs(st.uptime_ms / 1000)),
        st.socket.display(),
        st.log_file.display(),
        st.connected_clients,
        st.in_flight_calls,
        st.calls_served,
    );
    if let Some(why) = &st.config_ignored {
        s.push_str(&format!(
            "config       IGNORED (defaults apply, nothing is trusted): {why}\n"
        ));
    }
    for c in &st.caches {
        let lookups = c.hits + c.misses;
        let rate = if lookups == 0 {
            0.0
        } else {
            100.0 * c.hits as f64 / lookups as f64
        };
        let capacity = match c.capacity_bytes {
            0 => "unbounded".to_string(),
            n => format!("{} KiB", n / 1024),
        };
        s.push_str(&format!(
            "cache        {}: {} entries, {} KiB of {capacity}, {} hits / {} misses ({rate:.0}%)\n",
            c.name,
            c.entries,
            c.bytes / 1024,
            c.hits,
            c.misses
        ));
    }
    match &st.store {
        Some(store) => s.push_str(&format!(
            "store        {}: {} KiB of {} KiB, {} entries, {} parses served / {} misses{}\n",
            store.path.display(),
            store.bytes / 1024,
            store.cap_bytes / 1024,
            store.entries,
            store.hits,
            store.misses,
            store
                .note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        )),
        None => s.push_str("store        off (index.store_max_bytes = 0)\n"),
    }
    if st.projects.is_empty() {
        s.push_str("projects     none yet\n");
        s.push_str(&servers(&st.language_servers));
        s.push_str(&ides(&st.ides));
        return s.trim_end().to_string();
    }
    s.push_str(&format!("projects     {}\n", st.projects.len()));
    let mut rows = vec![vec![
        "ROOT".to_string(),
        "GROUP".into(),
        "BRANCH".into(),
        "FILES".into(),
        "CACHE".into(),
        "HIT%".into(),
        "WATCHED".into(),
        "BACKINGS".into(),
    ]];
    for p in &st.projects {
        let watched = match &p.index {
            Some(ix) => match &ix.unwatched {
                None => "yes".to_string(),
                Some(why) => format!(
                    "NO, rescanned every {}s ({why})",
                    ix.rescan_interval_ms / 1000
                ),
            },
            None => "-".into(),
        };
        let (files, cache, hit) = match &p.index {
            Some(ix) => {
                let lookups = ix.symbol_cache.hits + ix.symbol_cache.misses;
                let hit = if lookups == 0 {
                    "-".into()
                } else {
                    format!(
                        "{:.0}",
                        100.0 * ix.symbol_cache.hits as f64 / lookups as f64
                    )
                };
                let files = match ix.state {
                    IndexState::Ready => ix.files_indexed.to_string(),
                    IndexState::Indexing => {
                        format!("{}/{} indexing", ix.files_indexed, ix.files_total)
                    }
                };
                (
                    files,
                    format!("{} syms / {} KiB", ix.symbols, ix.symbol_bytes / 1024),
                    hit,
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let group = if p.worktree_group == p.root {
            "(itself)".to_string()
        } else {
            p.worktree_group.display().to_string()
        };
        let backings = if p.backings.is_empty() {
            "-".to_string()
        } else {
            p.backings
                .iter()
                .map(|b| format!("{}: {}", b.name, b.state))
                .collect::<Vec<_>>()
                .join(", ")
        };
        rows.push(vec![
            p.root.display().to_string(),
            group,
            p.branch.clone().unwrap_or_else(|| "-".into()),
            files,
            cache,
            hit,
            watched,
            backings,
        ]);
    }
    s.push_str(&table(rows));
    s.push_str(&servers(&st.language_servers));
    s.push_str(&ides(&st.ides));
    s.trim_end().to_string()
}

/// Rows as aligned columns, two spaces of indent.
fn table(rows: Vec<Vec<String>>) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        s.push_str("  ");
        s.push_str(line.join("  ").trim_end());
        s.push('\n');
    }
    s
}

/// The language-server table of `daemon status`.
/// The server each language of the project gets: `rust: rust-analyzer`, or what to
/// install when it is not found.
fn languages(list: &[lean_ctx_shared::protocol::LanguageUse]) -> String {
    let mut s = String::new();
    for l in list {
        let server = match (l.server.as_str(), l.found, &l.get) {
            ("", _, None) => "no server known".to_string(),
            ("", _, Some(why)) => format!("refused: {why}"),
            (server, true, _) => server.to_string(),
            (server, false, Some(get)) => format!("{server} (not found: {get})"),
            (server, false, None) => format!("{server} (not found)"),
        };
        s.push_str(&format!("{}: {server}\n", l.language));
    }
    s
}

fn servers(list: &[lean_ctx_shared::protocol::LanguageServerStatus]) -> String {
    if list.is_empty() {
        return "servers      none running\n".into();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut rows = vec![
        [
            "ROOT", "LANG", "SERVER", "PID", "STATE", "RSS", "DOCS", "CALLS", "IDLE",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for sv in list {
        let state = match (&sv.progress, sv.state) {
            (Some(p), _) => format!("{} {}%", sv.state.as_str(), p.percent),
            (None, lean_ctx_shared::protocol::ServerState::Failed) => format!(
                "failed: {}",
                sv.message
                    .as_deref()
                    .unwrap_or("?")
                    .chars()
                    .take(60)
                    .collect::<String>()
            ),
            (None, state) => state.as_str().to_string(),
        };
        rows.push(vec![
            sv.root.display().to_string(),
            sv.language.clone(),
            sv.server.clone(),
            sv.pid.map_or("-".into(), |p| p.to_string()),
            state,
            sv.rss_bytes.map_or("-".into(), |b| {
                format!("{:.0} MiB", b as f64 / (1024.0 * 1024.0))
            }),
            sv.open_documents.to_string(),
            sv.calls_served.to_string(),
            humantime::format_duration(Duration::from_secs(
                now.saturating_sub(sv.last_used_unix_ms) / 1000,
            ))
            .to_string(),
        ]);
    }
    format!("servers      {}\n{}", list.len(), table(rows))
}

/// The IDE windows of `daemon status`.
fn ides(list: &[lean_ctx_shared::protocol::IdeStatus]) -> String {
    if list.is_empty() {
        return "ides         none found\n".into();
    }
    let mut rows = vec![
        ["PROJECT", "IDE", "PID", "PORT", "REACHABLE"]
            .map(String::from)
            .to_vec(),
    ];
    for ide in list {
        rows.push(vec![
            ide.project_root.display().to_string(),
            ide.ide_version.clone(),
            ide.pid.to_string(),
            ide.port.to_string(),
            match (&ide.ignored, ide.reachable) {
                (Some(why), _) => format!("no: {why}"),
                (None, Some(true)) => "yes".into(),
                (None, Some(false)) => "no".into(),
                (None, None) => "not checked yet".into(),
            },
        ]);
    }
    format!("ides         {}\n{}", list.len(), table(rows))
}
