//! `lean-ctx trust [DIR | --glob PATTERN] [--remove] [--list]`: the user's way to let
//! language servers run in a project (the daemon's `trust.rs` says why they need it).
//! It edits the `[trust] roots` list (exact directories) or, with `--glob`, the
//! `[trust] globs` list of `config.toml` directly (comments and other settings kept),
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
    /// The directory to trust (with everything below it), taken as written; default:
    /// the project root around the working directory.
    dir: Option<PathBuf>,
    /// Trust every root matching PATTERN instead (`~/src/**`; `*` and `?` stay
    /// within one directory name, `**` crosses them).
    #[arg(long, value_name = "PATTERN", conflicts_with = "dir")]
    glob: Option<String>,
    /// Withdraw trust from DIR (or PATTERN) instead.
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
        let doc = read(&file)?;
        let (roots, globs) = (entries(&doc, ROOTS), entries(&doc, GLOBS));
        out.emit(
            &json!({"config": file, "roots": roots, "globs": globs}),
            || {
                if roots.is_empty() && globs.is_empty() {
                    format!(
                        "no trusted roots ({}): language servers start nowhere",
                        file.display()
                    )
                } else {
                    let globs = globs.iter().map(|g| format!("{g} (pattern)"));
                    roots
                        .iter()
                        .cloned()
                        .chain(globs)
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            },
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(pattern) = &args.glob {
        let changed = set_entry(paths, GLOBS, pattern, !args.remove)?;
        out.emit(
            &json!({"glob": pattern, "trusted": !args.remove, "changed": changed, "config": file}),
            || match (changed, args.remove) {
                (true, false) => format!(
                    "trusted every root matching {pattern}: language servers may now run their code ({})",
                    file.display()
                ),
                (true, true) => format!("no longer trusted: {pattern} ({})", file.display()),
                (false, false) => format!("already trusted: {pattern}"),
                (false, true) => format!("not in the trust list: {pattern}"),
            },
        );
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

/// `[trust]`'s list of exact directories.
const ROOTS: &str = "roots";
/// `[trust]`'s list of patterns.
const GLOBS: &str = "globs";

/// Adds `dir` (canonical) to the trust list or removes it; whether the file changed.
pub fn set(paths: &Paths, dir: &Path, trusted: bool) -> Result<bool, LeanError> {
    set_entry(paths, ROOTS, &dir.to_string_lossy(), trusted)
}

/// Adds `entry` to `[trust] <key>` or removes it; whether the file changed.
fn set_entry(paths: &Paths, key: &str, entry: &str, trusted: bool) -> Result<bool, LeanError> {
    let file = paths.config_file();
    let mut doc = read(&file)?;
    let list = trust_array(&mut doc, key);
    let present = list.iter().position(|v| v.as_str() == Some(entry));
    match (trusted, present) {
        (true, None) => list.push(entry),
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

/// The `[trust] <key>` array, created if missing.
fn trust_array<'d>(doc: &'d mut DocumentMut, key: &str) -> &'d mut Array {
    if !doc.get("trust").is_some_and(Item::is_table_like) {
        doc.insert("trust", Item::Table(Table::new()));
    }
    let roots = doc["trust"]
        .as_table_like_mut()
        .expect("made a table above")
        .entry(key)
        .or_insert(Item::Value(Value::Array(Array::new())));
    if !roots.is_array() {
        *roots = Item::Value(Value::Array(Array::new()));
    }
    roots.as_array_mut().expect("made an array above")
}

fn entries(doc: &DocumentMut, key: &str) -> Vec<String> {
    doc.get("trust")
        .and_then(|t| t.get(key))
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
