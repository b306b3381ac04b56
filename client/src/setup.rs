//! `lean-ctx setup`: the MCP configuration that points the common agents at
//! `lean-ctx mcp`. Prints it by default; `--write` merges it into each agent's config
//! file (other servers and settings kept, a file that does not parse left alone);
//! `--service` also installs the daemon as a background service.
//!
//! The agents: Claude Code, Cursor, VS Code and Codex; Codex's TOML is merged with
//! toml_edit so its comments stay. `--write` also trusts the project it runs in
//! (`trust_cmd`).

use std::{
    fs,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::{Args, ValueEnum};
use lean_ctx_shared::{LeanError, Paths};
use serde::Serialize;
use serde_json::json;

use crate::{
    install::{self, home},
    output::Output,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agent {
    /// Claude Code: `.mcp.json` in the project.
    Claude,
    /// Cursor: `~/.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json` in the project.
    Vscode,
    /// Codex: `~/.codex/config.toml`.
    Codex,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The agents to configure (repeatable; default: all).
    #[arg(long, value_enum)]
    agent: Vec<Agent>,
    /// Merge the configuration into the agents' files instead of printing it.
    #[arg(long)]
    write: bool,
    /// Also install the daemon as a service (`lean-ctx daemon install`).
    #[arg(long)]
    service: bool,
}

#[derive(Debug, Serialize)]
struct AgentConfig {
    agent: Agent,
    path: PathBuf,
    /// The lean-ctx entry in the file's format.
    entry: String,
    written: bool,
}

const NAME: &str = "lean-ctx";

pub async fn run(
    args: SetupArgs,
    root: &Path,
    paths: &Paths,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let shim = std::env::current_exe()
        .and_then(fs::canonicalize)
        .map_err(|e| LeanError::internal(format!("cannot locate lean-ctx itself: {e}")))?;
    let command = shim.display().to_string();
    let agents = if args.agent.is_empty() {
        vec![Agent::Claude, Agent::Cursor, Agent::Vscode, Agent::Codex]
    } else {
        args.agent.clone()
    };
    let mut configs = Vec::new();
    for agent in agents {
        let (path, entry) = match agent {
            Agent::Claude => (
                root.join(".mcp.json"),
                json!({"command": command, "args": ["mcp"]}),
            ),
            Agent::Cursor => (
                home()?.join(".cursor/mcp.json"),
                json!({"command": command, "args": ["mcp"]}),
            ),
            Agent::Vscode => (
                root.join(".vscode/mcp.json"),
                json!({"type": "stdio", "command": command, "args": ["mcp"]}),
            ),
            Agent::Codex => (home()?.join(".codex/config.toml"), serde_json::Value::Null),
        };
        let entry_text = match agent {
            Agent::Codex => {
                format!("[mcp_servers.{NAME}]\ncommand = {command:?}\nargs = [\"mcp\"]")
            }
            _ => serde_json::to_string_pretty(&json!({ servers_key(agent): { NAME: entry } }))
                .expect("json"),
        };
        if args.write {
            match agent {
                Agent::Codex => merge_toml(&path, &command)?,
                _ => merge_json(&path, servers_key(agent), &entry)?,
            }
        }
        configs.push(AgentConfig {
            agent,
            path,
            entry: entry_text,
            written: args.write,
        });
    }
    // The user ran this in the project: that is the trust an agent cannot give.
    let trusted = if args.write {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        crate::trust_cmd::set(paths, &root, true)?;
        Some(root)
    } else {
        None
    };
    if args.service && args.write {
        install::install(
            install::ServiceArgs::default(),
            paths,
            &Output {
                json: out.json,
                quiet: true,
            },
        )
        .await?;
    }
    out.emit(
        &json!({"agents": configs, "service": args.service && args.write, "trusted": trusted}),
        || {
            let mut s = String::new();
            for c in &configs {
                if c.written {
                    s.push_str(&format!("{:?}: wrote {}\n", c.agent, c.path.display()));
                } else {
                    s.push_str(&format!(
                        "{:?}: add to {}\n{}\n\n",
                        c.agent,
                        c.path.display(),
                        c.entry
                    ));
                }
            }
            match &trusted {
                Some(root) => s.push_str(&format!(
                    "trusted {}: language servers may run its code (lean-ctx trust --remove withdraws it)\n",
                    root.display()
                )),
                None => s.push_str(
                    "(`lean-ctx setup --write` merges these into the files and trusts this project)",
                ),
            }
            s.trim_end().to_string()
        },
    );
    Ok(ExitCode::SUCCESS)
}

fn servers_key(agent: Agent) -> &'static str {
    match agent {
        Agent::Vscode => "servers",
        _ => "mcpServers",
    }
}

fn write_atomic(path: &Path, content: &str) -> Result<(), LeanError> {
    lean_ctx_shared::paths::write_atomic(path, content.as_bytes())
        .map_err(|e| LeanError::internal(format!("cannot write {}: {e}", path.display())))
}

/// Sets `servers_key.lean-ctx` in a JSON config, keeping everything else.
fn merge_json(path: &Path, servers_key: &str, entry: &serde_json::Value) -> Result<(), LeanError> {
    let mut doc = match fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| {
                LeanError::internal(format!(
                    "{} does not parse as JSON ({e}); left untouched",
                    path.display()
                ))
                .with_remedy("fix it by hand, or run `lean-ctx setup` and paste the entry")
            })?,
        _ => json!({}),
    };
    let Some(root) = doc.as_object_mut() else {
        return Err(LeanError::internal(format!(
            "{} is not a JSON object; left untouched",
            path.display()
        )));
    };
    let servers = root.entry(servers_key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(LeanError::internal(format!(
            "{servers_key} in {} is not an object; left untouched",
            path.display()
        )));
    };
    servers.insert(NAME.to_string(), entry.clone());
    write_atomic(
        path,
        &(serde_json::to_string_pretty(&doc).expect("json") + "\n"),
    )
}

/// Sets `[mcp_servers.lean-ctx]` in Codex's TOML, keeping comments and everything else.
fn merge_toml(path: &Path, command: &str) -> Result<(), LeanError> {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| {
        LeanError::internal(format!(
            "{} does not parse as TOML ({e}); left untouched",
            path.display()
        ))
        .with_remedy("fix it by hand, or run `lean-ctx setup` and paste the entry")
    })?;
    let servers = doc.entry("mcp_servers").or_insert(toml_edit::table());
    let Some(servers) = servers.as_table_mut() else {
        return Err(LeanError::internal(format!(
            "mcp_servers in {} is not a table; left untouched",
            path.display()
        )));
    };
    servers.set_implicit(true);
    let mut entry = toml_edit::Table::new();
    entry["command"] = toml_edit::value(command);
    let mut args = toml_edit::Array::new();
    args.push("mcp");
    entry["args"] = toml_edit::value(args);
    servers.insert(NAME, toml_edit::Item::Table(entry));
    write_atomic(path, &doc.to_string())
}
