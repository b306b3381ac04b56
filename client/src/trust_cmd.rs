//! `lean-ctx trust [DIR] [--remove] [--list]`: the user's way to let language servers
//! run in a project (the daemon's `trust.rs` says why they need it). It edits the
//! `[trust] roots` list of `config.toml` directly (comments and other settings kept),
//! never through the daemon: no socket operation and no MCP tool can grant trust, so
//! an agent cannot either. The daemon notices the change on its next call.

use std::{
    fs,
    os::unix::fs::DirBuilderExt,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;
use lean_ctx_shared::{ErrorCode, LeanError, Paths, paths::write_atomic};
use serde_json::json;
use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::output::Output;

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The directory to trust (with everything below it); default: the project root
    /// around the working directory.
    dir: Option<PathBuf>,
    /// Withdraw trust from DIR instead.
    #[arg(long, conflicts_with = "list")]
    remove: bool,
    /// Show the trusted roots and patterns.
    #[arg(long)]
    list: bool,
}

pub fn run(
    args: TrustArgs,
    project_root: &Path,
    paths: &Paths,
    out: &Output,
) -> Result<ExitCode, LeanError> {
    let file = paths.config_file();
    if args.list {
        let roots = entries(&read(&file)?);
        out.emit(&json!({"config": file, "roots": roots}), || {
            if roots.is_empty() {
                format!(
                    "no trusted roots ({}): language servers start nowhere",
                    file.display()
                )
            } else {
                roots.join("\n")
            }
        });
        return Ok(ExitCode::SUCCESS);
    }
    let dir = match &args.dir {
        Some(dir) => fs::canonicalize(dir).map_err(|e| {
            LeanError::new(ErrorCode::FileNotFound, format!("{}: {e}", dir.display()))
                .with_remedy("give an existing directory")
        })?,
        None => fs::canonicalize(project_root).unwrap_or_else(|_| project_root.to_path_buf()),
    };
    let changed = set(paths, &dir, !args.remove)?;
    let entry = dir.display();
    out.emit(
        &json!({"root": dir, "trusted": !args.remove, "changed": changed, "config": file}),
        || match (changed, args.remove) {
            (true, false) => format!(
                "trusted {entry}: language servers may now run its code ({})",
                file.display()
            ),
            (true, true) => format!("no longer trusted: {entry} ({})", file.display()),
            (false, false) => format!("already trusted: {entry}"),
            (false, true) => format!("not in the trust list: {entry}"),
        },
    );
    Ok(ExitCode::SUCCESS)
}

/// Adds `dir` (canonical) to the trust list or removes it; whether the file changed.
pub fn set(paths: &Paths, dir: &Path, trusted: bool) -> Result<bool, LeanError> {
    let file = paths.config_file();
    let mut doc = read(&file)?;
    let entry = dir.to_string_lossy();
    let list = roots_array(&mut doc);
    let present = list.iter().position(|v| v.as_str() == Some(&entry));
    match (trusted, present) {
        (true, None) => list.push(entry.as_ref()),
        (false, Some(i)) => {
            list.remove(i);
        }
        _ => return Ok(false),
    }
    if let Some(parent) = file.parent().filter(|p| !p.exists()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| config_error(parent, e.to_string()))?;
    }
    write_atomic(&file, doc.to_string().as_bytes())
        .map_err(|e| config_error(&file, e.to_string()))?;
    Ok(true)
}

fn read(file: &Path) -> Result<DocumentMut, LeanError> {
    let text = match fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(config_error(file, e.to_string())),
    };
    text.parse()
        .map_err(|e: toml_edit::TomlError| config_error(file, e.to_string()))
}

/// The `[trust] roots` array, created if missing.
fn roots_array(doc: &mut DocumentMut) -> &mut Array {
    if !doc.get("trust").is_some_and(Item::is_table_like) {
        doc.insert("trust", Item::Table(Table::new()));
    }
    let roots = doc["trust"]
        .as_table_like_mut()
        .expect("made a table above")
        .entry("roots")
        .or_insert(Item::Value(Value::Array(Array::new())));
    if !roots.is_array() {
        *roots = Item::Value(Value::Array(Array::new()));
    }
    roots.as_array_mut().expect("made an array above")
}

fn entries(doc: &DocumentMut) -> Vec<String> {
    doc.get("trust")
        .and_then(|t| t.get("roots"))
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn config_error(path: &Path, why: String) -> LeanError {
    LeanError::new(
        ErrorCode::InvalidTarget,
        format!("cannot update {}: {why}", path.display()),
    )
    .with_remedy("fix config.toml (README: Configuration), then run lean-ctx trust again")
}
